"""One chat-completions call with every cost bounded: time, bytes, retries, failures.

The endpoint is untrusted and may be down, slow, hostile or rate limited. So
each call here:

- has a total time per reply (``timeout``, and never past the run's deadline):
  every socket read, write and connect is given only what is left of it, so a
  reply trickled a byte a second, in its headers or its body, is cut on time;
- streams the reply and stops reading past ``max_bytes``; never reads an error body;
- treats 429 as throttling, never as an outage: the number of requests in flight
  is halved (at most once per round of requests) and grows back by one per round
  of answers, and a ``Retry-After`` makes every request wait that long, when the
  wait fits in ``max_wait`` and in the run's deadline (else the request fails
  without being sent); a request may be throttled ``max_throttled`` times, and an
  endpoint that has answered nothing but 429 for ``patience`` seconds stops the run;
- retries transport failures and 5xx (and 408/409) ``max_retries`` times with
  exponential back-off;
- shares a circuit breaker that counts requests, not attempts: a request counts
  once, when it has failed for good (a transport failure, a 5xx, or a 4xx that no
  retry will change, such as a wrong key), so its own retries never open the breaker
  alone and a short blip of 500s, absorbed by retries, counts for nothing. After
  ``breaker_threshold`` such requests with no answer between them, the endpoint is
  down for the rest of the run and no further request is sent. Requests cut by the
  run's deadline do not count.

httpx does the HTTP (it is what the ``openai`` client uses underneath, but that
client reads error bodies whole and retries where we cannot count or cancel);
``replyclock.py`` gives it a total time per reply and ``throttle.py`` is the 429 policy.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from ..boundedjson import loads
from .halt import Halt
from .replyclock import bound_reads, reply_clock
from .throttle import Throttle

MAX_RESPONSE_BYTES = 512 * 1024
RETRY_STATUSES = frozenset({408, 409, 500, 502, 503, 504})
THROTTLED = 429
MAX_RETRY_WAIT = 30.0  # seconds; a longer Retry-After is more than this run may wait
MAX_THROTTLED = 20  # 429 answers one request may get before it fails
THROTTLE_PATIENCE = 300.0  # seconds of nothing but 429 before the run stops
BREAKER_THRESHOLD = 5


@dataclass(frozen=True)
class Answer:
    """What one call produced: the reply's content, or why there is none."""

    content: str | None
    attempts: int  # HTTP requests actually sent
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None
    transport: bool = False  # True: the endpoint did not answer; False: it answered badly


class _TooLarge(Exception):
    pass


def retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN is no answer
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# --- the endpoint -------------------------------------------------------------------------


