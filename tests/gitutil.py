"""Real git repositories for tests of change-based behaviour."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS`` as a fixed author and committer; its output, stripped."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def branch_from_main(repo: Path, branch: str) -> Path:
    """Commit everything in ``repo`` as ``main``, then check out a new ``branch``."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", branch)
    return repo
