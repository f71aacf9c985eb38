"""Running git: the one helper behind every git command reproaudit starts.

Git is always an argv (never a shell string), run as ``git -C <folder> ...``;
names that came from a pull request go after ``--`` or ``--end-of-options`` at
the call site, and each caller passes the environment it needs (credentials
through ``GIT_CONFIG_*``, never argv; redirections scrubbed) unchanged. A
failure has one shape: ``GitError`` naming the git command and the end of its
stderr, with the caller's hint. Callers for whom git is optional (a change
time, the checked-out commit) use ``git_or_none`` and carry on without it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, overload

from .errors import GitError

GIT_TIMEOUT_S = 600
_SHOWN_ARGS = 200  # characters of the command a failure shows
_SHOWN_STDERR = 500  # characters of git's stderr a failure shows


def command_text(args: tuple[str, ...]) -> str:
    """``git <args>`` as a failure shows it: one line, clipped."""
    text = " ".join(("git", *args)).replace("\n", " ")
    return text if len(text) <= _SHOWN_ARGS else text[: _SHOWN_ARGS - 1] + "…"


@overload
def run_git(
    folder: Path | str,
    *args: str,
    env: Mapping[str, str] | None = ...,
    timeout: float = ...,
    check: bool = ...,
    hint: str | None = ...,
    text: Literal[False] = ...,
) -> subprocess.CompletedProcess[bytes]: ...


@overload
def run_git(
    folder: Path | str,
    *args: str,
    env: Mapping[str, str] | None = ...,
    timeout: float = ...,
    check: bool = ...,
    hint: str | None = ...,
    text: Literal[True],
) -> subprocess.CompletedProcess[str]: ...


def run_git(
    folder: Path | str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = GIT_TIMEOUT_S,
    check: bool = True,
    hint: str | None = None,
    text: bool = False,
) -> subprocess.CompletedProcess[bytes] | subprocess.CompletedProcess[str]:
    """``git -C folder args...``, its output captured and stdin closed.

    ``env`` is the whole environment (None: this process's). With ``check``, a
    non-zero exit raises ``GitError`` naming the command and its stderr; git
    missing or past ``timeout`` raises it whatever ``check`` says.
    """
    argv = ["git", "-C", str(folder), *args]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            env=dict(env) if env is not None else None,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"{command_text(args)} did not finish within {timeout:g} s", hint) from None
    except OSError as exc:
        raise GitError(f"{command_text(args)} could not start: {exc.strerror}", hint) from None
    if check and done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace").strip()[-_SHOWN_STDERR:]
        raise GitError(f"{command_text(args)} failed: {stderr or f'exit {done.returncode}'}", hint)
    if not text:
        return done
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "surrogateescape"),
        done.stderr.decode("utf-8", "replace"),
    )


def git_or_none(
    folder: Path | str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = GIT_TIMEOUT_S,
) -> str | None:
    """The output of ``git -C folder args...`` as text, or None when git is missing, fails
    or times out: for callers that work without git (not a checkout, no history)."""
    try:
        done = run_git(folder, *args, env=env, timeout=timeout, check=False, text=True)
    except GitError:
        return None
    return done.stdout if done.returncode == 0 else None


def cat_file_batch(folder: Path | str, env: Mapping[str, str] | None = None) -> subprocess.Popen:
    """A ``git cat-file --batch`` process in ``folder``: one process for many blob reads
    (names written to its stdin are data, one per line; stderr discarded)."""
    return subprocess.Popen(
        ["git", "-C", str(folder), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(env) if env is not None else None,
    )
