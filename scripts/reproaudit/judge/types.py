"""The types the judges and the orchestrator share, so neither imports the other.

``run.py`` reads the corpus into ``Case`` items and writes verdict documents;
the judges (``cases.RulesJudge``, ``llm.LlmJudge``) turn one ``Case`` into a
``CaseResult``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..llm.halt import Halt
from ..models import ClaimVerdict, Logbook, PaperFile, Usage
from ..problems import Problem
from .inputs import RerunRecord


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
    failure: str | None = None  # reading it raised: its verdict is judge_error, not judged


@dataclass(frozen=True)
class CaseResult:
    """A judge's output for one logbook."""

    claims: list[ClaimVerdict]
    usage: Usage | None = None  # None: no endpoint involved
    samples_answered: int | None = None  # None: the LLM was not asked


class Judge(Protocol):
    """What ``judge_corpus`` needs: the mode and configuration it records, and the judging."""

    mode: str

    def config(self) -> dict[str, Any]: ...

    def judge_case(self, case: Case, halt: Halt) -> CaseResult: ...


@dataclass
class CaseItem:
    """One logbook as ``iter_cases`` found it: one of ``case``, ``problems``, ``current``.

    ``case``: to judge; ``problems``: why it cannot be judged; ``current``: its
    verdict file is up to date (inputs unchanged), nothing to do.
    """

    rel: str  # the verdict path
    case: Case | None = None
    error: str | None = None  # reading it raised (``case``, when set, carries it as failure)
    problems: list[Problem] = field(default_factory=list)
    current: bool = False
