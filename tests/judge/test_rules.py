"""The rules judge on trap logbooks: each failure mode of text-only judging, caught."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from reproaudit.judge.finalize import WOULD
from reproaudit.judge.rules import (
    _MISSING,
    Judgement,
    Point,
    Rerun,
    growth_test,
    judge_claim,
    resolve_pointer,
)
from reproaudit.judge.run import collect_cases, judge_config, rules_judgements
from reproaudit.models import Claim, ClaimVerdict, Result
from reproaudit.repo import Corpus

TRAPS = Path(__file__).resolve().parents[1] / "data" / "repos" / "traps"

# logbook -> claim -> (verdict, flags) that DESIGN.md implies in rules mode, or
# (verdict, flags, would): published awaiting a re-run (rules version 3), and the evidence
# says what the typed numbers would give ("typed numbers would falsify: ...")
EXPECTED: dict[str, dict[str, tuple]] = {
    "paging-short": {
        "C1": ("inconclusive", ["short_horizon", "self_assessment_disagrees", "not_rerun"], "toy")
    },
    "paging-growth": {"C1": ("inconclusive", ["growth_detected", "not_rerun"], "falsified")},
    # rules version 4: growth on a sweep short of the regime (8..64, under a decade of an
    # asymptotic claim) is toy, not a counterexample
    "paging-growth-short": {
        "C1": ("inconclusive", ["short_horizon", "growth_detected", "not_rerun"], "toy")
    },
    "theorem-200": {
        "C4": ("inconclusive", ["short_horizon", "self_assessment_disagrees", "not_rerun"], "toy")
    },
    "theorem-1000": {"C4": ("inconclusive", ["not_rerun"], "falsified")},
    "units-per-batch": {
        "C3": ("inconclusive", ["unit_mismatch", "self_assessment_disagrees", "not_rerun"])
    },
    "units-converted": {"C3": ("inconclusive", ["not_rerun"], "verified")},
    "units-incompatible": {"C3": ("inconclusive", ["unit_mismatch", "not_rerun"])},
    "toy-setups": {
        "C2": ("inconclusive", ["toy_setup", "self_assessment_disagrees", "not_rerun"], "toy"),
        "C3": ("inconclusive", ["toy_setup", "not_rerun"], "toy"),
    },
    "rerun-mismatch": {"C5": ("falsified", ["rerun_mismatch", "self_assessment_disagrees"])},
    "missing-outputs": {"C5": ("inconclusive", ["missing_outputs"])},
    "rerun-failed": {
        "C2": ("inconclusive", ["self_assessment_disagrees", "rerun_failed", "not_rerun"]),
        "C6": ("inconclusive", ["rerun_failed", "not_rerun"]),
    },
    "self-contradiction": {"C5": ("falsified", ["self_assessment_disagrees"])},
    "injection": {
        "C2": ("inconclusive", ["self_assessment_disagrees", "not_rerun"], "falsified"),
        "C6": ("inconclusive", ["self_assessment_disagrees", "not_rerun"]),
    },
    "regime-short": {"C5": ("inconclusive", ["short_horizon", "not_rerun"], "toy")},
    "qualitative": {
        "C6": ("inconclusive", ["self_assessment_disagrees", "not_rerun"]),
        "C7": ("inconclusive", ["not_rerun"]),
    },
    "not-addressed": {},
    # rules version 2
    "growth-linear": {
        "C1": (
            "inconclusive",
            ["growth_detected", "self_assessment_disagrees", "not_rerun"],
            "falsified",
        )
    },
    "noisy-flat": {"C1": ("inconclusive", ["not_rerun"], "verified")},
    "bound-flat": {"C12": ("inconclusive", ["bound_exceeded", "not_rerun"], "falsified")},
    "bound-growing": {
        "C12": ("inconclusive", ["growth_detected", "bound_exceeded", "not_rerun"], "falsified")
    },
    "scale-wer-fraction": {
        "C8": ("inconclusive", ["scale_suspect", "self_assessment_disagrees", "not_rerun"])
    },
    "scale-ece-percent": {
        "C9": ("inconclusive", ["scale_suspect", "self_assessment_disagrees", "not_rerun"])
    },
    "coverage-ends": {
        "C10": ("inconclusive", ["short_horizon", "self_assessment_disagrees", "not_rerun"], "toy")
    },
    "coverage-dense": {"C10": ("inconclusive", ["not_rerun"], "verified")},
    "units-per-plural": {"C3": ("inconclusive", ["not_rerun"], "verified")},
    "units-per-in-unit": {"C11": ("inconclusive", ["not_rerun"], "verified")},
    "units-per-other-count": {"C11": ("inconclusive", ["unit_mismatch", "not_rerun"])},
    "sweep-wrong-parameter": {"C1": ("inconclusive", ["self_assessment_disagrees", "not_rerun"])},
    # rules version 3
    "hardware-cpu": {"C13": ("toy", ["self_assessment_disagrees", "hardware_mismatch"])},
    "scale-percent-default": {
        "C14": ("inconclusive", ["scale_suspect", "self_assessment_disagrees", "not_rerun"])
    },
    "scale-ms-as-us": {
        "C3": ("inconclusive", ["scale_suspect", "self_assessment_disagrees", "not_rerun"])
    },
}

# logbook -> claim -> what its evidence must say (the reason a person reads)
EVIDENCE: dict[str, dict[str, str]] = {
    "growth-linear": {"C1": "k = 10..10^4, additive_term 1.1 -> 101: grows linearly in k"},
    # ln and power fits are both significant: the slowest shape that fits is reported
    "paging-growth": {"C1": "grows with ln k (slope 0.381 per ln k, t = 355, fitted rise 1.85"},
    "noisy-flat": {"C1": "no significant growth with ln k, in k or as a power of k"},
    "bound-flat": {
        "C12": "competitive_ratio reaches 2.62 at n=100, above the bound 2 + 0.1 with no "
        "significant growth"
    },
    "bound-growing": {"C12": "grows with ln n"},
    "scale-wer-fraction": {
        "C8": "wer 4 «dimensionless» is 400 percent, 80x above the target 5 percent, though 4 as "
        "typed is close to it: a scale slip? hint: if 4 means 4%, write unit: percent"
    },
    "scale-ece-percent": {
        "C9": "ece 0.12 «percent» is 0.0012, 42x below the target 0.05, though 0.12 as typed is "
        "close to it: a scale slip? hint: if 0.12 is a fraction, write unit: dimensionless "
        "(or 12 with unit: percent)"
    },
    "coverage-ends": {"C10": "no point between n=10 and n=10^6 (5.0 decades)"},
    "units-per-in-unit": {"C11": "kv_memory 1.9 MB (logbook) meets <= 2 + 0.1 MB"},
    "units-per-other-count": {"C11": "measured per «image» but the claim is per token"},
    "sweep-wrong-parameter": {"C1": "the sweep is over «n», the claim's regime is over k"},
    "hardware-cpu": {
        "C13": "sampling_time 40 ms (re-run) meets <= 52 + 5.2 ms; capped at toy: the claim was "
        "measured on a100-large, the re-run ran on cpu (numbers point to verified)"
    },
    "scale-percent-default": {
        "C14": "accuracy 50 is 62x above the target 0.8: a value 30x or more from the target "
        "is more likely a slip of unit or scale than a result. hint: if 50 is a percentage, "
        "write unit: percent"
    },
    "scale-ms-as-us": {"C3": "sampling_time 0.416 ms (typed 416 «µs») is 125x below the target"},
    "units-converted": {
        "C3": "typed numbers would verify: sampling_time 51.6 ms (logbook) meets <= 52 + 5.2 ms; "
        "not settled: awaiting a passed re-run of the current logbook bytes"
    },
}


def rules_judged() -> dict[str, dict[str, Judgement]]:
    corpus = Corpus(TRAPS)
    cases, _, problems = collect_cases(
        corpus, judge_config("rules", None, None, 1), TRAPS / "reruns"
    )
    assert problems == []
    return {case.logbook.logbook.id: {j.claim: j for j in rules_judgements(case)} for case in cases}


def rules_outcomes() -> dict[str, dict[str, tuple[str, list[str]]]]:
    return {
        logbook: {claim: (j.verdict, j.flags) for claim, j in claims.items()}
        for logbook, claims in JUDGED.items()
    }


JUDGED = rules_judged()
OUTCOMES = rules_outcomes()


@pytest.mark.parametrize("logbook", sorted(EXPECTED))
def test_trap(logbook: str) -> None:
    got = OUTCOMES[logbook]
    for claim, (verdict, flags) in got.items():
        want = EXPECTED[logbook].get(claim, ("inconclusive", ["not_addressed"]))
        assert (verdict, flags) == want[:2], f"{logbook} {claim}"
        evidence = JUDGED[logbook][claim].evidence
        if len(want) == 3:  # awaiting a re-run: the evidence says what the numbers would give
            assert evidence.startswith(f"typed numbers would {WOULD[want[2]]}: "), evidence
        else:
            assert not evidence.startswith("typed numbers would"), evidence


def test_every_trap_logbook_has_expectations() -> None:
    assert set(OUTCOMES) == set(EXPECTED)


@pytest.mark.parametrize(
    ("logbook", "claim"), [(b, c) for b, claims in sorted(EVIDENCE.items()) for c in claims]
)
def test_trap_evidence_names_the_reason(logbook: str, claim: str) -> None:
    assert EVIDENCE[logbook][claim] in JUDGED[logbook][claim].evidence


def claim(**kw) -> Claim:
    base = {"id": "C1", "statement": "s", "anchor": "a", "kind": "empirical"}
    return Claim.model_validate(base | kw)


def bounded(parameter: str, start: float, tolerance: float, value: float | None = None) -> Claim:
    """A claim that `gap` stays bounded for every value of ``parameter`` from ``start``."""
    target = {
        "metric": "gap",
        "form": "bounded",
        "unit": "dimensionless",
        "tolerance": {"abs": tolerance},
    }
    if value is not None:
        target["value"] = value
    return claim(target=target, regime={"parameter": parameter, "from": start, "to": None})


def result(**kw) -> Result:
    return Result.model_validate({"claim": "C1", "setup": "full"} | kw)


def test_evidence_says_what_was_compared() -> None:
    c = claim(
        target={
            "metric": "t",
            "form": "at_most",
            "value": 52,
            "unit": "ms",
            "per": "trajectory",
            "tolerance": {"rel": 0.1},
        }
    )
    r = result(measurements=[{"metric": "t", "value": 0.0516, "unit": "s", "per": "trajectory"}])
    j = judge_claim(c, r, None)
    assert (j.verdict, j.evidence) == ("verified", "t 51.6 ms (logbook) meets <= 52 + 5.2 ms")


def fits(points: list[Point], tol: float = 0.5) -> dict[str, tuple[float, float, float]]:
    g = growth_test(points, tol)
    assert g is not None
    return {f.form: (f.slope, f.t, f.rise) for f in g.fits}


def test_growth_statistic_and_thresholds() -> None:
    flat = [Point(v, k, "re-run") for k, v in [(8, 1.0), (64, 1.02), (512, 0.99), (4096, 1.01)]]
    assert all(abs(t) < 3 for _, t, _ in fits(flat).values())
    assert not growth_test(flat, 0.5).grows
    grows = [Point(0.38 * math.log(k), k, "re-run") for k in (8, 64, 512, 4096)]
    slope, t, rise = fits(grows)["ln"]
    assert slope == pytest.approx(0.38)
    assert t > 1e6  # an (almost) exact fit
    assert rise == pytest.approx(0.38 * math.log(512))
    assert growth_test(grows, 0.5).grows
    assert not growth_test(grows, 3.0).grows  # a rise within the tolerance is not growth
    assert growth_test(grows[:3], 0.5) is None  # fewer than 4 points: no test


def test_linear_growth_on_a_decade_sweep_is_caught_where_ln_alone_misses_it() -> None:
    # the case: k = 10..10^4, 1.1 -> 101 (linear); against ln k alone t = 2.06
    points = [Point(v, k, "logbook") for k, v in [(10, 1.1), (100, 2.0), (1e3, 11.0), (1e4, 101.0)]]
    got = fits(points)
    assert got["ln"][1] == pytest.approx(2.058, abs=1e-3)
    assert got["linear"][1] == math.inf and got["linear"][2] == pytest.approx(99.9)
    assert got["power"][1] > 3
    g = growth_test(points, 0.5)
    assert [f.form for f in g.significant] == ["linear", "power"]
    assert g.shown.form == "linear"
    j = judge_claim(bounded("k", 2, 0.5), result(sweep=sweep("k", points)), None)
    assert (j.verdict, j.flags) == ("falsified", ["growth_detected", "not_rerun"])


def test_polynomial_growth_is_caught_by_the_power_fit() -> None:
    ks = [10, 100, 1000, 10000]
    points = [Point(0.2 * k**0.25, k, "logbook") for k in ks]  # 0.36 -> 2.0
    g = growth_test(points, 0.5)
    assert g.grows and "power" in [f.form for f in g.significant]


def test_power_fit_needs_positive_values() -> None:
    points = [Point(v, k, "logbook") for k, v in [(10, -1.0), (100, 0.5), (1e3, 2.0), (1e4, 3.5)]]
    assert "power" not in fits(points)


def flat_noisy_sweeps(noise: float, seed: int, count: int) -> list[list[Point]]:
    rng = random.Random(seed)
    grids = [[10.0**e for e in range(1, 5)], [2.0**e for e in range(1, 13)], [8, 16, 32, 64]]
    return [
        [Point(1.0 + rng.gauss(0, noise), k, "logbook") for k in grids[i % len(grids)]]
        for i in range(count)
    ]


def test_flat_noisy_sweeps_are_not_growth() -> None:
    # realistic noise: sd a quarter of the tolerance; benchmarks/growth_power.py has the rates
    sweeps = flat_noisy_sweeps(noise=0.125, seed=7, count=600)
    false_positives = sum(growth_test(s, 0.5).grows for s in sweeps)
    assert false_positives <= 3  # 0.5%: with three fits, each t > 3 with rise > tolerance
    # and the same noise on top of real growth (2x the tolerance, linear) is caught
    rng = random.Random(8)
    ks = [10.0**e for e in range(1, 5)]
    caught = sum(
        growth_test(
            [Point(1 + 1.0 * (k - 10) / (1e4 - 10) + rng.gauss(0, 0.125), k, "x") for k in ks],
            0.5,
        ).grows
        for _ in range(200)
    )
    assert caught >= 190


def test_a_constant_sweep_has_no_growth_even_with_zero_tolerance() -> None:
    points = [Point(1.3, k, "logbook") for k in (1, 10, 100, 1000, 10000)]
    assert not growth_test(points, 0.0).grows  # float noise in the fit is not a slope


def sweep(parameter: str, points: list[Point]) -> dict:
    return {
        "parameter": parameter,
        "values": [p.at for p in points],
        "measured": [p.value for p in points],
    }


def test_bounded_claim_with_a_value_is_falsified_when_exceeded_even_without_growth() -> None:
    c = bounded("n", 1, 0.1, value=1.0)
    r = result(sweep={"parameter": "n", "values": [1, 10, 100, 1000], "measured": [1.3] * 4})
    j = judge_claim(c, r, None)
    # rules version 2: a flat sweep above the bound is bound_exceeded, not growth_detected
    assert (j.verdict, j.flags) == ("falsified", ["bound_exceeded", "not_rerun"])
    assert j.evidence == (
        "n = 1..1000, gap 1.3 -> 1.3: gap reaches 1.3 at n=1, above the bound 1 + 0.1 "
        "with no significant growth"
    )


def test_a_short_sweep_above_the_bound_is_exceeded_without_a_growth_test() -> None:
    c = bounded("n", 1, 0.1, value=1.0)
    r = result(sweep={"parameter": "n", "values": [1, 10], "measured": [0.9, 1.3]})
    j = judge_claim(c, r, None)
    assert (j.verdict, j.flags) == ("falsified", ["bound_exceeded", "not_rerun"])
    assert j.evidence.endswith("gap reaches 1.3 at n=10, above the bound 1 + 0.1")


def test_growth_within_tolerance_is_not_growth() -> None:
    c = bounded("n", 1, 0.5)
    values = [1, 10, 100, 1000, 10000]
    r = result(
        sweep={
            "parameter": "n",
            "values": values,
            "measured": [1 + 0.02 * math.log(v) for v in values],
        }
    )
    assert judge_claim(c, r, None).verdict == "verified"


def test_sweep_from_rerun_outputs_beats_the_typed_sweep() -> None:
    c = bounded("k", 2, 0.5)
    r = result(
        sweep={
            "parameter": "k",
            "values": [8, 64, 512, 1024],
            "measured": [1, 1, 1, 1],
            "source": "outputs:/C1/sweep",
        }
    )
    outputs = {"C1": {"sweep": {"values": [8, 64, 512, 1024], "measured": [0.9, 1.7, 2.4, 2.61]}}}
    j = judge_claim(c, r, Rerun("passed", outputs))
    assert (j.verdict, j.flags) == ("falsified", ["rerun_mismatch", "growth_detected"])


def test_pointer_resolution() -> None:
    doc = {"a/b": {"~x": [10, 20]}, "C1": {"acc": 0.9}}
    assert resolve_pointer(doc, "/a~1b/~0x/1") == 20
    assert resolve_pointer(doc, "/C1/acc") == 0.9
    assert resolve_pointer(doc, "/C1/nope") is not resolve_pointer(doc, "/C1/acc")
    assert resolve_pointer(doc, "") is doc


@pytest.mark.parametrize(
    "pointer",
    ["/C1/nope", "C1/acc", "/a~2b", "/l/-", "/l/01", "/l/9", "/C1/acc/deeper", "/l/x"],
)
def test_a_pointer_that_leads_nowhere_is_missing(pointer: str) -> None:
    """Malformed pointers, past-the-end and non-canonical indices resolve to nothing."""
    doc = {"C1": {"acc": 0.9}, "l": [1, 2]}
    assert resolve_pointer(doc, pointer) is _MISSING


def test_a_boolean_in_the_outputs_is_not_a_number() -> None:
    c = claim(target={"metric": "acc", "form": "at_least", "value": 0.5, "unit": "dimensionless"})
    r = result(measurements=[{"metric": "acc", "source": "outputs:/acc"}])
    j = judge_claim(c, r, Rerun("passed", {"acc": True}))
    assert (j.verdict, j.flags) == ("inconclusive", ["missing_outputs"])


def test_a_one_byte_change_sets_a_falsifying_rerun_aside_and_publishes_nothing(
    tmp_path: Path,
) -> None:
    """The attack of issue 18: after a falsifying re-run, the contributor adds one byte to the
    YAML. The record is stale; the typed 0.95 would verify, so the claim awaits a re-run, and
    the evidence names the stale record that contradicts the typed numbers."""
    import shutil

    repo = tmp_path / "traps"
    shutil.copytree(TRAPS, repo)
    path = repo / "logbooks/TrapPaper1/rerun-mismatch.yaml"
    path.write_bytes(path.read_bytes() + b"\n")

    def judged() -> ClaimVerdict:
        config = judge_config("rules", None, None, 1)
        corpus = Corpus(repo)
        (case,) = collect_cases(corpus, config, repo / "reruns", logbook="rerun-mismatch")[0]
        return next(j for j in rules_judgements(case) if j.claim == "C5")

    c5 = judged()
    assert (c5.verdict, c5.flags) == (
        "inconclusive",
        ["not_rerun", "stale_rerun"],
    )
    assert c5.evidence.startswith("typed numbers would verify: accuracy 0.95 at seq_len=2048")
    assert "the re-run record was ignored: the logbook YAML changed since the re-run" in c5.evidence
    assert (
        "that stale record's outputs contradict the typed numbers: read as current they would "
        "give falsified (logbook says accuracy = 0.95 but the re-run gives 0.85; accuracy 0.85"
    ) in c5.evidence
    # control: the same bytes as the record: the re-run's falsification is published
    path.write_bytes(path.read_bytes()[:-1])
    assert judged().verdict == "falsified"


def test_a_stale_record_that_agrees_is_named_but_not_as_a_contradiction() -> None:
    c = claim(target={"metric": "acc", "form": "at_least", "value": 0.5, "unit": "dimensionless"})
    r = result(measurements=[{"metric": "acc", "value": 0.9, "source": "outputs:/acc"}])
    j = judge_claim(c, r, Rerun("passed", {"acc": 0.9}, stale="it re-ran other bytes"))
    assert j.verdict == "verified" and "stale_rerun" in j.flags  # finalize then demotes it
    assert "contradict" not in j.evidence


# --- rules version 2: evidence text, scale, coverage, per ----------------------------------


def threshold(
    form: str, value: float, tol: dict, unit: str = "dimensionless", per: str | None = None, **kw
) -> Claim:
    target = {"metric": "m", "form": form, "value": value, "unit": unit, "tolerance": tol}
    return claim(target=target | {"per": per}, **kw)


@pytest.mark.parametrize(
    ("form", "value", "tol", "measured", "evidence"),
    [
        # the case: 75.749 must not print as 75.75 against 76.25 - 0.5
        ("at_least", 76.25, {"abs": 0.5}, 75.749, "m 75.749 (logbook) fails >= 76.25 - 0.5"),
        ("at_least", 76.25, {"abs": 0.5}, 75.75, "m 75.75 (logbook) meets >= 76.25 - 0.5"),
        ("equal", 0.3, {"rel": 0.001}, 0.3003001, "m 0.3003001 (logbook) fails = 0.3 ± 0.0003"),
        ("at_most", 52, {"rel": 0.1}, 57.2000004, "m 57.2000004 (logbook) fails <= 52 + 5.2"),
        # a bound met exactly as written is met (no binary float noise: 1.1 - 0.1 is 1)
        ("at_least", 1.1, {"abs": 0.1}, 1.0, "m 1 (logbook) meets >= 1.1 - 0.1"),
    ],
)
def test_evidence_numbers_show_why_a_bound_failed(
    form: str, value: float, tol: dict, measured: float, evidence: str
) -> None:
    j = judge_claim(
        threshold(form, value, tol), result(measurements=[{"metric": "m", "value": measured}]), None
    )
    assert j.evidence == evidence


def test_sweeps_are_described_in_parameter_order() -> None:
    c = bounded("k", 2, 0.5)
    ks, ys = [1000, 10, 100, 10000, 2], [1.0, 1.1, 1.05, 0.98, 1.12]
    j = judge_claim(c, result(sweep={"parameter": "k", "values": ks, "measured": ys}), None)
    assert j.evidence.startswith("k = 2..10^4, gap 1.12 -> 0.98: no significant growth")
    c = threshold("at_least", 0.5, {"abs": 0}, regime={"parameter": "n", "from": 1, "to": 100})
    r = result(
        sweep={"parameter": "n", "metric": "m", "values": [100, 1, 10], "measured": [0.6, 0.8, 0.7]}
    )
    assert judge_claim(c, r, None).evidence.startswith(
        "m 0.8 at n=1 (logbook), 0.7 at n=10 (logbook), 0.6 at n=100 (logbook) meets"
    )


def test_a_sweep_over_another_parameter_or_metric_is_named_and_not_used() -> None:
    c = threshold("at_least", 0.5, {"abs": 0}, regime={"parameter": "k", "from": 10, "to": 100})
    wrong = {"parameter": "n", "values": [1, 2], "measured": [0.1, 0.2]}
    measured = [
        {"metric": "m", "value": 0.7, "at": {"k": 10}},
        {"metric": "m", "value": 0.6, "at": {"k": 100}},
    ]
    j = judge_claim(c, result(measurements=measured, sweep=wrong), None)
    assert (j.verdict, j.evidence) == (
        "verified",
        "the sweep is over «n», the claim's regime is over k (not used); "
        "m 0.7 at k=10 (logbook), 0.6 at k=100 (logbook) meets >= 0.5 - 0",
    )
    other = {"parameter": "k", "metric": "loss", "values": [10, 100], "measured": [0.1, 0.2]}
    j = judge_claim(c, result(sweep=other), None)
    assert (j.verdict, j.evidence) == (
        "inconclusive",
        "the sweep measures «loss», the claim's target is m: it cannot test this claim",
    )


@pytest.mark.parametrize(
    ("target_unit", "value", "typed", "unit", "suspect"),
    [
        ("percent", 5, 4, "dimensionless", True),  # WER 4 meaning 4%: would falsify (400%)
        ("dimensionless", 0.05, 0.12, "percent", True),  # 0.12 "%" meaning 12%: would verify
        ("dimensionless", 0.05, 0.04, "percent", True),  # 0.0004 is 125x below: suspect
        ("percent", 5, 0.04, "dimensionless", False),  # a fraction correctly marked: 4%
        ("dimensionless", 0.9, 93, "percent", False),  # percent correctly marked: 0.93
        ("ms", 52, 52, "s", True),  # 1000x above: rules version 3 suspects any 30x
        ("ms", 52, 51.6, "µs", True),  # ms relabelled as µs: 1000x below, would verify
        ("ms", 52, 0.0516, "s", False),
    ],
)
def test_scale_suspect(
    target_unit: str, value: float, typed: float, unit: str, suspect: bool
) -> None:
    c = threshold("at_most", value, {"rel": 0.05}, unit=target_unit)
    j = judge_claim(c, result(measurements=[{"metric": "m", "value": typed, "unit": unit}]), None)
    assert ("scale_suspect" in j.flags) is suspect, j.evidence
    if suspect:
        assert j.verdict == "inconclusive" and "hint:" in j.evidence
        assert len(j.evidence) < 300  # the PR comment's table shows 300 characters


def test_scale_check_skips_a_zero_target() -> None:
    c = threshold("at_most", 0, {"abs": 0}, unit="percent")
    j = judge_claim(
        c, result(measurements=[{"metric": "m", "value": 0.5, "unit": "dimensionless"}]), None
    )
    assert (j.verdict, j.flags) == ("falsified", ["not_rerun"])


def test_scale_suspect_from_a_sweep_in_another_unit() -> None:
    c = claim(
        target={
            "metric": "gap",
            "form": "bounded",
            "value": 5,
            "unit": "percent",
            "tolerance": {"abs": 0.5},
        },
        regime={"parameter": "k", "from": 1, "to": None},
    )
    s = {
        "parameter": "k",
        "values": [1, 10, 100, 1000],
        "measured": [4, 4, 4, 4],
        "unit": "dimensionless",
    }
    j = judge_claim(c, result(sweep=s), None)
    assert (j.verdict, j.flags) == ("inconclusive", ["scale_suspect", "not_rerun"])


def covered(regime: dict, ats: list[float]) -> Judgement:
    c = threshold("at_least", 0.5, {"abs": 0}, regime=regime)
    ms = [{"metric": "m", "value": 0.9, "at": {"n": a}} for a in ats]
    return judge_claim(c, result(measurements=ms), None)


@pytest.mark.parametrize(
    ("regime", "ats", "gap"),
    [
        # the case: 10..10^6 is not covered by its two ends
        ({"from": 10, "to": 1e6}, [10, 1e6], "no point between n=10 and n=10^6 (5.0 decades)"),
        ({"from": 10, "to": 1e6}, [10, 100, 1e3, 1e4, 1e5, 1e6], None),
        # the ends of the regime count: nothing near its start
        (
            {"from": 10, "to": 1e6},
            [1e3, 1e4, 1e5, 1e6],
            "no point between n=10 (where the claim starts) and n=1000 (2.0 decades)",
        ),
        # asymptotic: the start counts, the span rule still holds
        (
            {"from": 1, "to": None},
            [100, 1e3, 1e4],
            "no point between n=1 (where the claim starts) and n=100 (2.0 decades)",
        ),
        ({"from": 1, "to": None}, [2, 20, 200], None),
        # a regime of less than two decades is not checked for gaps
        ({"from": 100, "to": 1500}, [100, 1500], None),
        # several gaps: the widest first
        (
            {"from": 1, "to": 1e6},
            [1, 10, 1e3, 1e6],
            "no point between n=1000 and n=10^6 (3.0 decades); no point between n=10 and "
            "n=1000 (2.0 decades)",
        ),
    ],
)
def test_coverage_gaps(regime: dict, ats: list[float], gap: str | None) -> None:
    j = covered({"parameter": "n"} | regime, ats)
    if gap is None:
        assert (j.verdict, j.flags) == ("verified", ["not_rerun"]), j.evidence
    else:
        assert (j.verdict, j.flags) == ("toy", ["short_horizon", "not_rerun"])
        assert gap in j.evidence


def test_a_counterexample_inside_a_gappy_regime_still_falsifies() -> None:
    c = threshold("at_least", 0.5, {"abs": 0}, regime={"parameter": "n", "from": 10, "to": 1e6})
    ms = [{"metric": "m", "value": v, "at": {"n": a}} for a, v in [(10, 0.9), (1e6, 0.1)]]
    assert judge_claim(c, result(measurements=ms), None).verdict == "falsified"


@pytest.mark.parametrize(
    ("unit", "per", "value", "verdict", "flags"),
    [
        ("MB", "tokens", 1.9, "verified", ["not_rerun"]),
        ("MB", "Token", 1.9, "verified", ["not_rerun"]),
        ("MB / token", None, 1.9, "verified", ["not_rerun"]),
        ("kB / tokens", None, 2500, "falsified", ["not_rerun"]),
        ("GB / token", None, 0.0019, "verified", ["not_rerun"]),
        ("MB / image", None, 1.9, "inconclusive", ["unit_mismatch", "not_rerun"]),
        ("MB", None, 1.9, "inconclusive", ["unit_mismatch", "not_rerun"]),
        ("MB", "image", 1.9, "inconclusive", ["unit_mismatch", "not_rerun"]),
        ("MB / token", "token", 1.9, "inconclusive", ["unit_mismatch", "not_rerun"]),
        ("s / token", None, 1.9, "inconclusive", ["unit_mismatch", "not_rerun"]),
    ],
)
def test_per_is_folded_and_compared_singular_and_plural_alike(
    unit: str, per: str | None, value: float, verdict: str, flags: list[str]
) -> None:
    c = threshold("at_most", 2, {"rel": 0.05}, unit="MB", per="token")
    m = {"metric": "m", "value": value, "unit": unit, "per": per}
    j = judge_claim(c, result(measurements=[m]), None)
    assert (j.verdict, j.flags) == (verdict, flags), j.evidence


def test_a_claim_whose_unit_carries_its_per_matches_a_stated_per() -> None:
    c = threshold("at_most", 2, {"rel": 0.05}, unit="MB / token")
    m = {"metric": "m", "value": 1.9, "unit": "MB", "per": "tokens"}
    assert judge_claim(c, result(measurements=[m]), None).verdict == "verified"


def test_check_shows_the_scale_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from click.testing import CliRunner

    from reproaudit.cli import cli

    repo = tmp_path / "traps"
    shutil.copytree(TRAPS, repo)
    monkeypatch.chdir(repo)
    out = CliRunner().invoke(
        cli, ["check", "--format", "markdown", "logbooks/TrapPaper1/scale-wer-fraction.yaml"]
    )
    # rules version 4: a flag the contributor can fix is no status=ok (issue 28: it was)
    assert out.exit_code == 1, out.output
    assert out.output.startswith("<!-- reproaudit:report status=fail")
    assert "Valid, but 1 claim carries a flag you can fix" in out.output
    assert "(C8: scale_suspect)" in out.output
    assert "- ❌ `scale_suspect` (C8): check the number's unit and scale" in out.output
    row = next(line for line in out.output.splitlines() if line.startswith("| C8 |"))
    flags = "scale_suspect, self_assessment_disagrees, not_rerun"
    assert f"| inconclusive *(pending)* | {flags} |" in row
    assert "hint: if 4 means 4%, write unit: percent" in row


def test_a_regime_of_non_positive_values_has_no_log_scale_gaps() -> None:
    j = covered({"parameter": "n", "from": -10, "to": 0}, [-10, -5, 0])
    assert (j.verdict, j.flags) == ("verified", ["not_rerun"])
