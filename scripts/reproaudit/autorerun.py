"""Which of a pull request's logbooks CI re-runs by itself, which wait for ``/reproduce``.

A ``cpu`` logbook is re-run automatically once ``validate`` succeeds: a
``workflow_run`` job on a GitHub-hosted runner, in bwrap, with no secrets and a
read-only token (``rerun.yml``). Any other hardware needs a GPU runner or Hugging
Face Jobs, which cost money and run on machines a maintainer vouches for, so it
waits for a maintainer's ``/reproduce [backend]``. A logbook without ``code`` and
``reproduce`` has nothing to run. The decision is pure (``plan_for``); the PR
report (``reproaudit check`` and the pull request's) and the re-run job
(``ci/rerun_pr.py``) both ask it, so what the report promises is what runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from . import layout
from .errors import InputError
from .loader import parse_yaml, to_model
from .models import Logbook

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
    except InputError:
        book = None
    return plan_for(paper, logbook, book)


def plan_books(
    books: Iterable[tuple[str, str]], read: Callable[[str], str | None]
) -> list[RerunPlan]:
    """A plan per (paper, logbook); ``read(rel)`` gives a logbook file's text at the head."""
    return [plan_from_text(p, lb, read(layout.logbook_rel(p, lb))) for p, lb in sorted(books)]
