"""Rules version 4: verdicts no more certain than their evidence (issue 28).

Open-ended claims say how far they held (``scope``, ``within_tested_range``); growth on a
sweep short of the regime is no counterexample; units travel with the re-run's numbers and a
label that contradicts them is not trusted; a claim's evaluation scale is compared with the
re-run's. Each case beside its control: honest verification, honest falsification, a 30x
unit slip still caught.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest
from pydantic import ValidationError

from reproaudit.judge.coverage import held_text
from reproaudit.judge.finalize import ClaimFacts, finalize
from reproaudit.judge.llm import merge_llm
from reproaudit.judge.rules import RULES_VERSION, Rerun, judge_claim
from reproaudit.models import Claim, ClaimVerdict, Result


def claim(**kw: Any) -> Claim:
    return Claim.model_validate(
        {"id": "C1", "statement": "s", "anchor": "a", "kind": "empirical"} | kw
    )


def result(**kw: Any) -> Result:
    return Result.model_validate({"claim": "C1", "setup": "full"} | kw)


def rerun(outputs: Any) -> Rerun:
    return Rerun("passed", outputs, 0)


def test_the_rules_are_version_4() -> None:
    assert RULES_VERSION == 4


# --- open-ended claims say how far they held ------------------------------------------------

FOR_EVERY_K = {"parameter": "k", "from": 2, "to": None}
BOUNDED = {"metric": "gap", "form": "bounded", "tolerance": {"abs": 0.5}}


def sweep_of(ks: list[float], gaps: list[float]) -> tuple[Result, Rerun]:
    outputs = {"C1": {"sweep": {"values": ks, "measured": gaps}}}
    sweep = {"parameter": "k", "metric": "gap", "source": "outputs:/C1/sweep"}
    return result(sweep=sweep), rerun(outputs)


def ln_growth_after(start: float, ks: list[float]) -> list[float]:
    """A gap flat at 1.0 up to ``start``, growing with ln k after it (a false claim)."""
    return [1.0 + (0.8 * math.log(k / start) if k > start else 0.0) for k in ks]


def test_a_claim_for_every_k_verified_on_2_to_512_holds_within_the_tested_range() -> None:
    """The issue's case: growth starts after k = 512, the sweep stops there."""
    ks = [2, 8, 32, 128, 512]
    j = judge_claim(
        claim(target=BOUNDED, regime=FOR_EVERY_K), *sweep_of(ks, ln_growth_after(512, ks))
    )
    assert (j.verdict, j.flags, j.within_tested_range) == ("verified", [], True)
    assert j.evidence.endswith("; held for k = 2..512; claimed for all k >= 2")
    assert j.scope is not None and j.scope.regime is not None
    assert j.scope.regime.model_dump(by_alias=True) == {
        "parameter": "k",
        "tested": {"from": 2.0, "to": 512.0},
        "claimed": {"from": 2.0, "to": None},
    }
    # control: a sweep that reaches past 512 finds the growth and falsifies
    longer = [2, 8, 32, 128, 512, 2048, 8192, 32768]
    j = judge_claim(
        claim(target=BOUNDED, regime=FOR_EVERY_K), *sweep_of(longer, ln_growth_after(512, longer))
    )
    assert (j.verdict, j.flags, j.within_tested_range) == ("falsified", ["growth_detected"], None)


def test_a_regime_covered_to_its_stated_ends_holds_over_all_of_it() -> None:
    """Control: a finite regime reached at both ends is verified with no qualifier."""
    c = claim(
        target={"metric": "recall", "form": "at_least", "value": 0.8, "tolerance": {"abs": 0.01}},
        regime={"parameter": "n", "from": 10, "to": 1000},
    )
    ms = [{"metric": "recall", "value": 0.85, "at": {"n": n}} for n in (10, 100, 1000)]
    j = judge_claim(c, result(measurements=ms), None)
    assert (j.verdict, j.within_tested_range) == ("verified", None)
    assert j.scope is not None and j.scope.regime is not None
    assert j.scope.regime.tested.model_dump(by_alias=True) == {"from": 10.0, "to": 1000.0}
    # a stated start below the first point is past what was tested
    starts_late = [m for m in ms if m["at"]["n"] != 10] + [
        {"metric": "recall", "value": 0.85, "at": {"n": 20}}
    ]
    j = judge_claim(c, result(measurements=starts_late), None)
    assert (j.verdict, j.within_tested_range) == ("verified", True)
    assert j.evidence.endswith("held for n = 20..1000; claimed for n = 10..1000")


