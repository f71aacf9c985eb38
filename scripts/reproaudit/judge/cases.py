"""The rules' judgement of one ``Case`` (``--mode rules``, and the LLM's baseline).

Pure: a Case in, claim verdicts out. The LLM judge (``llm.py``) builds on
``rules_proposals`` and ``claim_facts``; the orchestrator (``run.py``) only
reads cases and writes documents.
"""

from __future__ import annotations

from typing import Any

from ..llm.halt import Halt
from ..models import ClaimVerdict
from .finalize import ClaimFacts, failure_lines, finalize
from .inputs import passed_and_current
from .rules import RULES_VERSION, judge_claim
from .types import Case, CaseResult


def judge_config(
    mode: str,
    model: str | None,
    prompt_version: int | None,
    samples: int,
    second_model: str | None = None,
) -> dict:
    config = {
        "mode": mode,
        "model": model if mode == "llm" else None,
        "prompt_version": prompt_version if mode == "llm" else None,
        "samples": samples if mode == "llm" else 1,
        "rules_version": RULES_VERSION,
    }
    if mode == "llm" and second_model is not None:  # absent otherwise: hashes stay as they were
        config["second_model"] = second_model
    return config


class RulesJudge:
    """The deterministic judge alone (``--mode rules``)."""

    mode = "rules"
    down = None

    def config(self) -> dict[str, Any]:
        return judge_config("rules", None, None, 1)

    def judge_case(self, case: Case, halt: Halt) -> CaseResult:
        return CaseResult(rules_judgements(case))


def rerun_current(case: Case) -> bool:
    """Is this re-run passed and current? The one gate of the evidence rule (rules version 3):
    only then may a claim be published verified, falsified or toy. Current: the record binds
    the current logbook, write-up, code tree, requirements and its own outputs
    (``inputs.passed_and_current``)."""
    return passed_and_current(case.record).current


def rerun_hardware(case: Case) -> str | None:
    """The hardware the re-run ran on (or, before one, would run on); None when unknown.

    A docker or Hugging Face Jobs re-run gets the logbook's ``reproduce.hardware``;
    bwrap and unsandboxed local runs see no accelerator: ``cpu``.
    """
    reproduce = case.logbook.reproduce
    run = case.record.run if case.record else None
    if run is not None and run.backend != "hf-jobs" and run.sandbox != "docker":
        return "cpu"
    return reproduce.hardware if reproduce is not None else None


def claim_facts(case: Case, injection: bool = False) -> dict[str, ClaimFacts]:
    current = rerun_current(case)
    ran = rerun_hardware(case)
    # the re-run's own word on the claims the model decides (those without a target)
    log = case.record.rerun.log_tail if current and case.record else None
    ids = [c.id for c in case.paper.claims]
    return {
        c.id: ClaimFacts(
            case.logbook.result(c.id),
            current,
            injection,
            c.target.hardware if c.target else None,
            ran,
            tuple(failure_lines(log, c.id, ids))
            if c.target is None and case.logbook.result(c.id)
            else (),
        )
        for c in case.paper.claims
    }


def rules_proposals(case: Case) -> list[ClaimVerdict]:
    """The rules' verdict per claim, before ``finalize``."""
    rerun = case.record.rerun if case.record else None
    out = []
    for c in case.paper.claims:
        j = judge_claim(c, case.logbook.result(c.id), rerun)
        out.append(
            ClaimVerdict.model_construct(
                claim=j.claim,
                verdict=j.verdict,
                evidence=j.evidence,
                flags=j.flags,
                votes=None,
                scope=j.scope,
                within_tested_range=j.within_tested_range,
            )
        )
    return out


def rules_judgements(case: Case) -> list[ClaimVerdict]:
    """The rules mode's verdicts: the rules' proposals, finalized."""
    facts = claim_facts(case)
    return [finalize(p, facts[p.claim]) for p in rules_proposals(case)]
