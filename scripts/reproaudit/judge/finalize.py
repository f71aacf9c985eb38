"""The rules every verdict obeys, whoever proposed it: one function, applied to both judges.

``finalize`` takes a proposed verdict for one claim (from the rules, or the
rules merged with the LLM's votes) and applies, in this order:

1. the injection rule: when the logbook carries text aimed at the judge
   (``suspected_injection``), nothing the LLM said counts: the rules verdict
   stands where there is one, the rest is ``inconclusive``;
2. the re-run requirement: ``verified`` or ``falsified`` decided by the LLM
   alone (a claim the rules cannot decide) needs a passed re-run of the current
   logbook bytes; without one the claim is ``inconclusive`` + ``not_rerun``,
   with the LLM's reading kept in the evidence;
3. the toy cap: a ``reduced`` or ``synthetic`` setup makes ``verified`` and
   ``falsified`` at best ``toy`` (``toy_setup``);
4. ``self_assessment_disagrees`` when the final verdict differs from the
   logbook's own.

Pure: data in, data out. The deterministic layer alone keeps these guarantees,
so a fully compromised LLM endpoint cannot move a verdict past them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import FLAGS, ClaimVerdict, Result


@dataclass(frozen=True)
class ClaimFacts:
    """What the deterministic layer knows about one claim of one logbook."""

    result: Result | None  # the logbook's result for the claim; None: not addressed
    rerun_current: bool  # a passed re-run record made from the current logbook bytes
    injection: bool = False  # either detector fired on this logbook


def _flags(flags: list[str], *more: str) -> list[str]:
    return sorted(set(flags) | set(more), key=FLAGS.index)


def finalize(
    proposed: ClaimVerdict,
    facts: ClaimFacts,
    *,
    rules: ClaimVerdict | None = None,
    llm_decided: bool = False,
) -> ClaimVerdict:
    """The verdict that may be published for one claim (see the module docstring).

    ``rules`` is the rules' own proposal when ``proposed`` came through the LLM;
    ``llm_decided`` says the LLM alone chose ``proposed.verdict``.
    """
    verdict, evidence = proposed.verdict, proposed.evidence or ""
    flags = list(proposed.flags)
    votes = proposed.votes
    if facts.injection:
        flags.append("suspected_injection")
        if rules is not None and (llm_decided or "judge_conflict" in flags):
            verdict, evidence, flags = rules.verdict, rules.evidence or "", list(rules.flags)
            flags.append("suspected_injection")
            evidence += (
                "; the LLM's answer is ignored: the logbook contains text aimed at the judge"
            )
            llm_decided = False
    if llm_decided and verdict in ("verified", "falsified") and not facts.rerun_current:
        evidence = (
            f"the LLM leaned {verdict}: {evidence}; not settled: a verdict the rules cannot "
            "check needs a passed re-run of the current logbook"
        )
        verdict = "inconclusive"
        flags.append("not_rerun")
    setup = facts.result.setup if facts.result else None
    if setup in ("reduced", "synthetic"):
        flags.append("toy_setup")
        if verdict in ("verified", "falsified"):
            evidence += f"; capped at toy: {setup} setup (numbers point to {verdict})"
            verdict = "toy"
    assessed = facts.result.self_assessment if facts.result else None
    if assessed is not None and assessed != verdict:
        flags.append("self_assessment_disagrees")
        evidence += f"; the logbook assessed itself as {assessed}"
    # built unvalidated: every field comes from validated values, and the verdict file is
    # validated whole before it is written
    return ClaimVerdict.model_construct(
        claim=proposed.claim,
        verdict=verdict,
        evidence=evidence,
        flags=_flags(flags),
        votes=votes,
    )