def test_within_the_tested_range_survives_only_on_a_final_verified() -> None:
    ks = [2, 8, 32, 128, 512]
    c = claim(target=BOUNDED, regime=FOR_EVERY_K)
    j = judge_claim(c, *sweep_of(ks, [1.0] * 5))
    proposed = ClaimVerdict.model_construct(
        claim="C1",
        verdict=j.verdict,
        evidence=j.evidence,
        flags=j.flags,
        votes=None,
        scope=j.scope,
        within_tested_range=j.within_tested_range,
    )
    full = finalize(proposed, ClaimFacts(result(), True))
    assert (full.verdict, full.within_tested_range, full.scope) == ("verified", True, j.scope)
    reduced = finalize(proposed, ClaimFacts(result(setup="reduced"), True))
    assert (reduced.verdict, reduced.within_tested_range, reduced.scope) == ("toy", None, j.scope)
    waiting = finalize(proposed, ClaimFacts(result(), False))
    assert (waiting.verdict, waiting.within_tested_range) == ("inconclusive", None)
    # the LLM's merge keeps the rules' scope (it decides no number)
    merged, decided = merge_llm(c, proposed, "verified", Counter({"verified": 3}), {}, 3)
    assert not decided and merged.scope == j.scope and merged.within_tested_range
    # a verdict file refuses the qualifier anywhere but on a verified with a scope
    with pytest.raises(ValidationError, match="within_tested_range qualifies a verified"):
        ClaimVerdict.model_validate(
            {"claim": "C1", "verdict": "toy", "within_tested_range": True, "scope": {}}
        )


def test_held_text_reads_as_people_write_ranges() -> None:
    from reproaudit.models import RegimeScope

    scope = RegimeScope.model_validate(
        {"parameter": "n", "tested": {"from": 10, "to": 1e6}, "claimed": {"from": None, "to": None}}
    )
    assert held_text(scope) == "held for n = 10..10^6; claimed for all n"


# --- the reverse, on a true claim: growth on a short sweep ----------------------------------


def test_growth_on_a_sweep_short_of_the_regime_is_toy_not_falsified() -> None:
    """The issue's case: a sweep stopping at 8 tokens per expert, under one decade."""
    c = claim(
        target=BOUNDED | {"metric": "gap", "value": 2.5, "unit": "token"},
        regime={"parameter": "tokens_per_expert", "from": 1, "to": None},
    )
    rising = {"values": [1, 2, 4, 8], "measured": [0.9, 1.3, 1.7, 2.1], "unit": "token"}
    sweep = {"parameter": "tokens_per_expert", "metric": "gap", "source": "outputs:/C1/sweep"}
    j = judge_claim(c, result(sweep=sweep), rerun({"C1": {"sweep": rising}}))
    assert (j.verdict, j.flags) == ("toy", ["short_horizon", "growth_detected"])
    assert "growth on a sweep shorter than the regime is no counterexample" in j.evidence
    # control: a measured point above the bound still falsifies, on the same short sweep
    over = rising | {"measured": [0.9, 1.5, 2.2, 3.4]}
    j = judge_claim(c, result(sweep=sweep), rerun({"C1": {"sweep": over}}))
    assert (j.verdict, j.flags) == ("falsified", ["growth_detected", "bound_exceeded"])
    # control: the same growth over two decades falsifies
    long = {
        "values": [1, 4, 16, 64, 256],
        "measured": [0.9, 1.2, 1.5, 1.8, 2.1],
        "unit": "token",
    }
    j = judge_claim(c, result(sweep=sweep), rerun({"C1": {"sweep": long}}))
    assert (j.verdict, j.flags) == ("falsified", ["growth_detected"])


# --- units travel with the numbers ----------------------------------------------------------


