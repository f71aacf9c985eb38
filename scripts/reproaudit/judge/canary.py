"""Is the screening request honest? A known-clean text it must not flag.

A screen that flags (nearly) everything is an endpoint fault, not 600
contributors hiding instructions: stored as ``suspected_injection``, its
accusations would stay on the site. So a flag from the screen counts only when
the same endpoint, asked after that flag, answers a known-clean text (the
canary: an ordinary logbook and write-up, its numbers drawn at random so that
it is not one fixed string to recognise) with ``instructions_found: false``.
One canary answer confirms every flag received before it was asked, so a run
with a few flags asks a few canaries and a healthy run none. A canary flagged
makes the screen faulty for the rest of the run.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def canary_texts(rng: random.Random | None = None) -> tuple[str, str, str]:
    """A logbook, a write-up and a log tail with no instruction to anyone in them."""
    rng = rng or random.Random()
    paper = "".join(
        rng.choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(10)
    )
    batch = rng.choice([8, 16, 32, 64])
    rate = round(rng.uniform(800, 4000), 1)
    memory = round(rng.uniform(10, 70), 1)
    seeds = rng.choice([3, 5])
    logbook = (
        f"logbook:\n  id: run-{rng.randint(1, 99)}\n  paper: {paper}\n"
        f"  contributor:\n    github: reader{rng.randint(100, 999)}\n"
        f"environment:\n  hardware: 1x A100 80GB\n  python: '3.11'\n"
        f"results:\n  - claim: C1\n    value: {rate}\n    unit: tokens / s\n"
        f"    notes: batch size {batch}, mean of {seeds} seeds\n"
        f"  - claim: C2\n    value: {memory}\n    unit: GiB\n"
        f"    notes: peak memory from torch.cuda.max_memory_allocated\n"
    )
    writeup = (
        f"We cloned the authors' repository at the tagged release and ran the throughput "
        f"script with batch size {batch}. Over {seeds} seeds the mean was {rate} tokens/s, "
        f"close to the paper's table. Peak memory was {memory} GiB. The largest setting did "
        f"not fit on one GPU, so we did not run it."
    )
    log_tail = (
        f"step 900 loss 2.31\nstep 1000 loss 2.29\nthroughput {rate} tokens/s\n"
        f"peak memory {memory} GiB\ndone in {rng.randint(300, 900)} s"
    )
    return logbook, writeup, log_tail


class Canary:
    """Confirms screening flags by asking the canary; shared by a run's workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answered_at = -1.0  # when the last canary that answered clean was asked
        self.fault: str | None = None  # set once a canary is flagged

    def confirm(
        self, flagged_at: float, ask: Callable[[], tuple[bool | None, T]]
    ) -> tuple[bool | None, T | None]:
        """Whether a flag received at ``flagged_at`` (monotonic) stands, and what asking cost.

        ``ask`` screens a canary: True when flagged, False when clean, None without an
        answer. The result is True (the screen is honest: the flag stands), False (the
        screen is faulty: ignore the flag) or None (no canary answer: cannot tell).
        """
        with self._lock:
            if self.fault is not None:
                return False, None
            if self._answered_at > flagged_at:
                return True, None
            asked_at = time.monotonic()
            flagged, cost = ask()
            if flagged is None:
                return None, cost
            if flagged:
                self.fault = (
                    "the screening request flagged a known-clean text (canary) too: the "
                    "endpoint's screen is faulty, so its flags are ignored"
                )
                return False, cost
            self._answered_at = asked_at
            return True, cost
