"""``ci judge-pr``: fetch a PR's logbooks as data (never its code), judge them, comment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

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
    When posting, the paper's listed authors are mentioned once per pull request if a
    logbook falsifies or argues against one of their claims (``authors.py``).
    """
    verify_head(github, repo_name, pr, sha)
    books = pr_logbooks(fetch_pr_logbooks(github, repo_name, pr, sha, repo))
    body = judge_pr(repo, books, judge, reruns=reruns)
    if post:
        post_verdicts(github, repo_name, pr, body, judge.mode)
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
        guide = f"{server}/{repo_name}/blob/HEAD/{GUIDE_IN_REPO}"
        mention_authors(github, repo_name, pr, repo, books, guide=guide)
    return body
