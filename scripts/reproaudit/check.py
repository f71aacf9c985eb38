"""``reproaudit check``: everything CI does to one logbook, on the contributor's machine.

Validation, the local re-run (for ``hardware: cpu``, or when asked), the rules
judge, and the report the pull request will get, computed by the same code.
Judging happens in memory: the contributor's clone gets no verdict file (a
contribution may only change ``logbooks/``). The report tells the truth about
the re-run: a failed or timed-out one makes the status ``fail`` and shows the
log tail; one this machine could not run at all makes it ``host_error``, saying
what failed on the machine (the logbook is not blamed); without one, the
verdicts are marked provisional.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import layout
from . import problems as P
from .autorerun import cap_s, plan_for, within_cap
from .gitrun import git_or_none
from .hints import (
    bare_number_hints,
    empty_claims,
    logbook_hints,
    rerun_hints,
    rerun_sweep_hints,
)
from .judge.run import judge_in_memory
from .layout import OUTPUTS_JSON
from .loader import field_path
from .logbook_arg import resolve_logbook
from .models import Logbook, parse_duration
from .pointers import PREFIX, explain_missing
from .problems import Problem
from .repo import Corpus
from .report.artifact import ArtifactProblem, ArtifactVerdict, artifact_verdict
from .report.model import LocalRerun, Report, build_report
from .reproduce import WrittenRecord, reproduce_logbook
from .rerun_files import read_outputs_json
from .validate import validate_repo

NO_SHA = "0" * 40


@dataclass
class CheckResult:
    report: Report
    rerun: WrittenRecord | None

    @property
    def ok(self) -> bool:
        return self.report.ok


def _git(repo: Path, *args: str) -> str | None:
    return git_or_none(repo, *args)


def head_of(repo: Path, paths: list[str]) -> tuple[str, bool]:
    """(HEAD's SHA, whether ``paths`` are committed there unchanged)."""
    head = (_git(repo, "rev-parse", "HEAD") or "").strip()
    if len(head) != 40:
        return NO_SHA, False
    status = _git(repo, "status", "--porcelain", "--untracked-files=all", "--", *paths)
    return head, status == ""


def pointer_problems(corpus: Corpus, rel: str, book: Logbook, outputs: Any) -> list[Problem]:
    """``source`` pointers (and ``at`` values that are pointers) that resolve to nothing in
    the re-run's outputs, with did-you-mean."""
    path = corpus.by_rel[rel]
    doc = corpus.load(path, keep_doc=True).doc
    out = []
    for i, result in enumerate(book.results):
        sources: list[tuple[tuple[str | int, ...], str | None]] = []
        for j, m in enumerate(result.measurements):
            sources.append((("measurements", j, "source"), m.source))
            sources += [
                (("measurements", j, "at", key), value)
                for key, value in m.at.items()
                if isinstance(value, str) and value.startswith(PREFIX)
            ]
        if result.sweep is not None:
            sources.append((("sweep", "source"), result.sweep.source))
        for where, source in sources:
            if source is None:
                continue
            found = explain_missing(outputs, source)
            if found is None:
                continue
            loc = ("results", i, *where)
            line = doc.line_of(loc) if doc is not None else None
            out.append(Problem(P.POINTER_NOT_FOUND, rel, line, field_path(loc), *found))
    return out


def _line_of(corpus: Corpus, rel: str) -> Callable[[tuple], int | None]:
    doc = corpus.load(corpus.by_rel[rel], keep_doc=True).doc
    return (lambda loc: doc.line_of(loc)) if doc is not None else (lambda loc: None)


def check_logbook(
    repo: Path,
    logbook: Path | str,
    *,
    rerun: bool | None = None,
    sandbox: str | None = None,
    here: Path | None = None,
    live: Callable[[str, float], AbstractContextManager[Any]] | None = None,
) -> CheckResult:
    """Validate, maybe re-run, judge in memory and report on one logbook; writes nothing.

    ``here``: the folder a relative ``logbook`` path was typed in (see ``resolve_logbook``).
    ``live(label, timeout_s)``: a context shown while the local re-run runs (a live line).
    """
    repo = Path(repo).resolve()
    corpus = Corpus(repo)  # the one read of the repository for every step below
    rel, paper_id, logbook_id = resolve_logbook(repo, logbook, here, corpus=corpus)
    report = validate_repo(repo, [rel], corpus=corpus)
    problems = list(report.problems)
    verdicts = []
    record = None
    runnable = False
    book = None
    if report.ok:
        book = corpus.logbook(paper_id, logbook_id)
        runnable = book is not None and book.code is not None and book.reproduce is not None
        wanted = (
            rerun
            if rerun is not None
            else bool(runnable and book and book.reproduce and book.reproduce.hardware == "cpu")
        )
        with tempfile.TemporaryDirectory(prefix="reproaudit-check-") as tmp:
            reruns = Path(tmp) / layout.RERUNS_DIR
            paper = corpus.paper(paper_id)
            if book is not None and paper is not None:
                problems += logbook_hints(paper, book, rel, _line_of(corpus, rel))
            if wanted:
                spec = book.reproduce if book is not None else None
                timeout = float(parse_duration(spec.timeout)) if spec is not None else 0.0
                shown = live(f"{paper_id}/{logbook_id}", timeout) if live else nullcontext()
                with shown:
                    record = reproduce_logbook(
                        repo, rel, backend="local", out=reruns, sandbox=sandbox, corpus=corpus
                    )
                if book is not None:
                    run = record.record
                    problems += rerun_hints(
                        book,
                        rel,
                        run.status,
                        record.outputs_written,
                        run.log_tail,
                        _line_of(corpus, rel),
                    )
                outputs_file = layout.rerun_folder(reruns, paper_id, logbook_id) / OUTPUTS_JSON
                if record.status == "passed" and outputs_file.is_file() and book is not None:
                    outputs, why = read_outputs_json(outputs_file.read_bytes())
                    if why is None:
                        problems += pointer_problems(corpus, rel, book, outputs)
                        if paper is not None:
                            line_of = _line_of(corpus, rel)
                            problems += rerun_sweep_hints(paper, book, rel, outputs, line_of)
                            problems += bare_number_hints(paper, book, rel, outputs, line_of)
            verdict, judge_problems = judge_in_memory(
                repo, paper_id, logbook_id, reruns=reruns if record else None, corpus=corpus
            )
            problems += judge_problems
            if verdict is not None:
                numbers = "local_rerun" if record and record.status == "passed" else None
                carried = artifact_verdict(verdict, numbers or "self_reported")
                verdicts.append(ArtifactVerdict.model_validate(carried))
    head, committed = head_of(
        repo, [rel, layout.writeup_rel(paper_id, logbook_id), layout.code_rel(paper_id, logbook_id)]
    )
    local = None
    if record is not None:
        run = record.record
        local = LocalRerun(
            run.status, run.exit_code, run.duration_s, run.log_tail, run.sandbox, run.host_error
        )
    plans = (
        within_cap([plan_for(paper_id, logbook_id, book)], cap_s())
        if report.ok and book is not None
        else []
    )
    paper = corpus.paper(paper_id) if book is not None else None
    empty = len(empty_claims(paper, book)) if paper is not None and book is not None else None
    return CheckResult(
        build_report(
            pr=None,  # no pull request yet: the contributor's machine
            head_sha=head,
            files=[rel],
            problems=[ArtifactProblem.of(p) for p in problems],
            verdicts=verdicts,
            committed=committed,
            rerun=local,
            rerun_expected=runnable,
            reruns=plans,
            empty=empty,
        ),
        record,
    )
