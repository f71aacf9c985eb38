"""Temporary files and folders that a later run can tell from live ones, and remove.

A run killed by SIGKILL (or a power cut) runs no clean-up: its temporary
verdict files, staged site, code copies and scratch checkouts stay behind.
Each one made here is held by an ``flock`` on its own file descriptor for as
long as its run lives; the kernel drops the lock when the process dies,
however it dies. ``sweep`` removes the entries that no process holds.

Creating an entry and locking it happen under an exclusive lock on the
parent folder, and so does the sweep, so a sweep never sees an entry between
its creation and its lock. Nothing else about the entry is trusted: a link
is never followed, nor removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def locked_folder(folder: Path) -> Iterator[None]:
    """An exclusive lock on a folder itself (no lock file is left behind)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def temp_root() -> Path:
    """The temporary folder (``$TMPDIR``), where code copies and build stages go."""
    return Path(tempfile.gettempdir())


def held_file(parent: Path, prefix: str, suffix: str) -> tuple[int, str]:
    """``mkstemp`` in ``parent``, locked: (descriptor, path). Closing the descriptor
    lets a later ``sweep`` remove the file if it is still there."""
    with locked_folder(parent):
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=parent)
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd, path


@contextlib.contextmanager
def held_dir(parent: Path, prefix: str) -> Iterator[Path]:
    """A new folder in ``parent``, locked while the block runs and removed after it
    (if it is still there: the block may rename it into place)."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    with locked_folder(parent):
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield path
    finally:
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


def sweep(parent: Path, prefix: str, suffix: str = "") -> list[Path]:
    """Remove what interrupted runs left in ``parent``: entries named ``prefix*suffix``
    that no live process holds. Returns what was removed."""
    parent = Path(parent)
    if not parent.is_dir():
        return []
    removed = []
    with locked_folder(parent):
        for entry in sorted(os.scandir(parent), key=lambda e: e.name):
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(suffix)) or entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            flags = os.O_RDONLY | os.O_NOFOLLOW | (os.O_DIRECTORY if is_dir else 0)
            try:
                fd = os.open(entry.path, flags)
            except OSError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live run holds it
                if is_dir:
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.path)
                removed.append(Path(entry.path))
            finally:
                os.close(fd)
    return removed


def sweep_tree(top: Path, prefix: str, suffix: str = "") -> list[Path]:
    """``sweep`` in ``top`` and in each folder directly under it (``verdicts/<paper>/``)."""
    top = Path(top)
    if not top.is_dir():
        return []
    removed = sweep(top, prefix, suffix)
    for entry in sorted(os.scandir(top), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            removed += sweep(Path(entry.path), prefix, suffix)
    return removed
