"""Importers: data files made from other tools' records.

Each importer is a function that reads a source (a trackio logbook, a
PaperBench rubric) and returns where the data file goes and its YAML text,
already checked against the schema. Writing is a separate step,
``write_import``, so the command line can show, refuse or write the result,
and a failed import never leaves half a file behind.
"""

from __future__ import annotations

from pathlib import Path

from ..fsutil import atomic_write
from .paperbench import import_paperbench
from .trackio import import_trackio

__all__ = ["import_paperbench", "import_trackio", "write_import"]


def write_import(path: Path, text: str) -> None:
    """Write an imported file atomically, replacing an earlier import of the same source.

    Re-importing rewrites the whole file from the source (the importers keep no
    hand edits), so replacing it is the intended update, never a duplicate.
    """
    atomic_write(Path(path), text, overwrite=True)
