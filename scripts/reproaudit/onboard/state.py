"""A run's journal, so an interrupted onboarding resumes where it stopped.

The journal is a JSON-lines file in the cache folder, one line per paper
finished (written, unchanged, kept, deferred, failed), appended and flushed as
each paper ends. A kill can cut only the last line, which is ignored when read.
The paper files themselves are the truth (each carries the hash of its inputs);
the journal adds what they cannot say: tokens spent, why a paper was deferred or
failed, and which papers a run wrote (for ``--pr-batch``). A lock file keeps two
runs off one venue at once.
"""

from __future__ import annotations

import fcntl
import json
import threading
from pathlib import Path
from typing import Any

from ..errors import ReproauditError


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._lockfile = open(self.path.with_suffix(".lock"), "a+")  # noqa: SIM115 (held for the run)
        try:
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lockfile.close()
            raise ReproauditError(
                "another `reproaudit onboard` is running on this venue "
                f"({self.path.with_suffix('.lock')})",
                "wait for it to finish; two runs would draft the same papers twice",
            ) from None
        self._out = open(self.path, "a", encoding="utf-8")  # noqa: SIM115

    def record(self, paper: str, status: str, **extra: Any) -> None:
        line = json.dumps({"paper": paper, "status": status, **extra}, sort_keys=True)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()  # in the kernel's hands: a kill cannot lose it

    def close(self) -> None:
        self._out.close()
        self._lockfile.close()


def read_journal(path: Path) -> dict[str, dict[str, Any]]:
    """The last entry per paper; a line cut by a kill (not JSON) is skipped."""
    latest: dict[str, dict[str, Any]] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("paper"), str):
                    latest[entry["paper"]] = entry
    except FileNotFoundError:
        pass
    return latest
