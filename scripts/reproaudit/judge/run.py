"""``reproaudit judge``: judge logbooks and write their verdict files.

For each logbook: hash the inputs; when the verdict on disk already has that
hash and is current (no ``llm_failed``, a quorum of samples answered), do
nothing (no request is sent). Otherwise the judge object (``RulesJudge``, or
``LlmJudge`` from ``llm.py``) judges every claim of the paper, and
``verdicts/<paper>/<logbook>.yaml`` is written atomically. LLM judging runs
logbooks concurrently in daemon workers; a ``Halt`` (deadline, Ctrl-C) stops
queued work at once, and a lock keeps two judges off one repository.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import hashlib
import json
import os
import queue
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import yaml

from .. import layout
from .. import problems as P
from ..errors import ReproauditError
from ..fsutil import atomic_write
from ..models import ClaimVerdict, Logbook, PaperFile, Usage, VerdictFile
from ..problems import Problem
from ..repo import Corpus, frozen_gc, paused_gc
from .finalize import ClaimFacts, finalize
from .halt import Halt
from .inputs import RerunRecord, input_hash, read_rerun
from .rules import RULES_VERSION, judge_claim

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter is ~5x faster


@dataclass
class JudgeSummary:
    """What a judge run did, for the command line and for benchmarks."""

    judged: list[str] = field(default_factory=list)  # verdict paths written
    unchanged: list[str] = field(default_factory=list)  # inputs unchanged: not recomputed
    problems: list[Problem] = field(default_factory=list)  # inputs that could not be judged
    usage: Usage = field(default_factory=Usage)  # requests = HTTP attempts
    failed: list[str] = field(default_factory=list)  # written with llm_failed: not current
    partial: list[str] = field(default_factory=list)  # a quorum, but not every sample, answered
    suspected: list[str] = field(default_factory=list)  # suspected_injection
    skipped: list[str] = field(default_factory=list)  # not judged: the run stopped first
    stopped: str | None = None  # why the run stopped early (deadline, endpoint down)
    # with write=False: the verdict documents that would have been written, by path
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Every logbook judged, none with ``llm_failed``."""
        return not (self.failed or self.skipped or self.stopped)


@dataclass(frozen=True)
class Case:
    """One logbook to judge, with everything the judge reads."""

    paper_rel: str
    paper: PaperFile
    logbook: Logbook
    record: RerunRecord | None
    writeup: str | None
    sha: str
    logbook_text: str | None = None  # the raw YAML, for the LLM (untrusted)
    logbook_sha256: str | None = None  # of the logbook's bytes, to bind the re-run record


@dataclass(frozen=True)
class CaseResult:
    """A judge's output for one logbook."""

    claims: list[ClaimVerdict]
    usage: Usage | None = None  # None: no endpoint involved
    samples_answered: int | None = None  # None: the LLM was not asked


class Judge(Protocol):
    """What ``judge_repo`` needs: the mode and configuration it records, and the judging."""

    mode: str

    def config(self) -> dict[str, Any]: ...

    def judge_case(self, case: Case, halt: Halt) -> CaseResult: ...


class RulesJudge:
    """The deterministic judge alone (``--mode rules``)."""

    mode = "rules"
    down = None

    def config(self) -> dict[str, Any]:
        return judge_config("rules", None, None, 1)

    def judge_case(self, case: Case, halt: Halt) -> CaseResult:
        return CaseResult(rules_judgements(case))


