"""Each folder of a repository listed once per run, for every walk that needs it.

The layout scan, the path rule on disk (``pathrule``), validation's code-folder
limits and the judge's code-tree hash all walk ``logbooks/``. One ``Listing`` per
``Corpus`` lists each folder once with ``os.scandir`` and gives every walk the same
entries: an ``os.DirEntry`` keeps the type and the ``lstat`` it has read, so a
second walk asks the disk nothing. Nothing is followed that the walks did not
already follow: the entries are the ones ``os.scandir`` returns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path


class Listing:
    """The entries of each folder, read on first use and kept for the run."""

    def __init__(self) -> None:
        self._seen: dict[str, list[os.DirEntry[str]] | OSError] = {}

    def entries(self, folder: Path | str) -> list[os.DirEntry[str]]:
        """The folder's entries sorted by name (dot-names too); the ``OSError`` of listing it."""
        key = os.path.normpath(os.fspath(folder))
        got = self._seen.get(key)
        if got is None:
            try:
                with os.scandir(key) as found:
                    got = sorted(found, key=lambda e: e.name)
            except OSError as exc:
                got = exc
            self._seen[key] = got
        if isinstance(got, OSError):
            raise got
        return got

    def walk(self, top: Path | str) -> Iterator[tuple[str, list[str], list[str]]]:
        """What ``os.walk(top)`` yields (top-down, links to folders listed but not entered)."""
        try:
            entries = self.entries(top)
        except OSError:
            return
        folders: list[str] = []
        files: list[str] = []
        enter = []
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            (folders if is_folder else files).append(entry.name)
            if is_folder and not entry.is_symlink():
                enter.append(entry.path)
        yield os.fspath(top), folders, files
        for path in enter:
            yield from self.walk(path)
