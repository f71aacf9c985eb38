"""The one way a workflow commits to the default branch: fetch, re-apply, push, retry.

Verdicts, reviews and re-run records are written by jobs that may run at the
same time (two merges, two review comments). A plain ``git push`` of a commit
made on an old checkout is rejected when another push landed first. So the
change is kept as a function (``apply``) rather than as a commit: each attempt
fetches the branch's current tip into a scratch worktree, applies the change
there (appending a review to the fresh ``reviews.yaml``, replacing a re-run
record whole), commits and pushes. A rejected push is retried with exponential
back-off and jitter; neither change is lost.

What cannot be applied (the fresh file no longer accepts the change) or pushed
(branch protection refuses the bot, attempts exhausted) goes to a branch and a
pull request whose text says what actually happened.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .. import layout
from ..errors import ArtifactError, GitError, InputError
from ..gitrun import run_git
from ..scratch import held_dir, sweep, temp_root
from .changes import auth_env

BOT_NAME = "reproaudit[bot]"
BOT_EMAIL = "reproaudit-bot@users.noreply.github.com"
# git's words for "someone else pushed first": worth fetching and trying again
SCRATCH_PREFIX = "reproaudit-push-"  # the scratch checkout, in $TMPDIR
RACE = re.compile(
    r"non-fast-forward|fetch first|\(stale info\)|incorrect old value|cannot lock ref|"
    r"failed to update ref|Updates were rejected because the (remote|tip)",
    re.IGNORECASE,
)


class ApplyConflict(Exception):
    """The change cannot be applied to the branch as it is now (says why)."""


@dataclass(frozen=True)
class PushResult:
    status: Literal["pushed", "nothing", "pull_request"]
    attempts: int
    sha: str | None
    message: str
    branch: str | None = None
    url: str | None = None


Apply = Callable[[Path], list[str]]
OpenPull = Callable[[str, str, str], str]  # (branch, title, body) -> URL


def _run(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **auth_env(os.environ.get("GITHUB_TOKEN"))}
    return run_git(cwd, *args, env=env, check=check, text=True)


def push_change(
    repo_dir: Path,
    apply: Apply,
    message: str,
    *,
    remote: str = "origin",
    branch: str = "main",
    attempts: int = 8,
    backoff: float = 2.0,
    fallback_branch: str | None = None,
    open_pull: OpenPull | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> PushResult:
    """Apply ``apply`` to the current ``remote``/``branch`` and push it; retry on races.

    ``apply(worktree)`` writes the change into a fresh checkout of the branch and
    returns the repository-relative paths it wrote (only those are committed); it
    raises ``ApplyConflict`` when the branch no longer accepts the change.
    """
    repo_dir = Path(repo_dir)
    with held_dir(temp_root(), SCRATCH_PREFIX) as scratch:
        return _push_in(
            repo_dir,
            scratch / "tree",
            apply,
            message,
            remote,
            branch,
            attempts,
            backoff,
            fallback_branch,
            open_pull,
            sleep,
        )


def _push_in(
    repo_dir: Path,
    work: Path,
    apply: Apply,
    message: str,
    remote: str,
    branch: str,
    attempts: int,
    backoff: float,
    fallback_branch: str | None,
    open_pull: OpenPull | None,
    sleep: Callable[[float], None],
) -> PushResult:
    """``push_change`` in the scratch checkout ``work``, removed (and unregistered) after."""
    sweep(temp_root(), SCRATCH_PREFIX)  # scratch checkouts of pushes that were killed
    _run(repo_dir, "worktree", "prune", check=False)  # and their registrations
    _run(repo_dir, "worktree", "add", "--detach", "--quiet", str(work))
    try:
        last_error = ""
        for attempt in range(1, attempts + 1):
            tip = _fetch(work, remote, branch)
            _run(work, "reset", "--hard", "--quiet", tip)
            _run(work, "clean", "-fdxq")
            try:
                paths = apply(work)
            except ApplyConflict as exc:
                # a person decides: the change as made on the commit the job started from
                why = f"The change could not be applied to `{branch}` as it is now: {exc}"
                start = _run(repo_dir, "rev-parse", "HEAD").stdout.strip()
                _run(work, "reset", "--hard", "--quiet", start)
                _run(work, "clean", "-fdxq")
                try:
                    paths = apply(work)
                except ApplyConflict as again:
                    raise GitError(f"{why}; nor to {start[:12]}: {again}") from None
                _run(work, "add", "-A", "--", *paths)
                _commit(work, message)
                return _fallback(
                    work, remote, branch, message, why, attempt, fallback_branch, open_pull
                )
            if not paths:
                return PushResult("nothing", attempt, None, "nothing to commit")
            _run(work, "add", "-A", "--", *paths)
            if not _run(work, "diff", "--cached", "--quiet", check=False).returncode:
                return PushResult("nothing", attempt, None, "nothing changed")
            _commit(work, message)
            pushed = _run(
                work,
                "push",
                "--porcelain",
                "--end-of-options",
                remote,
                f"HEAD:refs/heads/{branch}",
                check=False,
            )
            if pushed.returncode == 0:
                sha = _run(work, "rev-parse", "HEAD").stdout.strip()
                return PushResult("pushed", attempt, sha, f"pushed {sha[:12]} to {branch}")
            last_error = (pushed.stderr + pushed.stdout).strip()
            if not RACE.search(last_error):
                return _fallback(
                    work,
                    remote,
                    branch,
                    message,
                    f"`{branch}` refused the bot's push (this is not a race with another "
                    f"push): {_last_line(last_error)}",
                    attempt,
                    fallback_branch,
                    open_pull,
                )
            if attempt < attempts:
                sleep(backoff * 2 ** (attempt - 1) * (0.5 + random.random()))
        return _fallback(
            work,
            remote,
            branch,
            message,
            f"{attempts} attempts to push to `{branch}` each lost the race to another push "
            f"(last: {_last_line(last_error)})",
            attempts,
            fallback_branch,
            open_pull,
        )
    finally:
        _run(repo_dir, "worktree", "remove", "--force", str(work), check=False)


def _fetch(work: Path, remote: str, branch: str) -> str:
    _run(work, "fetch", "--no-tags", "--quiet", "--end-of-options", remote, f"refs/heads/{branch}")
    return _run(work, "rev-parse", "FETCH_HEAD").stdout.strip()


def _commit(work: Path, message: str) -> None:
    _run(
        work,
        "-c",
        f"user.name={BOT_NAME}",
        "-c",
        f"user.email={BOT_EMAIL}",
        "commit",
        "--quiet",
        "--no-verify",
        "-m",
        message,
    )


def _last_line(text: str) -> str:
    """What the remote said (``remote:`` lines), else git's error, else the last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    said = [line[len("remote:") :].strip() for line in lines if line.startswith("remote:")]
    said = [line for line in said if line] or [x for x in lines if x.startswith(("error:", "!"))]
    return "; ".join(said or lines[-1:])[:300] or "no message"


