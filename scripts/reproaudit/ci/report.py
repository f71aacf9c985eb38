"""The pull-request result: computed in ``validate``, published in ``report``.

Computing and publishing are separate steps. ``validate_pr`` runs with the pull
request's code and no secrets, and writes one JSON artifact. ``report`` runs
with the base branch's code, reads that artifact as untrusted data (strict
schema, sizes capped, PR number and head SHA checked against the trusted
event), and renders the one sticky comment and the check-run summary.

Over 400 lines because the artifact's strict schema, its computation and the report's
rendering change together; the trusted ownership rule lives in ``ownership.py``.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import layout
from .. import problems as P
from ..errors import ArtifactError, ReproauditError
from ..escaping import clip
from ..judge.run import judge_in_memory
from ..loader import parse_yaml, to_model
from ..models import FLAGS, VERDICTS, Logbook, VerdictFile
from ..pathrule import tree_problems
from ..problems import Problem
from ..repo import Corpus
from ..validate import git_changed, validate_repo
from . import sticky
from .autorerun import RerunPlan, plan_books, render_plans
from .changes import BlobReader, Change, tree_changes
from .ownership import Author, Ruling, contributor_of, rule_pr, rule_pull
from .text import code, plain

SCHEMA = "reproaudit-pr-result/1"
RULE_CODES = {P.NOT_OWNER, P.FILES_NOT_LISTED}  # who may change what: the report decides
MARKER = "<!-- reproaudit:report"
Short = Annotated[str, Field(max_length=2000)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ArtifactProblem(_Strict):
    code: Annotated[str, Field(max_length=64)]
    path: Short
    line: int | None = None
    field: Short | None = None
    message: Short
    hint: Short | None = None
    severity: Literal["error", "warning"]


class ArtifactClaim(_Strict):
    claim: Annotated[str, Field(max_length=40)]
    verdict: Literal["verified", "falsified", "toy", "inconclusive"]
    flags: Annotated[list[Literal[FLAGS]], Field(max_length=len(FLAGS))] = []  # type: ignore[valid-type]
    evidence: Short = ""


Numbers = Literal["ci_rerun", "local_rerun", "self_reported"]


class ArtifactVerdict(_Strict):
    paper: Annotated[str, Field(max_length=64)]
    logbook: Annotated[str, Field(max_length=64)]
    claims: Annotated[list[ArtifactClaim], Field(max_length=200)]
    # where the judged numbers came from; anything but CI's re-run is pending
    numbers: Numbers = "self_reported"


class Artifact(_Strict):
    schema_: Literal["reproaudit-pr-result/1"] = Field(alias="schema")
    pr: int = Field(gt=0)
    head_sha: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
    files: Annotated[list[Short], Field(max_length=5000)]
    outside: Annotated[list[Short], Field(max_length=5000)]
    problems: Annotated[list[ArtifactProblem], Field(max_length=1000)]
    verdicts: Annotated[list[ArtifactVerdict], Field(max_length=200)]

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    @property
    def ok(self) -> bool:
        return not self.outside and not any(p.severity == "error" for p in self.problems)


# --- computing (pull-request code, no secrets) ---------------------------------------


def outside_logbooks(files: list[str]) -> list[str]:
    """Changed paths a contributor's pull request may not touch (anything not in logbooks/)."""
    return sorted(f for f in files if PurePosixPath(f).parts[:1] != ("logbooks",))


