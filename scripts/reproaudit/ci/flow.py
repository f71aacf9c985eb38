"""The remaining workflow steps: fetch a PR's logbooks as data, refuse a moved head,
judge and comment, start an approved run.

Privileged jobs never check out pull-request code. They fetch the files of the
logbooks a pull request touches from git objects, at one exact commit, into a
new folder of their own (never the base-branch checkout): as data for the judge,
and (for a re-run job without secrets) as the code to run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import layout
from ..errors import ArtifactError, ReproauditError
from ..fsutil import atomic_write
from ..judge.run import JudgeSummary, judge_corpus
from ..models import Logbook, VerdictFile
from ..repo import Corpus
from ..report.markdown_text import code, plain
from . import sticky
from .github import GitHub


def verify_head(github: GitHub, repo: str, pr: int, sha: str) -> str:
    """The PR's head SHA if it is still ``sha``; otherwise refuse: it moved after approval."""
    head = str(github.pull(repo, pr)["head"]["sha"])
    if head != sha:
        raise ReproauditError(
            f"pull request {pr}: the head moved after approval: approved {sha[:12]}, "
            f"now {head[:12]}",
            "a maintainer must review the new commits and type /reproduce again",
        )
    return head


def drop_tokens(environ: Any) -> list[str]:
    """Remove credentials from this process's environment before contributor code runs.

    Sandboxes never pass the caller's environment in; this is the second wall,
    for anything that would. Returns the names removed.
    """
    from ..reproduce.envscrub import SECRET_NAME

    names = [name for name in list(environ) if SECRET_NAME.search(name)]
    for name in names:
        del environ[name]
    return names


def fetch_pr_logbooks(
    github: GitHub,
    repo: str,
    pr: int,
    sha: str,
    repo_dir: Path,
    into: Path,
    *,
    with_code: bool = False,
    corpus: Corpus | None = None,
) -> list[str]:
    """Write the logbooks the PR touches (at ``sha``) into the new folder ``into``; their paths.

    From git objects of ``repo_dir`` (``ci.prfiles``): logbook YAML and write-ups,
    and with ``with_code`` every file of their code folders. A pull request that
    breaks the path rule is refused whole; nothing is written into ``repo_dir``.
    Their paper files are copied from ``repo_dir`` beside them (the base's claims);
    ``corpus`` is the command's ``Corpus`` of ``repo_dir``, when it has one.
    """
    from .prfiles import copy_papers, fetch_pr_files

    base = str(github.pull(repo, pr)["base"]["sha"])
    written = fetch_pr_files(Path(repo_dir), base, sha, Path(into), with_code=with_code)
    copy_papers(Path(repo_dir), Path(into), {key[0] for key in pr_logbooks(written)}, corpus)
    return written


BACKENDS = ("local", "hf-jobs")  # where /reproduce may run (reproduce.yml's backend input)
FETCHED = ".reproaudit/pr-logbooks.json"  # what the fetch step left for the re-run step


def fetch_for_rerun(
    github: GitHub, repo: str, pr: int, sha: str, repo_dir: Path, into: Path
) -> list[tuple[str, str]]:
    """The token-holding half of ``ci reproduce-pr``: check the head, fetch, note what to run."""
    verify_head(github, repo, pr, sha)
    books = pr_logbooks(fetch_pr_logbooks(github, repo, pr, sha, repo_dir, into, with_code=True))
    note = {"pr": pr, "sha": sha, "logbooks": [list(b) for b in books]}
    atomic_write(Path(into) / FETCHED, json.dumps(note) + "\n")
    return books


def fetched_logbooks(into: Path, pr: int, sha: str) -> list[tuple[str, str]]:
    """The logbooks the fetch step wrote for this PR and SHA (the re-run half needs no token)."""
    path = Path(into) / FETCHED
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
        books = [(str(a), str(b)) for a, b in note["logbooks"]]
        same = note["pr"] == pr and note["sha"] == sha
    except (OSError, ValueError, KeyError, TypeError):
        same, books = False, []
    if not same:
        raise ReproauditError(
            f"{path}: no fetched logbooks of pull request {pr} at {sha[:12]} here",
            "run `reproaudit ci reproduce-pr --stage fetch` with the same options first",
        )
    return books


def pr_logbooks(paths: list[str]) -> list[tuple[str, str]]:
    return sorted({d.key for p in paths if (d := layout.classify(p)) and d.kind == "logbook"})


Key = tuple[str, str]  # (paper id, logbook id)


@dataclass
class PrJudgement:
    """What ``judge_pr`` made of a PR's logbooks: the comment, and each logbook (as
    fetched) with the verdict just judged in memory, for whatever acts on them next
    (the authors' mention) instead of a verdict file of the base branch."""

    body: str
    verdicts: dict[Key, VerdictFile] = field(default_factory=dict)
    logbooks: dict[Key, Logbook] = field(default_factory=dict)

    @property
    def reran(self) -> list[str]:
        """``<paper>/<logbook>`` of each logbook judged with a passed, current re-run."""
        return [
            f"{p}/{lb}"
            for (p, lb), v in sorted(self.verdicts.items())
            if v.rerun is not None
            and v.rerun.status == "passed"
            and not any("stale_rerun" in c.flags for c in v.claims)
        ]


