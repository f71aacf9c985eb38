"""One chat-completions call with every cost bounded: time, bytes, retries, failures.

The endpoint is untrusted and may be down, slow, hostile or rate limited. So
each call here: streams the reply and stops reading past ``max_bytes``; never
reads an error body; retries 408/409/429/5xx and broken connections with
exponential back-off, honouring ``Retry-After`` only when it fits in
``max_wait`` and in the run's deadline; counts every HTTP attempt; and shares a
circuit breaker: after ``breaker_threshold`` transport failures in a row (no
success between them) the endpoint is declared down for the rest of the run and
no further request is sent. httpx does the HTTP (it is what the ``openai``
client uses underneath, but that client reads error bodies whole and retries
where we cannot count or cancel).
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from .halt import Halt

MAX_RESPONSE_BYTES = 512 * 1024
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_RETRY_WAIT = 30.0  # seconds; a longer Retry-After is an outage for this run
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
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


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
        breaker_threshold: int = BREAKER_THRESHOLD,
        backoff: float = 0.5,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key or 'unused'}"}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=timeout,
            limits=httpx.Limits(max_connections=512, max_keepalive_connections=128),
        )
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_bytes = max_bytes
        self.max_wait = max_wait
        self.breaker_threshold = breaker_threshold
        self.backoff = backoff
        self._lock = threading.Lock()
        self._failures_in_a_row = 0
        self.down: str | None = None  # why the breaker opened, once it has

    def close(self) -> None:
        self._client.close()

    def _failed(self, why: str) -> None:
        with self._lock:
            self._failures_in_a_row += 1
            if self.down is None and self._failures_in_a_row >= self.breaker_threshold:
                self.down = f"{self._failures_in_a_row} transport failures in a row (last: {why})"

    def _answered(self) -> None:
        with self._lock:
            self._failures_in_a_row = 0

    def _pause(self, attempt: int) -> float:
        return min(8.0, self.backoff * 2**attempt) * random.uniform(0.75, 1.25)

    def complete(self, body: dict[str, Any], halt: Halt) -> Answer:
        """Send ``body``; retry what may pass on a second try; never raise for the network."""
        attempts = 0
        error = "no request sent"
        for attempt in range(self.max_retries + 1):
            if self.down:
                return Answer(None, attempts, error=f"endpoint down: {self.down}", transport=True)
            if halt.halted:
                return Answer(None, attempts, error=f"not sent: {halt.why}", transport=True)
            attempts += 1
            wait = self._pause(attempt)
            try:
                status, headers, data = self._post(body, min(self.timeout, halt.remaining()))
            except _TooLarge:
                self._answered()
                return Answer(None, attempts, error=f"reply larger than {self.max_bytes} bytes")
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {str(exc)[:120] or 'no detail'}"
                self._failed(error)
            else:
                if status == 200:
                    self._answered()
                    return _parse_completion(data, attempts)
                error = f"HTTP {status}"
                self._failed(error)
                if status not in RETRY_STATUSES:
                    return Answer(None, attempts, error=error, transport=True)
                asked = retry_after(headers.get("retry-after"))
                if asked is not None:
                    if asked > self.max_wait or asked > halt.remaining():
                        error += f", Retry-After {asked:g} s is longer than this run can wait"
                        return Answer(None, attempts, error=error, transport=True)
                    wait = asked
            if attempt == self.max_retries or not halt.sleep(wait):
                break
        return Answer(None, attempts, error=error, transport=True)

    def _post(self, body: dict[str, Any], timeout: float) -> tuple[int, httpx.Headers, bytes]:
        started = time.monotonic()
        with self._client.stream(
            "POST", "chat/completions", json=body, timeout=max(timeout, 0.001)
        ) as response:
            if response.status_code != 200:
                return response.status_code, response.headers, b""  # the body is not read
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_bytes:
                    raise _TooLarge
                if time.monotonic() - started > 2 * timeout + 1:
                    raise httpx.ReadTimeout("reply trickled past the time limit")
                chunks.append(chunk)
            return 200, response.headers, b"".join(chunks)


def _parse_completion(data: bytes, attempts: int) -> Answer:
    try:
        doc = json.loads(data)
        usage = doc.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        choice = doc["choices"][0]
        content = choice["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("content is not text")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        return Answer(None, attempts, error=f"not a chat completion: {str(exc)[:120]}")
    if choice.get("finish_reason") == "length":
        return Answer(None, attempts, prompt, completion, error="reply cut at the length limit")
    return Answer(content, attempts, prompt, completion)
