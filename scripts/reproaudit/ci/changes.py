"""What a pull request changes, from git trees rather than the files API.

The pull-request files endpoint stops at 3,000 files, so 3,000 padding files can
hide a change to ``scripts/``. The report job (base-branch code) fetches the
base and head commits as objects only (no checkout of pull-request files) and
compares the two trees with ``git diff --name-status base...head``. Every name
git prints is data: it is split on NUL bytes, never given to a shell, and a
blob is read with ``git cat-file`` into memory, size-capped.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .. import problems as P
from ..errors import GitError, InputError
from ..gitrun import cat_file_batch, run_git
from ..problems import Problem

REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
MAX_BLOB = 2 * 1024 * 1024


@dataclass(frozen=True, order=True)
class Change:
    """One changed path: ``A`` added, ``M`` modified, ``D`` deleted, ``T`` type changed.

    ``mode`` is the git mode on the head side (``100644``, ``120000`` for a link,
    ``160000`` for a submodule; ``000000`` when deleted), None when only the name is known.
    """

    path: str
    status: str
    mode: str | None = None


def _ref(value: str) -> str:
    if not REF.fullmatch(value) or ".." in value:
        raise GitError(f"{value!r} is not a commit or branch name")
    return value


_CLONE_HINT = "the job needs a full clone (fetch-depth: 0) with both commits fetched"


def _git(repo_dir: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    return run_git(repo_dir, *args, env={**os.environ, **(env or {})}, hint=_CLONE_HINT).stdout


def auth_env(token: str | None) -> dict[str, str]:
    """Git configuration, through the environment (never argv), sending ``token`` to GitHub."""
    if not token:
        return {}
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.https://github.com/.extraheader",
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
        "GIT_TERMINAL_PROMPT": "0",
    }


def fetch_commits(repo_dir: Path, shas: list[str], *, remote: str = "origin") -> None:
    """Fetch commits (trees and history, blobs on demand) into the checkout, nothing checked out."""
    _git(
        repo_dir,
        "fetch",
        "--no-tags",
        "--quiet",
        "--filter=blob:none",
        "--end-of-options",
        _ref(remote),
        *map(_ref, shas),
        env=auth_env(os.environ.get("GITHUB_TOKEN")),
    )


def tree_changes(repo_dir: Path, base: str, head: str) -> list[Change]:
    """Every path that differs between the merge base of ``base`` and ``head``, and ``head``.

    Read from the trees (``git diff --raw``): each path comes with its mode at
    ``head``, so a symbolic link or a submodule is seen as one, whatever a checkout
    of it would make.
    """
    out = _git(
        repo_dir,
        "-c",
        "core.quotePath=false",
        "diff",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        "-z",
        f"{_ref(base)}...{_ref(head)}",
        "--",
    )
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        words = meta.split()
        if len(words) == 5 and meta.startswith(":"):
            changes.append(Change(path, words[4][0], words[1]))
    return sorted(changes)


def read_blob(repo_dir: Path, ref: str, path: str) -> bytes | None:
    """A file's bytes at ``ref`` (None when it is not there), refused over 2 MB."""
    spec = f"{_ref(ref)}:{path}"
    kind = run_git(
        repo_dir,
        "cat-file",
        "-t",
        spec,
        env={**os.environ, **auth_env(os.environ.get("GITHUB_TOKEN"))},
        timeout=120,
        check=False,
    )
    if kind.returncode != 0 or kind.stdout.strip() != b"blob":
        return None
    size = int(_git(repo_dir, "cat-file", "-s", spec).strip())
    if size > MAX_BLOB:
        raise InputError(
            Problem(P.FILE_TOO_LARGE, path, None, None, f"{size} bytes at {ref[:12]}; refusing it")
        )
    return _git(repo_dir, "cat-file", "blob", spec)


def has_commit(repo_dir: Path, sha: str) -> bool:
    done = run_git(repo_dir, "cat-file", "-e", f"{_ref(sha)}^{{commit}}", timeout=60, check=False)
    return done.returncode == 0


def ensure_commits(repo_dir: Path, shas: list[str]) -> None:
    """Fetch from origin the commits the checkout does not have yet."""
    missing = [sha for sha in shas if not has_commit(repo_dir, sha)]
    if missing:
        fetch_commits(repo_dir, missing)


class BlobReader:
    """Many files' bytes at given commits through one ``git cat-file --batch`` process.

    The ownership rule reads two versions of every logbook a pull request touches; one
    process instead of three per read keeps a PR with many logbooks quick. Paths with a
    newline (which the batch protocol cannot carry) and blobs over 2 MB read as refused.
    """

    def __init__(self, repo_dir: Path) -> None:
        self._proc = cat_file_batch(
            repo_dir, {**os.environ, **auth_env(os.environ.get("GITHUB_TOKEN"))}
        )

    def read(self, ref: str, path: str) -> bytes | None:
        """The bytes of ``path`` at ``ref``, or None when it is not a file there."""
        if "\n" in path or "\r" in path:
            return None
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(f"{_ref(ref)}:{path}\n".encode("utf-8", "surrogateescape"))
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().decode("utf-8", "replace").split()
        if len(header) != 3:  # "<name> missing" or "<name> ambiguous"
            return None
        kind, size = header[1], int(header[2])
        data = self._proc.stdout.read(size + 1)[:-1]
        if kind != "blob":
            return None
        if size > MAX_BLOB:
            raise InputError(
                Problem(P.FILE_TOO_LARGE, path, None, None, f"{size} bytes at {ref[:12]}")
            )
        return data

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=60)

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
