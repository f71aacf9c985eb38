"""finalize: the rules every verdict obeys, whoever proposed it (pure)."""

from __future__ import annotations

from reproaudit.judge.finalize import ClaimFacts, finalize
from reproaudit.models import ClaimVerdict, Result


def result(setup: str = "full", assessed: str | None = None) -> Result:
    return Result.model_validate({"claim": "C1", "setup": setup, "self_assessment": assessed})


def proposal(verdict: str, evidence: str = "e", flags: tuple[str, ...] = ()) -> ClaimVerdict:
    return ClaimVerdict(claim="C1", verdict=verdict, evidence=evidence, flags=list(flags))


def test_the_llm_alone_decides_nothing_without_a_current_passed_rerun() -> None:
    facts = ClaimFacts(result(), rerun_current=False)
    for said in ("verified", "falsified"):
        got = finalize(proposal(said, "LLM judge (3/3): fine"), facts, llm_decided=True)
        assert (got.verdict, got.flags) == ("inconclusive", ["not_rerun"])
        assert got.evidence.startswith(f"the LLM leaned {said}: LLM judge (3/3): fine")
    got = finalize(proposal("verified"), ClaimFacts(result(), True), llm_decided=True)
    assert (got.verdict, got.flags) == ("verified", [])
    # the rules' own verified (a claim with a target) is not the LLM's: it stands
    assert finalize(proposal("verified"), facts).verdict == "verified"


def test_toy_cap_applies_to_both_judges() -> None:
    for setup in ("reduced", "synthetic"):
        facts = ClaimFacts(result(setup), rerun_current=True)
        rules = finalize(proposal("falsified", "numbers"), facts)
        llm = finalize(proposal("verified", "LLM"), facts, llm_decided=True)
        assert (rules.verdict, rules.flags) == ("toy", ["toy_setup"])
        assert (
            rules.evidence == f"numbers; capped at toy: {setup} setup (numbers point to falsified)"
        )
        assert (llm.verdict, llm.flags) == ("toy", ["toy_setup"])


def test_injection_reverts_to_the_rules_and_never_yields_judge_conflict() -> None:
    facts = ClaimFacts(result(assessed="verified"), rerun_current=True, injection=True)
    rules = proposal("falsified", "3 fails >= 8", ("not_rerun",))
    conflict = proposal("inconclusive", "LLM says verified", ("judge_conflict",))
    got = finalize(conflict, facts, rules=rules)
    assert got.verdict == "falsified"
    assert got.flags == ["self_assessment_disagrees", "not_rerun", "suspected_injection"]
    assert "ignored" in got.evidence
    untargeted = finalize(
        proposal("verified", "LLM"),
        facts,
        rules=proposal("inconclusive", "no target"),
        llm_decided=True,
    )
    assert untargeted.verdict == "inconclusive" and "suspected_injection" in untargeted.flags


def test_self_assessment_is_compared_with_the_final_verdict() -> None:
    facts = ClaimFacts(result("reduced", assessed="toy"), rerun_current=True)
    got = finalize(proposal("verified"), facts)
    assert got.verdict == "toy" and "self_assessment_disagrees" not in got.flags
    got = finalize(proposal("verified"), ClaimFacts(result(assessed="falsified"), True))
    assert got.flags == ["self_assessment_disagrees"]
    assert got.evidence == "e; the logbook assessed itself as falsified"
    assert finalize(
        proposal("inconclusive", "x", ("not_addressed",)), ClaimFacts(None, False)
    ).flags == ["not_addressed"]
