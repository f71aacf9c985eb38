"""One onboarding run: listed papers in, paper files out, resumable at any moment.

For each paper, in order: a file a person edited is kept; a file this tool
generated from the same inputs is left as it is (no request of any kind); else
the text is fetched (``fetch``, cached), claims are drafted (``draft``) unless
the file already holds claims drafted from the same text by the same model and
prompt, and the file is written whole (``write``). Papers run concurrently
(``concurrency`` workers; the hosts' own spacing still applies), within a token
``budget``; an interrupt stops new work at once and leaves only whole files. A
paper that could not be done this time (rate limit, budget, endpoint down) is
left for the next run, which picks up exactly there. A failed download is tried
again inside the run (``http``); a full cache or repository disk stops the run
with a message naming the folder (``cache.storage_failure``).
"""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .. import layout
from ..errors import InputError, StorageError
from ..llm.endpoint import Endpoint
from ..llm.halt import Halt
from ..problems import Problem
from ..scaffold import slug
from .cache import TextCache
from .draft import PROMPT_VERSION, Budget, OverBudget, draft_claims
from .fetch import FetchError, fetch_text
from .http import Deferred, Polite
from .sources import PaperRecord
from .state import Journal
from .write import (
    Existing,
    clean_temp_files,
    inputs_hash,
    paper_document,
    read_existing,
    render,
    write_paper,
)

