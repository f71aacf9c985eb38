"""The page contexts' types: what each template receives, one type per idea (dataclasses
for pages, TypedDicts for the rows of lists and feeds, which are also written as JSON).

``context.py`` builds them with pure functions of ``SiteData``; templates read
their attributes (``p.claims``, ``cell.state``); rendering only renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from ..models import Claim, Logbook, Opinion, PaperMeta, Result, Review, VerdictFile, Votes
from .cite import PaperCitation
from .words import Shown


@dataclass(frozen=True)
class Cell:
    """One logbook's verdict on one claim, as the paper's grid shows it."""

    state: str | None  # review state: under_review, confirmed, rejected, or None
    verdict: str  # after reviews
    machine_verdict: str  # the judge's, before reviews
    review: str | None
    flags: list[str]
    evidence: str
    counted: bool  # False: superseded by a later logbook of the same contributor
    answer: Review | None = None  # the authors' latest answer on this falsification
    tested: str = ""  # a verified that holds only within the range tested: that range, in words
    decided_by: str | None = None  # rules | model (a verdict only a model made)
    second: str | None = None  # the second model's verdict on a model-judged claim


@dataclass(frozen=True)
class LogbookColumn:
    """A logbook as a column of the paper's grid."""

    id: str
    url: str
    contributor: str
    judged_at: datetime | None
    mode: str | None
    judge: str
    stale: bool
    rerun: str | None  # the re-run's status, when there was one

    @property
    def label(self) -> str:
        """The name of the column on a phone's card (a cell's ``data-label``): the logbook
        id, and the contributor's handle unless the id already begins with it (``alice-2``)."""
        if self.id.lower().startswith(self.contributor.lower() + "-"):
            return self.id
        return f"{self.id} (@{self.contributor})"


@dataclass(frozen=True)
class ContestedEntry(LogbookColumn):
    """One side of a contested claim: a logbook and what it found."""

    evidence: str = ""
    flags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ClaimRow:
    """A claim as a row of the paper's grid."""

    id: str
    statement: str
    anchor: str | None
    kind: str
    target: str
    regime: str
    fold: str
    cells: list[Cell | None]  # one per logbook column, None: not judged
    responses: list[Review]  # the authors' responses
    shown: Shown | None = None  # the fold in the words of the verdict chips


@dataclass(frozen=True)
class Contested:
    claim: ClaimRow
    verified: list[ContestedEntry]
    falsified: list[ContestedEntry]


@dataclass(frozen=True)
class Falsification:
    """A claimed falsification (a logbook's argument) and its review state."""

    paper: str
    title: str
    paper_url: str
    logbook: str
    url: str
    contributor: str
    claim: str
    argument: str
    counterexample: Any
    state: str  # under_review, confirmed, rejected
    machine_verdict: str | None
    reviews: list[Review]
    responses: list[Review]


@dataclass(frozen=True)
class Discrepancy:
    logbook: str
    url: str
    claim: str
    paper_says: str
    code_does: str


@dataclass(frozen=True)
class PaperPage:
    """``papers/<id>/``: the claims-by-logbooks grid and everything around it."""

    paper: PaperMeta
    url: str
    claims_version: int
    bucket: str | None
    bucket_label: str
    feed: str
    authors_text: str
    links: dict[str, str]
    released: dict[str, Any]
    logbooks: list[LogbookColumn]
    claims: list[ClaimRow]
    contested: list[Contested]
    falsifications: list[Falsification]
    discrepancies: list[Discrepancy]
    badge: str
    site_url: str | None
    cite: PaperCitation
    answer: Review | None = None  # the authors' latest answer on a counted falsification
    draft: bool = False  # claims not reviewed yet: listed apart, no verdict counts
    outcome: Shown | None = None  # the outcome in the one vocabulary (header, badge, feeds)
    logbook_cites: list[dict[str, str]] = field(default_factory=list)  # BibTeX per logbook


@dataclass(frozen=True)
class ClaimResult:
    """One claim on a logbook's page: the logbook's result and its verdict."""

    claim: Claim
    target: str
    regime: str
    result: Result | None
    verdict: str | None  # after reviews
    machine_verdict: str | None
    review: str | None
    state: str | None
    evidence: str | None
    flags: list[str]
    votes: Votes | None
    measurements: list[MeasurementRow]
    sweep_rerun: list[tuple[Any, Any]] | None
    answer: Review | None = None  # the authors' latest answer on this falsification
    tested: str = ""  # a verified that holds only within the range tested: that range, in words
    decided_by: str | None = None  # rules | model
    second: Opinion | None = None  # the second model's answer on a model-judged claim
    llm_opinion: Opinion | None = None  # with llm_disagrees: the model's answer and reason
    log_failures: list[str] = field(default_factory=list)  # the re-run log's failure lines


