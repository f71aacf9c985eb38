"""``ci judge-pr``: fetch a PR's logbooks as data, judge them, comment.

The code folders are fetched too, as data only (nothing here runs them): the judge
hashes them to decide whether a re-run record is current for the PR's bytes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ..repo import Corpus
from .authors import GUIDE_IN_REPO, mention_authors
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
) -> str:
    """The verdicts comment for the PR at ``sha`` (posted or updated when ``post``).

    A head that moved since ``sha`` was approved is refused before anything is fetched.
    The logbooks are judged in a folder of their own (``ci.prfiles``) beside copies
    of their paper files: nothing of the pull request is written into ``repo``.
    When posting, the paper's listed authors are mentioned once per pull request if a
    logbook falsifies (by the verdict just judged) or argues against one of their
    claims (``authors.py``).
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
            post_verdicts(github, repo_name, pr, judged.body, judge.mode)
            server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
            guide = f"{server}/{repo_name}/blob/HEAD/{GUIDE_IN_REPO}"
            mention_authors(
                github,
                repo_name,
                pr,
                repo,
                books,
                judged.verdicts,
                judged.logbooks,
                guide=guide,
                corpus=base,
            )
    return judged.body