_REPO_URL = re.compile(r"https?://(?:www\.)?github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
OUTCOMES = ("written", "unchanged", "edited", "deferred", "over_budget", "failed", "duplicate")


@dataclass
class Options:
    venue: str
    cache: Path
    arxiv_url: str = "https://arxiv.org"
    concurrency: int = 8
    limit: int | None = None
    budget: int | None = None
    price: float = 1.0  # USD per million tokens, for the estimate shown
    refresh: bool = False


@dataclass
class Progress:
    """Counts of a run, printed to ``stream`` at most every ``every`` seconds."""

    total: int = 0
    stream: IO[str] | None = None
    every: float = 1.0
    price: float = 1.0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    requests: dict[str, int] = field(default_factory=lambda: {"model": 0})
    http: Polite | None = None  # its ``sent`` counts listing and PDF requests
    tokens: int = 0
    dropped_quote: int = 0
    dropped_invalid: int = 0
    to_do: int = 0
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _shown: float = 0.0
    _worked: int = 0

    def add(self, outcome: str, *, worked: bool = False, **more: int) -> None:
        with self._lock:
            self.counts[outcome] += 1
            self._worked += worked
            for key, value in more.items():
                if key in self.requests:
                    self.requests[key] += value
                else:
                    setattr(self, key, getattr(self, key) + value)
        self.show()

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def line(self) -> str:
        c = self.counts
        elapsed = time.monotonic() - self.started
        left = max(0, self.to_do - self._worked)
        eta = f"{left * elapsed / self._worked:.0f} s" if self._worked else "?"
        cost = self.tokens * self.price / 1e6
        return (
            f"onboard: {self.done}/{self.total} papers ({c['written']} written, "
            f"{c['unchanged']} unchanged, {c['edited']} edited by hand, {c['deferred']} deferred, "
            f"{c['over_budget']} over budget, {c['failed']} failed) | requests: "
            f"{self.http.sent if self.http else 0} to the venue and arXiv, "
            f"{self.requests['model']} to the model | {self.tokens:,} tokens, ~${cost:.2f} "
            f"| ETA {eta}"
        )

    def show(self, force: bool = False) -> None:
        if self.stream is None:
            return
        now = time.monotonic()
        if force or now - self._shown >= self.every:
            self._shown = now
            self.stream.write(self.line() + "\n")
            self.stream.flush()


@dataclass
class Result:
    progress: Progress
    written: list[Path]
    problems: list[Problem]
    stopped: str | None = None
    failed: dict[str, str] = field(default_factory=dict)  # paper id -> what failed


def _duplicates(
    repo: Path, folder: Path, records: list[PaperRecord]
) -> tuple[list[PaperRecord], list[Problem]]:
    """Records whose id is listed twice, or already has a file in another venue's folder."""
    from .. import problems as P

    kept, problems, seen = [], [], set()
    claims = repo / layout.CLAIMS_DIR
    elsewhere = (
        {p.stem: p for p in claims.glob("*/*.yaml") if p.parent != folder}
        if claims.is_dir()
        else {}
    )
    for record in records:
        if record.id in seen or record.id in elsewhere:
            where = elsewhere.get(record.id)
            problems.append(
                Problem(
                    P.DUPLICATE_ID,
                    record.origin,
                    None,
                    "id",
                    f"paper {record.id} is listed twice"
                    if where is None
                    else f"paper {record.id} already has a file at {where.relative_to(repo)}",
                    "a paper id is unique across venues; this entry is skipped",
                )
            )
            continue
        seen.add(record.id)
        kept.append(record)
    return kept, problems


def onboard(
    repo: Path,
    records: list[PaperRecord],
    options: Options,
    *,
    endpoint: Endpoint,
    model: str,
    http: Polite,
    halt: Halt,
    progress: Progress,
) -> Result:
    venue_dir = repo / layout.CLAIMS_DIR / slug(options.venue)
    # the lock first: the temp files below may otherwise be another run's, mid-write
    journal = Journal(options.cache / "state" / f"{slug(options.venue)}.jsonl")
    clean_temp_files(venue_dir)
    records, problems = _duplicates(repo, venue_dir, records)
    progress.total = len(records)
    progress.counts["duplicate"] += len(problems)
    drafted_by = f"reproaudit onboard; model {model}; extract prompt v{PROMPT_VERSION}"
    cache = TextCache(options.cache)
    budget = Budget(options.budget)
    result = Result(progress, [], problems)
    todo: list[tuple[PaperRecord, Path, Existing, str]] = []
    for record in records:
        path = venue_dir / f"{record.id}.yaml"
        existing = read_existing(path)
        wanted = inputs_hash(record, options.venue, drafted_by)
        if existing.kind == "edited":
            progress.add("edited")
        elif (
            existing.kind == "generated"
            and (existing.review or {}).get("inputs_sha256") == wanted
            and not options.refresh  # --refresh asks each host whether the PDF changed
        ):
            progress.add("unchanged")
        else:
            todo.append((record, path, existing, wanted))
    if options.limit is not None:
        todo = todo[: options.limit]
    progress.to_do = len(todo)
    progress.total = progress.done + len(todo)
    progress.show(force=True)

    def one(record: PaperRecord, path: Path, existing: Existing, wanted: str) -> None:
        if halt.halted:
            return
        try:
            paper = fetch_text(
                record, cache, http, arxiv_url=options.arxiv_url, refresh=options.refresh
            )
        except Deferred as exc:
            journal.record(record.id, "deferred", why=str(exc).splitlines()[0])
            progress.add("deferred", worked=True)
            return
        except FetchError as exc:
            result.failed[record.id] = why = f"no text: {exc}"
            journal.record(record.id, "failed", why=why)
            progress.add("failed", worked=True)
            return
        except StorageError as exc:  # a full cache disk: every next paper would fail alike
            halt.cancel(str(exc).splitlines()[0])
            raise
        before = existing.review or {}
        model_requests = tokens = no_quote = invalid = 0
        if (
            existing.kind == "generated"
            and before.get("text_sha256") == paper.text_sha256
            and before.get("drafted_by") == drafted_by
        ):
            claims = existing.claims or []  # drafted from these very words: no request
            dropped = before.get("dropped_claims") or 0
        else:
            try:
                draft = draft_claims(endpoint, model, paper.text, budget, halt)
            except OverBudget:
                journal.record(record.id, "over_budget")
                progress.add("over_budget", worked=True)
                return
            model_requests, tokens = draft.requests, draft.tokens
            no_quote, invalid = draft.dropped_quote, draft.dropped_invalid
            if draft.failures:
                result.failed[record.id] = why = "; ".join(draft.failures)[:300]
                journal.record(record.id, "failed", why=why, tokens=tokens)
                progress.add("failed", worked=True, model=model_requests, tokens=tokens)
                return
            claims, dropped = draft.claims, no_quote + invalid
        code = _REPO_URL.search(paper.text)
        review = {
            "status": "draft",
            "drafted_by": drafted_by,
            "text_sha256": paper.text_sha256,
            "inputs_sha256": wanted,
            "dropped_claims": dropped,
        }
        doc = paper_document(
            record, options.venue, claims, review, code.group(0).rstrip(".") if code else None
        )
        rel = str(path.relative_to(repo))
        try:
            text = render(doc, rel)
        except InputError as exc:
            journal.record(record.id, "failed", why=str(exc).splitlines()[0][:300])
            progress.add("failed", worked=True, model=model_requests, tokens=tokens)
            return
        now = read_existing(path)
        if now.kind == "edited":  # edited while we drafted: theirs wins
            progress.add("edited", worked=True, model=model_requests, tokens=tokens)
            return
        if now.kind == "generated" and path.read_text(encoding="utf-8") == text:
            progress.add("unchanged", worked=True)  # same PDF, same listing: nothing to write
            return
        if not write_paper(path, text, replace=now.kind == "generated"):
            progress.add("edited", worked=True, model=model_requests, tokens=tokens)
            return  # someone wrote the file while we drafted: theirs wins
        journal.record(record.id, "written", tokens=tokens, file=rel)
        result.written.append(path)
        progress.add(
            "written",
            worked=True,
            model=model_requests,
            tokens=tokens,
            dropped_quote=no_quote,
            dropped_invalid=invalid,
        )

    pool = ThreadPoolExecutor(max_workers=max(1, options.concurrency))
    try:
        futures = [pool.submit(one, *job) for job in todo]
        for future in as_completed(futures):
            future.result()
            if endpoint.down and not halt.halted:
                halt.cancel(f"the model endpoint is down: {endpoint.down}")
    except BaseException:
        halt.cancel("interrupted")
        pool.shutdown(wait=True, cancel_futures=True)
        journal.close()
        raise
    pool.shutdown(wait=True)
    journal.close()
    result.stopped = halt.why
    progress.show(force=True)
    return result
