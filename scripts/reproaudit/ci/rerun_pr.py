"""``ci reproduce-pr``: re-run every logbook of a PR at the approved commit, without secrets.

The fetch stage holds the GitHub token (it checks the head and fetches the files);
the run stage drops every credential from the environment before any contributor
code runs. ``all`` does both in one process, dropping the token in between.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, MutableMapping
from pathlib import Path

from .flow import drop_tokens, fetch_for_rerun, fetched_logbooks
from .github import GitHub


def reproduce_pr(
    repo: Path,
    repo_name: str,
    pr: int,
    sha: str,
    *,
    backend: str,
    out: Path,
    sandbox: str | None,
    stage: str = "all",
    environ: MutableMapping[str, str] | None = None,
) -> Iterator[str]:
    """Do ``stage`` and yield a line per logbook as it finishes, then a summary line."""
    from ..reproduce import describe_record, reproduce_logbook

    environ = os.environ if environ is None else environ
    server = environ.get("GITHUB_SERVER_URL", "https://github.com")
    if stage in ("all", "fetch"):
        books = fetch_for_rerun(GitHub.from_env(), repo_name, pr, sha, repo)
        if stage == "fetch":
            yield f"{len(books)} logbook(s) fetched at {sha[:12]}"
            return
    books = fetched_logbooks(repo, pr, sha)
    api = None
    if backend == "hf-jobs":  # its client keeps the token; no contributor code runs here
        from huggingface_hub import HfApi

        api = HfApi(token=environ.get("HF_TOKEN") or None)
    drop_tokens(environ)
    failed = 0
    for paper_id, logbook_id in books:
        record = reproduce_logbook(
            repo,
            f"logbooks/{paper_id}/{logbook_id}.yaml",
            backend=backend,
            out=out,
            sandbox=sandbox,
            api=api,
            source_repo_url=f"{server}/{repo_name}",
            source_sha=sha,
        )
        failed += record.status != "passed"
        yield f"{paper_id}/{logbook_id}: {describe_record(record)}"
    yield f"{len(books)} logbook(s) re-run, {failed} not passed"