def validate_pr(
    repo: Path,
    base: str,
    pr: int,
    head_sha: str,
    *,
    allow_outside: bool = False,
    author: Author | None = None,
) -> dict[str, Any]:
    """Validate what the pull request changed and judge its logbooks (rules): the artifact.

    With ``author``, who may change what follows the one rule of ``ownership``.
    """
    repo = Path(repo).resolve()
    corpus = Corpus(repo)  # one read of each file, for validation and every logbook judged
    files, git_problems = git_changed(repo, base)
    report = validate_repo(repo, changed_from=base, corpus=corpus)
    changes = changes_with_modes(repo, base, files)
    tree = tree_problems(changes)  # from the git trees: what a checkout makes does not matter
    seen = {p.path for p in tree}
    problems = [*git_problems, *(p for p in report.problems if p.path not in seen)]
    outside = [] if allow_outside else outside_logbooks(files)
    if author is not None:
        with BlobReader(repo) as reader:
            ruling = rule_pr(changes, author, git_owner_at(reader, base, "HEAD"))
        outside, problems = ruling.outside, [*problems, *ruling.problems]
    else:
        problems.extend(tree)
    verdicts = []
    books = sorted(
        {
            d.key
            for f in files
            if (d := layout.classify(f)) and d.kind == "logbook" and (repo / f).is_file()
        }
    )
    if report.ok:
        for paper_id, logbook_id in books:
            verdict, _ = judge_in_memory(repo, paper_id, logbook_id, corpus=corpus)  # no writes
            if verdict is not None:
                verdicts.append(artifact_verdict(verdict))
    artifact = {
        "schema": SCHEMA,
        "pr": pr,
        "head_sha": head_sha,
        "files": files,
        "outside": outside,
        "problems": [asdict(p) for p in problems],
        "verdicts": verdicts,
    }
    Artifact.model_validate(artifact)
    return artifact


def changes_with_modes(repo: Path, base: str, files: list[str]) -> list[Change]:
    """``files`` as changes, with the git mode of each one committed since ``base``.

    Committed paths take their mode from the trees; an uncommitted one has only
    its name (``validate`` checks it on disk), or is a deletion when it is gone.
    """
    try:
        tree = {c.path: c for c in tree_changes(repo, base, "HEAD")}
    except ReproauditError:
        tree = {}
    return [tree.get(f) or Change(f, "M" if os.path.lexists(repo / f) else "D") for f in files]


def artifact_verdict(verdict: VerdictFile, numbers: str | None = None) -> dict[str, Any]:
    """A verdict file as the artifact carries it (evidence capped).

    ``numbers`` says where the judged numbers came from; by default a verdict with
    a passed re-run rests on CI's re-run, any other on self-reported numbers.
    """
    if numbers is None:
        passed = verdict.rerun is not None and verdict.rerun.status == "passed"
        numbers = "ci_rerun" if passed else "self_reported"
    return {
        "paper": verdict.paper,
        "logbook": verdict.logbook,
        "numbers": numbers,
        "claims": [
            {
                "claim": c.claim,
                "verdict": c.verdict,
                "flags": list(c.flags),
                "evidence": (c.evidence or "")[:2000],
            }
            for c in verdict.claims
        ],
    }


# --- publishing (base-branch code) -------------------------------------------------------


ARTIFACT = "the result artifact"


def load_artifact(raw: bytes, *, pr: int, head_sha: str) -> Artifact:
    """Parse an artifact as untrusted data and check it belongs to this PR and commit."""
    if len(raw) > 5_000_000:
        raise ArtifactError(ARTIFACT, "over 5 MB; refusing it")
    try:
        artifact = Artifact.model_validate(json.loads(raw))
    except (ValueError, ValidationError) as exc:
        raise ArtifactError(ARTIFACT, f"not valid: {str(exc)[:500]}") from None
    if artifact.pr != pr:
        raise ArtifactError(ARTIFACT, f"pr: artifact is for PR {artifact.pr}, not {pr}")
    if artifact.head_sha != head_sha:
        raise ArtifactError(
            ARTIFACT,
            f"head_sha: artifact is for commit {artifact.head_sha[:12]}, "
            f"not the run's {head_sha[:12]}",
        )
    return artifact


@dataclass(frozen=True)
class LocalRerun:
    """A re-run made by ``reproaudit check`` on the contributor's machine."""

    status: str  # passed | failed | timeout
    exit_code: int | None
    duration_s: float
    log_tail: str
    sandbox: str | None = None  # "none": the contributor asked for an unconfined run


@dataclass(frozen=True)
class Report:
    """What a report says, computed once; the Markdown and terminal renderers show it."""

    ok: bool
    head_sha: str
    committed: bool  # False: the files checked are not (all) committed at head_sha
    errors: list[ArtifactProblem]
    outside: list[str]
    by_file: dict[str, list[ArtifactProblem]]
    verdicts: list[ArtifactVerdict]
    checks: list[str]
    rerun: LocalRerun | None = None
    rerun_expected: bool = True  # False when the logbook has nothing CI could re-run
    notes: tuple[str, ...] = ()  # the report's own findings (base-branch code), shown as info
    reruns: tuple[RerunPlan, ...] = ()  # how CI re-runs each logbook (base-branch code, git)
    empty: int | None = None  # claims left empty (None: count the verdicts' not_addressed)

    @property
    def status(self) -> str:
        return "ok" if self.ok else "fail"

    def where(self, code_of=lambda s: f"`{s}`") -> str:
        if not self.committed:
            return "in your working copy (not committed)"
        return f"at {code_of(self.head_sha[:12])}"

    @property
    def pending(self) -> bool:
        """Whether any verdict rests on numbers not (yet) from CI's re-run."""
        return any(v.numbers != "ci_rerun" for v in self.verdicts)


