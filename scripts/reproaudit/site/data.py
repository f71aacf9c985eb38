"""Everything the site shows, loaded once (the I/O side of the site).

Build the way mkdocs does: load and fold everything first, then render. This
module reads the repository through ``Corpus`` and ``records``, folds the
verdicts, and marks verdicts whose inputs changed since they were written as
stale. The page contexts (``context.py``) are pure functions of ``SiteData``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from .. import layout
from ..changes import pull_numbers
from ..fold import fold_all
from ..judge.inputs import passed_and_current, read_rerun
from ..judge.run import is_stale
from ..layout import RECORD_FILES, RUN_JSON
from ..models import Logbook, PaperFile, Review, RunRecord, VerdictFile
from ..records import Tables, load_tables
from ..repo import Corpus, paused_gc
from ..rerun_files import LIMITS
from ..rerun_inputs import current_inputs

Key = tuple[str, str]  # (paper id, logbook id)
_PULL = re.compile(r"^https://github\.com/[^/]+/[^/]+/pull/\d+")


@dataclass
class StoredRerun:
    """A stored re-run record (``reruns/<paper>/<logbook>/``) as the site publishes it: the
    files' bytes and ``run.json`` as its one model (``RunRecord``); untrusted, shown as data."""

    run: RunRecord | None  # run.json as its one model; None when it does not validate
    files: dict[str, bytes]  # file name -> bytes, published beside the logbook page
    outputs: Any = None  # parsed outputs.json, for the re-run numbers
    current: bool = False  # a passed re-run of the logbook's bytes as they are now
    ignored: str | None = None  # why the judge ignores the record (``stale_rerun``), or None

    @property
    def numbers(self) -> Any:
        """The outputs the judge reads numbers from: those of a passed re-run of the
        logbook's current bytes only (``passed_and_current``: a failed re-run verifies
        nothing, a stale one ran other bytes), else None."""
        return self.outputs if self.current else None


def load_rerun(corpus: Corpus, reruns: Path, key: Key) -> StoredRerun | None:
    """A logbook's record in ``reruns`` through the judge's own reader (``read_rerun``, on
    ``corpus``, with the logbook's current input hashes): the same bytes, limits, model
    and currency, so the site publishes what the judge could read and shows numbers only
    from a record the judge would use."""
    path = corpus.by_rel.get(layout.logbook_rel(*key))
    loaded = corpus.load(path) if path is not None else None
    if loaded is None or loaded.model is None:
        return None
    inputs = current_inputs(corpus, *key, loaded.model, loaded.raw)
    record = read_rerun(reruns, *key, inputs, corpus.blob)
    folder = layout.rerun_folder(reruns, *key)
    files = {}
    for name in RECORD_FILES:
        blob = corpus.blob(folder / name, LIMITS[name])
        if blob is not None and blob.complete and len(blob.raw) <= LIMITS[name]:
            files[name] = blob.raw
    if record is None or RUN_JSON not in files:
        return None
    usable = passed_and_current(record).current
    return StoredRerun(record.run, files, record.rerun.outputs, usable, record.rerun.stale)


