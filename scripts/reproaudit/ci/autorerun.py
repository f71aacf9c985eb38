"""Which of a pull request's logbooks CI re-runs by itself, which wait for ``/reproduce``.

A ``cpu`` logbook is re-run automatically once ``validate`` succeeds: a
``workflow_run`` job on a GitHub-hosted runner, in bwrap, with no secrets and a
read-only token (``rerun.yml``). Any other hardware needs a GPU runner or Hugging
Face Jobs, which cost money and run on machines a maintainer vouches for, so it
waits for a maintainer's ``/reproduce [backend]``. A logbook without ``code`` and
``reproduce`` has nothing to run. The decision is pure (``plan_for``); the PR
report and the re-run job both ask it, so what the report promises is what runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .. import layout
from ..beneath import read_capped
from ..errors import ReproauditError
from ..layout import RUN_JSON
from ..loader import parse_yaml, to_model
from ..models import Logbook, RunRecord
from ..rerun_files import MAX_RUN_BYTES, read_run_json
from . import sticky
from .github import GitHub
from .store import StoreReport
from .text import code, plain

Kind = Literal["auto", "reproduce", "none", "invalid"]
AUTO_HARDWARE = "cpu"


@dataclass(frozen=True)
class RerunPlan:
    paper: str
    logbook: str
    kind: Kind
    why: str

    @property
    def name(self) -> str:
        return f"{self.paper}/{self.logbook}"


def plan_for(paper: str, logbook: str, book: Logbook | None) -> RerunPlan:
    """How this logbook gets re-run, and why (``book`` None: it does not parse)."""
    if book is None:
        return RerunPlan(paper, logbook, "invalid", "it does not validate: fix it first")
    if book.code is None or book.reproduce is None:
        return RerunPlan(
            paper, logbook, "none", "it has no `code` and `reproduce` sections: nothing to re-run"
        )
    hardware = book.reproduce.hardware
    if hardware == AUTO_HARDWARE:
        return RerunPlan(
            paper,
            logbook,
            "auto",
            "hardware `cpu`: re-run automatically in a sandbox on a GitHub-hosted runner "
            "once validation passes",
        )
    return RerunPlan(
        paper,
        logbook,
        "reproduce",
        f"hardware `{hardware}` needs a GPU: it waits for a maintainer's `/reproduce` "
        "(a self-hosted GPU runner) or `/reproduce hf-jobs` (Hugging Face Jobs)",
    )


def plan_from_text(paper: str, logbook: str, text: str | None) -> RerunPlan:
    """``plan_for`` of a logbook given as YAML text (None: deleted by the pull request)."""
    if text is None:
        return RerunPlan(paper, logbook, "none", "the pull request deletes it")
    rel = layout.logbook_rel(paper, logbook)
    try:
        book = to_model(parse_yaml(text, rel), Logbook)
    except ReproauditError:
        book = None
    return plan_for(paper, logbook, book)


def plan_books(
    books: Iterable[tuple[str, str]], read: Callable[[str], str | None]
) -> list[RerunPlan]:
    """A plan per (paper, logbook); ``read(rel)`` gives a logbook file's text at the head."""
    return [plan_from_text(p, lb, read(layout.logbook_rel(p, lb))) for p, lb in sorted(books)]


def render_plans(plans: list[RerunPlan]) -> list[str]:
    """The report's "Re-runs" section: what runs by itself, what awaits ``/reproduce``, why."""
    if not plans:
        return []
    heading = {
        "auto": "re-run automatically",
        "reproduce": "awaits `/reproduce`",
        "none": "not re-run",
        "invalid": "not re-run",
    }
    lines = ["", "### Re-runs", ""]
    for plan in plans:
        lines.append(f"- {code(plan.name)}: {heading[plan.kind]}: {plan.why}.")
    return lines


def render_store(report: StoreReport, repo: Path, head: str) -> str:
    """The bot comment's "reruns" section: each stored record's outcome, each refusal."""
    lines = [f"### CI re-runs at `{head[:12]}`", ""]
    for rel in report.stored:
        run = _stored_run(Path(repo) / rel / RUN_JSON)
        what = (
            f"{run.status} in {run.duration_s:.1f} s ({run.backend}, sandbox {run.sandbox})"
            if run is not None
            else "stored"
        )
        name = rel.removeprefix("reruns/")
        lines.append(f"- {code(name)}: {what}; record stored under {code(rel + '/')}")
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