def build_report(
    artifact: Artifact,
    *,
    outside: list[str] | None = None,
    committed: bool = True,
    rerun: LocalRerun | None = None,
    rerun_expected: bool = True,
    extra: list[Problem] | None = None,
    notes: list[str] | None = None,
    reruns: list[RerunPlan] | None = None,
    empty: int | None = None,
) -> Report:
    """Compute a report from an artifact (and, for ``check``, a local re-run).

    ``outside``, ``extra`` and ``notes`` come from the report's own checks (base-branch
    code): they add to what the untrusted artifact says, never take away from it.
    """
    outside = sorted(set(artifact.outside) | set(outside or []))
    problems = [*artifact.problems, *(ArtifactProblem(**asdict(p)) for p in extra or [])]
    errors = [p for p in problems if p.severity == "error"]
    failed_rerun = rerun is not None and rerun.status != "passed"
    by_file: dict[str, list[ArtifactProblem]] = defaultdict(list)
    for problem in problems:
        by_file[problem.path].append(problem)
    books = [
        f for f in artifact.files if (d := layout.classify(f)) is not None and d.kind == "logbook"
    ]
    checks = [f"reproaudit check {f}" for f in books[:10] if "`" not in f] or [
        "reproaudit validate --changed-from origin/main"
    ]
    return Report(
        ok=not errors and not outside and not failed_rerun,
        head_sha=artifact.head_sha,
        committed=committed,
        errors=errors,
        outside=outside,
        by_file={k: by_file[k] for k in sorted(by_file)},
        verdicts=list(artifact.verdicts),
        checks=checks,
        rerun=rerun,
        rerun_expected=rerun_expected,
        notes=tuple(notes or ()),
        reruns=tuple(reruns or ()),
        empty=empty,
    )


PENDING = "pending"
PENDING_NOTE = (
    "*pending*: judged on the numbers the logbook reports{local}; CI's re-run decides "
    "(cpu logbooks are re-run by themselves, others after a maintainer's `/reproduce`)."
)