class Endpoint:
    """An OpenAI-compatible ``/chat/completions`` endpoint, shared by a run's workers."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 4,
        max_bytes: int = MAX_RESPONSE_BYTES,
        max_wait: float = MAX_RETRY_WAIT,
        max_throttled: int = MAX_THROTTLED,
        patience: float = THROTTLE_PATIENCE,
        breaker_threshold: int = BREAKER_THRESHOLD,
        backoff: float = 0.5,
    ) -> None:
        self._base_url = base_url.rstrip("/") + "/"
        self._headers = {"Authorization": f"Bearer {api_key or 'unused'}"}
        # Loading the CA bundle costs tens of milliseconds: once per endpoint, not per client.
        self._tls = httpx.create_ssl_context()
        self._local = threading.local()
        self._clients: list[tuple[threading.Thread, httpx.Client]] = []
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_bytes = max_bytes
        self.max_wait = max_wait
        self.max_throttled = max_throttled
        self.breaker_threshold = breaker_threshold
        self.backoff = backoff
        self.throttle = Throttle(patience)
        self._lock = threading.Lock()
        self._failed_requests = 0
        self.down: str | None = None  # why the breaker opened, once it has

    def _client(self) -> httpx.Client:
        """This thread's own client. One pool shared by every worker serialises them on its
        lock and rescans every connection per request (40% of the client's time at 64
        workers); a pool per thread holds one connection and no contention."""
        client: httpx.Client | None = getattr(self._local, "client", None)
        if client is None:
            client = httpx.Client(
                base_url=self._base_url,
                headers=self._headers,
                timeout=self.timeout,
                verify=self._tls,
                limits=httpx.Limits(max_connections=4, max_keepalive_connections=1),
            )
            bound_reads(client)
            with self._lock:
                ended = [c for thread, c in self._clients if not thread.is_alive()]
                self._clients = [(t, c) for t, c in self._clients if t.is_alive()]
                self._clients.append((threading.current_thread(), client))
            for old in ended:  # the workers of an earlier run: their connections go now
                old.close()
            self._local.client = client
        return client

    def close(self) -> None:
        with self._lock:
            clients, self._clients = self._clients, []
        for _, client in clients:
            client.close()

    def _failed(self, why: str) -> None:
        """A request failed for good (its retries spent): one count towards the breaker."""
        with self._lock:
            self._failed_requests += 1
            if self.down is None and self._failed_requests >= self.breaker_threshold:
                self.down = f"{self._failed_requests} requests failed in a row (last: {why})"

    def _answered(self) -> None:
        with self._lock:
            self._failed_requests = 0
        self.throttle.answered()

    def _pause(self, attempt: int) -> float:
        return min(8.0, self.backoff * 2**attempt) * random.uniform(0.75, 1.25)

    def complete(self, body: dict[str, Any], halt: Halt) -> Answer:
        """Send ``body``; retry what may pass on a second try; never raise for the network."""
        attempts = failures = throttled = 0
        while True:
            if self.down:
                return Answer(None, attempts, error=f"endpoint down: {self.down}", transport=True)
            refused = self.throttle.acquire(halt, self.max_wait)
            if refused:
                return Answer(None, attempts, error=refused, transport=True)
            attempts += 1
            sent_at = time.monotonic()
            try:
                status, headers, data = self._post(body, halt)
            except _TooLarge:
                status, headers, data = -1, httpx.Headers(), b""
            except httpx.HTTPError as exc:
                status, headers, data = 0, httpx.Headers(), b""
                error = f"{type(exc).__name__}: {str(exc)[:120] or 'no detail'}"
            except BaseException:
                self.throttle.release(sent_at, False, None)
                raise
            asked = retry_after(headers.get("retry-after"))
            stop = self.throttle.release(sent_at, status == THROTTLED, asked)
            if status == -1:
                self._answered()
                return Answer(None, attempts, error=f"reply larger than {self.max_bytes} bytes")
            if status == 200:
                self._answered()
                return _parse_completion(data, attempts, self.max_bytes)
            if status == THROTTLED:
                throttled += 1
                error = "HTTP 429 (throttled)"
                if stop:
                    with self._lock:
                        self.down = self.down or stop
                if asked is not None and (asked > self.max_wait or asked > halt.remaining()):
                    error += f", Retry-After {asked:g} s is longer than this run can wait"
                    return Answer(None, attempts, error=error, transport=True)
                if throttled > self.max_throttled:
                    error += f" {throttled} times"
                    return Answer(None, attempts, error=error, transport=True)
                if asked is None and not halt.sleep(self._pause(min(throttled, 4))):
                    return Answer(None, attempts, error=error, transport=True)
                continue
            if status:
                error = f"HTTP {status}"
            if halt.halted:  # cut by the run's deadline or Ctrl-C: not the endpoint's fault
                return Answer(None, attempts, error=error, transport=True)
            failures += 1
            if (status and status not in RETRY_STATUSES) or failures > self.max_retries:
                self._failed(error)
                return Answer(None, attempts, error=error, transport=True)
            wait = self._pause(failures - 1)
            if asked is not None:
                if asked > self.max_wait or asked > halt.remaining():
                    error += f", Retry-After {asked:g} s is longer than this run can wait"
                    self._failed(error)
                    return Answer(None, attempts, error=error, transport=True)
                wait = asked
            if not halt.sleep(wait):
                return Answer(None, attempts, error=error, transport=True)

    def _post(self, body: dict[str, Any], halt: Halt) -> tuple[int, httpx.Headers, bytes]:
        """POST ``body``; the whole reply must arrive within ``timeout`` and the deadline."""
        budget = max(min(self.timeout, halt.remaining()), 0.001)
        end = time.monotonic() + budget
        try:
            with (
                reply_clock(end),
                self._client().stream(
                    "POST", "chat/completions", json=body, timeout=budget
                ) as response,
            ):
                if response.status_code != 200:
                    return response.status_code, response.headers, b""  # the body is not read
                chunks, size = [], 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise _TooLarge
                    chunks.append(chunk)
                return 200, response.headers, b"".join(chunks)
        except httpx.TimeoutException as exc:
            if time.monotonic() >= end:
                raise type(exc)(f"no complete reply within {budget:.0f} s") from None
            raise


def _parse_completion(data: bytes, attempts: int, max_bytes: int) -> Answer:
    try:
        doc = loads(data, max_chars=max_bytes)
        usage = doc.get("usage") or {}
        prompt = _tokens(usage.get("prompt_tokens"))
        completion = _tokens(usage.get("completion_tokens"))
        choice = doc["choices"][0]
        content = choice["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("content is not text")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
        return Answer(None, attempts, error=f"not a chat completion: {str(exc)[:120]}")
    if choice.get("finish_reason") == "length":
        return Answer(None, attempts, prompt, completion, error="reply cut at the length limit")
    return Answer(content, attempts, prompt, completion)


def _tokens(value: Any) -> int:
    """A token count as reported (any JSON), as a sane integer."""
    return max(0, min(int(value or 0), 10**12))