@dataclass(frozen=True)
class RunView:
    """What the logbook page shows of the stored re-run record."""

    sandbox: str | None = None
    environment: dict[str, Any] | None = None
    log_tail: str | None = None
    settings: list[tuple[str, str]] = field(default_factory=list)  # (name, value) rows
    ignored: str | None = None  # why the judge ignores the record (it ran other bytes)


@dataclass(frozen=True)
class LogbookLinks:
    """Links to the files on GitHub (None when the repository address is unknown)."""

    logbook: str | None
    writeup: str | None
    code: str | None
    verdict: str | None
    pull_request: str | None
    history: str | None = None  # the logbook's commits on GitHub, each linking its PR


@dataclass(frozen=True)
class LogbookPage:
    """``logbooks/<paper>/<logbook>/``: a logbook, its verdicts and its re-run."""

    paper: PaperMeta
    paper_url: str
    logbook: Logbook
    url: str
    verdict: VerdictFile | None
    judge: str
    stale: bool
    per_claim: list[ClaimResult]
    writeup: str | None
    person_url: str
    rerun_files: list[tuple[str, str]]
    run: RunView
    links: LogbookLinks
    commit: str | None
    cite: dict[str, str] | None


# --- list and feed contexts: dicts templates and JSON slices read by key ------------------
# TypedDicts, not dataclasses: the same dicts are written to the papers list's JSON slices
# and read by key in templates, and a checker still holds every producer to its keys.


class MeasurementRow(TypedDict):
    m: Any  # models.Measurement
    typed: Any  # the number the contributor typed, as written
    rerun: float | None  # the re-run's number, read as the judge reads it


class BucketCount(TypedDict):
    key: str
    label: str
    count: int
    percent: float


class VerdictEntry(TypedDict):
    """A verdict as the home page and the feeds show it (reviews applied)."""

    paper: str
    title: str
    logbook: str
    url: str
    paper_url: str
    contributor: str
    person_url: str
    judged_at: datetime
    judge: str
    states: list[tuple[Shown, int]]  # in the vocabulary's order: "2 awaiting re-run"
    stale: bool
    answer: Review | None  # the authors' latest answer on one of its falsifications
    updated: datetime  # a feed entry is updated when the authors answer


class HomePage(TypedDict):
    table: dict[str, Any]
    buckets: list[BucketCount]
    papers_total: int
    logbooks_total: int
    claims_total: int
    newest: list[VerdictEntry]
    claim_folds: Any
    verdicts_total: int
    stale_total: int


class Contributor(TypedDict, total=False):
    github: str
    url: str
    logbooks: int
    papers: int
    verified: int
    falsified: int
    under_review: int
    toy: int
    score: int
    rank: int  # set once every contributor is scored


class PersonClaim(TypedDict):
    claim: str
    verdict: str
    shown: Shown
    counted: bool


class PersonLogbook(TypedDict):
    paper: str
    title: str
    paper_url: str
    logbook: str
    url: str
    judged_at: datetime | None
    judge: str
    stale: bool
    claims: list[PersonClaim]


class PersonPage(TypedDict):
    person: Contributor
    logbooks: list[PersonLogbook]


class Facets(TypedDict):
    track: str
    rerun: list[str]  # every re-run state of the paper's logbooks
    updated: str  # ISO 8601 date of the newest verdict, or ""


class PaperRow(Facets):
    """One paper in the static lists and the papers list's JSON slices."""

    id: str
    title: str
    url: str
    bucket: str
    bucket_label: str
    outcome: str
    shown: Shown
    under_review: bool
    area: str
    authors: str
    claims: int
    logbooks: int
    draft: bool


class BrowseList(TypedDict, total=False):
    kind: str  # a-z, drafts, outcome, area
    key: str
    name: str
    label: str
    url: str
    rows: list[PaperRow]


class FalsificationItem(TypedDict, total=False):
    paper: str
    title: str
    paper_url: str
    claim: str
    claim_url: str
    fold: str
    fold_label: str
    logbook: str
    url: str
    contributor: str
    person_url: str
    state: str
    counted: bool
    argued: bool
    machine_verdict: str | None
    argument: str
    counterexample: Any
    reviews: list[Review]
    responses: list[Review]


class FalsificationsPage(TypedDict):
    items: list[FalsificationItem]
    claims_falsified: int
    claims_contested: int
    claims_listed: int
    under_review: int
    confirmed: int


class Pager(TypedDict):
    """Where a page of a paginated list is: the compact pager's numbers."""

    number: int
    count: int
    pages: list[str]  # each page's site path
    window: list[int | None]  # page numbers shown, None for a gap
    first: int  # the first and last row shown, of ``total``
    last: int
    total: int
