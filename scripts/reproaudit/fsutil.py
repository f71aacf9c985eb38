"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import ReproauditError


def atomic_write(path: Path, data: str | bytes, *, overwrite: bool = True) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place.

    With ``overwrite=False`` an existing file is left alone and ``FileExistsError``
    is raised, so scaffolding never clobbers someone's work.
    """
    path = Path(path)
    if not overwrite and path.exists():
        raise FileExistsError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if the file appeared meanwhile
            os.unlink(tmp)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_new_files(files: dict[Path, str]) -> list[Path]:
    """Write each new file atomically; refuse, before writing any, if one already exists."""
    existing = [path for path in files if Path(path).exists()]
    if existing:
        raise ReproauditError(
            f"{existing[0]} already exists; not overwriting it",
            "pick another id, or use --stdout to print the template",
        )
    for path, text in files.items():
        atomic_write(Path(path), text, overwrite=False)
    return list(files)
