"""The site shows a re-run number only where the judge would use it.

The logbook page once read ``outputs:`` sources with its own rules: a sweep
source pointing at a bare list, two lists of different lengths, or a number
beyond ±1e15 showed as re-run numbers while the judge marked the claim
``missing_outputs``. Both now read through ``judge.points.rerun_number`` and
``rerun_sweep``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reproaudit.judge.run import judge_in_memory
from reproaudit.repo import Corpus
from reproaudit.site.context import logbook_context
from reproaudit.site.data import load_site_data
from tests.records import write_current_rerun

KEY = ("Tq7mV2pLx0", "ann-1")
BOOK = "logbooks/Tq7mV2pLx0/ann-1.yaml"


def with_outputs(repo: Path, outputs: dict, status: str = "passed") -> Path:
    """ann-1 with a sweep read from the re-run, and a current record holding ``outputs``."""
    book = repo / BOOK
    text = book.read_text().replace(
        "measured: [1.1, 1.2, 1.2]}", 'measured: [1.1, 1.2, 1.2], source: "outputs:/C3/sweep"}'
    )
    book.write_text(text)
    write_current_rerun(repo, *KEY, status, outputs=json.dumps(outputs).encode())
    return repo


def judged_and_shown(repo: Path) -> tuple[dict[str, list[str]], dict[str, object]]:
    verdict, _ = judge_in_memory(repo, *KEY, reruns=repo / "reruns")
    assert verdict is not None
    flags = {c.claim: list(c.flags) for c in verdict.claims}
    page = logbook_context(load_site_data(Corpus(repo), datetime(2026, 7, 1, tzinfo=UTC)), KEY)
    shown = {
        item.claim.id: (
            [row["rerun"] for row in item.measurements],
            item.sweep_rerun,
        )
        for item in page.per_claim
    }
    return flags, shown


@pytest.mark.parametrize(
    "sweep",
    [
        [1.1, 1.2, 9.0],  # a bare list: the typed values were paired with it
        {"values": [10, 100], "measured": [1.1, 1.2, 9.0]},  # lengths differ: zip cut it
        {"values": [10, 100, 1000], "measured": [1.1, "1.2", 9.0]},  # a string
        {"values": [10, 100, 1000], "measured": [1.1, 1.2, 1e300]},  # beyond ±1e15
    ],
)
def test_a_sweep_the_judge_marks_missing_outputs_shows_no_numbers(
    mini_repo: Path, sweep: object
) -> None:
    repo = with_outputs(mini_repo, {"C1": {"accuracy": 1e300}, "C3": {"sweep": sweep}})
    flags, shown = judged_and_shown(repo)
    assert "missing_outputs" in flags["C1"] and "missing_outputs" in flags["C3"]
    assert shown["C1"] == ([None], None)  # the typed 0.912 shows, marked typed
    assert shown["C3"] == ([], None)


def test_numbers_the_judge_uses_are_the_numbers_shown(mini_repo: Path) -> None:
    """The control: a well-formed record shows what the judge read."""
    sweep = {"values": [10, 100, 1000], "measured": [1.1, 1.2, 1.25]}
    repo = with_outputs(mini_repo, {"C1": {"accuracy": 0.95}, "C3": {"sweep": sweep}})
    flags, shown = judged_and_shown(repo)
    assert "missing_outputs" not in flags["C1"] + flags["C3"]
    assert shown["C1"] == ([0.95], None)
    assert shown["C3"] == ([], [(10.0, 1.1), (100.0, 1.2), (1000.0, 1.25)])


def test_a_failed_rerun_shows_no_numbers(mini_repo: Path) -> None:
    """A failed re-run verifies nothing: the judge reads no number from it, nor does the page."""
    sweep = {"values": [10, 100, 1000], "measured": [1.1, 1.2, 1.25]}
    repo = with_outputs(mini_repo, {"C1": {"accuracy": 0.95}, "C3": {"sweep": sweep}}, "failed")
    flags, shown = judged_and_shown(repo)
    assert "rerun_failed" in flags["C1"]
    assert shown["C1"] == ([None], None)
    assert shown["C3"] == ([], None)
