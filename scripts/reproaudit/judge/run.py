"""``reproaudit judge``: read the cases, judge them, then write the verdict files.

Three steps, each its own function. ``iter_cases`` reads the corpus (each file
once) into one ``CaseItem`` per logbook: a ``Case`` to judge, its problems, or
"current" when the verdict on disk already has this input hash and is not an
outage's (no ``llm_failed``, a quorum of samples answered). ``judge_corpus``
judges the cases with a ``Judge`` (``RulesJudge``, or ``LlmJudge`` from
``llm.py``) and yields ``VerdictDoc`` documents as they are done, writing
nothing. ``write_verdicts`` writes them atomically to
``verdicts/<paper>/<logbook>.yaml``; ``judge_repo`` chains the three under a lock
that keeps two judges off one repository (``lock_path``: in its git directory,
whatever ``TMPDIR`` is). LLM judging runs logbooks concurrently
in daemon workers; a ``Halt`` (deadline, Ctrl-C) stops queued work at once.
Each logbook is judged in isolation: an exception while reading or judging one
becomes that logbook's verdict (every claim ``inconclusive`` + ``judge_error``,
asked again next run), named in the summary, never the end of the run.
Over 400 lines because the worker pool and the lock are part of the run's
contract (what an interrupted run leaves behind) and are tested with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import hashlib
import os
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from .. import layout
from .. import problems as P
from ..errors import ReproauditError, storage_error
from ..fsutil import atomic_write, sweep_temp_files
from ..gitrun import git_or_none
from ..layout import DataPath
from ..llm.halt import Halt
from ..models import ClaimVerdict, Usage, VerdictFile
from ..problems import Problem
from ..repo import Corpus, frozen_gc, paused_gc
from ..rerun_inputs import current_inputs
from .cases import (  # noqa: F401 - re-exported: callers import them from here
    RulesJudge,
    claim_facts,
    judge_config,
    rerun_current,
    rules_judgements,
    rules_proposals,
)
from .inputs import input_hash, read_rerun
from .rules import RULES_VERSION
from .types import Case, CaseItem, CaseResult, Judge

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter is ~5x faster


@dataclass
class JudgeSummary:
    """What a judge run did, for the command line and for benchmarks."""

    judged: list[str] = field(default_factory=list)  # verdict paths judged (and written)
    unchanged: list[str] = field(default_factory=list)  # inputs unchanged: not recomputed
    problems: list[Problem] = field(default_factory=list)  # inputs that could not be judged
    usage: Usage = field(default_factory=Usage)  # requests = HTTP attempts
    failed: list[str] = field(default_factory=list)  # written with llm_failed: not current
    partial: list[str] = field(default_factory=list)  # a quorum, but not every sample, answered
    suspected: list[str] = field(default_factory=list)  # suspected_injection
    disagreed: list[str] = field(default_factory=list)  # llm_disagrees on a claim the rules decided
    model_judged: int = 0  # claims a model alone decided verified, falsified or toy
    skipped: list[str] = field(default_factory=list)  # not judged: the run stopped first
    stopped: str | None = None  # why the run stopped early (deadline, endpoint down)
    throttled: int = 0  # 429 answers (throttling: fewer requests in flight, not an outage)
    lowest_in_flight: int | None = None  # the fewest requests in flight it came down to
    closed: bool = field(default=False, repr=False)  # abandoned work counts for nothing
    errors: dict[str, str] = field(default_factory=dict)  # verdict path -> the judge's failure

    @property
    def complete(self) -> bool:
        """Every logbook judged, none with ``llm_failed`` or ``judge_error``."""
        return not (self.failed or self.skipped or self.stopped or self.errors)


@dataclass(frozen=True)
class VerdictDoc:
    """One judged verdict file, not yet written: its path and content (key order fixed)."""

    rel: str
    content: dict[str, Any]

    def model(self) -> VerdictFile:
        return VerdictFile.model_validate(self.content)

    def text(self) -> str:
        return dump_verdict(self.content)


def now_utc() -> datetime:
    """The judging time; ``SOURCE_DATE_EPOCH`` pins it for reproducible output."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), UTC)
    return datetime.now(UTC).replace(microsecond=0)


