"""Polite HTTP for other people's servers: one request at a time per host, spaced, 429 honoured.

arXiv asks for one request every 3 seconds and OpenReview allows a few dozen
PDFs an hour; a run of 2,000 papers must never hammer either. Every request to
a host waits for that host's turn (``interval`` seconds after the previous
one, shared by all worker threads). A 429 reply moves the host's next turn to
the reset time it gives (``Retry-After``, ``X-RateLimit-Reset`` or
OpenReview's ``details.resetTime``) for every worker; a wait longer than
``max_wait`` raises ``Deferred`` so the paper is left for the next run instead
of blocking this one. Bodies are read under a size cap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..boundedjson import loads
from ..errors import ReproauditError
from ..llm.endpoint import retry_after
from ..llm.halt import Halt

USER_AGENT = "reproaudit-onboard (+https://github.com/reproaudit; polite: one request at a time)"
MAX_429 = 5  # 429 replies in a row for one request before it is deferred


class Deferred(ReproauditError):
    """The host asked us to wait longer than this run may: try the paper again later."""

    def __init__(self, host: str, seconds: float) -> None:
        super().__init__(
            f"{host} asked to wait {seconds:.0f} s (rate limit); left for the next run",
            "run the same command again later, or raise --max-wait",
        )
        self.host = host
        self.seconds = seconds


class TooLarge(Exception):
    pass


def reset_seconds(response: httpx.Response, body: bytes, now: float) -> float | None:
    """Seconds until a 429's limit resets, from its headers or an OpenReview error body."""
    asked = retry_after(response.headers.get("retry-after"))
    if asked is not None:
        return asked
    reset = response.headers.get("x-ratelimit-reset")
    if reset:
        try:
            value = float(reset)
            return max(0.0, value - now) if value > 1e9 else max(0.0, value)
        except ValueError:
            pass
    try:
        details = loads(body or b"{}").get("details") or {}
        when = datetime.fromisoformat(str(details["resetTime"]).replace("Z", "+00:00"))
        return max(0.0, when.timestamp() - now)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class Polite:
    """A shared httpx client that spaces requests per host and honours 429 reset times."""

    def __init__(
        self,
        *,
        intervals: dict[str, float] | None = None,
        default_interval: float = 0.0,
        max_wait: float = 120.0,
        timeout: float = 60.0,
        halt: Halt | None = None,
        clock: Callable[[], float] = time.time,
        on_request: Callable[[str], None] | None = None,
    ) -> None:
        self._client = httpx.Client(
            timeout=timeout, follow_redirects=True, headers={"User-Agent": USER_AGENT}
        )
        self.intervals = dict(intervals or {})
        self.default_interval = default_interval
        self.max_wait = max_wait
        self.halt = halt or Halt()
        self.clock = clock
        self.on_request = on_request
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}
        self._host_locks: dict[str, threading.Lock] = {}
        self._local = threading.local()
        self.sent = 0  # HTTP requests sent, all hosts

    @property
    def last_attempts(self) -> int:
        """HTTP requests the calling thread's last ``request``/``download`` sent."""
        return getattr(self._local, "attempts", 0)

    def close(self) -> None:
        self._client.close()

    def _host_lock(self, host: str) -> threading.Lock:
        with self._lock:
            return self._host_locks.setdefault(host, threading.Lock())

    def _turn(self, host: str) -> None:
        """Wait for ``host``'s next free slot; ``Deferred`` when it is further than max_wait."""
        with self._lock:
            now = self.clock()
            start = max(now, self._next.get(host, 0.0))
            wait = start - now
            if wait > self.max_wait:
                raise Deferred(host, wait)
            self._next[host] = start + self.intervals.get(host, self.default_interval)
        if wait > 0 and not self.halt.sleep(wait):
            raise Deferred(host, wait)  # the run is stopping: leave the paper for later

    def _limited(self, host: str, seconds: float) -> None:
        with self._lock:
            self._next[host] = max(self._next.get(host, 0.0), self.clock() + seconds)

    def _send(
        self, method: str, url: str, max_bytes: int, **kw: Any
    ) -> tuple[httpx.Response, bytes]:
        host = urlsplit(url).netloc
        self._local.attempts = 0
        for _ in range(MAX_429 + 1):
            # one request at a time per host: the spacing holds even with slow replies
            with self._host_lock(host):
                self._turn(host)
                self._local.attempts += 1
                with self._lock:
                    self.sent += 1
                if self.on_request:
                    self.on_request(host)
                try:
                    with self._client.stream(method, url, **kw) as response:
                        body = _read(response, max_bytes if response.status_code == 200 else 65536)
                finally:
                    # the next request leaves ``interval`` after this one ended: arrivals
                    # stay that far apart whatever the connection's delays
                    self._limited(host, self.intervals.get(host, self.default_interval))
            if response.status_code != 429:
                return response, body
            seconds = reset_seconds(response, body, self.clock())
            seconds = 60.0 if seconds is None else seconds
            if seconds > self.max_wait:
                self._limited(host, seconds)
                raise Deferred(host, seconds)
            self._limited(host, seconds)
        raise Deferred(host, 0)

    def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        """A small JSON request; the response's body is read (at most 64 MiB)."""
        response, body = self._send(method, url, 64 * 1024 * 1024, **kw)
        response._content = body  # httpx's own cache of the body: .json() reads it
        return response

    def download(
        self, url: str, headers: dict[str, str], max_bytes: int
    ) -> tuple[int, httpx.Headers, bytes]:
        """(status, headers, body) of a GET; ``TooLarge`` past ``max_bytes``."""
        response, body = self._send("GET", url, max_bytes, headers=headers)
        return response.status_code, response.headers, body


def _read(response: httpx.Response, max_bytes: int) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"{response.url} sent more than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
