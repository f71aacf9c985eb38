"""The rules every verdict obeys, whoever proposed it: one function, applied to both judges.

``finalize`` takes a proposed verdict for one claim (from the rules, or the
rules merged with the LLM's votes) and applies, in this order (rules version 3):

1. the injection rule: when the logbook carries text aimed at the judge
   (``suspected_injection``), nothing the LLM said counts: the rules verdict
   stands where there is one, the rest is ``inconclusive``;
2. the toy cap: a ``reduced`` or ``synthetic`` setup makes ``verified`` and
   ``falsified`` at best ``toy`` (``toy_setup``);
3. the hardware cap: a claim whose target states its hardware
   (``target.hardware``) is ``toy`` at best when the re-run ran on other
   hardware (``hardware_mismatch``);
4. ``self_assessment_disagrees`` when the verdict so far differs from the
   logbook's own (the numbers' verdict: a missing re-run is not a disagreement);
5. the evidence rule: without a passed re-run of the current bytes
   (``ClaimFacts.rerun_current``), or when the numbers were typed rather than
   read from the re-run (the rules' ``not_rerun``), no claim is published
   ``verified``, ``falsified`` or ``toy``, whichever layer decided: it is
   ``inconclusive`` + ``not_rerun`` ("awaiting re-run"), the evidence saying
   what the typed numbers or the LLM would give; the rules decided nothing
   either, so an LLM answer that differs is no ``llm_disagrees`` there;
6. the re-run's own word: the lines of its log that report a failure of the
   claim (``failure_lines``; claims without a target, which only the model can
   decide: ``C6: conclusion: violated``, ``AssertionError``) are quoted in the
   evidence, «between guillemets», so the prompt fences them as data, and kept
   as ``log_failures`` for readers. They decide nothing: a log line is the
   contributor's program talking, shown, never obeyed;
7. who decided (``decided_by``): ``model`` when the LLM's answer is the verdict
   (a claim without a target, past rules 1 and 5), else ``rules``.

The rules' ``scope`` (rules version 4) travels with the verdict whoever decided, and
``within_tested_range`` survives only on a final ``verified``.

Pure: data in, data out. The deterministic layer alone keeps these guarantees,
so a fully compromised LLM endpoint cannot move a verdict past them: on a claim
with a target it is never asked to decide (``llm.merge_llm`` keeps the rules'
verdict and notes a disagreement), and what it decides alone is labelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import FLAGS, ClaimVerdict, Flag, Result
from .points import quote

DECIDED = ("verified", "falsified", "toy")
WOULD = {"verified": "verify", "falsified": "falsify", "toy": "give toy"}


@dataclass(frozen=True)
class ClaimFacts:
    """What the deterministic layer knows about one claim of one logbook."""

    result: Result | None  # the logbook's result for the claim; None: not addressed
    rerun_current: bool  # a passed re-run record made from the current bytes (cases.py)
    injection: bool = False  # either detector fired on this logbook
    stated_hardware: str | None = None  # the claim's target.hardware
    rerun_hardware: str | None = None  # what the re-run ran (or would run) on; None: unknown
    log_failures: tuple[str, ...] = ()  # lines of a current re-run's log reporting a failure


def _flags(flags: list[Flag], *more: Flag) -> list[Flag]:
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
        if rules is not None and (llm_decided or {"judge_conflict", "llm_disagrees"} & set(flags)):
            verdict, evidence, flags = rules.verdict, rules.evidence or "", list(rules.flags)
            flags.append("suspected_injection")
            evidence += (
                "; the LLM's answer is ignored: the logbook contains text aimed at the judge"
            )
            llm_decided = False
    setup = facts.result.setup if facts.result else None
    if setup in ("reduced", "synthetic"):
        flags.append("toy_setup")
        if verdict in ("verified", "falsified"):
            evidence += f"; capped at toy: {setup} setup (numbers point to {verdict})"
            verdict = "toy"
    stated, ran = facts.stated_hardware, facts.rerun_hardware
    if facts.result is not None and stated is not None and stated != ran:
        flags.append("hardware_mismatch")
        if verdict in ("verified", "falsified"):
            evidence += (
                f"; capped at toy: the claim was measured on {stated}, the re-run "
                f"{'ran on ' + ran if ran else 'names no hardware'} (numbers point to {verdict})"
            )
            verdict = "toy"
    assessed = facts.result.self_assessment if facts.result else None
    if assessed is not None and assessed != verdict:
        flags.append("self_assessment_disagrees")
        evidence += f"; the logbook assessed itself as {assessed}"
    typed = "not_rerun" in proposed.flags and not llm_decided
    opinion = proposed.llm_opinion
    if facts.result is not None and (not facts.rerun_current or typed):
        flags.append("not_rerun")
        flags = [f for f in flags if f != "llm_disagrees"]
        opinion = None
        if verdict in DECIDED:
            evidence = _awaiting(verdict, evidence, llm_decided, facts.rerun_current)
            verdict = "inconclusive"
        llm_decided = False
    if facts.log_failures:
        lines = "; ".join(quote(line) for line in facts.log_failures)
        evidence += f"; the re-run's log reports a failure: {lines}"
    # the rules' scope stands whoever decided; "within the tested range" qualifies a verified
    scope = proposed.scope if proposed.scope is not None else (rules.scope if rules else None)
    within = proposed.within_tested_range or (rules.within_tested_range if rules else None)
    # built unvalidated: every field comes from validated values, and the verdict file is
    # validated whole before it is written
    return ClaimVerdict.model_construct(
        claim=proposed.claim,
        verdict=verdict,
        evidence=evidence.lstrip("; "),
        flags=_flags(flags),
        votes=votes,
        scope=scope,
        within_tested_range=True if within and verdict == "verified" and scope else None,
        decided_by="model" if llm_decided else "rules",
        llm_opinion=opinion,
        second_opinion=proposed.second_opinion,
        log_failures=list(facts.log_failures) or None,
    )


def _awaiting(verdict: str, evidence: str, llm_decided: bool, rerun_current: bool) -> str:
    """The evidence of a claim awaiting a re-run: what it would be, and why it is not."""
    if llm_decided:
        return (
            f"the LLM leaned {verdict}: {evidence}; not settled: awaiting a passed re-run of "
            "the current logbook bytes"
        )
    why = (
        "they were typed, not read from the re-run's outputs (give each measurement a "
        "source: outputs:/...)"
        if rerun_current
        else "awaiting a passed re-run of the current logbook bytes"
    )
    return f"typed numbers would {WOULD[verdict]}: {evidence}; not settled: {why}"


# --- the re-run's own word (rule 6) ------------------------------------------------------

MAX_LINES = 3  # lines quoted per claim
_FAILURE = re.compile(
    r"\b(?:violat(?:ed|es|ion)|fail(?:s|ed|ure)?|does ?n[o']t hold|not hold|"
    r"counter-?example|contradict(?:s|ed|ion)?|assertion ?error|disproved?|refuted?)\b",
    re.IGNORECASE,
)
# "0 failed", "no failures", "failed: 0": a count of nothing is not a failure
_NONE = re.compile(
    r"\b(?:0|no|zero)\s+(?:\w+\s+)?fail|fail\w*\s*[:=]\s*0\b|without fail", re.IGNORECASE
)
_CLAIM_WORD = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,31}")


def failure_lines(log_tail: str | None, claim: str, claims: list[str]) -> list[str]:
    """The last lines (at most ``MAX_LINES``) of ``log_tail`` that report a failure and
    concern ``claim``: they name it, or name none of the paper's ``claims``."""
    if not log_tail:
        return []
    ids = set(claims)
    found = []
    for line in log_tail.splitlines():
        text = line.strip()
        if not text or not _FAILURE.search(text) or _NONE.search(text):
            continue
        named = set(_CLAIM_WORD.findall(text)) & ids
        if named and claim not in named:
            continue
        found.append(text)
    return found[-MAX_LINES:]
