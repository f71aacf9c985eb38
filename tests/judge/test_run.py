"""A judge run keeps going: each logbook is judged in isolation (issue 18).

The crash inputs are real: a re-run value of 1e160 (it overflowed the growth fits), a typed
``.nan``, a logbook named ``reviews`` (its verdict would land on ``reviews.yaml``), in a
corpus with healthy logbooks that must still get their verdicts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.judge import points
from tests.records import write_current_rerun

PAPER = """\
paper: {id: IsoPaper1, title: A Paper Judged Logbook by Logbook, venue: Iso 2026}
claims_version: 1
claims:
  - id: C1
    statement: Accuracy is at least 0.5.
    anchor: Table 1
    kind: empirical
    target: {metric: acc, form: at_least, value: 0.5, unit: dimensionless, tolerance: {abs: 0.01}}
  - id: C2
    statement: The additive term is O(1) in k.
    anchor: Theorem 1
    kind: theoretical
    target: {metric: term, form: bounded, value: null, unit: dimensionless, tolerance: {abs: 0.5}}
    regime: {parameter: k, from: 2, to: null}
"""

LOGBOOK = """\
logbook: {{id: {id}, paper: IsoPaper1, claims_version: 1, contributor: {{github: {who}}}}}
code: {{repo: https://github.com/{who}/iso, commit: 0123456789abcdef0123456789abcdef01234567}}
reproduce: {{command: python run.py, hardware: cpu, outputs: out.json}}
results:
  - claim: C1
    setup: full
    measurements:
      - {{metric: acc, value: {acc}, unit: dimensionless, source: "outputs:/acc"}}
  - claim: C2
    setup: full
    sweep: {{parameter: k, metric: term, source: "outputs:/sweep"}}
"""

HEALTHY_OUTPUTS = {
    "acc": 0.9,
    "sweep": {"values": [10, 100, 1000, 10000], "measured": [1.0, 1.01, 0.99, 1.0]},
}
REVIEWS = (
    "reviews:\n  - {claim: C1, logbook: ann-1, kind: review, stance: confirm, by: maint,\n"
    "     at: 2026-07-01T00:00:00Z}\n"
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    repo = tmp_path / "iso"
    (repo / "claims/iso2026").mkdir(parents=True)
    (repo / "claims/iso2026/IsoPaper1.yaml").write_text(PAPER)
    books = repo / "logbooks/IsoPaper1"
    books.mkdir(parents=True)
    huge = {**HEALTHY_OUTPUTS, "acc": 1e160}
    huge["sweep"] = {"values": [10, 100, 1000, 10000], "measured": [1e160, 2.0, 3.0, 4.0]}
    for id_, who, acc, outputs in (
        ("ann-1", "ann", "0.9", HEALTHY_OUTPUTS),
        ("huge-1", "hugo", "0.9", huge),
        ("nan-1", "nan", ".nan", None),
        ("reviews", "rev", "0.9", HEALTHY_OUTPUTS),
        ("zed-1", "zed", "0.9", HEALTHY_OUTPUTS),
    ):
        (books / f"{id_}.yaml").write_text(LOGBOOK.format(id=id_, who=who, acc=acc))
        if outputs is not None:
            raw = json.dumps(outputs).encode()
            write_current_rerun(
                repo,
                "IsoPaper1",
                id_,
                log_tail=None,
                outputs=raw,
                duration_s=1.0,
                invalid_ok=True,
            )
    (repo / "verdicts/IsoPaper1").mkdir(parents=True)
    (repo / "verdicts/IsoPaper1/reviews.yaml").write_text(REVIEWS)
    return repo


def judge(repo: Path) -> Any:
    return CliRunner().invoke(cli, ["judge", "--mode", "rules", "--repo", str(repo)])


def verdicts(repo: Path) -> dict[str, dict[str, dict]]:
    out = {}
    for path in sorted((repo / "verdicts/IsoPaper1").glob("*.yaml")):
        if path.name != "reviews.yaml":
            doc = yaml.safe_load(path.read_text())
            out[doc["logbook"]] = {c["claim"]: c for c in doc["claims"]}
    return out


def test_crash_inputs_are_refused_or_contained_and_healthy_logbooks_get_verdicts(
    corpus: Path,
) -> None:
    result = judge(corpus)
    got = verdicts(corpus)
    # healthy logbooks: judged on their current re-runs
    for healthy in ("ann-1", "zed-1"):
        assert got[healthy]["C1"]["verdict"] == "verified", got[healthy]
        assert got[healthy]["C2"]["verdict"] == "verified", got[healthy]
    # a re-run value of 1e160 is no measurement: missing outputs, said so
    assert got["huge-1"]["C1"]["flags"] == ["missing_outputs"]
    assert "not a finite number (within ±1e15)" in got["huge-1"]["C1"]["evidence"]
    assert got["huge-1"]["C2"]["flags"] == ["missing_outputs"]
    # a typed .nan and a logbook named reviews are refused with file, line and field
    assert "nan-1" not in got and "reviews" not in got
    assert (
        "logbooks/IsoPaper1/nan-1.yaml:8: results[0].measurements[0].value: .nan is not a "
        "finite number within ±1e15 [number_out_of_range]"
    ) in result.output
    assert (
        "logbooks/IsoPaper1/reviews.yaml:1: logbook.id: 'reviews' is reserved: the repository "
        "holds verdicts/<paper>/reviews.yaml, the reviews and author answers of paper <paper> "
        "[reserved_id]"
    ) in result.output
    assert (corpus / "verdicts/IsoPaper1/reviews.yaml").read_text() == REVIEWS
    assert result.exit_code == 1  # the refused logbooks are named, and the exit says so


def _unguarded(value: Any) -> float | None:
    """``number_or_none`` as it was before rules version 3: finite, no range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def test_a_crash_while_judging_one_logbook_is_its_judge_error_not_the_runs(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the range guard, 1e160 overflows the growth fit (OverflowError): that logbook
    gets a judge_error verdict, the others are judged, the summary and exit code say so."""
    monkeypatch.setattr(points, "number_or_none", _unguarded)
    result = judge(corpus)
    got = verdicts(corpus)
    assert got["ann-1"]["C1"]["verdict"] == got["zed-1"]["C2"]["verdict"] == "verified"
    for claim in ("C1", "C2"):
        item = got["huge-1"][claim]
        assert (item["verdict"], item["flags"]) == ("inconclusive", ["judge_error"])
        assert item["evidence"].startswith("the judge failed on this logbook (OverflowError: ")
    assert result.exit_code == 1
    assert (
        "1 judge_error (the judge failed; judged again next run):\n"
        "  verdicts/IsoPaper1/huge-1.yaml: OverflowError: "
    ) in result.output
    # a judge_error is not current: the next run judges it again (and, fixed, gets it right)
    monkeypatch.undo()
    again = judge(corpus)
    assert "1 verdict(s) written, 2 unchanged" in again.output
    assert verdicts(corpus)["huge-1"]["C1"]["flags"] == ["missing_outputs"]


def test_a_verdict_is_never_written_over_a_layout_file(tmp_path: Path) -> None:
    from reproaudit.judge.run import JudgeSummary, VerdictDoc, write_verdicts

    (tmp_path / "verdicts/P").mkdir(parents=True)
    (tmp_path / "verdicts/P/reviews.yaml").write_text(REVIEWS)
    summary = JudgeSummary()
    docs = [VerdictDoc("verdicts/P/reviews.yaml", {}), VerdictDoc("verdicts/P/ok.yaml", {"a": 1})]
    assert write_verdicts(tmp_path, docs, summary) == ["verdicts/P/ok.yaml"]
    assert (tmp_path / "verdicts/P/reviews.yaml").read_text() == REVIEWS
    assert summary.errors == {
        "verdicts/P/reviews.yaml": (
            "ValueError: verdicts/P/reviews.yaml is not a verdict file's path"
        )
    }
