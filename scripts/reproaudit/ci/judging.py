"""``ci judge-pr``: fetch a PR's logbooks as data, judge them, comment.

The code folders are fetched too, as data only (nothing here runs them): the judge
hashes them to decide whether a re-run record is current for the PR's bytes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write
from ..repo import Corpus
from .authors import plan_mentions
from .flow import fetch_pr_logbooks, judge_pr, post_verdicts, pr_logbooks, verify_head
from .github import GitHub


def judge_pull_request(
    github: GitHub,
    repo_name: str,
    pr: int,
    sha: str,
    repo: Path,
    judge: Any,
    *,
    reruns: Path | None = None,
    post: bool = False,
    mentions_out: Path | None = None,
) -> str:
    """The verdicts comment for the PR at ``sha`` (posted or updated when ``post``).

    A head that moved since ``sha`` was approved is refused before anything is fetched.
    The logbooks are judged in a folder of their own (``ci.prfiles``) beside copies
    of their paper files: nothing of the pull request is written into ``repo``.
    With ``mentions_out``, the claims a re-run-backed verdict just judged falsifies are
    written there as a plan (nothing when none is): ``ci push mentions`` records the due
    authors in the default branch's ledger and mentions them (``authors.py``).
    """
    verify_head(github, repo_name, pr, sha)
    base = Corpus(repo)  # the checkout, read once: the paper files and the authors' handles
    with tempfile.TemporaryDirectory(prefix="reproaudit-judge-") as tmp:
        view = Path(tmp) / "pr"
        books = pr_logbooks(
            fetch_pr_logbooks(github, repo_name, pr, sha, repo, view, with_code=True, corpus=base)
        )
        judged = judge_pr(view, books, judge, reruns=reruns)
        if post:
            post_verdicts(
                github, repo_name, pr, judged.body, judge.mode, sha=sha, reran=judged.reran
            )
        if mentions_out is not None:
            plan = plan_mentions(base, pr, sha, books, judged.verdicts)
            if plan is not None:
                Path(mentions_out).parent.mkdir(parents=True, exist_ok=True)
                atomic_write(Path(mentions_out), plan.model_dump_json(indent=1) + "\n")
    return judged.body
