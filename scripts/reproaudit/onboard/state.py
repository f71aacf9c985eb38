"""A run's journal and lock: how each paper ended, and one run per venue at a time.

The journal is a JSON-lines file in the cache folder, one line per paper
that ends (written, deferred, over budget, failed), appended and flushed as each
paper ends, so a kill can cut only the last line. The paper files themselves are
the truth for resuming (each carries the hash of its inputs); the journal keeps
what they cannot say, for the maintainer: tokens spent, why a paper was deferred
or failed, which files a run wrote. A lock file keeps two runs off one venue.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import threading
from pathlib import Path
from typing import Any

from ..errors import ReproauditError
from ..fsutil import output_folder
from .cache import storage_failure


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        output_folder(self.path.parent)  # the cache folder: never /dev/null or a file
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lockfile = open(self.path.with_suffix(".lock"), "a+")  # noqa: SIM115 (held for the run)
        except OSError as exc:
            raise storage_failure(exc, self.path, self.path.parent, "cache folder") from None
        try:
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lockfile.close()
            raise ReproauditError(
                "another `reproaudit onboard` is running on this venue "
                f"({self.path.with_suffix('.lock')})",
                "wait for it to finish; two runs would draft the same papers twice",
            ) from None
        try:
            self._out = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            self._lockfile.close()
            raise storage_failure(exc, self.path, self.path.parent, "cache folder") from None

    def record(self, paper: str, status: str, **extra: Any) -> None:
        line = json.dumps({"paper": paper, "status": status, **extra}, sort_keys=True)
        with self._lock:
            try:
                self._out.write(line + "\n")
                self._out.flush()  # in the kernel's hands: a kill cannot lose it
            except OSError as exc:
                raise storage_failure(exc, self.path, self.path.parent, "cache folder") from None

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a line a full disk refused is lost with it
            self._out.close()
        self._lockfile.close()
