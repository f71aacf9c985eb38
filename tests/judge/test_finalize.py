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


def test_no_layer_publishes_a_decided_verdict_without_a_current_passed_rerun() -> None:
    """Rules version 3: whoever decided it, verified/falsified/toy needs a current re-run."""
    facts = ClaimFacts(result(), rerun_current=False)
    for said, would in (("verified", "verify"), ("falsified", "falsify"), ("toy", "give toy")):
        rules = finalize(proposal(said, "5 meets >= 4", ("not_rerun",)), facts)
        assert (rules.verdict, rules.flags) == ("inconclusive", ["not_rerun"])
        assert rules.evidence == (
            f"typed numbers would {would}: 5 meets >= 4; not settled: awaiting a passed re-run "
            "of the current logbook bytes"
        )
        llm = finalize(proposal(said, "LLM judge (3/3): x"), facts, llm_decided=True)
        assert (llm.verdict, llm.flags) == ("inconclusive", ["not_rerun"])
        assert llm.evidence.startswith(f"the LLM leaned {said}: LLM judge (3/3): x")
    # already inconclusive: it stays so, marked as awaiting a re-run
    got = finalize(proposal("inconclusive", "units", ("unit_mismatch",)), facts)
    assert (got.verdict, got.flags) == ("inconclusive", ["unit_mismatch", "not_rerun"])
    assert got.evidence == "units"


def test_typed_numbers_beside_a_current_rerun_do_not_publish() -> None:
    """A passed, current re-run, but the measurement had no source: the number was typed."""
    got = finalize(proposal("verified", "9 meets >= 8", ("not_rerun",)), ClaimFacts(result(), True))
    assert (got.verdict, got.flags) == ("inconclusive", ["not_rerun"])
    assert got.evidence == (
        "typed numbers would verify: 9 meets >= 8; not settled: they were typed, not read from "
        "the re-run's outputs (give each measurement a source: outputs:/...)"
    )


def test_a_claim_that_states_its_hardware_is_toy_at_best_on_other_hardware() -> None:
    def on(ran: str | None, current: bool = True) -> ClaimVerdict:
        facts = ClaimFacts(result(), current, stated_hardware="a100-large", rerun_hardware=ran)
        return finalize(proposal("verified", "40 ms meets <= 52 ms"), facts)

    cpu = on("cpu")
    assert (cpu.verdict, cpu.flags) == ("toy", ["hardware_mismatch"])
    assert cpu.evidence == (
        "40 ms meets <= 52 ms; capped at toy: the claim was measured on a100-large, the re-run "
        "ran on cpu (numbers point to verified)"
    )
    assert on(None).verdict == "toy" and "names no hardware" in on(None).evidence
    assert (on("a100-large").verdict, on("a100-large").flags) == ("verified", [])  # control
    # and without a current re-run the toy is only what the numbers would give
    waiting = on("cpu", current=False)
    assert (waiting.verdict, waiting.flags) == ("inconclusive", ["not_rerun", "hardware_mismatch"])
    assert waiting.evidence.startswith("typed numbers would give toy: 40 ms meets <= 52 ms")
    falsified = finalize(
        proposal("falsified"), ClaimFacts(result(), True, False, "a100-large", "cpu")
    )
    assert falsified.verdict == "toy"  # a CPU timing cannot falsify an A100 claim either


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
    rules = proposal("falsified", "3 fails >= 8", ("rerun_mismatch",))
    conflict = proposal("inconclusive", "LLM says verified", ("judge_conflict",))
    got = finalize(conflict, facts, rules=rules)
    assert got.verdict == "falsified"
    assert got.flags == ["rerun_mismatch", "self_assessment_disagrees", "suspected_injection"]
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
