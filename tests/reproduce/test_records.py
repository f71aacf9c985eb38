"""Records bound to their inputs: the judge ignores one that does not match, and says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from reproaudit.judge.inputs import read_rerun
from reproaudit.judge.run import judge_repo
from reproaudit.reproduce import reproduce_logbook
from reproaudit.reproduce.sandbox import bwrap_available
from tests.test_reproduce import PAPER

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
REL = f"logbooks/{PAPER}/ann-1.yaml"


def judged_c1(repo: Path, out: Path) -> dict:
    judge_repo(repo, mode="rules", reruns=out, logbook="ann-1")
    verdict = yaml.safe_load((repo / "verdicts" / PAPER / "ann-1.yaml").read_text())
    return next(c for c in verdict["claims"] if c["claim"] == "C1")


def test_changed_outputs_make_the_record_stale(mini_repo: Path, tmp_path: Path):
    out = tmp_path / "out"
    record = reproduce_logbook(mini_repo, REL, out=out)
    assert "stale_rerun" not in judged_c1(mini_repo, out)["flags"]
    (record.folder / "outputs.json").write_text('{"C1": {"accuracy": 0.1}}')
    c1 = judged_c1(mini_repo, out)
    assert "stale_rerun" in c1["flags"] and "not_rerun" in c1["flags"]
    assert (
        "the re-run record was ignored: outputs.json does not match the outputs_sha256 of "
        "run.json" in c1["evidence"]
    )


def test_a_record_that_does_not_name_its_logbook_bytes_is_stale(mini_repo, tmp_path):
    out = tmp_path / "out"
    record = reproduce_logbook(mini_repo, REL, out=out)
    run = json.loads((record.folder / "run.json").read_text())
    del run["logbook_sha256"]
    (record.folder / "run.json").write_text(json.dumps(run))
    got = read_rerun(out, PAPER, "ann-1", "0" * 64)
    assert got is not None and got.rerun.stale == (
        "run.json does not say which logbook bytes it re-ran (no logbook_sha256)"
    )
    assert got.rerun.outputs is None


def test_unreadable_and_huge_records_are_failed_runs_not_tracebacks(mini_repo, tmp_path):
    out = tmp_path / "out"
    record = reproduce_logbook(mini_repo, REL, out=out)
    run_path = record.folder / "run.json"
    run_path.write_text("[" * 200000 + "]" * 200000)
    got = read_rerun(out, PAPER, "ann-1")
    assert got is not None
    assert (got.rerun.status, got.rerun.log_tail) == (
        "failed",
        "unreadable run record: run.json is nested deeper than 64 levels",
    )
    run_path.write_text(" " * (2 << 20))
    got = read_rerun(out, PAPER, "ann-1")
    assert got is not None and got.rerun.log_tail == (
        "unreadable run record: run.json is over 1024 KiB"
    )