def target(metric: str, form: str, value: float, unit: str, per: str | None = None, rel=0.1):
    t = {"metric": metric, "form": form, "value": value, "unit": unit, "tolerance": {"rel": rel}}
    return t | ({"per": per} if per else {})


def measure(metric: str, **typed: Any) -> Result:
    return result(measurements=[{"metric": metric, "source": f"outputs:/C1/{metric}", **typed}])


# name: (target, what the code wrote, what the logbook typed); trusting the typed label
# (rules version 3) decided each the wrong way, under the 30x scale check
CASES: dict[str, tuple[dict, dict, dict]] = {
    # a true 8x speed-up, 140 ms per batch of 50 (2.8 ms an item), against at most 3 ms an
    # item: read as 140 ms an item it was falsified
    "time per batch of 50 typed per item": (
        target("time", "at_most", 3, "ms", "item"),
        {"value": 140, "unit": "ms", "per": "batch of 50"},
        {"unit": "ms", "per": "item"},
    ),
    # 800 megabits is 100 MB, against at least 500 MB: read as 800 MB it was verified
    "megabits typed as MB": (
        target("size", "at_least", 500, "MB", rel=0.05),
        {"value": 800, "unit": "Mbit"},
        {"unit": "MB"},
    ),
    # a gain of 0.15 (15%) against at least 2 percent: read as 0.15% it was falsified
    "a fraction typed as percent": (
        target("gain", "at_least", 2, "percent", rel=0.05),
        {"value": 0.15, "unit": "dimensionless"},
        {"unit": "percent"},
    ),
    # 5 ms an item (160 ms a batch) against at most 100 ms per batch of 32: verified as typed
    "per item typed per batch of 32": (
        target("latency", "at_most", 100, "ms", "batch of 32"),
        {"value": 5, "unit": "ms", "per": "item"},
        {"unit": "ms", "per": "batch of 32"},
    ),
}
# with the label left out, what the re-run's own unit gives
OWN_UNIT = {
    "time per batch of 50 typed per item": ("inconclusive", ["unit_mismatch"]),  # other per
    "megabits typed as MB": ("falsified", []),
    "a fraction typed as percent": ("verified", []),
    "per item typed per batch of 32": ("inconclusive", ["unit_mismatch"]),  # other per
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_label_that_contradicts_the_reruns_own_unit_is_not_trusted(name: str) -> None:
    t, written, typed = CASES[name]
    metric = t["metric"]
    c = claim(target=t)
    j = judge_claim(c, measure(metric, **typed), rerun({"C1": {metric: written}}))
    assert (j.verdict, j.flags) == ("inconclusive", ["unit_mismatch"]), j.evidence
    assert "a label that contradicts the re-run's own unit is not trusted" in j.evidence
    # with the label left out, the re-run's own unit decides, converted where it converts
    j = judge_claim(c, measure(metric), rerun({"C1": {metric: written}}))
    assert (j.verdict, j.flags) == OWN_UNIT[name], j.evidence


def test_the_reruns_own_unit_decides_both_ways() -> None:
    """Controls: an honest verification and an honest falsification, units from the outputs."""
    c = claim(target=target("size", "at_most", 120, "MB", rel=0.0))
    small = judge_claim(c, measure("size"), rerun({"C1": {"size": {"value": 800, "unit": "Mbit"}}}))
    assert (small.verdict, small.evidence) == (
        "verified",
        "size 100 MB (re-run) meets <= 120 + 0 MB",
    )
    big = judge_claim(c, measure("size"), rerun({"C1": {"size": {"value": 1600, "unit": "Mbit"}}}))
    assert (big.verdict, big.flags) == ("falsified", [])
    # a label that says the same unit in other words is no mismatch
    same = judge_claim(
        c, measure("size", unit="megabit"), rerun({"C1": {"size": {"value": 800, "unit": "Mbit"}}})
    )
    assert same.verdict == "verified"
    # the 30x slip is caught whoever wrote the unit: 416 µs against at most 52 ms
    t = target("time", "at_most", 52, "ms", "trajectory")
    slip = {"value": 416, "unit": "µs", "per": "trajectory"}
    j = judge_claim(claim(target=t), measure("time"), rerun({"C1": {"time": slip}}))
    assert (j.verdict, j.flags) == ("inconclusive", ["scale_suspect"])


def test_a_unit_the_rules_cannot_read_is_a_mismatch_and_stays_data() -> None:
    c = claim(target=target("t", "at_most", 5, "ms"))
    for unit in ("furlong / fortnight", 7, "x" * 65, "ms\x1b[2J"):
        j = judge_claim(c, measure("t"), rerun({"C1": {"t": {"value": 1, "unit": unit}}}))
        assert (j.verdict, j.flags) == ("inconclusive", ["unit_mismatch"]), unit
        assert "\x1b" not in j.evidence
    # a bare number is read in the logbook's unit, as before
    j = judge_claim(c, measure("t", unit="s"), rerun({"C1": {"t": 0.004}}))
    assert (j.verdict, j.evidence) == ("verified", "t 4 ms (re-run) meets <= 5 + 0.5 ms")


def test_a_sweep_object_carries_its_unit_too() -> None:
    c = claim(
        target=BOUNDED | {"value": 2.5, "unit": "token"},
        regime={"parameter": "k", "from": 1, "to": None},
    )
    sweep = {"parameter": "k", "metric": "gap", "unit": "token", "source": "outputs:/C1/sweep"}
    flat = {"values": [1, 10, 100, 1000], "measured": [1.0, 1.1, 1.0, 1.05]}
    j = judge_claim(c, result(sweep=sweep), rerun({"C1": {"sweep": flat | {"unit": "token"}}}))
    assert j.verdict == "verified" and j.within_tested_range
    j = judge_claim(c, result(sweep=sweep), rerun({"C1": {"sweep": flat | {"unit": "s"}}}))
    assert (j.verdict, j.flags) == ("inconclusive", ["unit_mismatch"])


# --- the scale of the evaluation ------------------------------------------------------------

AT_SCALE = {"metric": "acc", "form": "at_least", "value": 0.9, "scale": {"n_test": 20000}}


def scaled(outputs: dict, **typed: Any) -> tuple[str, list[str], Any]:
    j = judge_claim(claim(target=AT_SCALE), measure("acc", **typed), rerun({"C1": outputs}))
    return j.verdict, j.flags, j.scope


def test_a_run_on_100_test_points_against_a_claim_about_20000_is_toy() -> None:
    verdict, flags, scope = scaled({"acc": {"value": 0.93, "at": {"n_test": 100}}})
    assert (verdict, flags) == ("toy", ["scale_short"])
    assert scope.scale["n_test"].model_dump() == {"tested": 100.0, "claimed": 20000.0}
    # both ways: a falsification on 100 points is no falsification of the 20,000 claim
    assert scaled({"acc": {"value": 0.5, "at": {"n_test": 100}}})[:2] == ("toy", ["scale_short"])
    # whatever the logbook types beside a re-run number, only the re-run's word counts
    assert scaled({"acc": 0.93}, at={"n_test": 20000})[:2] == ("toy", ["scale_short"])
    assert scaled({"acc": 0.93})[:2] == ("toy", ["scale_short"])
    # controls: at the claim's scale (the object's at, or an at pointer), it is decided
    assert scaled({"acc": {"value": 0.93, "at": {"n_test": 20000}}})[:2] == ("verified", [])
    assert scaled({"acc": {"value": 0.5, "at": {"n_test": 20000}}})[:2] == ("falsified", [])
    pointed = scaled({"acc": 0.93, "n": 19990}, at={"n_test": "outputs:/C1/n"})
    assert pointed[:2] == ("verified", [])  # 99.95% of it: a few dropped points, not a toy


def test_a_scale_must_not_name_the_regime_and_an_at_pointer_must_be_a_pointer() -> None:
    with pytest.raises(ValidationError, match="regime's parameter"):
        claim(target=AT_SCALE | {"scale": {"k": 10}}, regime=FOR_EVERY_K)
    with pytest.raises(ValidationError, match="is not an outputs:<JSON pointer>"):
        measure("acc", at={"n_test": "outputs:C1/n"})