def outcome_sentence(report: Report, code_of=lambda s: f"`{s}`") -> str:
    """The one-sentence outcome both renderers start with (without the emoji)."""
    where = report.where(code_of)
    if report.errors or report.outside:
        n = len(report.errors)
        text = f"{n} problem{'s' if n != 1 else ''} to fix"
        if report.outside:
            text += f" and {len(report.outside)} file(s) outside {code_of('logbooks/')}"
        return f"{text} {where}."
    if report.rerun is not None and report.rerun.status != "passed":
        what = "timed out" if report.rerun.status == "timeout" else "failed"
        code_text = (
            f" (exit code {report.rerun.exit_code})" if report.rerun.exit_code is not None else ""
        )
        return (
            f"The local re-run {what}{code_text} {where}: a failed re-run verifies nothing; "
            "fix the command, then check again."
        )
    count = len(report.verdicts)
    empty = report.empty
    if empty is None:
        empty = sum(1 for v in report.verdicts for c in v.claims if "not_addressed" in c.flags)
    addressed = (
        "every claim addressed"
        if not empty
        else f"{empty} claim{'s' if empty != 1 else ''} still empty"
    )
    if report.reruns:
        auto = sum(p.kind == "auto" for p in report.reruns)
        waiting = sum(p.kind == "reproduce" for p in report.reruns)
        then = f" {auto} re-run automatically" if auto else ""
        if waiting:
            then += f"{',' if auto else ''} {waiting} awaiting {code_of('/reproduce')}"
        then = f" In CI:{then}." if then else ""
    else:
        then = f" A maintainer can ask for a re-run with {code_of('/reproduce')}."
    return (
        f"Valid, {addressed}: {count} logbook{'s' if count != 1 else ''} checked {where}; "
        f"the rules verdicts are below.{then}"
    )


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary when longer than ``limit``."""
    return clip(" ".join(str(text).split()), limit)


def log_lines(tail: str, most: int = 20) -> list[str]:
    """The last ``most`` non-empty lines of a log tail."""
    lines = [line.rstrip() for line in tail.splitlines() if line.strip()]
    return lines[-most:]


def render_comment(
    artifact: Artifact,
    *,
    outside: list[str] | None = None,
    extra: list[Problem] | None = None,
    notes: list[str] | None = None,
) -> str:
    """The sticky comment: marker, one-sentence outcome, files, verdicts, how to reproduce."""
    return render_markdown(build_report(artifact, outside=outside, extra=extra, notes=notes))


def render_markdown(report: Report) -> str:
    """A report as GitHub Markdown (untrusted text escaped), the PR comment's body."""
    sha = report.head_sha if report.committed else "uncommitted"
    lines = [f"{MARKER} status={report.status} sha={sha} -->", "## reproaudit", ""]
    mark = "✅" if report.ok else "❌"
    lines.append(f"{mark} {outcome_sentence(report)}")
    if report.outside:
        lines += [
            "",
            "### Files outside `logbooks/`",
            "",
            "A contribution may only add or change files under `logbooks/`:",
            "",
        ]
        lines += [f"- ❌ {code(f)}" for f in report.outside[:50]]
    for note in report.notes:
        lines += ["", f"ℹ️ {plain(note, 500)}"]
    for path, problems in report.by_file.items():
        lines += ["", f"### {code(path)}", ""]
        for p in problems[:50]:
            mark = "❌" if p.severity == "error" else "ℹ️"
            where = f"line {p.line}" if p.line else "file"
            field = f" {code(p.field)}" if p.field else ""
            message = plain(shorten(p.message, 300), 400)
            lines.append(f"- {mark} {where}{field}: {message} (`{plain(p.code)}`)")
            if p.hint:
                lines.append(f"  - hint: {plain(shorten(p.hint, 300), 400)}")
    for verdict in report.verdicts:
        pending = verdict.numbers != "ci_rerun"
        lines += [
            "",
            f"### Verdicts for {code(verdict.paper + '/' + verdict.logbook)} (rules)",
            "",
            "| claim | verdict | flags | evidence |",
            "|---|---|---|---|",
        ]
        for c in verdict.claims:
            flags = ", ".join(c.flags) or "—"
            value = f"{c.verdict} *({PENDING})*" if pending else c.verdict
            evidence = plain(shorten(c.evidence, 300), 400)
            lines.append(f"| {plain(c.claim)} | {value} | {flags} | {evidence} |")
    if report.pending and report.verdicts:
        passed = report.rerun is not None and report.rerun.status == "passed"
        local = " and a local re-run" if passed else ""
        lines += ["", PENDING_NOTE.format(local=local)]
    lines += render_plans(list(report.reruns))
    if report.rerun is not None:
        lines += ["", rerun_line(report.rerun)]
        if report.rerun.status != "passed":
            tail = log_lines(report.rerun.log_tail)
            lines += ["", "<details open><summary>Log tail</summary>", "", "```text"]
            lines += [line.replace("```", "ˋˋˋ") for line in tail] or ["(no output)"]
            lines += ["```", "</details>"]
    lines += [
        "",
        "<details><summary>Reproduce this locally</summary>",
        "",
        "```bash",
        "pip install -e .",
        *report.checks,
        "```",
        "</details>",
    ]
    return "\n".join(lines) + "\n"


def rerun_line(rerun: LocalRerun) -> str:
    where = f"exit code {rerun.exit_code}" if rerun.exit_code is not None else "no exit code"
    line = (
        f"Local re-run: {rerun.status} in {rerun.duration_s:.1f} s ({where}); "
        "CI re-runs it again (cpu logbooks by themselves, others after a maintainer's "
        "`/reproduce`)."
    )
    if rerun.sandbox == "none":
        line += (
            "\n\nNOT SANDBOXED: the re-run ran unconfined on this machine (`--sandbox none`); "
            "CI always runs it in a sandbox."
        )
    return line