def collect_cases(
    corpus: Corpus,
    config: dict,
    reruns: Path | None = None,
    paper: str | None = None,
    logbook: str | None = None,
    only_missing: bool = False,
) -> tuple[list[Case], list[str], list[Problem]]:
    """Logbooks whose verdict must be (re)computed, those that are current, and problems."""
    cases, unchanged, problems = [], [], []
    for item in iter_cases(corpus, config, reruns, paper, logbook, only_missing):
        if item.case is not None:
            cases.append(item.case)
        problems.extend(item.problems)
        if item.current:
            unchanged.append(item.rel)
    return cases, unchanged, problems


def iter_cases(
    corpus: Corpus,
    config: dict,
    reruns: Path | None = None,
    paper: str | None = None,
    logbook: str | None = None,
    only_missing: bool = False,
) -> Iterator[CaseItem]:
    """One item per logbook, as soon as it is read (each file once, through ``corpus``).

    A logbook whose reading raises is an item with ``error`` set (and, when its paper
    and logbook loaded, the ``case`` its ``judge_error`` verdict is written for)."""
    for path in corpus.of_kind("logbook"):
        paper_id, logbook_id = path.key
        if (paper and paper_id != paper) or (logbook and logbook_id != logbook):
            continue
        verdict_rel = layout.verdict_rel(paper_id, logbook_id)
        try:
            yield _case_item(corpus, path, verdict_rel, config, reruns, only_missing)
        except Exception as exc:  # this logbook's failure, never the run's
            yield CaseItem(verdict_rel, case=_bare_case(corpus, path), error=_failure(exc))


def _case_item(
    corpus: Corpus,
    path: DataPath,
    verdict_rel: str,
    config: dict,
    reruns: Path | None,
    only_missing: bool,
) -> CaseItem:
    if only_missing and verdict_rel in corpus.by_rel:
        return CaseItem(verdict_rel, current=True)
    case = read_case(corpus, path, config, reruns)
    if not isinstance(case, Case):
        return CaseItem(verdict_rel, problems=case)
    existing = corpus.by_rel.get(verdict_rel)
    if existing is not None:
        current = corpus.load(existing).model
        if current is not None and current.input_sha256 == case.sha and not needs_rejudge(current):
            return CaseItem(verdict_rel, current=True)
    return CaseItem(verdict_rel, case=case)


def read_case(
    corpus: Corpus, path: DataPath, config: dict, reruns: Path | None
) -> Case | list[Problem]:
    """One logbook's judging inputs as a ``Case`` (its input hash in ``sha``), or why it
    cannot be judged. The one reading of a case: a judge run and ``verdict_case`` share it."""
    paper_id, logbook_id = path.key
    loaded = corpus.load(path)
    if loaded.model is None:
        return loaded.problems
    rels = corpus.paper_rels.get(paper_id, [])
    paper_model = corpus.paper(paper_id)
    if paper_model is None:
        why = "has no paper file" if not rels else "has a paper file that does not validate"
        return [
            Problem(
                P.UNKNOWN_PAPER,
                path.rel,
                None,
                "logbook.paper",
                f"not judged: paper {paper_id} {why}",
                "run `reproaudit validate` and fix what it reports",
            )
        ]
    digest = loaded.sha256
    inputs = current_inputs(corpus, paper_id, logbook_id, loaded.model, loaded.raw)
    record = read_rerun(reruns, paper_id, logbook_id, inputs, corpus.blob)
    sha = input_hash(
        corpus, rels[0], paper_id, logbook_id, record.info if record else None, config, inputs
    )
    writeup = corpus.writeup(paper_id, logbook_id)
    refused = corpus.refusal(layout.writeup_rel(paper_id, logbook_id))
    if refused:  # a link or special file: never read, never sent to the LLM
        return refused
    text = loaded.raw.decode("utf-8", errors="replace") if loaded.raw is not None else None
    return Case(
        rels[0],
        paper_model,
        loaded.model,
        record,
        writeup.text() if writeup is not None else None,
        sha,
        text,
        digest,
    )


