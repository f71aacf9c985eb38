"""When each logbook last changed: the fold's tie-break between logbooks judged together.

One ``reproaudit judge`` run gives every logbook it judges the same ``judged_at``,
so "a contributor's most recent logbook" needs another clock. Committed files
take the time of the last commit that touched them (the same in every clone,
so the fold gives the same answer on every machine); files git does not have
as committed (untracked, modified, or no git at all) take their file time.
Unknown stays unknown (``None``): the fold then falls back to natural order.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from . import layout
from .gitrun import git_or_none

_GIT_TIMEOUT_S = 60


def logbook_change_times(root: Path, rels: list[str]) -> dict[str, datetime | None]:
    """``rel`` -> when that file last changed, for files under ``root``."""
    committed = _git_times(root)
    dirty = _git_dirty(root) if committed else set()
    out: dict[str, datetime | None] = {}
    for rel in rels:
        when = committed.get(rel) if rel not in dirty else None
        out[rel] = when if when is not None else _file_time(root / rel)
    return out


def _git(root: Path, *args: str) -> str | None:
    return git_or_none(root, *args, timeout=_GIT_TIMEOUT_S)


def _git_times(root: Path) -> dict[str, datetime]:
    """Last commit time of every committed file under logbooks/ (paths relative to root)."""
    log = _git(
        root, "log", "--format=%x00%ct", "--name-only", "--relative", "--", layout.LOGBOOKS_DIR
    )
    times: dict[str, datetime] = {}
    when: datetime | None = None
    for line in (log or "").splitlines():
        if line.startswith("\0"):
            when = datetime.fromtimestamp(int(line[1:]), UTC)
        elif line and when is not None:
            times.setdefault(line, when)  # newest commit first: keep the first seen
    return times


def _git_dirty(root: Path) -> set[str]:
    """Files under logbooks/ whose working copy differs from the last commit."""
    status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", layout.LOGBOOKS_DIR)
    prefix = _git(root, "rev-parse", "--show-prefix") or ""
    prefix = prefix.strip()
    dirty = set()
    for line in (status or "").splitlines():
        path = line[3:].split(" -> ")[-1].strip('"')
        dirty.add(path.removeprefix(prefix))
    return dirty


def _file_time(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None


# "Merge pull request #12 from ..." (merge commits) and "Add a logbook (#12)" (squash merges)
_PR_SUBJECT = re.compile(r"^Merge pull request #(\d+) |\(#(\d+)\)\s*$")


def pull_numbers(root: Path) -> dict[str, int]:
    """The pull request that added each logbook file, from the default branch's history.

    Read along first parents (the branch's own merges), so the commit that added a file
    is the merge or squash commit GitHub wrote, whose subject names the pull request.
    A file added otherwise (a rebase merge, a direct push) has no entry. Needs the
    history (``fetch-depth: 0``); a shallow clone gives what it holds.
    """
    log = _git(
        root,
        "log",
        "--first-parent",
        "--diff-filter=A",
        "--format=%x00%s",
        "--name-only",
        "--relative",
        "--",
        layout.LOGBOOKS_DIR,
    )
    found: dict[str, int] = {}
    number: int | None = None
    for line in (log or "").splitlines():
        if line.startswith("\0"):
            m = _PR_SUBJECT.search(line[1:])
            number = int(m[1] or m[2]) if m else None
        elif line and number is not None:
            found.setdefault(line, number)  # newest first: a re-added file keeps its latest PR
    return found
