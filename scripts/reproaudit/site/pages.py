"""The page contexts' types: what each template receives, one dataclass per idea.

``context.py`` builds them with pure functions of ``SiteData``; templates read
their attributes (``p.claims``, ``cell.state``); rendering only renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from ..models import Claim, Logbook, Measurement, PaperMeta, Result, Review, VerdictFile, Votes
from .cite import PaperCitation


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


@dataclass(frozen=True)
class MeasurementRow:
    """A measurement on a logbook's page: the number the logbook typed and the re-run's."""

    m: Measurement
    typed: float | None
    rerun: float | None  # the number at its ``source`` in the re-run's outputs


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


@dataclass(frozen=True)
class RunView:
    """What the logbook page shows of the stored re-run record."""

    sandbox: str | None = None
    environment: dict[str, Any] | None = None
    log_tail: str | None = None
    settings: list[tuple[str, str]] = field(default_factory=list)  # (name, value) rows


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
    cite: VerdictCitation | None


@dataclass(frozen=True)
class VerdictCitation:
    """A verdict as a reference: BibTeX and one line of plain text."""

    bibtex: str
    plain: str


@dataclass(frozen=True)
class VerdictEntry:
    """A verdict as the home page's newest list and the Atom feeds show it (reviews applied)."""

    paper: str
    title: str
    logbook: str
    url: str
    paper_url: str
    contributor: str
    person_url: str
    judged_at: datetime
    judge: str
    counts: dict[str, int]  # verdict -> claims, every verdict present
    labels: dict[str, str]  # verdict -> its words ("falsified, under review")
    under_review: int
    stale: bool
    answer: Review | None  # the authors' latest answer on one of its falsifications
    updated: datetime  # a feed entry is updated when the authors answer


@dataclass(frozen=True)
class BucketCount:
    key: str
    label: str
    count: int
    percent: float


@dataclass(frozen=True)
class HomePage:
    """``index``: the headline table, counts and the newest verdicts."""

    table: dict[str, Any]  # fold.stats: the shape ``reproaudit stats --json`` prints
    buckets: list[BucketCount]
    papers_total: int
    logbooks_total: int
    claims_total: int
    newest: list[VerdictEntry]
    claim_folds: list[str]
    verdicts_total: int
    stale_total: int


class PapersIndex(TypedDict):
    """``assets/papers-index.json``: one short array per paper, field names once."""

    fields: list[str]
    buckets: dict[str, str]
    papers: list[list[str | int]]


@dataclass(frozen=True)
class PaperRow:
    """A paper as a row of the static lists."""

    id: str
    title: str
    url: str
    bucket: str
    outcome: str
    area: str
    authors: str
    claims: int
    logbooks: int
    draft: bool


@dataclass(frozen=True)
class BrowseList:
    """One static list (A-Z, an outcome, an area, the drafts) and its rows."""

    kind: str  # a-z, drafts, outcome, area
    name: str
    url: str
    rows: list[PaperRow]
    key: str | None = None
    label: str | None = None


@dataclass(frozen=True)
class Contributor:
    """A contributor's credit, score and rank on the leaderboard."""

    github: str
    url: str
    logbooks: int
    papers: int
    verified: int
    falsified: int  # confirmed by a maintainer
    under_review: int
    toy: int
    score: int
    rank: int


@dataclass(frozen=True)
class PersonClaim:
    claim: str
    verdict: str
    state: str | None
    counted: bool


@dataclass(frozen=True)
class PersonLogbook:
    """One of a contributor's logbooks, with its verdict per claim."""

    paper: str
    title: str
    paper_url: str
    logbook: str
    url: str
    judged_at: datetime | None
    judge: str
    stale: bool
    claims: list[PersonClaim]


@dataclass(frozen=True)
class PersonPage:
    """``people/<handle>/``: a contributor's credit and logbooks, newest first."""

    person: Contributor
    logbooks: list[PersonLogbook]


@dataclass(frozen=True)
class FalsificationRow:
    """A falsified claim verdict, or a claimed falsification, on the falsifications list."""

    paper: str
    title: str
    paper_url: str
    claim: str
    claim_url: str
    fold: str
    logbook: str
    url: str
    contributor: str
    person_url: str
    state: str  # under_review, confirmed, rejected, not_falsified
    counted: bool
    argued: bool  # a written argument (falsification:) backs it
    machine_verdict: str | None


@dataclass(frozen=True)
class FalsificationsPage:
    """``falsifications/``: every falsified claim verdict and its review state."""

    items: list[FalsificationRow]
    claims_falsified: int
    claims_contested: int
    claims_listed: int
    under_review: int
    confirmed: int


@dataclass(frozen=True)
class Pager:
    """Where a page sits in a list split into pages."""

    number: int
    count: int
    pages: list[str]  # the site path of every page
    first: int  # its first and last row, from 1
    last: int
    total: int