def _fallback(
    work: Path,
    remote: str,
    branch: str,
    message: str,
    why: str,
    attempts: int,
    fallback_branch: str | None,
    open_pull: OpenPull | None,
) -> PushResult:
    """Push what could not go to ``branch`` to its own branch and open a pull request."""
    if fallback_branch is None or open_pull is None:
        raise GitError(
            why,
            "nothing was pushed; give a fallback branch and a repository to open a "
            "pull request in, or re-run the job",
        )
    _run(
        work,
        "push",
        "--quiet",
        "--force",
        "--end-of-options",
        remote,
        f"HEAD:refs/heads/{fallback_branch}",
    )
    body = (
        f"{why}.\n\nSo this change, made by a reproaudit workflow, waits here instead of on "
        f"`{branch}`. It was re-applied on `{branch}` as it was at the last attempt; merge it "
        "as it is, or close it and re-run the workflow.\n\nCommit message:\n\n"
        f"> {message}\n"
    )
    url = open_pull(fallback_branch, message, body)
    return PushResult("pull_request", attempts, None, why, fallback_branch, url)


# --- the changes workflows make, as functions of a fresh checkout ------------------------


def apply_review(record: dict) -> Apply:
    """Append one review (an outcome's ``record``) to the fresh ``reviews.yaml``."""

    def apply(work: Path) -> list[str]:
        from .. import layout
        from .commands import append_review

        try:
            append_review(work, record)
        except InputError as exc:  # the fresh reviews.yaml does not take the record
            raise ApplyConflict(exc.problems[0].message) from None
        return [layout.reviews_rel(record["paper"])]

    return apply


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def apply_records(source: Path) -> Apply:
    """Replace ``reruns/<paper>/<logbook>/`` whole by each record folder under ``source``."""
    source = Path(source)

    def apply(work: Path) -> list[str]:
        written = []
        for run in sorted(source.glob(f"*/*/{layout.RUN_JSON}")):
            folder = run.parent
            paper, logbook = folder.parent.name, folder.name
            if paper.startswith(".") or logbook.startswith("."):
                continue  # a record being written, or what a killed writer left
            if not (_ID.fullmatch(paper) and _ID.fullmatch(logbook)) or ".." in (paper + logbook):
                raise ApplyConflict(f"{paper}/{logbook} is not a paper/logbook folder name")
            target = work / layout.rerun_rel(paper, logbook)
            staging = target.with_name(f".{logbook}.new")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            for name in layout.RECORD_FILES:
                if (folder / name).is_file() and not (folder / name).is_symlink():
                    shutil.copyfile(folder / name, staging / name)
            old = target.with_name(f".{logbook}.old")
            if target.exists():
                target.rename(old)
            staging.rename(target)
            shutil.rmtree(old, ignore_errors=True)
            written.append(layout.rerun_rel(paper, logbook))
        return written

    return apply


