"""The rules' judgement of one ``Case`` (``--mode rules``, and the LLM's baseline).

Pure: a Case in, claim verdicts out. The LLM judge (``llm.py``) builds on
``rules_proposals`` and ``claim_facts``; the orchestrator (``run.py``) only
reads cases and writes documents.
"""

from __future__ import annotations

from typing import Any

from ..models import ClaimVerdict
from .finalize import ClaimFacts, finalize
from .halt import Halt
from .inputs import passed_and_current
from .rules import RULES_VERSION, judge_claim
from .types import Case, CaseResult


def judge_config(mode: str, model: str | None, prompt_version: int | None, samples: int) -> dict:
    return {
        "mode": mode,
        "model": model if mode == "llm" else None,
        "prompt_version": prompt_version if mode == "llm" else None,
        "samples": samples if mode == "llm" else 1,
        "rules_version": RULES_VERSION,
    }


class RulesJudge:
    """The deterministic judge alone (``--mode rules``)."""

    mode = "rules"
    down = None

    def config(self) -> dict[str, Any]:
        return judge_config("rules", None, None, 1)

    def judge_case(self, case: Case, halt: Halt) -> CaseResult:
        return CaseResult(rules_judgements(case))


def rerun_current(case: Case) -> bool:
    """A passed re-run whose record binds the current logbook, write-up, code tree,
    requirements and its own outputs (``inputs.passed_and_current``)."""
    return passed_and_current(case.record).current


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