def now_utc() -> datetime:
    """The judging time; ``SOURCE_DATE_EPOCH`` pins it for reproducible output."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), UTC)
    return datetime.now(UTC).replace(microsecond=0)


def judge_config(mode: str, model: str | None, prompt_version: int | None, samples: int) -> dict:
    return {
        "mode": mode,
        "model": model if mode == "llm" else None,
        "prompt_version": prompt_version if mode == "llm" else None,
        "samples": samples if mode == "llm" else 1,
        "rules_version": RULES_VERSION,
    }


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
        if isinstance(item, Case):
            cases.append(item)
        elif isinstance(item, Problem):
            problems.append(item)
        else:
            unchanged.append(item)
    return cases, unchanged, problems


def iter_cases(
    corpus: Corpus,
    config: dict,
    reruns: Path | None = None,
    paper: str | None = None,
    logbook: str | None = None,
    only_missing: bool = False,
) -> Iterator[Case | Problem | str]:
    """One item per logbook, as soon as it is read: a Case to judge, a Problem, or the
    path of a verdict that is current (its inputs did not change)."""
    for path in corpus.of_kind("logbook"):
        paper_id, logbook_id = path.key
        if (paper and paper_id != paper) or (logbook and logbook_id != logbook):
            continue
        verdict_rel = layout.verdict_rel(paper_id, logbook_id)
        if only_missing and verdict_rel in corpus.by_rel:
            yield verdict_rel
            continue
        loaded = corpus.load(path)
        if loaded.model is None:
            yield from loaded.problems
            continue
        rels = corpus.paper_rels.get(paper_id, [])
        paper_model = corpus.paper(paper_id)
        if paper_model is None:
            why = "has no paper file" if not rels else "has a paper file that does not validate"
            yield Problem(
                P.UNKNOWN_PAPER,
                path.rel,
                None,
                "logbook.paper",
                f"not judged: paper {paper_id} {why}",
                "run `reproaudit validate` and fix what it reports",
            )
            continue
        text = (corpus.root / path.rel).read_text(encoding="utf-8", errors="replace")
        digest = hashlib.sha256((corpus.root / path.rel).read_bytes()).hexdigest()
        record = read_rerun(reruns, paper_id, logbook_id, digest)
        sha = input_hash(
            corpus.root, rels[0], paper_id, logbook_id, record.info if record else None, config
        )
        existing = corpus.by_rel.get(verdict_rel)
        if existing is not None:
            current = corpus.load(existing).model
            if current is not None and current.input_sha256 == sha and not needs_rejudge(current):
                yield verdict_rel
                continue
        writeup_path = corpus.root / layout.writeup_rel(paper_id, logbook_id)
        writeup = (
            writeup_path.read_text(encoding="utf-8", errors="replace")
            if writeup_path.is_file()
            else None
        )
        yield Case(rels[0], paper_model, loaded.model, record, writeup, sha, text, digest)


def needs_rejudge(verdict: VerdictFile) -> bool:
    """Whether a verdict is an outage's, not a judgement: ``llm_failed`` on any claim, or
    fewer answered samples than a quorum. Such a verdict is asked again on the next run."""
    if any("llm_failed" in c.flags for c in verdict.claims):
        return True
    answered = verdict.judge.samples_answered
    return answered is not None and answered * 2 <= verdict.judge.samples


def is_stale(corpus: Corpus, verdict: VerdictFile, rules_version: int = RULES_VERSION) -> bool:
    """Whether a verdict's inputs changed since it was written (it is shown, marked stale)."""
    rels = corpus.paper_rels.get(verdict.paper, [])
    if len(rels) != 1:
        return True
    judge = verdict.judge
    config = judge_config(judge.mode, judge.model, judge.prompt_version, judge.samples)
    config["rules_version"] = rules_version
    sha = input_hash(corpus.root, rels[0], verdict.paper, verdict.logbook, verdict.rerun, config)
    return sha != verdict.input_sha256


def rerun_current(case: Case) -> bool:
    """A passed re-run whose record names the current logbook bytes and its own outputs."""
    record = case.record
    if record is None or record.rerun.status != "passed" or case.logbook_sha256 is None:
        return False
    if getattr(record.rerun, "stale", None):  # the re-run layer's own verdict on the record
        return False
    try:
        run = json.loads(record.run_bytes)
    except ValueError:
        return False
    if not isinstance(run, dict) or run.get("logbook_sha256") != case.logbook_sha256:
        return False
    declared = run.get("outputs_sha256")
    return declared is None or declared == record.info.outputs_sha256


def claim_facts(case: Case, injection: bool = False) -> dict[str, ClaimFacts]:
    current = rerun_current(case)
    return {
        c.id: ClaimFacts(case.logbook.result(c.id), current, injection) for c in case.paper.claims
    }