def apply_verdicts(source: Path) -> Apply:
    """Copy verdict files into ``verdicts/``: never over one judged later, nor for a
    logbook that is gone from the branch."""
    source = Path(source)

    def apply(work: Path) -> list[str]:
        import yaml

        written = []
        for path in sorted(source.glob("*/*.yaml")):
            paper, name = path.parent.name, path.name
            if name == "reviews.yaml" or not _ID.fullmatch(paper) or not _ID.fullmatch(name):
                continue
            target = work / layout.VERDICTS_DIR / paper / name
            if not (work / layout.LOGBOOKS_DIR / paper / name).is_file():
                continue  # the logbook was deleted meanwhile: its verdict would be an orphan
            if target.is_file() and target.read_bytes() == path.read_bytes():
                continue
            if target.is_file():
                mine = yaml.safe_load(path.read_text("utf-8")) or {}
                theirs = yaml.safe_load(target.read_text("utf-8")) or {}
                if str(theirs.get("judged_at", "")) > str(mine.get("judged_at", "")):
                    continue  # another job judged this logbook later: keep its verdict
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written.append(f"{layout.VERDICTS_DIR}/{paper}/{name}")
        return written

    return apply


KINDS = ("review", "reruns", "verdicts")


def push_from(
    kind: str,
    source: Path,
    repo_dir: Path,
    message: str,
    *,
    remote: str = "origin",
    branch: str = "main",
    repo_name: str | None = None,
    fallback_branch: str | None = None,
    run_id: str = "local",
) -> PushResult | None:
    """``ci push KIND --from SOURCE``: commit that change to ``branch`` (see ``push_change``).

    review: SOURCE is the outcome JSON of ``ci command`` (None when it records
    nothing); reruns, verdicts: a folder of them (mentions: ``authors.record_mentions``,
    which pushes through ``push_change`` too). What the branch refuses goes to
    ``fallback_branch`` and a pull request in ``repo_name``.
    """
    if kind == "review":
        from .events import read_json

        outcome = read_json(source)
        record = outcome.get("record") if isinstance(outcome, dict) else None
        if not (isinstance(outcome, dict) and outcome.get("allowed") and record):
            return None
        if not (isinstance(record, dict) and isinstance(record.get("paper"), str)):
            raise ArtifactError(source, "record: not a review with its paper")
        apply = apply_review(record)
    elif kind == "reruns":
        apply = apply_records(source)
    elif kind == "verdicts":
        apply = apply_verdicts(source)
    else:
        raise ValueError(f"unknown kind {kind!r}; one of {KINDS}")
    open_pull = None
    if repo_name:
        from .github import GitHub

        github = GitHub.from_env()

        def open_pull(head: str, title: str, body: str) -> str:
            return github.create_pull(repo_name, title, head, branch, body)

    return push_change(
        repo_dir,
        apply,
        message,
        remote=remote,
        branch=branch,
        fallback_branch=fallback_branch or f"reproaudit/{kind}-{run_id}",
        open_pull=open_pull,
    )
