"""429 is throttling, not an outage: fewer requests in flight, and waits the endpoint asks for.

One ``Throttle`` is shared by a run's requests to one endpoint (DESIGN.md: "fewer
requests in flight, ``Retry-After`` honoured within the deadline, never an outage").
"""

from __future__ import annotations

import threading
import time

from .halt import Halt

_POLL = 0.25  # how often a waiting request looks at the run's halt switch


class Throttle:
    """How many requests may be in flight, and how long all of them must wait.

    No limit until the first 429. Then: halve what is in flight (once per round:
    a 429 to a request sent before the last cut says nothing new), and add one
    back after as many answers as the limit (additive increase, multiplicative
    decrease); a ``Retry-After`` holds every request until it has passed.
    """

    CEILING = 512

    def __init__(self, patience: float) -> None:
        self._cond = threading.Condition()
        self.limit: int | None = None
        self.in_flight = 0
        self.not_before = 0.0
        self.lowest: int | None = None
        self.count = 0  # 429 answers
        self._answers = 0
        self._cut_at = -1.0
        self._patience = patience
        self._throttled_since: float | None = None  # the first 429 since the last answer

    def acquire(self, halt: Halt, max_wait: float) -> str | None:
        """Wait for a slot; None when the request may go, else why it may not."""
        with self._cond:
            while True:
                if halt.halted:
                    return f"not sent: {halt.why}"
                wait = self.not_before - time.monotonic()
                if wait > max_wait or wait > halt.remaining():
                    return (
                        f"not sent: the endpoint asked to wait {wait:.0f} s (Retry-After), "
                        "longer than this run can wait"
                    )
                if wait <= 0 and (self.limit is None or self.in_flight < self.limit):
                    self.in_flight += 1
                    return None
                self._cond.wait(min(max(wait, 0.0) or _POLL, _POLL, halt.remaining()))

    def release(self, sent_at: float, throttled: bool, wait: float | None) -> str | None:
        """A request sent at ``sent_at`` is back (a 429 if ``throttled``, asking to
        ``wait`` s); why the run must stop, if it must. One lock for both, so no
        request is sent between a 429 and the cut it causes."""
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()
            if not throttled:
                return None
            self.count += 1
            now = time.monotonic()
            if sent_at > self._cut_at:  # the first 429 of this round
                self._cut_at = now
                self.limit = max(1, (self.in_flight + 1) // 2)
                self._answers = 0
                self.lowest = self.limit if self.lowest is None else min(self.lowest, self.limit)
            if wait is not None:
                self.not_before = max(self.not_before, now + wait)
            if self._throttled_since is None:
                self._throttled_since = now
            if now - self._throttled_since > self._patience:
                return f"the endpoint answered only 429 (throttled) for {self._patience:g} s"
            return None

    def answered(self) -> None:
        with self._cond:
            self._throttled_since = None
            if self.limit is None:
                return
            self._answers += 1
            if self._answers >= self.limit:
                self._answers = 0
                self.limit += 1
                if self.limit >= self.CEILING:
                    self.limit = None
            self._cond.notify_all()