def git_head(root: Path) -> str | None:
    """The commit checked out at ``root`` (read from .git, no subprocess), or None."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree: "gitdir: <path>"
            git = Path(git.read_text().split(":", 1)[1].strip())
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head if re.fullmatch(r"[0-9a-f]{40}", head) else None
        ref = head[5:]
        for base in (git, _common_dir(git)):
            path = base / ref
            if path.is_file():
                return path.read_text().strip()
            packed = base / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    if line.endswith(" " + ref):
                        return line.split()[0]
    except (OSError, IndexError):
        return None
    return None


def _common_dir(git: Path) -> Path:
    common = git / "commondir"
    return (git / common.read_text().strip()).resolve() if common.is_file() else git


@dataclass
class SiteData:
    papers: dict[str, PaperFile]
    logbooks: dict[Key, Logbook]
    verdicts: dict[Key, VerdictFile]
    writeups: dict[Key, str]
    reviews: dict[str, list[Review]]
    stale: set[Key]
    rows: pd.DataFrame  # verdict rows after reviews (all logbooks), with `counted`
    claim_folds: pd.DataFrame
    paper_folds: pd.DataFrame
    generated_at: datetime
    site_url: str | None = None
    bucket_of: dict[str, str] = field(default_factory=dict)
    repo_url: str | None = None  # the audit repository on GitHub (mkdocs.yml `repo_url`)
    commit: str | None = None  # the commit the site is built from, for links to files
    reruns: dict[Key, StoredRerun] = field(default_factory=dict)  # stored re-run records
    pull_requests: dict[Key, str] = field(default_factory=dict)  # logbook -> its PR URL
    memo: dict[str, Any] = field(default_factory=dict)  # contexts several pages share
    # per-paper indexes, built once: pages would otherwise scan the whole corpus each
    _logbooks_by_paper: dict[str, list[Key]] = field(default_factory=dict)
    _rows_by_paper: dict[str, list[Any]] = field(default_factory=dict)
    _folds_by_paper: dict[str, dict[str, str]] = field(default_factory=dict)
    _held_by_paper: dict[str, dict[str, bool]] = field(default_factory=dict)

    def index(self) -> None:
        by_paper: dict[str, list[Key]] = defaultdict(list)
        for key in self.logbooks:
            by_paper[key[0]].append(key)
        self._logbooks_by_paper = {
            pid: sorted(keys, key=lambda k: (self._judged(k), k[1]))
            for pid, keys in by_paper.items()
        }
        rows: dict[str, list[Any]] = defaultdict(list)
        if not self.rows.empty:
            for row in self.rows.itertuples(index=False):
                rows[str(row.paper)].append(row)
        self._rows_by_paper = dict(rows)
        folds: dict[str, dict[str, str]] = defaultdict(dict)
        if not self.claim_folds.empty:
            for paper, claim, fold in zip(
                self.claim_folds["paper"],
                self.claim_folds["claim"],
                self.claim_folds["fold"],
                strict=True,
            ):
                folds[paper][claim] = fold
        self._folds_by_paper = dict(folds)
        held: dict[str, dict[str, bool]] = defaultdict(dict)
        if not self.claim_folds.empty and "held" in self.claim_folds.columns:
            for paper, claim, is_held in zip(
                self.claim_folds["paper"],
                self.claim_folds["claim"],
                self.claim_folds["held"],
                strict=True,
            ):
                held[paper][claim] = bool(is_held)
        self._held_by_paper = dict(held)

    def logbooks_of(self, paper_id: str) -> list[Key]:
        return self._logbooks_by_paper.get(paper_id, [])

    def rows_of(self, paper_id: str) -> list[Any]:
        """Verdict rows of a paper (named tuples: paper, logbook, claim, verdict, ...)."""
        return self._rows_by_paper.get(paper_id, [])

    def claim_folds_of(self, paper_id: str) -> dict[str, str]:
        return self._folds_by_paper.get(paper_id, {})

    def claim_held_of(self, paper_id: str) -> dict[str, bool]:
        """Claims held inconclusive because one logbook's judges disagree (``fold``)."""
        return self._held_by_paper.get(paper_id, {})

    def _judged(self, key: Key) -> str:
        verdict = self.verdicts.get(key)
        return verdict.judged_at.isoformat() if verdict else ""


def load_site_data(
    corpus: Corpus,
    now: datetime,
    site_url: str | None = None,
    only: set[str] | None = None,
    repo_url: str | None = None,
) -> SiteData:
    """Load and fold the corpus (already restricted to ``only`` papers for a preview, and
    holding the verdicts judged in memory: ``Corpus.add_verdicts``)."""
    root = corpus.root
    tables: Tables = load_tables(corpus)
    with paused_gc():
        papers = {p.paper.id: p for _, p in corpus.papers()}
        logbooks: dict[Key, Logbook] = {}
        verdicts: dict[Key, VerdictFile] = {}
        writeups: dict[Key, str] = {}
        stale: set[Key] = set()
        for path, book in corpus.logbooks():
            key = path.key
            if key[0] not in papers or (only is not None and key[0] not in only):
                continue
            logbooks[key] = book
            writeup = corpus.writeup(*key)
            if writeup is not None:
                writeups[key] = writeup.text()
        records = root / layout.RERUNS_DIR  # a re-run record changed or gone makes a verdict stale
        for path, verdict in corpus.verdicts():
            if path.key in logbooks:
                verdicts[path.key] = verdict
                if is_stale(corpus, verdict, reruns=records if records.is_dir() else None):
                    stale.add(path.key)
        reviews: dict[str, list[Review]] = {}
        for path in corpus.of_kind("reviews"):
            model = corpus.load(path).model
            if model is not None and path.key[0] in papers:
                reviews[path.key[0]] = list(model.reviews)
    applied, claim_folds, paper_folds = fold_all(tables.verdicts, tables.reviews)
    data = SiteData(
        papers,
        logbooks,
        verdicts,
        writeups,
        reviews,
        stale,
        applied,
        claim_folds,
        paper_folds,
        now,
        site_url,
    )
    data.bucket_of = dict(zip(paper_folds["paper"], paper_folds["bucket"], strict=True))
    data.repo_url = repo_url.rstrip("/") if repo_url else None
    data.commit = git_head(root)
    runs = root / layout.RERUNS_DIR
    if runs.is_dir():
        for key in logbooks:
            record = load_rerun(corpus, runs, key)
            if record is not None:
                data.reruns[key] = record
    if data.repo_url and "github.com" in data.repo_url:
        # the pull request that added each logbook, from the merge or squash commit's subject
        numbers = pull_numbers(root)
        for key in logbooks:
            number = numbers.get(layout.logbook_rel(*key))
            if number is not None:
                data.pull_requests[key] = f"{data.repo_url}/pull/{number}"
    for paper_id, items in reviews.items():
        for review in items:
            if review.link and (pull := _PULL.match(review.link)):
                data.pull_requests.setdefault((paper_id, review.logbook), pull[0])
    data.index()
    return data
