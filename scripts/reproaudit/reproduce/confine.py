"""Code confinement, the one copy of the rule: a logbook's code stays in its own folder.

``code.path`` and ``reproduce.requirements`` are written relative to
``logbooks/<paper>/`` and must start with the logbook's own folder name; no
absolute path, no ``..``, and no link inside may lead out of
``logbooks/<paper>/<logbook>/``. ``validate``, ``reproduce`` and the job
runner all call these functions. Standard library and Python 3.8 syntax only:
the runner ships this file's text into job images.
"""

from __future__ import annotations

import os
import posixpath


def inside(path: str, root: str) -> bool:
    """Whether ``path`` (links resolved) is ``root`` or lies under it."""
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def clean_logbook_path(raw: str, logbook: str):
    """``raw`` normalised (``alice-1/sub``) when it starts in the logbook's own folder, else None.

    Returns a str or None (Python 3.8: no ``str | None`` at run time here).
    """
    text = raw.replace("\\", "/")
    if not text or text.startswith("/"):
        return None
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or parts[0] != logbook:
        return None
    return posixpath.join(*parts)


def escaping_links(folder: str, jail: str) -> list:
    """Paths (relative to ``folder``) of links under ``folder`` that lead outside ``jail``."""
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in sorted(filenames) + sorted(dirnames):
            full = os.path.join(dirpath, name)
            if os.path.islink(full) and not inside(full, jail):
                out.append(os.path.relpath(full, folder).replace(os.sep, "/"))
    return out
