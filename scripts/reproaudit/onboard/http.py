"""Polite HTTP for other people's servers: one request at a time per host, spaced, 429
honoured, and a failure that may pass (a reset, a 5xx, a cut reply) tried again.

arXiv asks for one request every 3 seconds and OpenReview allows a few dozen
PDFs an hour; a run of 2,000 papers must never hammer either. Every request to
a host waits for that host's turn (``interval`` seconds after the previous
one, shared by all worker threads). A 429 reply moves the host's next turn to
the reset time it gives (``Retry-After``, ``X-RateLimit-Reset`` or
OpenReview's ``details.resetTime``) for every worker; a wait longer than
``max_wait`` raises ``Deferred`` so the paper is left for the next run instead
of blocking this one. Bodies are read under a size cap.

A connection refused, reset or timed out, a reply cut short, a 408, 500, 502,
503 or 504, or a body the caller finds incomplete (a PDF without its end
marker) is tried again up to ``retries`` times, ``backoff`` seconds after the
first failure and twice as long after each next one, at most ``max_wait`` (a
5xx's ``Retry-After`` when it gives one; a longer one defers the paper). The
back-off holds the host's next turn for every worker (a struggling host gets no
request meanwhile), and it is a wait on the run's
``Halt``: a deadline or an interrupt ends it at once (``Deferred``). When the
tries run out, ``Unavailable`` says which host, what it answered and how often.
Every try goes through ``_send``, so whatever it checks holds for each of them.
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
RETRIES = 3  # tries after the first for a failure that may pass
BACKOFF = 2.0  # seconds before the first retry; doubled before each next one
RETRY_STATUSES = frozenset({408, 500, 502, 503, 504})
# failures of the connection that may pass; a bad URL or our own protocol error does not
_TRANSIENT = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


class Deferred(ReproauditError):
    """The host asked us to wait longer than this run may: try the paper again later."""

    def __init__(self, host: str, seconds: float, why: str | None = None) -> None:
        super().__init__(
            why or f"{host} asked to wait {seconds:.0f} s (rate limit); left for the next run",
            "run the same command again later, or raise --max-wait",
        )
        self.host = host
        self.seconds = seconds


class Unavailable(ReproauditError):
    """A request failed every try (``what``: the last status or transport failure)."""

    def __init__(self, method: str, url: str, what: str, attempts: int) -> None:
        parts = urlsplit(url)
        self.host = parts.netloc
        self.what = what
        self.attempts = attempts
        self.status = int(what[5:8]) if what.startswith("HTTP ") else None
        tries = f"{attempts} tries" if attempts > 1 else "1 try"
        request = f"{method} {parts.path or '/'}"
        said = f" answered {what} to" if self.status else f": {what} on"
        super().__init__(f"{self.host}{said} {request} ({tries})")


class TooLarge(Exception):
    pass


def describe(exc: httpx.HTTPError) -> str:
    """A transport failure in a few words, with httpx's own detail when it adds one."""
    detail = " ".join(str(exc).split())[:120]
    if isinstance(exc, httpx.ConnectTimeout):
        label = "connect timed out"
    elif isinstance(exc, httpx.TimeoutException):
        label = "timed out"
    elif isinstance(exc, httpx.ConnectError):
        label = "connection refused" if "refused" in detail.lower() else "cannot connect"
    elif isinstance(exc, httpx.NetworkError):
        label = "connection reset" if "reset" in detail.lower() else "connection broken"
    elif isinstance(exc, httpx.RemoteProtocolError):
        label = "reply cut short" if "complete message body" in detail else "bad reply"
    else:
        label = type(exc).__name__
    return f"{label} ({detail})" if detail and detail.lower() != label else label


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
        retries: int = RETRIES,
        backoff: float = BACKOFF,
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
        self.retries = retries
        self.backoff = backoff
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
        self,
        method: str,
        url: str,
        max_bytes: int,
        complete: Callable[[bytes], str | None] | None = None,
        **kw: Any,
    ) -> tuple[httpx.Response, bytes]:
        host = urlsplit(url).netloc
        self._local.attempts = 0
        limited = failed = 0
        while True:
            response: httpx.Response | None = None
            body, what = b"", None
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
                except _TRANSIENT as exc:
                    response, what = None, describe(exc)
                finally:
                    # the next request leaves ``interval`` after this one ended: arrivals
                    # stay that far apart whatever the connection's delays
                    self._limited(host, self.intervals.get(host, self.default_interval))
            if response is not None and response.status_code == 429:
                limited += 1
                seconds = reset_seconds(response, body, self.clock())
                seconds = 60.0 if seconds is None else seconds
                self._limited(host, seconds)
                if seconds > self.max_wait:
                    raise Deferred(host, seconds)
                if limited > MAX_429:
                    raise Deferred(host, 0)
                continue
            if response is not None:
                if response.status_code in RETRY_STATUSES:
                    what = f"HTTP {response.status_code}"
                elif response.status_code == 200 and complete is not None:
                    what = complete(body)
            if what is None and response is not None:
                return response, body
            what = what or "no reply"
            failed += 1
            if failed > self.retries:
                raise Unavailable(method, url, what, self._local.attempts)
            self._back_off(host, what, failed, response)

    def _back_off(self, host: str, what: str, failed: int, response: httpx.Response | None) -> None:
        """Wait before the next try, holding the host's turn for every worker meanwhile: our
        own back-off at most ``max_wait``, a longer ``Retry-After`` defers the paper."""
        seconds = min(self.backoff * 2 ** (failed - 1), self.max_wait)
        asked = retry_after(response.headers.get("retry-after")) if response is not None else None
        if asked is not None and asked > self.max_wait:
            self._limited(host, asked)
            raise Deferred(host, asked, f"{host}: {what}, and asked to wait {asked:.0f} s")
        if asked is not None:
            seconds = asked
        self._limited(host, seconds)
        if not self.halt.sleep(seconds):
            raise Deferred(host, seconds, f"{host}: {what}; the run stopped before the next try")

    def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        """A small JSON request; the response's body is read (at most 64 MiB)."""
        response, body = self._send(method, url, 64 * 1024 * 1024, **kw)
        response._content = body  # httpx's own cache of the body: .json() reads it
        return response

    def download(
        self,
        url: str,
        headers: dict[str, str],
        max_bytes: int,
        complete: Callable[[bytes], str | None] | None = None,
    ) -> tuple[int, httpx.Headers, bytes]:
        """(status, headers, body) of a GET; ``TooLarge`` past ``max_bytes``; a 200 whose
        body ``complete`` finds cut short (it says how) is tried again like a reset."""
        response, body = self._send("GET", url, max_bytes, complete, headers=headers)
        return response.status_code, response.headers, body


def _read(response: httpx.Response, max_bytes: int) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"{response.url} sent more than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
