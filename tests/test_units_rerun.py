"""Issue 28, played for real: a small logbook whose code writes each number with its unit,
re-run in bubblewrap, judged by the rules, folded and shown.

One paper holds the issue's cases beside their controls: time per batch of 50 labelled per
item (a true 8x speed-up), megabits labelled MB, a fraction labelled percent, per item
labelled per batch of 32, a run on 100 test points against a claim about 20,000, a growth
found on a sweep stopping at 8 tokens per expert, a claim for every k verified on k = 2..512;
and an honest verification, an honest falsification, a 30x unit slip. Two logbooks run the
same code: one types the wrong labels, one leaves the units to the re-run's outputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from reproaudit.check import check_logbook
from reproaudit.export import corpus_frame
from reproaudit.fold import fold, stats
from reproaudit.judge.cases import RulesJudge
from reproaudit.judge.run import judge_repo
from reproaudit.records import load_tables
from reproaudit.repo import Corpus
from reproaudit.reproduce import reproduce_logbook
from tests.conftest import needs_bwrap

PAPER = "Units0Paper"

CLAIMS = [
    # the cases
    ("C1", "efficiency", {"metric": "time", "form": "at_most", "value": 3, "unit": "ms",
                          "per": "item", "tolerance": {"rel": 0.1}}, None),
    ("C2", "efficiency", {"metric": "size", "form": "at_least", "value": 500, "unit": "MB",
                          "tolerance": {"rel": 0.05}}, None),
    ("C3", "empirical", {"metric": "gain", "form": "at_least", "value": 2, "unit": "percent",
                         "tolerance": {"rel": 0.05}}, None),
    ("C4", "efficiency", {"metric": "latency", "form": "at_most", "value": 100, "unit": "ms",
                          "per": "batch of 32", "tolerance": {"rel": 0.1}}, None),
    ("C5", "empirical", {"metric": "acc", "form": "at_least", "value": 0.9,
                         "tolerance": {"abs": 0.01}, "scale": {"n_test": 20000}}, None),
    ("C6", "theoretical", {"metric": "gap", "form": "bounded", "value": 2.5, "unit": "token",
                           "tolerance": {"abs": 0.25}},
     {"parameter": "tokens_per_expert", "from": 1, "to": None}),
    ("C7", "theoretical", {"metric": "additive_term", "form": "bounded",
                           "tolerance": {"abs": 0.5}}, {"parameter": "k", "from": 2, "to": None}),
    # controls
    ("C8", "efficiency", {"metric": "sampling_time", "form": "at_most", "value": 52, "unit": "ms",
                          "per": "trajectory", "tolerance": {"rel": 0.1}}, None),
    ("C9", "empirical", {"metric": "accuracy", "form": "at_least", "value": 0.9,
                         "tolerance": {"abs": 0.01}}, None),
    ("C10", "efficiency", {"metric": "step_time", "form": "at_most", "value": 52, "unit": "ms",
                           "tolerance": {"rel": 0.1}}, None),
]  # fmt: skip

CODE = '''\
"""Measures what the paper's claims are about, each number with its own unit."""
import argparse, json, math
from pathlib import Path


def measured(value, unit, per=None, at=None):
    out = {"value": value, "unit": unit}
    if per is not None:
        out["per"] = per
    if at:
        out["at"] = at
    return out


parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, required=True)
args = parser.parse_args()
batch = 50
per_batch_ms = 2.8 * batch  # the one-step policy: 2.8 ms an item, timed per batch of 50
test_points = list(range(100))  # the paper evaluates on 20,000; this run on 100
right = sum(1 for i in test_points if i % 25 != 0)
tokens = [1, 2, 4, 8]  # stops at 8 tokens per expert: the gap still rises there
ks = [2, 8, 32, 128, 512]  # the additive term is flat up to 512 (it grows after)
outputs = {
    "C1": {"time": measured(per_batch_ms, "ms", per=f"batch of {batch}")},
    "C2": {"size": measured(8 * 100, "Mbit")},  # 100 MB of weights, in megabits
    "C3": {"gain": measured(0.15, "dimensionless")},  # a 15% gain, as a fraction
    "C4": {"latency": measured(5.0, "ms", per="item")},  # 160 ms per batch of 32
    "C5": {"acc": measured(right / len(test_points), "dimensionless",
                           at={"n_test": len(test_points)})},
    "C6": {"sweep": {"values": tokens, "unit": "token",
                     "measured": [0.9 + 0.4 * math.log2(t) for t in tokens]}},
    "C7": {"sweep": {"values": ks, "measured": [1.0, 1.01, 0.99, 1.0, 1.02]}},
    "C8": {"sampling_time": measured(40.0, "ms", per="trajectory")},
    "C9": {"accuracy": measured(0.8, "dimensionless")},
    "C10": {"step_time": measured(416.0, "µs")},  # 416 ms, relabelled by the code itself
}
args.out.parent.mkdir(parents=True, exist_ok=True)
args.out.write_text(json.dumps(outputs))
'''

# what each logbook types beside the numbers; None: the field is left out
WRONG_LABELS = {"C1": {"unit": "ms", "per": "item"}, "C2": {"unit": "MB"},
                "C3": {"unit": "percent"}, "C4": {"unit": "ms", "per": "batch of 32"}}  # fmt: skip


def write_repo(root: Path) -> None:
    claims = [
        {"id": cid, "statement": f"Claim {cid}.", "anchor": "Table 1", "kind": kind, "target": t}
        | ({"regime": regime} if regime else {})
        for cid, kind, t, regime in CLAIMS
    ]
    paper = {
        "paper": {"id": PAPER, "title": "Units travel with numbers", "venue": "Conf 2026"},
        "claims_version": 1,
        "claims": claims,
    }
    (root / "claims" / "conf").mkdir(parents=True)
    (root / "claims" / "conf" / f"{PAPER}.yaml").write_text(json.dumps(paper))
    for who, labels in (("eve", WRONG_LABELS), ("fay", {})):
        results = []
        for cid, _, t, regime in CLAIMS:
            entry: dict = {"claim": cid, "setup": "full"}
            if regime:
                entry["sweep"] = {
                    "parameter": regime["parameter"],
                    "metric": t["metric"],
                    "source": f"outputs:/{cid}/sweep",
                }
            else:
                m = {"metric": t["metric"], "source": f"outputs:/{cid}/{t['metric']}"}
                entry["measurements"] = [m | labels.get(cid, {})]
            results.append(entry)
        book = {
            "logbook": {
                "id": f"{who}-1",
                "paper": PAPER,
                "claims_version": 1,
                "contributor": {"github": who},
            },
            "code": {"path": f"{who}-1/"},
            "reproduce": {
                "command": "python measure.py --out results/metrics.json",
                "hardware": "cpu",
                "timeout": "2m",
                "outputs": "results/metrics.json",
            },
            "results": results,
        }
        folder = root / "logbooks" / PAPER
        (folder / f"{who}-1").mkdir(parents=True)
        (folder / f"{who}-1.yaml").write_text(yaml.safe_dump(book, sort_keys=False))
        (folder / f"{who}-1" / "measure.py").write_text(CODE)


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository with both logbooks re-run in bwrap and judged by the rules."""
    root = tmp_path_factory.mktemp("units") / "repo"
    write_repo(root)
    for who in ("eve", "fay"):
        rel = f"logbooks/{PAPER}/{who}-1.yaml"
        record = reproduce_logbook(root, rel, out=root / "reruns", sandbox="bwrap")
        assert record.status == "passed", record.record.log_tail
    summary = judge_repo(root, RulesJudge(), reruns=root / "reruns")
    assert len(summary.judged) == 2 and not summary.problems
    return root


def verdicts(root: Path, who: str) -> dict[str, dict]:
    doc = yaml.safe_load((root / "verdicts" / PAPER / f"{who}-1.yaml").read_text())
    assert doc["judge"]["rules_version"] == 4
    assert doc["rerun"]["status"] == "passed"
    return {c["claim"]: c for c in doc["claims"]}


# claim -> (verdict, flags) for the logbook that types the wrong labels, and the one that
# leaves the units to the outputs
EVE = {
    "C1": ("inconclusive", ["unit_mismatch"]),  # a true 8x speed-up: not falsified
    "C2": ("inconclusive", ["unit_mismatch"]),  # a false claim: not verified
    "C3": ("inconclusive", ["unit_mismatch"]),  # a true claim: not falsified
    "C4": ("inconclusive", ["unit_mismatch"]),  # a false claim: not verified
}
FAY = {
    "C1": ("inconclusive", ["unit_mismatch"]),  # per batch of 50 is not per item
    "C2": ("falsified", []),  # 100 MB, under 500
    "C3": ("verified", []),  # 15%, over 2%
    "C4": ("inconclusive", ["unit_mismatch"]),  # per item is not per batch of 32
}
BOTH = {
    "C5": ("toy", ["scale_short"]),  # 100 test points against a claim about 20,000
    "C6": ("toy", ["short_horizon", "growth_detected"]),  # grows, but only 1..8 tested
    "C7": ("verified", []),  # held for k = 2..512, claimed for every k
    "C8": ("verified", []),  # control: an honest verification
    "C9": ("falsified", []),  # control: an honest falsification
    "C10": ("inconclusive", ["scale_suspect"]),  # control: a 30x slip is caught
}


@needs_bwrap
@pytest.mark.parametrize(("who", "want"), [("eve", EVE | BOTH), ("fay", FAY | BOTH)])
def test_each_case_is_decided_as_its_evidence_allows(
    judged: Path, who: str, want: dict[str, tuple[str, list[str]]]
) -> None:
    got = verdicts(judged, who)
    assert {c: (v["verdict"], v.get("flags", [])) for c, v in got.items()} == want
    assert "in the re-run's own unit it is 100 MB" in got["C2"]["evidence"] or who == "fay"
    assert got["C5"]["scope"] == {"scale": {"n_test": {"tested": 100.0, "claimed": 20000.0}}}
    assert got["C7"]["within_tested_range"] is True
    assert got["C7"]["evidence"].endswith("held for k = 2..512; claimed for all k >= 2")
    assert got["C7"]["scope"]["regime"] == {
        "parameter": "k",
        "tested": {"from": 2.0, "to": 512.0},
        "claimed": {"from": 2.0, "to": None},
    }
    assert "within_tested_range" not in got["C8"]  # no regime: nothing past the tested range


@needs_bwrap
def test_the_fold_the_stats_and_the_dataset_say_within_the_tested_range(judged: Path) -> None:
    tables = load_tables(Corpus(judged))
    claims, papers = fold(tables.verdicts, tables.reviews)
    by_claim = claims.set_index("claim")
    assert by_claim.loc["C7", "fold"] == "verified" and by_claim.loc["C7", "within_tested_range"]
    assert not by_claim.loc["C8", "within_tested_range"]
    assert papers.loc[0, "within_tested_range"] == 1
    assert stats(claims, papers)["within_tested_range"] == {"claims": 1, "fully_reproduced": 0}
    frame = corpus_frame(judged).set_index(["claim", "logbook"])
    row = frame.loc[("C7", "fay-1")]
    assert row["within_tested_range"] and row["claim_within_tested_range"]
    assert row["tested_range"] == "held for k = 2..512; claimed for all k >= 2"
    assert frame.loc[("C8", "fay-1"), "tested_range"] == ""


@needs_bwrap
def test_check_fails_and_names_each_flag_the_contributor_can_fix(tmp_path: Path) -> None:
    """`reproaudit check` on the mislabelled logbook: its own bwrap re-run, then status=fail."""
    root = tmp_path / "repo"
    write_repo(root)
    report = check_logbook(root, f"logbooks/{PAPER}/eve-1.yaml").report
    assert report.status == "fail" and not report.errors
    assert {(f.claim, f.flags) for f in report.fixable} == {
        ("C1", ("unit_mismatch",)),
        ("C2", ("unit_mismatch",)),
        ("C3", ("unit_mismatch",)),
        ("C4", ("unit_mismatch",)),
        ("C5", ("scale_short",)),
        ("C6", ("short_horizon",)),
        ("C10", ("scale_suspect",)),
    }
    from reproaudit.report.terminal import render_terminal

    text = render_terminal(report)
    assert text.startswith("status=fail Valid, but 7 claims carry a flag you can fix (C1: ")
    assert "short_horizon (C6): extend the sweep over the claim's regime" in text
    # the sweep the re-run wrote is short: check warns as the contributor guide promises
    (short,) = [
        p for p in report.by_file[f"logbooks/{PAPER}/eve-1.yaml"] if p.code == "sweep_short"
    ]
    assert "the sweep of C6 has 4 points, tokens_per_expert from 1 to 8" in short.message
    # control: a reduced setup expects a short sweep and a small evaluation
    book = root / "logbooks" / PAPER / "eve-1.yaml"
    data = yaml.safe_load(book.read_text())
    for entry in data["results"]:
        entry["setup"] = "reduced"
    book.write_text(yaml.safe_dump(data, sort_keys=False))
    report = check_logbook(root, book).report
    assert {f.claim for f in report.fixable} == {"C1", "C2", "C3", "C4", "C10"}
