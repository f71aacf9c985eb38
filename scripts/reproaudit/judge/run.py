"""``reproaudit judge``: judge logbooks and write their verdict files.

For each logbook: hash the inputs; when the verdict on disk already has that
hash, do nothing (no request is sent). Otherwise run the rules on every claim
of the paper, then (in ``llm`` mode) the LLM layer, and write
``verdicts/<paper>/<logbook>.yaml`` atomically. Logbooks are judged
concurrently; files are written as each finishes.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from .. import layout
from .. import problems as P
from ..fsutil import atomic_write
from ..models import Logbook, PaperFile, Usage, VerdictFile
from ..problems import Problem
from ..repo import Corpus, frozen_gc, paused_gc
from .inputs import RerunRecord, input_hash, read_rerun
from .rules import RULES_VERSION, Judgement, judge_claim

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter is ~5x faster


@dataclass
class JudgeSummary:
    """What a judge run did, for the command line and for benchmarks."""

    judged: list[str] = field(default_factory=list)  # verdict paths written
    unchanged: list[str] = field(default_factory=list)  # inputs unchanged: not recomputed
    problems: list[Problem] = field(default_factory=list)  # inputs that could not be judged
    usage: Usage = field(default_factory=Usage)
    # with write=False: the verdict documents that would have been written, by path
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)


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


LlmJudge = Callable[[Case, list[Judgement]], tuple[list[dict[str, Any]], Usage]]


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
            if current is not None and current.input_sha256 == sha:
                yield verdict_rel
                continue
        writeup_path = corpus.root / layout.writeup_rel(paper_id, logbook_id)
        writeup = (
            writeup_path.read_text(encoding="utf-8", errors="replace")
            if writeup_path.is_file()
            else None
        )
        yield Case(rels[0], paper_model, loaded.model, record, writeup, sha, text)


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


def rules_judgements(case: Case) -> list[Judgement]:
    rerun = case.record.rerun if case.record else None
    return [judge_claim(c, case.logbook.result(c.id), rerun) for c in case.paper.claims]


def verdict_document(
    case: Case,
    claims: list[dict[str, Any]],
    config: dict,
    judged_at: datetime,
    usage: Usage | None = None,
) -> dict[str, Any]:
    """The verdict file's content, in a fixed key order so output is byte-stable."""
    judge: dict[str, Any] = {
        "mode": config["mode"],
        "model": config["model"],
        "prompt_version": config["prompt_version"],
        "samples": config["samples"],
    }
    if usage is not None:
        judge["usage"] = usage.model_dump()
    doc = {
        "paper": case.paper.paper.id,
        "logbook": case.logbook.logbook.id,
        "input_sha256": case.sha,
        "judge": judge,
        "judged_at": judged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rerun": case.record.info.model_dump() if case.record else None,
        "claims": claims,
    }
    VerdictFile.model_validate(doc)  # never write what validate would reject
    return doc


def rules_claims(judgements: list[Judgement]) -> list[dict[str, Any]]:
    return [
        {"claim": j.claim, "verdict": j.verdict, "evidence": j.evidence, "flags": list(j.flags)}
        for j in judgements
    ]


def dump_verdict(doc: dict[str, Any]) -> str:
    header = "# Written by `reproaudit judge`; do not edit. Re-run the judge instead.\n"
    return header + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _note(summary: JudgeSummary, item: Problem | str) -> None:
    if isinstance(item, Problem):
        summary.problems.append(item)
    else:
        summary.unchanged.append(item)


def judge_repo(
    root: Path,
    *,
    mode: str = "rules",
    reruns: Path | None = None,
    paper: str | None = None,
    logbook: str | None = None,
    samples: int = 3,
    concurrency: int = 8,
    llm: LlmJudge | None = None,
    model: str | None = None,
    prompt_version: int | None = None,
    only_missing: bool = False,
    judged_at: datetime | None = None,
    write: bool = True,
) -> JudgeSummary:
    """Judge the repository's logbooks (or one paper's, or one logbook).

    ``write=False`` judges in memory: the documents land in ``summary.documents``
    and nothing is written (``check``, ``build`` and PR validation must not leave
    verdict files in a contributor's clone; only ``judge`` writes them).
    """
    root = Path(root)
    corpus = Corpus(root)
    config = judge_config(mode, model, prompt_version, samples)
    summary = JudgeSummary()
    when = judged_at or now_utc()

    def one(case: Case) -> tuple[str, Usage | None]:
        judgements = rules_judgements(case)
        usage = None
        if mode == "llm" and llm is not None:
            claims, usage = llm(case, judgements)
        else:
            claims = rules_claims(judgements)
        doc = verdict_document(case, claims, config, when, usage)
        rel = layout.verdict_rel(case.paper.paper.id, case.logbook.logbook.id)
        if write:
            atomic_write(root / rel, dump_verdict(doc))
        else:
            summary.documents[rel] = doc
        return rel, usage

    results: list[tuple[str, Usage | None]] = []
    items = iter_cases(corpus, config, reruns, paper, logbook, only_missing)
    if mode == "llm":
        # LLM requests wait on the network: judge logbooks side by side, starting as soon as
        # the first is read. Freezing what is loaded keeps the collector off the corpus.
        with frozen_gc(), ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = []
            for n, item in enumerate(items, 1):
                if isinstance(item, Case):
                    futures.append(pool.submit(one, item))
                else:
                    _note(summary, item)
                if n % 500 == 0:
                    gc.freeze()
            results = [future.result() for future in futures]
    else:
        with paused_gc():
            for item in items:
                if isinstance(item, Case):
                    results.append(one(item))
                else:
                    _note(summary, item)
    for rel, usage in results:
        summary.judged.append(rel)
        if usage is not None:
            summary.usage = Usage(
                requests=summary.usage.requests + usage.requests,
                prompt_tokens=summary.usage.prompt_tokens + usage.prompt_tokens,
                completion_tokens=summary.usage.completion_tokens + usage.completion_tokens,
            )
    return summary


def judge_in_memory(
    root: Path, paper: str, logbook: str, *, reruns: Path | None = None
) -> tuple[VerdictFile | None, list[Problem]]:
    """The rules verdict of one logbook without writing anything.

    The verdict file on disk when its inputs did not change, else a fresh one;
    for ``check`` and pull-request validation, which must leave ``verdicts/`` alone.
    """
    summary = judge_repo(
        root, mode="rules", reruns=reruns, paper=paper, logbook=logbook, write=False
    )
    doc = summary.documents.get(layout.verdict_rel(paper, logbook))
    if doc is not None:
        return VerdictFile.model_validate(doc), summary.problems
    return Corpus(root).verdict(paper, logbook), summary.problems