def _failure(exc: Exception) -> str:
    """An exception as one line of a verdict's evidence and the run's summary."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _bare_case(corpus: Corpus, path: DataPath) -> Case | None:
    """The paper and logbook of a logbook whose reading failed, to write its judge_error
    verdict; None when they do not load either (the summary names it all the same)."""
    try:
        paper_id, _ = path.key
        loaded = corpus.load(path)
        paper_model = corpus.paper(paper_id)
        rels = corpus.paper_rels.get(paper_id, [])
        if loaded.model is None or paper_model is None or not rels:
            return None
        digest = hashlib.sha256(f"judge_error:{path.rel}".encode()).hexdigest()
        return Case(rels[0], paper_model, loaded.model, None, None, digest)
    except Exception:
        return None


def judge_error_claims(case: Case, failure: str) -> list[ClaimVerdict]:
    """Every claim of a logbook the judge failed on: inconclusive + judge_error."""
    evidence = f"the judge failed on this logbook ({failure}); it is judged again next run"
    return [
        ClaimVerdict(claim=c.id, verdict="inconclusive", evidence=evidence, flags=["judge_error"])
        for c in case.paper.claims
    ]


def verdict_config(verdict: VerdictFile) -> dict:
    """The judge configuration a verdict file records, at today's rules version: what
    its input hash covers."""
    judge = verdict.judge
    return judge_config(
        judge.mode, judge.model, judge.prompt_version, judge.samples, judge.second_model
    )


def verdict_case(corpus: Corpus, verdict: VerdictFile, reruns: Path | None) -> Case | list[Problem]:
    """The inputs the judge would read today for this verdict's logbook, with the
    verdict's own configuration: compare ``sha`` with ``input_sha256`` (stale?), and
    judge it again (``RulesJudge``) to check what was written."""
    path = corpus.logbook_path(verdict.paper, verdict.logbook)
    if path is None:
        return []
    return read_case(corpus, path, verdict_config(verdict), reruns)


def needs_rejudge(verdict: VerdictFile) -> bool:
    """Whether a verdict is an outage's, not a judgement: ``llm_failed`` on any claim, or
    fewer answered samples than a quorum. Such a verdict is asked again on the next run."""
    if any("llm_failed" in c.flags or "judge_error" in c.flags for c in verdict.claims):
        return True
    answered = verdict.judge.samples_answered
    return answered is not None and answered * 2 <= verdict.judge.samples


def is_stale(
    corpus: Corpus,
    verdict: VerdictFile,
    rules_version: int = RULES_VERSION,
    reruns: Path | None = None,
) -> bool:
    """Whether a verdict's inputs changed since it was written (it is shown, marked stale).

    With ``reruns`` (the folder of stored records) the record read there counts, so a
    re-run record changed or deleted since makes the verdict stale; without it, the
    hashes the verdict recorded stand for the record.
    """
    rels = corpus.paper_rels.get(verdict.paper, [])
    if len(rels) != 1:
        return True
    config = verdict_config(verdict)
    config["rules_version"] = rules_version
    if reruns is not None and rules_version == RULES_VERSION:
        case = verdict_case(corpus, verdict, reruns)
        return not isinstance(case, Case) or case.sha != verdict.input_sha256
    inputs = None
    if verdict.rerun is not None:
        path = corpus.by_rel.get(layout.logbook_rel(verdict.paper, verdict.logbook))
        loaded = corpus.load(path) if path is not None else None
        if loaded is None or loaded.model is None:
            return True
        inputs = current_inputs(corpus, verdict.paper, verdict.logbook, loaded.model, loaded.raw)
    sha = input_hash(corpus, rels[0], verdict.paper, verdict.logbook, verdict.rerun, config, inputs)
    return sha != verdict.input_sha256


def verdict_document(
    case: Case,
    claims: list[ClaimVerdict],
    config: dict,
    judged_at: datetime,
    usage: Usage | None = None,
    samples_answered: int | None = None,
) -> dict[str, Any]:
    """The verdict file's content, in a fixed key order so output is byte-stable."""
    judge: dict[str, Any] = {
        "mode": config["mode"],
        "model": config["model"],
        "prompt_version": config["prompt_version"],
        "samples": config["samples"],
        "rules_version": config["rules_version"],
    }
    if config["mode"] == "llm":
        judge["samples_answered"] = samples_answered
    if config.get("second_model") is not None:
        judge["second_model"] = config["second_model"]
    if usage is not None:
        judge["usage"] = usage.model_dump()
    doc = {
        "paper": case.paper.paper.id,
        "logbook": case.logbook.logbook.id,
        "input_sha256": case.sha,
        "judge": judge,
        "judged_at": judged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rerun": case.record.info.model_dump() if case.record else None,
        "claims": [claim_document(c) for c in claims],
    }
    VerdictFile.model_validate(doc)  # never write what validate would reject
    return doc