def rules_proposals(case: Case) -> list[ClaimVerdict]:
    """The rules' verdict per claim, before ``finalize``."""
    rerun = case.record.rerun if case.record else None
    out = []
    for c in case.paper.claims:
        j = judge_claim(c, case.logbook.result(c.id), rerun)
        out.append(
            ClaimVerdict.model_construct(
                claim=j.claim, verdict=j.verdict, evidence=j.evidence, flags=j.flags, votes=None
            )
        )
    return out


def rules_judgements(case: Case) -> list[ClaimVerdict]:
    """The rules mode's verdicts: the rules' proposals, finalized."""
    facts = claim_facts(case)
    return [finalize(p, facts[p.claim]) for p in rules_proposals(case)]


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
    }
    if config["mode"] == "llm":
        judge["samples_answered"] = samples_answered
    if usage is not None:
        judge["usage"] = usage.model_dump()
    doc = {
        "paper": case.paper.paper.id,
        "logbook": case.logbook.logbook.id,
        "input_sha256": case.sha,
        "judge": judge,
        "judged_at": judged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rerun": case.record.info.model_dump() if case.record else None,
        "claims": [c.model_dump(exclude_none=True) for c in claims],
    }
    VerdictFile.model_validate(doc)  # never write what validate would reject
    return doc


def dump_verdict(doc: dict[str, Any]) -> str:
    header = "# Written by `reproaudit judge`; do not edit. Re-run the judge instead.\n"
    return header + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


class JudgeBusy(ReproauditError):
    """Another judge holds the repository's lock for longer than this run may wait."""


@contextlib.contextmanager
def repo_lock(root: Path, halt: Halt) -> Iterator[None]:
    """One judge per repository at a time; a second one waits, then finds the work done.

    The lock is an ``flock`` on a file in the temporary directory named after the
    repository's real path, so it leaves nothing in the repository and dies with
    its process.
    """
    key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"reproaudit-judge-{key}.lock"
    with open(path, "a+") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not halt.sleep(0.05):
                    raise JudgeBusy(
                        f"another `reproaudit judge` is working on {root} ({halt.why})"
                    ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
    write: bool = True,
    mode: str | None = None,
    llm: Judge | None = None,
    **_legacy: Any,
) -> JudgeSummary:
    """Judge the repository's logbooks (or one paper's, or one logbook) with ``judge``.

    ``deadline`` (seconds) bounds the whole run: logbooks not started by then are
    skipped, requests in flight are cut. ``write=False`` judges in memory: the documents
    land in ``summary.documents`` and nothing is written (nor locked). ``mode``/``llm`` are
    the older spelling
    (``mode="rules"``, or ``mode="llm", llm=judge``); the judge object decides the
    mode, so the two cannot disagree.
    """
    judge = judge or llm or RulesJudge()
    if mode is not None and mode != judge.mode:
        raise ValueError(f"mode {mode!r} but a {judge.mode} judge was given")
    root = Path(root)
    halt = halt or Halt(deadline)
    summary = JudgeSummary()
    when = judged_at or now_utc()
    with repo_lock(root, halt) if write else contextlib.nullcontext():
        corpus = Corpus(root)
        config = judge.config()
        items = iter_cases(corpus, config, reruns, paper, logbook, only_missing)

        def one(case: Case) -> None:
            result = judge.judge_case(case, halt)
            doc = verdict_document(
                case, result.claims, config, when, result.usage, result.samples_answered
            )
            rel = layout.verdict_rel(case.paper.paper.id, case.logbook.logbook.id)
            if write:
                atomic_write(root / rel, dump_verdict(doc))
            else:
                summary.documents[rel] = doc
            _count(summary, rel, result, config["samples"])

        if judge.mode == "llm":
            _run_workers(items, one, max(1, concurrency), halt, judge, summary)
        else:
            with paused_gc():
                for item in items:
                    if isinstance(item, Case):
                        if halt.halted:
                            summary.skipped.append(_rel(item))
                        else:
                            one(item)
                    else:
                        _note(summary, item)
        if summary.skipped and summary.stopped is None:
            summary.stopped = halt.why or getattr(judge, "down", None)
    summary.judged.sort()
    return summary