def verdict_counts(artifact: Artifact) -> dict[str, int]:
    counts = dict.fromkeys(VERDICTS, 0)
    for verdict in artifact.verdicts:
        for c in verdict.claims:
            counts[c.verdict] += 1
    return counts


def pr_of_workflow_run(event: dict[str, Any], github: Any) -> tuple[int, str]:
    """(PR number, head SHA) of a ``workflow_run`` event, from trusted fields only.

    ``workflow_run.pull_requests`` is empty for pull requests from forks; then the
    open pull request whose head is the run's head SHA is looked up.
    """
    try:
        run = event["workflow_run"]
        head_sha = str(run["head_sha"])
        repo = str(event["repository"]["full_name"])
    except (KeyError, TypeError) as exc:
        raise ArtifactError("the event", f"not a workflow_run event: missing {exc}") from None
    for pull in run.get("pull_requests") or []:
        if str(pull.get("head", {}).get("sha")) == head_sha:
            return int(pull["number"]), head_sha
    for pull in github.paginate(f"/repos/{repo}/pulls", state="open"):
        if pull["head"]["sha"] == head_sha:
            return int(pull["number"]), head_sha
    raise ReproauditError(f"no open pull request has head {head_sha[:12]}")


def publish_report(
    artifact: Artifact,
    *,
    github: Any,
    repo: str,
    repo_dir: Path | None = None,
) -> dict[str, Any]:
    """Post or update the sticky comment and create the check run (base-branch code).

    Who may change what is decided again here, from trusted facts: the changed paths
    from the base and head trees (``repo_dir``, a git checkout) or else from the files
    API when it lists them all, and the author's permission.
    """
    ruling = check_pr_changes(artifact, github=github, repo=repo, repo_dir=repo_dir)
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
    report = build_report(
        artifact,
        outside=ruling.outside,
        extra=ruling.problems,
        notes=ruling.notes,
        reruns=plan_books(texts, lambda rel: texts[_book_key(rel)]),
        empty=count_empty(texts, repo_dir),
    )
    body = render_markdown(report)
    ok = report.ok
    status = {"ok": ok, "status": report.status, "sha": report.head_sha}
    _, updated = sticky.update(github, repo, artifact.pr, "report", body, status)
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


def pr_logbook_texts(
    artifact: Artifact, *, github: Any, repo: str, repo_dir: Path | None
) -> dict[tuple[str, str], str | None]:
    """The text of each logbook the PR changes, at its head (git, else the contents API)."""
    books = {d.key for f in artifact.files if (d := layout.classify(f)) and d.kind == "logbook"}
    if not books:
        return {}
    rels = {key: f"logbooks/{key[0]}/{key[1]}.yaml" for key in sorted(books)}
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
    """(paper, logbook) of ``logbooks/<paper>/<logbook>.yaml``."""
    paper, name = rel.removeprefix("logbooks/").split("/")
    return paper, name.removesuffix(".yaml")


def count_empty(texts: dict[tuple[str, str], str | None], repo_dir: Path | None) -> int | None:
    """Claims the PR's logbooks leave empty, against the papers on the base branch."""
    if repo_dir is None:
        return None
    from ..hints import empty_claims

    corpus, total = Corpus(repo_dir), 0
    for (paper_id, logbook_id), text in texts.items():
        if text is None:
            continue
        paper = corpus.paper(paper_id)
        try:
            book = to_model(parse_yaml(text, f"logbooks/{paper_id}/{logbook_id}.yaml"), Logbook)
        except ReproauditError:
            continue
        if paper is not None:
            total += len(empty_claims(paper, book))
    return total


# --- who may change what (the ownership rule, from trusted facts) -------------------------


def git_owner_at(reader: BlobReader, base: str, head: str) -> Any:
    """``owner_at`` for ``rule_pr``: a logbook's contributor at ``base`` or ``head`` (git)."""

    def owner_at(side: str, rel: str) -> str | None:
        return contributor_of(reader.read(base if side == "base" else head, rel), rel)

    return owner_at


def check_pr_changes(
    artifact: Artifact, *, github: Any, repo: str, repo_dir: Path | None
) -> Ruling:
    """The ownership rule for the artifact's PR and head, from the API and git (trusted)."""
    return rule_pull(github, repo, artifact.pr, artifact.head_sha, repo_dir).ruling