def claim_document(claim: ClaimVerdict) -> dict[str, Any]:
    """One claim's verdict as the file holds it: empty fields left out, but a scope's open
    range end written as null ("claimed for every value"), not dropped."""
    doc = claim.model_dump(exclude_none=True, by_alias=True)
    if claim.scope is not None:
        doc["scope"] = claim.scope.written()
    return doc


def dump_verdict(doc: dict[str, Any]) -> str:
    header = "# Written by `reproaudit judge`; do not edit. Re-run the judge instead.\n"
    return header + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


class JudgeBusy(ReproauditError):
    """Another judge holds the repository's lock for longer than this run may wait."""


def lock_path(root: Path) -> Path:
    """The file whose ``flock`` keeps two judges off one repository.

    Inside the repository's git directory (``git rev-parse --git-common-dir``, so
    every worktree of a clone shares it), else in ``<root>/.reproaudit/``: never in
    the temporary directory, whose name depends on each process's ``TMPDIR``.
    """
    env = {k: v for k, v in os.environ.items() if k not in _GIT_REDIRECTS}
    found = git_or_none(
        root, "rev-parse", "--path-format=absolute", "--git-common-dir", env=env, timeout=60
    )
    common = (found or "").strip()
    if common and Path(common).is_dir():
        return Path(common) / "reproaudit-judge.lock"
    return Path(root) / ".reproaudit" / "judge.lock"


# the caller's environment must not point two judges of one repository at two git dirs
_GIT_REDIRECTS = frozenset({"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE"})


