"""``ci reproduce-pr``: re-run every logbook of a PR at the approved commit, without secrets.

The fetch stage holds the GitHub token (it checks the head and fetches the files);
the run stage drops every credential from the environment before any contributor
code runs. ``all`` does both in one process, dropping the token in between.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, MutableMapping
from pathlib import Path

from .. import layout
from ..autorerun import cap_s, plan_for, within_cap
from ..errors import ReproauditError
from ..fsutil import refuse_non_folder
from ..repo import Corpus
from .flow import FETCHED, drop_tokens, fetch_for_rerun, fetched_logbooks
from .github import GitHub


def reproduce_pr(
    repo: Path,
    repo_name: str,
    pr: int | None,
    sha: str,
    *,
    backend: str,
    out: Path,
    sandbox: str | None,
    stage: str = "all",
    into: Path | None = None,
    only_auto: bool = False,
    environ: MutableMapping[str, str] | None = None,
) -> Iterator[str]:
    """Do ``stage`` and yield a line per logbook as it finishes, then a summary line.

    The fetch writes the PR's logbook files into ``into``, a new folder outside the
    checkout ``repo`` (for ``all``, a temporary one by default); the run stage
    re-runs them from there, never from the checkout.

    ``pr`` may be None in the run stage: the fetch stage's note names it (the run
    stage has no token to ask, and checks the note is for ``sha``). ``only_auto``
    re-runs only the logbooks CI re-runs by itself (``autorerun``: cpu, within the pull
    request's cap, the same plan the report shows).
    """
    from ..reproduce import describe_record, reproduce_logbook

    environ = os.environ if environ is None else environ
    server = environ.get("GITHUB_SERVER_URL", "https://github.com")
    if into is None:
        if stage != "all":
            raise ReproauditError(
                "--into is required with --stage fetch or run",
                "give both stages the same new folder outside the checkout, e.g. "
                '--into "$RUNNER_TEMP/pr-files"',
            )
        into = Path(tempfile.mkdtemp(prefix="reproaudit-pr-")) / "files"
    # what is not a folder there is refused before any network call or re-run
    if stage in ("all", "fetch"):
        refuse_non_folder(Path(into).parent)
    if stage in ("all", "run"):
        refuse_non_folder(out)
    if stage in ("all", "fetch"):
        if pr is None:
            raise ReproauditError("the fetch stage needs the pull request number (--pr or --event)")
        books = fetch_for_rerun(GitHub.from_env(), repo_name, pr, sha, repo, into)
        if stage == "fetch":
            yield f"{len(books)} logbook(s) fetched at {sha[:12]} into {into}"
            return
    if pr is None:
        pr = fetched_pr(into)
    books = fetched_logbooks(into, pr, sha)
    if only_auto:
        corpus = Corpus(into)
        plans = within_cap([plan_for(p, lb, corpus.logbook(p, lb)) for p, lb in books], cap_s())
        for plan in plans:
            if plan.kind != "auto":
                yield f"{plan.name}: not re-run here: {plan.why.replace('`', '')}"
        books = [(p.paper, p.logbook) for p in plans if p.kind == "auto"]
    api = None
    if backend == "hf-jobs":  # its client keeps the token; no contributor code runs here
        from huggingface_hub import HfApi

        api = HfApi(token=environ.get("HF_TOKEN") or None)
    drop_tokens(environ)
    failed = broken = 0
    for paper_id, logbook_id in books:
        record = reproduce_logbook(
            into,
            layout.logbook_rel(paper_id, logbook_id),
            backend=backend,
            out=out,
            sandbox=sandbox,
            api=api,
            source_repo_url=f"{server}/{repo_name}",
            source_sha=sha,
        )
        failed += record.status not in ("passed", "host_error")
        broken += record.status == "host_error"
        yield f"{paper_id}/{logbook_id}: {describe_record(record)}"
    machine = f", {broken} not run: this machine could not (not the logbooks')" if broken else ""
    yield f"{len(books)} logbook(s) re-run, {failed} not passed{machine}"


def fetched_pr(into: Path) -> int:
    """The pull request the fetch stage's note is for (checked against the SHA next)."""
    import json

    try:
        return int(json.loads((Path(into) / FETCHED).read_text(encoding="utf-8"))["pr"])
    except (OSError, ValueError, KeyError, TypeError):
        raise ReproauditError(
            f"{Path(into) / FETCHED}: no fetched logbooks here",
            "run `reproaudit ci reproduce-pr --stage fetch` first",
        ) from None
