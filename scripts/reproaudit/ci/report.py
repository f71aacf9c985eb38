"""Publishing the pull request's report: the sticky comment and the check run (base-branch code).

``ci report`` reads the artifact ``ci validate-pr`` wrote (``report.artifact``,
untrusted data), decides who may change what again from trusted facts
(``ownership.rule_pull``: git trees and the permissions API), reads the PR's
logbooks at its head for the re-run plans, builds the ``Report`` and posts its
Markdown. The store-reruns step's section of the same comment is posted here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import layout
from .. import problems as P
from ..autorerun import RerunPlan, plan_books
from ..beneath import read_capped
from ..errors import InputError, ReproauditError
from ..hints import empty_claims
from ..loader import parse_yaml, to_model
from ..models import VERDICTS, Logbook, RunRecord
from ..problems import Problem
from ..repo import Corpus, corpus_of
from ..report.artifact import Artifact, ArtifactProblem
from ..report.markdown import pending_note, render_markdown, verdict_tables
from ..report.markdown_text import code, plain
from ..report.model import Report, build_report
from ..rerun_files import MAX_RUN_BYTES, read_run_json
from . import sticky
from .changes import BlobReader
from .github import GitHub
from .ownership import rule_pull
from .store import StoreReport

RULE_CODES = {P.NOT_OWNER, P.FILES_NOT_LISTED}  # who may change what: the report decides


def report_of(
    artifact: Artifact,
    *,
    outside: Iterable[str] = (),
    extra: Iterable[Problem] = (),
    notes: Iterable[str] = (),
    reruns: Iterable[RerunPlan] = (),
    empty: int | None = None,
) -> Report:
    """The report on a pull request's artifact, with the report's own findings.

    ``outside``, ``extra`` and ``notes`` come from the report's own checks (base-branch
    code): they add to what the untrusted artifact says, never take away from it.
    """
    return build_report(
        pr=artifact.pr,
        head_sha=artifact.head_sha,
        files=artifact.files,
        problems=[*artifact.problems, *(ArtifactProblem.of(p) for p in extra)],
        verdicts=artifact.verdicts,
        outside=[*artifact.outside, *outside],
        notes=notes,
        reruns=reruns,
        empty=empty,
    )


def render_comment(
    artifact: Artifact,
    *,
    outside: Iterable[str] = (),
    extra: Iterable[Problem] = (),
    notes: Iterable[str] = (),
    reruns: Iterable[RerunPlan] = (),
) -> str:
    """The sticky comment: marker, one-sentence outcome, files, verdicts, how to reproduce."""
    report = report_of(artifact, outside=outside, extra=extra, notes=notes, reruns=reruns)
    return render_markdown(report)


def verdict_counts(artifact: Artifact) -> dict[str, int]:
    counts = dict.fromkeys(VERDICTS, 0)
    for verdict in artifact.verdicts:
        for c in verdict.claims:
            counts[c.verdict] += 1
    return counts


def publish_report(
    artifact: Artifact,
    *,
    github: Any,
    repo: str,
    repo_dir: Path | None = None,
    corpus: Corpus | None = None,
) -> dict[str, Any]:
    """Post or update the sticky comment and create the check run (base-branch code).

    Who may change what is decided again here, from trusted facts: the changed paths
    from the base and head trees (``repo_dir``, a git checkout) or else from the files
    API when it lists them all, and the author's permission. ``corpus``: the command's
    one ``Corpus`` of the checkout ``repo_dir`` (its paper files), when it has one.
    """
    ruling = rule_pull(github, repo, artifact.pr, artifact.head_sha, repo_dir).ruling
    # the rule is decided here, from trusted facts; the artifact's view of it is dropped
    reported = {(p.code, p.path) for p in ruling.problems}  # the path rule: said once
    artifact = artifact.model_copy(
        update={
            "outside": [],
            "problems": [
                p
                for p in artifact.problems
                if p.code not in RULE_CODES and (p.code, p.path) not in reported
            ],
        }
    )
    texts = pr_logbook_texts(artifact, github=github, repo=repo, repo_dir=repo_dir)
    report = report_of(
        artifact,
        outside=ruling.outside,
        extra=ruling.problems,
        notes=ruling.notes,
        reruns=plan_books(texts, lambda rel: texts[_book_key(rel)]),
        empty=count_empty(texts, corpus_of(repo_dir, corpus)) if repo_dir else None,
    )
    body = render_markdown(report)  # the check run's summary: all of it
    ok = report.ok
    status = {"ok": ok, "status": report.status, "sha": report.head_sha}
    _, updated = sticky.update(
        github,
        repo,
        artifact.pr,
        "report",
        render_markdown(report, tables=False),
        status,
        group_sections=rules_sections(report),
    )
    counts = verdict_counts(artifact)
    title = "valid" if ok else "problems to fix"
    title += " — " + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    github.check_run(
        repo,
        artifact.head_sha,
        "reproaudit",
        "success" if ok else "failure",
        title.rstrip(" —"),
        body,
    )
    return {"ok": ok, "updated": updated, "comment": body}


def rules_sections(report: Report) -> dict[str, sticky.Section]:
    """The sticky comment's rules verdicts, one section per logbook at this head: the
    judge's verdicts of a passed re-run at the same head supersede them (``sticky``)."""
    note = pending_note(report)
    pending = {v.paper + "/" + v.logbook for v in report.verdicts if v.numbers != "ci_rerun"}
    return {
        f"{sticky.RULES}:{name}": sticky.Section(
            table + (f"\n{note}\n" if name in pending else ""), {"sha": report.head_sha}
        )
        for name, table in verdict_tables(report).items()
    }


