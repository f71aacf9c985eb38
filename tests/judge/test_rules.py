"""The rules judge on trap logbooks: each failure mode of text-only judging, caught."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from reproaudit.judge.rules import Point, Rerun, growth_test, judge_claim, resolve_pointer
from reproaudit.judge.run import collect_cases, judge_config, rules_judgements
from reproaudit.models import Claim, Result
from reproaudit.repo import Corpus

TRAPS = Path(__file__).resolve().parents[1] / "data" / "repos" / "traps"

# logbook -> claim -> (verdict, flags) that DESIGN.md implies in rules mode
EXPECTED: dict[str, dict[str, tuple[str, list[str]]]] = {
    "paging-short": {"C1": ("toy", ["short_horizon", "self_assessment_disagrees", "not_rerun"])},
    "paging-growth": {"C1": ("falsified", ["growth_detected", "not_rerun"])},
    "paging-growth-short": {"C1": ("falsified", ["growth_detected", "not_rerun"])},
    "theorem-200": {"C4": ("toy", ["short_horizon", "self_assessment_disagrees", "not_rerun"])},
    "theorem-1000": {"C4": ("falsified", ["not_rerun"])},
    "units-per-batch": {
        "C3": ("inconclusive", ["unit_mismatch", "self_assessment_disagrees", "not_rerun"])
    },
    "units-converted": {"C3": ("verified", ["not_rerun"])},
    "units-incompatible": {"C3": ("inconclusive", ["unit_mismatch", "not_rerun"])},
    "toy-setups": {
        "C2": ("toy", ["toy_setup", "self_assessment_disagrees", "not_rerun"]),
        "C3": ("toy", ["toy_setup", "not_rerun"]),
    },
    "rerun-mismatch": {"C5": ("falsified", ["rerun_mismatch", "self_assessment_disagrees"])},
    "missing-outputs": {"C5": ("inconclusive", ["missing_outputs"])},
    "rerun-failed": {
        "C2": ("inconclusive", ["self_assessment_disagrees", "rerun_failed"]),
        "C6": ("inconclusive", ["rerun_failed"]),
    },
    "self-contradiction": {"C5": ("falsified", ["self_assessment_disagrees"])},
    "injection": {
        "C2": ("falsified", ["self_assessment_disagrees", "not_rerun"]),
        "C6": ("inconclusive", ["self_assessment_disagrees", "not_rerun"]),
    },
    "regime-short": {"C5": ("toy", ["short_horizon", "not_rerun"])},
    "qualitative": {
        "C6": ("inconclusive", ["self_assessment_disagrees", "not_rerun"]),
        "C7": ("inconclusive", ["not_rerun"]),
    },
    "not-addressed": {},
}


def rules_outcomes() -> dict[str, dict[str, tuple[str, list[str]]]]:
    corpus = Corpus(TRAPS)
    cases, _, problems = collect_cases(
        corpus, judge_config("rules", None, None, 1), TRAPS / "reruns"
    )
    assert problems == []
    out = {}
    for case in cases:
        out[case.logbook.logbook.id] = {
            j.claim: (j.verdict, j.flags) for j in rules_judgements(case)
        }
    return out


OUTCOMES = rules_outcomes()


@pytest.mark.parametrize("logbook", sorted(EXPECTED))
def test_trap(logbook: str) -> None:
    got = OUTCOMES[logbook]
    for claim, (verdict, flags) in got.items():
        want = EXPECTED[logbook].get(claim, ("inconclusive", ["not_addressed"]))
        assert (verdict, flags) == want, f"{logbook} {claim}"


def test_every_trap_logbook_has_expectations() -> None:
    assert set(OUTCOMES) == set(EXPECTED)


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


def test_growth_statistic_and_thresholds() -> None:
    flat = [Point(v, k, "re-run") for k, v in [(8, 1.0), (64, 1.02), (512, 0.99), (4096, 1.01)]]
    slope, t, rise = growth_test(flat)
    assert abs(slope) < 0.01 and abs(t) < 3
    grows = [Point(0.38 * math.log(k), k, "re-run") for k in (8, 64, 512, 4096)]
    slope, t, rise = growth_test(grows)
    assert slope == pytest.approx(0.38)
    assert t > 1e6  # an (almost) exact fit
    assert rise == pytest.approx(0.38 * math.log(512))
    assert growth_test(grows[:3]) is None  # fewer than 4 points: no test


def test_bounded_claim_with_a_value_is_falsified_when_exceeded_even_without_growth() -> None:
    c = bounded("n", 1, 0.1, value=1.0)
    r = result(sweep={"parameter": "n", "values": [1, 10, 100, 1000], "measured": [1.3] * 4})
    j = judge_claim(c, r, None)
    assert (j.verdict, j.flags) == ("falsified", ["growth_detected", "not_rerun"])


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


def test_a_boolean_in_the_outputs_is_not_a_number() -> None:
    c = claim(target={"metric": "acc", "form": "at_least", "value": 0.5, "unit": "dimensionless"})
    r = result(measurements=[{"metric": "acc", "source": "outputs:/acc"}])
    j = judge_claim(c, r, Rerun("passed", {"acc": True}))
    assert (j.verdict, j.flags) == ("inconclusive", ["missing_outputs"])


def test_a_rerun_of_other_logbook_bytes_is_ignored(tmp_path: Path) -> None:
    import json
    import shutil

    repo = tmp_path / "traps"
    shutil.copytree(TRAPS, repo)
    run = repo / "reruns/TrapPaper1/rerun-mismatch/run.json"
    record = json.loads(run.read_text())
    record["logbook_sha256"] = "0" * 64  # made from a logbook that has changed since
    run.write_text(json.dumps(record))
    cases, _, _ = collect_cases(
        Corpus(repo),
        judge_config("rules", None, None, 1),
        repo / "reruns",
        logbook="rerun-mismatch",
    )
    (case,) = cases
    assert case.record is not None and case.record.rerun.stale
    c5 = next(j for j in rules_judgements(case) if j.claim == "C5")
    # the typed 0.95, unverified, and the ignored record is named
    assert (c5.verdict, c5.flags) == ("verified", ["not_rerun", "stale_rerun"])
    assert "the re-run record was ignored: it re-ran other bytes of the logbook" in c5.evidence