@contextlib.contextmanager
def repo_lock(root: Path, halt: Halt, path: Path | None = None) -> Iterator[None]:
    """One judge per repository at a time; a second one waits, then finds the work done.

    An ``flock`` on ``lock_path(root)``: it dies with its process, so a killed
    judge never leaves the repository locked.
    """
    path = path or lock_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 - closed below, after the unlock
    except OSError as exc:
        raise JudgeBusy(f"cannot open the judge's lock {path}: {exc.strerror or exc}") from None
    with handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not halt.sleep(0.05):
                    raise JudgeBusy(
                        f"another `reproaudit judge` is working on {root} (lock {path}; {halt.why})"
                    ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def judge_corpus(
    corpus: Corpus,
    judge: Judge,
    summary: JudgeSummary,
    *,
    reruns: Path | None = None,
    paper: str | None = None,
    logbook: str | None = None,
    concurrency: int = 8,
    only_missing: bool = False,
    judged_at: datetime | None = None,
    halt: Halt | None = None,
) -> Iterator[VerdictDoc]:
    """Judge the corpus's logbooks (or one paper's, or one logbook): the verdict documents,
    yielded as each is done. Writes nothing; ``summary`` is filled as the run goes."""
    halt = halt or Halt(None)
    config = judge.config()
    when = judged_at or now_utc()
    bind = getattr(judge, "bind_corpus", None)  # the LLM judge draws its canaries from it
    if bind is not None:
        bind(corpus, reruns)
    items = iter_cases(corpus, config, reruns, paper, logbook, only_missing)

    def one(case: Case) -> VerdictDoc | None:
        error = case.failure
        try:
            if error is not None:
                raise _ReadFailure(error)
            result = judge.judge_case(case, halt)
            content = verdict_document(
                case, result.claims, config, when, result.usage, result.samples_answered
            )
        except Exception as exc:  # this logbook's failure, never the run's
            if error is None and halt.halted:  # cut short by the deadline or Ctrl-C: not judged
                with _lock:
                    summary.skipped.append(_rel(case))
                return None
            failure = error or _failure(exc)
            with _lock:
                summary.errors[_rel(case)] = failure
            result = CaseResult(judge_error_claims(case, failure))
            try:
                content = verdict_document(case, result.claims, config, when)
            except Exception:
                return None
        doc = VerdictDoc(_rel(case), content)
        _count(summary, doc.rel, result, config["samples"])
        return doc

    items = _errors_to_cases(items, summary)
    if judge.mode == "llm":
        yield from _run_workers(items, one, max(1, concurrency), halt, judge, summary)
    else:
        with paused_gc():
            for item in items:
                if item.case is None:
                    _note(summary, item)
                elif halt.halted:
                    summary.skipped.append(item.rel)
                elif (doc := one(item.case)) is not None:
                    yield doc
    if summary.stopped is None and (summary.skipped or summary.failed):
        summary.stopped = halt.why or getattr(judge, "down", None)
    throttle = getattr(getattr(judge, "endpoint", None), "throttle", None)
    if throttle is not None:
        summary.throttled, summary.lowest_in_flight = throttle.count, throttle.lowest


class _ReadFailure(Exception):
    """A logbook whose reading failed: its judge_error verdict is written, not judged."""


def _errors_to_cases(items: Iterator[CaseItem], summary: JudgeSummary) -> Iterator[CaseItem]:
    """Items whose reading failed go on as cases carrying their failure (judged as
    judge_error); with no case to write a verdict for, they are named in the summary."""
    for item in items:
        if item.error is None:
            yield item
        elif item.case is not None:
            yield CaseItem(item.rel, case=replace(item.case, failure=item.error))
        else:
            with _lock:
                summary.errors[item.rel] = item.error


def write_verdicts(
    root: Path, docs: Iterable[VerdictDoc], summary: JudgeSummary | None = None
) -> list[str]:
    """Write each document atomically as it comes (an interrupted run keeps what is done).

    Only to a verdict path (never over ``reviews.yaml``); a document that cannot be
    written is that logbook's ``judge_error`` in ``summary``, and the others are written.
    """
    written = []
    for doc in docs:
        try:
            kind = layout.classify(doc.rel)
            if kind is None or kind.kind != "verdict":
                raise ValueError(f"{doc.rel} is not a verdict file's path")
            atomic_write(Path(root) / doc.rel, doc.text())
        except (OSError, ValueError) as exc:
            storage = storage_error(exc)
            if storage is not None:  # a full disk or a read-only target: the run's, not this
                raise storage from None  # logbook's (one line naming the path, exit 1)
            if summary is None:
                raise
            summary.errors[doc.rel] = _failure(exc)
            continue
        written.append(doc.rel)
    return written


def judge_repo(
    root: Path,
    judge: Judge | None = None,
    *,
    reruns: Path | None = None,
    paper: str | None = None,
    logbook: str | None = None,
    concurrency: int = 8,
    only_missing: bool = False,
    judged_at: datetime | None = None,
    deadline: float | None = None,
    halt: Halt | None = None,
    mode: str | None = None,
    llm: Judge | None = None,
) -> JudgeSummary:
    """``reproaudit judge``: under the repository's lock, ``judge_corpus`` then
    ``write_verdicts``.

    ``deadline`` (seconds) bounds the whole run: logbooks not started by then are
    skipped, requests in flight are cut. ``mode``/``llm`` are the older spelling
    (``mode="rules"``, or ``mode="llm", llm=judge``); the judge object decides the
    mode, so the two cannot disagree.
    """
    judge = judge or llm or RulesJudge()
    if mode is not None and mode != judge.mode:
        raise ValueError(f"mode {mode!r} but a {judge.mode} judge was given")
    root = Path(root)
    lock = lock_path(root)  # before the deadline's clock starts: it asks git
    halt = halt or Halt(deadline)
    summary = JudgeSummary()
    with repo_lock(root, halt, lock):
        sweep_temp_files(root / layout.VERDICTS_DIR)  # what a killed judge left half-written
        docs = judge_corpus(
            Corpus(root),
            judge,
            summary,
            reruns=reruns,
            paper=paper,
            logbook=logbook,
            concurrency=concurrency,
            only_missing=only_missing,
            judged_at=judged_at,
            halt=halt,
        )
        write_verdicts(root, docs, summary)
    summary.judged.sort()
    return summary


def judge_in_memory(
    root: Path,
    paper: str,
    logbook: str,
    *,
    reruns: Path | None = None,
    corpus: Corpus | None = None,
) -> tuple[VerdictFile | None, list[Problem]]:
    """The rules verdict of one logbook without writing anything.

    The verdict file on disk when its inputs did not change, else a fresh one;
    for ``check`` and pull-request validation, which must leave ``verdicts/`` alone.
    Pass the caller's ``corpus`` so files it already read are not read again.
    """
    corpus = corpus or Corpus(root)
    summary = JudgeSummary()
    docs = list(
        judge_corpus(corpus, RulesJudge(), summary, reruns=reruns, paper=paper, logbook=logbook)
    )
    if docs:
        return docs[0].model(), summary.problems
    return corpus.verdict(paper, logbook), summary.problems


def _rel(case: Case) -> str:
    return layout.verdict_rel(case.paper.paper.id, case.logbook.logbook.id)


_lock = threading.Lock()
ABANDON_GRACE = 2.0  # seconds after the deadline before work in flight is abandoned


def _count(summary: JudgeSummary, rel: str, result: CaseResult, samples: int) -> None:
    with _lock:
        if summary.closed:  # abandoned at the deadline: not written, already counted skipped
            return
        summary.judged.append(rel)
        flags = {f for c in result.claims for f in c.flags}
        if "llm_failed" in flags:
            summary.failed.append(rel)
        elif result.samples_answered is not None and result.samples_answered < samples:
            summary.partial.append(rel)
        if "suspected_injection" in flags:
            summary.suspected.append(rel)
        if "llm_disagrees" in flags:
            summary.disagreed.append(rel)
        summary.model_judged += sum(
            c.decided_by == "model" and c.verdict in ("verified", "falsified", "toy")
            for c in result.claims
        )
        if result.usage is not None:
            u = summary.usage
            summary.usage = Usage(
                requests=u.requests + result.usage.requests,
                prompt_tokens=u.prompt_tokens + result.usage.prompt_tokens,
                completion_tokens=u.completion_tokens + result.usage.completion_tokens,
            )


def _note(summary: JudgeSummary, item: CaseItem) -> None:
    summary.problems.extend(item.problems)
    if item.current:
        summary.unchanged.append(item.rel)


def _run_workers(
    items: Iterator[CaseItem],
    one: Any,
    workers: int,
    halt: Halt,
    judge: Judge,
    summary: JudgeSummary,
) -> Iterator[VerdictDoc]:
    """Judge cases on daemon threads, starting as soon as the first is read; yield each
    document in the main thread as soon as it is done, so it is written before
    anything else can fail (a paid answer is never paid twice).

    Daemon threads, a bounded queue and short waits in the main thread make
    Ctrl-C immediate: the main thread gets ``KeyboardInterrupt`` at once, cancels
    the run (queued cases are skipped, back-offs wake up), hands over what is
    already done, and does not wait for a request stuck on a hanging endpoint.
    At the deadline, work still in flight ``ABANDON_GRACE`` seconds later is
    abandoned (counted as not judged). Freezing what is loaded keeps the
    collector off the corpus.
    """
    todo: queue.Queue[Case | None] = queue.Queue(maxsize=workers * 2)
    done: queue.Queue[tuple[str, VerdictDoc | BaseException | None]] = queue.Queue()
    waiting: set[str] = set()  # handed to the workers, no result yet (main thread only)
    errors: list[BaseException] = []

    def work() -> None:
        while (case := todo.get()) is not None:
            rel = _rel(case)
            try:
                if halt.halted or getattr(judge, "down", None):
                    with _lock:
                        if not summary.closed:
                            summary.skipped.append(rel)
                    done.put((rel, None))
                else:
                    done.put((rel, one(case)))
            except BaseException as exc:  # handed to the main thread, which re-raises it
                done.put((rel, exc))

    def collect(wait: float = 0.0) -> Iterator[VerdictDoc]:
        """Yield every document done (after waiting up to ``wait`` s for the first)."""
        while waiting:
            try:
                rel, result = done.get(timeout=wait) if wait else done.get_nowait()
            except queue.Empty:
                return
            wait = 0.0
            waiting.discard(rel)
            if isinstance(result, BaseException):
                errors.append(result)
            elif result is not None:
                yield result

    def put(case: Case | None) -> Iterator[VerdictDoc]:
        while True:
            try:
                todo.put(case, timeout=0.2)
                return
            except queue.Full:
                yield from collect()  # written while the workers are busy

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    try:
        with frozen_gc():
            for thread in threads:
                thread.start()
            for n, item in enumerate(items, 1):
                if item.case is not None:
                    waiting.add(_rel(item.case))
                    yield from put(item.case)
                else:
                    _note(summary, item)
                yield from collect()
                if errors:
                    raise errors[0]
                if n % 500 == 0:
                    gc.freeze()
            for _ in threads:
                yield from put(None)
            halted_at = None
            while waiting and not errors:
                if halt.halted:
                    halted_at = halted_at or time.monotonic()
                    if time.monotonic() - halted_at > ABANDON_GRACE:
                        with _lock:
                            summary.skipped.extend(sorted(waiting))  # abandoned in flight
                            summary.closed = True
                        break
                yield from collect(0.2)
            if errors:
                raise errors[0]
    except BaseException as exc:
        halt.cancel("interrupted")
        if not isinstance(exc, GeneratorExit):
            yield from collect()  # what is done is written before the error goes up
        raise
    finally:
        time.sleep(0)  # let workers see the cancellation before the caller moves on


def describe_summary(summary: JudgeSummary, mode: str) -> str:
    """The one-paragraph account a person reads after ``reproaudit judge``."""
    line = f"{len(summary.judged)} verdict(s) written, {len(summary.unchanged)} unchanged"
    if mode == "llm":
        u = summary.usage
        line += (
            f"; {u.requests} HTTP request(s) to the LLM, {u.prompt_tokens} prompt + "
            f"{u.completion_tokens} completion tokens"
        )
        extras = [
            (summary.failed, "llm_failed (asked again next run)"),
            (summary.partial, "partial (some samples failed, a quorum answered)"),
            (summary.suspected, "suspected_injection"),
            (summary.disagreed, "llm_disagrees (the rules' verdict stands, the LLM's beside it)"),
            (summary.skipped, "not judged: the run stopped first"),
        ]
        for paths, what in extras:
            if paths:
                line += f"\n{len(paths)} {what}: {', '.join(sorted(paths)[:5])}"
                line += " ..." if len(paths) > 5 else ""
        if summary.model_judged:
            line += (
                f"\n{summary.model_judged} claim verdict(s) model-judged (no target: "
                "counted once a second endpoint agrees or a maintainer confirms)"
            )
        if summary.throttled:
            line += (
                f"\nthrottled: {summary.throttled} answer(s) 429; at the lowest "
                f"{summary.lowest_in_flight} request(s) in flight"
            )
    elif summary.skipped:
        line += f"\n{len(summary.skipped)} not judged: the run stopped first"
    if summary.errors:
        line += f"\n{len(summary.errors)} judge_error (the judge failed; judged again next run):"
        for rel in sorted(summary.errors)[:5]:
            line += f"\n  {rel}: {summary.errors[rel]}"
        line += "\n  ..." if len(summary.errors) > 5 else ""
    if summary.stopped:
        line += f"\nstopped early: {summary.stopped}"
    return f"{line} [{mode}]" if "\n" not in line else line.replace("\n", f" [{mode}]\n", 1)