def pr_logbook_texts(
    artifact: Artifact, *, github: Any, repo: str, repo_dir: Path | None
) -> dict[tuple[str, str], str | None]:
    """The text of each logbook the PR changes, at its head (git, else the contents API)."""
    books = {d.key for f in artifact.files if (d := layout.classify(f)) and d.kind == "logbook"}
    if not books:
        return {}
    rels = {key: layout.logbook_rel(*key) for key in sorted(books)}
    if repo_dir is None:
        return {key: github.file_text(repo, rel, artifact.head_sha) for key, rel in rels.items()}
    texts: dict[tuple[str, str], str | None] = {}
    with BlobReader(repo_dir) as reader:
        for key, rel in rels.items():
            data = reader.read(artifact.head_sha, rel)
            texts[key] = None if data is None else data.decode("utf-8", "replace")
    return texts


def rerun_plans(
    artifact: Artifact, *, github: Any, repo: str, repo_dir: Path | None
) -> list[RerunPlan]:
    """How CI re-runs each logbook the PR changes, read at the head (git, else the API)."""
    texts = pr_logbook_texts(artifact, github=github, repo=repo, repo_dir=repo_dir)
    return plan_books(texts, lambda rel: texts[_book_key(rel)])


def _book_key(rel: str) -> tuple[str, str]:
    """(paper, logbook) of a logbook path ``plan_books`` asks for."""
    key = layout.logbook_key(rel)
    if key is None:
        raise ValueError(f"not a logbook path: {rel}")
    return key


def count_empty(texts: dict[tuple[str, str], str | None], corpus: Corpus) -> int:
    """Claims the PR's logbooks leave empty, against the papers of ``corpus`` (the base
    branch's checkout, read by the command)."""
    total = 0
    for (paper_id, logbook_id), text in texts.items():
        if text is None:
            continue
        paper = corpus.paper(paper_id)
        try:
            book = to_model(parse_yaml(text, layout.logbook_rel(paper_id, logbook_id)), Logbook)
        except InputError:
            continue
        if paper is not None:
            total += len(empty_claims(paper, book))
    return total


def render_store(report: StoreReport, repo: Path, head: str) -> str:
    """The bot comment's "reruns" section: each stored record's outcome, each refusal."""
    lines = [f"### CI re-runs at `{head[:12]}`", ""]
    for rel in report.stored:
        run = _stored_run(Path(repo) / rel / layout.RUN_JSON)
        what = (
            f"{run.status} in {run.duration_s:.1f} s ({run.backend}, sandbox {run.sandbox})"
            if run is not None
            else "stored"
        )
        name = rel.removeprefix("reruns/")
        lines.append(
            f"- {code(name)}: {what}; record kept with this pull request, and stored under "
            f"{code(rel + '/')} on the default branch once the pull request is merged"
        )
    for path, why in report.refused:
        lines.append(f"- ❌ {code(path)} refused: {plain(why, 300)}")
    for rel in report.missing:
        lines.append(
            f"- {code(rel.removeprefix('reruns/'))}: not re-run here (the report's "
            "Re-runs section says why)"
        )
    if not report.stored and not report.refused:
        lines.append("No logbook of this pull request was re-run here.")
    return "\n".join(lines) + "\n"


def _stored_run(path: Path) -> RunRecord | None:
    """A record ``store-reruns`` just wrote, through the judge's reader, or None."""
    try:
        got = read_capped(path.parent, path.name, MAX_RUN_BYTES)
    except ReproauditError:
        return None
    return read_run_json(got.raw).run if got is not None else None


def post_store_report(
    github: GitHub, repo_name: str, pr: int, head: str, report: StoreReport, repo: Path
) -> None:
    """Set the "reruns" section of the PR's one bot comment (status as data in its header)."""
    status = {
        "sha": head,
        "stored": [rel.removeprefix("reruns/") for rel in report.stored],
        "refused": len(report.refused),
    }
    sticky.update(github, repo_name, pr, "reruns", render_store(report, repo, head), status)