def judge_in_memory(
    root: Path, paper: str, logbook: str, *, reruns: Path | None = None
) -> tuple[VerdictFile | None, list[Problem]]:
    """The rules verdict of one logbook without writing anything.

    The verdict file on disk when its inputs did not change, else a fresh one;
    for ``check`` and pull-request validation, which must leave ``verdicts/`` alone.
    """
    summary = judge_repo(
        root, RulesJudge(), reruns=reruns, paper=paper, logbook=logbook, write=False
    )
    doc = summary.documents.get(layout.verdict_rel(paper, logbook))
    if doc is not None:
        return VerdictFile.model_validate(doc), summary.problems
    return Corpus(root).verdict(paper, logbook), summary.problems


def _rel(case: Case) -> str:
    return layout.verdict_rel(case.paper.paper.id, case.logbook.logbook.id)


_lock = threading.Lock()


def _count(summary: JudgeSummary, rel: str, result: CaseResult, samples: int) -> None:
    with _lock:
        summary.judged.append(rel)
        flags = {f for c in result.claims for f in c.flags}
        if "llm_failed" in flags:
            summary.failed.append(rel)
        elif result.samples_answered is not None and result.samples_answered < samples:
            summary.partial.append(rel)
        if "suspected_injection" in flags:
            summary.suspected.append(rel)
        if result.usage is not None:
            u = summary.usage
            summary.usage = Usage(
                requests=u.requests + result.usage.requests,
                prompt_tokens=u.prompt_tokens + result.usage.prompt_tokens,
                completion_tokens=u.completion_tokens + result.usage.completion_tokens,
            )


def _note(summary: JudgeSummary, item: Problem | str) -> None:
    if isinstance(item, Problem):
        summary.problems.append(item)
    else:
        summary.unchanged.append(item)


def _run_workers(
    items: Iterator[Case | Problem | str],
    one: Any,
    workers: int,
    halt: Halt,
    judge: Judge,
    summary: JudgeSummary,
) -> None:
    """Judge cases on daemon threads, starting as soon as the first is read.

    Daemon threads, a bounded queue and short waits in the main thread make
    Ctrl-C immediate: the main thread gets ``KeyboardInterrupt`` at once, cancels
    the run (queued cases are skipped, back-offs wake up) and does not wait for a
    request stuck on a hanging endpoint. Freezing what is loaded keeps the
    collector off the corpus.
    """
    todo: queue.Queue[Case | None] = queue.Queue(maxsize=workers * 2)
    done: queue.Queue[BaseException | None] = queue.Queue()

    def work() -> None:
        while (case := todo.get()) is not None:
            try:
                if halt.halted or getattr(judge, "down", None):
                    with _lock:
                        summary.skipped.append(_rel(case))
                else:
                    one(case)
                done.put(None)
            except BaseException as exc:  # handed to the main thread, which re-raises it
                done.put(exc)

    def put(item: Case | None) -> None:
        while True:
            try:
                todo.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    try:
        with frozen_gc():
            for thread in threads:
                thread.start()
            sent = 0
            for n, item in enumerate(items, 1):
                if isinstance(item, Case):
                    put(item)
                    sent += 1
                else:
                    _note(summary, item)
                if n % 500 == 0:
                    gc.freeze()
            for _ in threads:
                put(None)
            for _ in range(sent):
                while True:
                    try:
                        error = done.get(timeout=0.2)
                        break
                    except queue.Empty:
                        continue
                if error is not None:
                    raise error
    except BaseException:
        halt.cancel("interrupted")
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
            (summary.skipped, "not judged: the run stopped first"),
        ]
        for paths, what in extras:
            if paths:
                line += f"\n{len(paths)} {what}: {', '.join(sorted(paths)[:5])}"
                line += " ..." if len(paths) > 5 else ""
    elif summary.skipped:
        line += f"\n{len(summary.skipped)} not judged: the run stopped first"
    if summary.stopped:
        line += f"\nstopped early: {summary.stopped}"
    return f"{line} [{mode}]" if "\n" not in line else line.replace("\n", f" [{mode}]\n", 1)
