"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import ReproauditError


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows (threads stay safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # elsewhere the only way to read it is to set it
    os.umask(mask)
    return mask


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
        # mkstemp makes the file 0600; a web server running as another user must read it
        os.fchmod(fd, 0o666 & ~current_umask())
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
