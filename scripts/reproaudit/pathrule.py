"""What a pull request may hold under ``logbooks/``: logbook files, nothing else.

Only ``<paper>/<id>.yaml``, ``<paper>/<id>.md`` and regular files inside
``<paper>/<id>/`` (git modes 100644 and 100755). A symbolic link (120000)
points anywhere on the machine that checks it out; a submodule (160000) is
another repository; a dot-file (``.gitattributes``, ``.gitignore``) is a
setting git applies to other people's files. The rule is checked on the pull
request's git trees (``ci.changes.tree_changes`` gives each path's mode), so
it sees the bytes and modes every later step reads, before any checkout
re-encodes anything; ``disk_problems`` applies the same rule to a working copy.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Protocol

from . import layout
from . import problems as P
from .beneath import kind_name
from .listing import Listing
from .problems import Problem

REGULAR_MODES = ("100644", "100755")
MODE_NAMES = {
    "120000": "a symbolic link (git mode 120000): it points anywhere on the machine "
    "that checks it out",
    "160000": "a submodule (git mode 160000): another repository, fetched from elsewhere",
    "040000": "a folder entry",
}
HINT = (
    "under logbooks/ a pull request may add or change only <paper>/<id>.yaml, "
    "<paper>/<id>.md and regular files inside <paper>/<id>/: remove this path, or "
    "replace a link with the file itself"
)


class HasMode(Protocol):
    """A changed path as ``ci.changes.Change`` gives it (read-only fields)."""

    @property
    def path(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def mode(self) -> str | None: ...


def why_refused(rel: str, mode: str | None = None) -> str | None:
    """Why a pull request may not add or change ``rel`` (git ``mode`` when known), or None.

    Paths outside ``logbooks/`` are the ownership rule's business: None here.
    """
    parts = PurePosixPath(rel).parts
    if parts[:1] != (layout.LOGBOOKS_DIR,):
        return None
    dotted = next((p for p in parts[1:] if p.startswith(".")), None)
    if dotted is not None:
        what = "a dot-file" if dotted == parts[-1] else "inside a dot-folder"
        return (
            f"{what} ({dotted}): git and other tools read such files as settings "
            "(a .gitattributes re-encodes other contributors' logbooks)"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in rel):
        return "a name with a control character (a newline, a tab...)"
    if mode is not None and mode not in REGULAR_MODES:
        return "is " + MODE_NAMES.get(mode, f"not a regular file (git mode {mode})")
    if len(parts) == 3 and parts[2].endswith((".yaml", ".md")):
        stem = parts[2].rsplit(".", 1)[0]
        if stem:
            return None
    if len(parts) >= 4:
        return None  # a file inside <paper>/<id>/
    return "not a logbook file: not <paper>/<id>.yaml, <paper>/<id>.md or inside <paper>/<id>/"


def problem_for(rel: str, why: str) -> Problem:
    return Problem(P.NOT_A_LOGBOOK_FILE, rel, None, None, why, HINT)


def tree_problems(changes: Iterable[HasMode]) -> list[Problem]:
    """The rule on a pull request's changes (deleting anything is allowed: it cleans up)."""
    out = []
    for change in changes:
        if change.status == "D":
            continue
        why = why_refused(change.path, change.mode)
        if why is not None:
            out.append(problem_for(change.path, why))
    return out


def disk_problems(
    root: Path, rels: Iterable[str] | None = None, listing: Listing | None = None
) -> list[Problem]:
    """The rule on a working copy: ``rels`` (changed paths), or everything under ``logbooks/``.

    Each path and every folder above it is ``lstat``-ed: a link or special file,
    a dot-file or a file out of place is reported; nothing is followed or opened.
    ``listing``: the run's one listing of each folder (``Corpus.listing``).
    """
    root = Path(root)
    out: list[Problem] = []
    if rels is None:
        # enters real folders only: nothing above is a link
        found = _walk(root, layout.LOGBOOKS_DIR, listing or Listing())
    else:
        found = [(rel, _lstat_kind(root, rel)) for rel in sorted(set(rels))]
    reported: set[str] = set()
    for rel, kind in found:
        if kind is None or not rel.startswith("logbooks/"):
            continue
        link = None if rels is None else _link_above(root, rel)
        if link is not None:
            if link not in reported:
                reported.add(link)
                out.append(
                    Problem(
                        P.NOT_A_REGULAR_FILE,
                        link,
                        None,
                        None,
                        "is a symlink: files under it are refused, nothing was read from them",
                        HINT,
                    )
                )
            continue
        if kind == "folder":
            if PurePosixPath(rel).name.startswith("."):  # files elsewhere make their folders
                out.append(problem_for(rel, why_refused(rel) or "a dot-folder"))
            continue
        if kind != "file":
            out.append(Problem(P.NOT_A_REGULAR_FILE, rel, None, None, f"is {kind}", HINT))
            continue
        why = why_refused(rel)
        if why is not None and not layout.misplaced(rel):  # misplaced YAML: said elsewhere
            out.append(problem_for(rel, why))
    return out


def _lstat_kind(root: Path, rel: str) -> str | None:
    try:
        mode = os.lstat(root / rel).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    return kind_name(mode)


def _link_above(root: Path, rel: str) -> str | None:
    """The first folder above ``rel`` (below ``root``) that is not a real folder, or None."""
    parts = PurePosixPath(rel).parts
    for i in range(1, len(parts)):
        above = "/".join(parts[:i])
        try:
            if not stat.S_ISDIR(os.lstat(root / above).st_mode):
                return above
        except OSError:
            return None
    return None


def _walk(root: Path, top: str, listing: Listing) -> list[tuple[str, str | None]]:
    """Every entry under ``root/top`` with its kind; links and dot-folders are not entered."""
    out: list[tuple[str, str | None]] = []
    stack = [top]
    while stack:
        rel = stack.pop()
        try:
            entries = listing.entries(root / rel)
        except OSError:
            continue
        for entry in entries:
            sub = f"{rel}/{entry.name}"
            if entry.is_file(follow_symlinks=False):  # the type scandir already read
                kind: str | None = "file"
            elif entry.is_dir(follow_symlinks=False):
                kind = "folder"
            else:
                kind = _lstat_kind(root, sub)
            out.append((sub, kind))
            if kind == "folder" and not entry.name.startswith("."):
                stack.append(sub)
    return sorted(out)
