"""When a judge run must stop: its deadline, or an interruption.

One ``Halt`` is shared by every worker of a run. Waits go through ``sleep`` so
that a deadline or a Ctrl-C wakes them at once instead of after a back-off.
"""

from __future__ import annotations

import math
import threading
import time


class Halt:
    """A run's deadline (monotonic seconds) and its cancel switch."""

    def __init__(self, seconds: float | None = None) -> None:
        self._end = time.monotonic() + seconds if seconds is not None else math.inf
        self._event = threading.Event()
        self._why: str | None = None

    def cancel(self, why: str = "interrupted") -> None:
        if self._why is None:
            self._why = why
        self._event.set()

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    @property
    def why(self) -> str | None:
        """None while the run may go on; else why it stopped."""
        if self._why is None and time.monotonic() >= self._end:
            self.cancel("deadline reached")
        return self._why

    @property
    def halted(self) -> bool:
        return self.why is not None

    def sleep(self, seconds: float) -> bool:
        """Wait up to ``seconds`` (cut at the deadline); False when the run must stop."""
        self._event.wait(min(seconds, self.remaining()))
        return not self.halted