def judge_pr(
    repo_dir: Path,
    books: list[tuple[str, str]],
    judge: Any,
    *,
    reruns: Path | None = None,
) -> PrJudgement:
    """Judge the PR's logbooks with ``judge`` and render the verdicts as a Markdown comment.

    Judged in memory from one ``Corpus`` of ``repo_dir`` (the fetched view): the
    verdicts go into the comment and the result, never into files read back.
    """
    mode = judge.mode
    lines = [f"## reproaudit verdicts ({mode} judge)", ""]
    corpus = Corpus(repo_dir)
    done = PrJudgement("")
    for paper_id, logbook_id in books:
        book = corpus.logbook(paper_id, logbook_id)
        if book is not None:
            done.logbooks[(paper_id, logbook_id)] = book
        summary = JudgeSummary()
        docs = list(
            judge_corpus(corpus, judge, summary, reruns=reruns, paper=paper_id, logbook=logbook_id)
        )
        if summary.problems:
            lines.append(
                f"- {code(paper_id + '/' + logbook_id)}: not judged, "
                f"{plain(summary.problems[0].message)}"
            )
            continue
        verdict = docs[0].model() if docs else corpus.verdict(paper_id, logbook_id)
        if verdict is None:
            continue
        done.verdicts[(paper_id, logbook_id)] = verdict
        rerun = f"re-run {verdict.rerun.status}" if verdict.rerun else "no re-run"
        lines += [
            f"### {code(paper_id + '/' + logbook_id)} ({rerun})",
            "",
            "| claim | verdict | flags | evidence |",
            "|---|---|---|---|",
        ]
        for c in verdict.claims:
            lines.append(
                f"| {c.claim} | {c.verdict} | {', '.join(c.flags) or '—'} | "
                f"{plain(c.evidence or '', 300)} |"
            )
        lines.append("")
    done.body = "\n".join(lines) + "\n"
    return done


def post_verdicts(
    github: GitHub,
    repo: str,
    pr: int,
    body: str,
    mode: str,
    *,
    sha: str | None = None,
    reran: list[str] | None = None,
) -> bool:
    """Set the verdicts section of the PR's one bot comment; True when it was edited.

    ``sha`` and ``reran`` (the logbooks judged with a passed, current re-run there): the
    report's verdicts of those logbooks at that head are superseded (``sticky``)."""
    status: dict[str, Any] = {"mode": mode}
    if sha is not None:
        status |= {"sha": sha, "reran": sorted(reran or [])}
    return sticky.update(github, repo, pr, "llm", body, status)[1]


def dispatch_run(
    github: GitHub,
    repo: str,
    ref: str,
    outcome: dict[str, Any],
    pr: int,
    *,
    default_backend: str = "local",
) -> str:
    """Start reproduce.yml for an approved /reproduce or /rejudge; say what was done.

    The backend is the one ``/reproduce`` named, else ``default_backend`` (the
    repository variable ``REPROAUDIT_REPRODUCE_BACKEND``).
    """
    backend = outcome.get("backend") or default_backend
    if backend not in BACKENDS:
        raise ReproauditError(
            f"backend {str(backend)[:40]!r} is not one of {', '.join(BACKENDS)}",
            "set the repository variable REPROAUDIT_REPRODUCE_BACKEND to local or hf-jobs",
        )
    if not outcome.get("allowed") or outcome.get("command") not in ("reproduce", "rejudge"):
        return "nothing to start"
    head = outcome.get("head_sha") or str(github.pull(repo, pr)["head"]["sha"])
    action = "reproduce" if outcome["command"] == "reproduce" else "rejudge"
    if action == "rejudge" and rerun_pending(github, repo, pr):
        # it would wait in the concurrency group and could replace a pending re-run
        return f"not started: a re-run of PR {pr} is queued or running and judges when done"
    github.request(
        "POST",
        f"/repos/{repo}/actions/workflows/reproduce.yml/dispatches",
        json={
            "ref": ref,
            "inputs": {"pr": str(pr), "head_sha": head, "action": action, "backend": backend},
        },
    )
    on = f" on {backend}" if action == "reproduce" else ""
    return f"started reproduce.yml ({action}){on} for PR {pr} at {head[:12]}"


def dispatch_workflow(github: GitHub, repo: str, workflow: str, ref: str) -> str:
    """Start ``workflow`` on branch ``ref`` (``workflow_dispatch``); say what was done.

    A push made with a workflow's ``GITHUB_TOKEN`` starts no ``push`` workflow, so
    each job that commits to the default branch starts the site workflow itself.
    """
    if not re.fullmatch(r"[\w.-]+\.ya?ml", workflow):
        raise ReproauditError(f"{workflow!r} is not a workflow file name such as site.yml")
    github.request(
        "POST", f"/repos/{repo}/actions/workflows/{workflow}/dispatches", json={"ref": ref}
    )
    return f"started {workflow} on {ref}"


def rerun_pending(github: GitHub, repo: str, pr: int) -> bool:
    """Whether a reproduce.yml re-run of this PR is queued, waiting or in progress.

    reproduce.yml names its runs ``reproduce #<pr> <action> <sha>`` (``run-name``).
    """
    data = github.get(f"/repos/{repo}/actions/workflows/reproduce.yml/runs", per_page=100)
    prefix = f"reproduce #{pr} reproduce "
    return any(
        run.get("status") != "completed" and str(run.get("display_title", "")).startswith(prefix)
        for run in data.get("workflow_runs") or []
    )


def read_outcome(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ArtifactError(path, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ArtifactError(path, "not an outcome object")
    return data
