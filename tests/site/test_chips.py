"""The small pieces every page repeats: an inconclusive verdict awaiting a re-run says so."""

from __future__ import annotations

from reproaudit.site import words
from reproaudit.site.chips import Chips


def test_an_inconclusive_verdict_flagged_not_rerun_reads_awaiting_rerun() -> None:
    chips = Chips(lambda path: "/" + path)
    assert str(chips.verdict("inconclusive", flags=["not_rerun", "unit_mismatch"])) == (
        '<a class="ra-chip ra-chip--inconclusive" href="/meaning/#flag-not_rerun">'
        "awaiting re-run</a>"
    )
    # control: other inconclusive verdicts, and decided ones, keep their own word
    assert ">inconclusive</a>" in str(chips.verdict("inconclusive", flags=["unit_mismatch"]))
    assert ">verified</a>" in str(chips.verdict("verified", flags=[]))
    for flag in ("not_rerun", "hardware_mismatch", "judge_error", "scale_suspect"):
        label, text = words.FLAGS[flag]
        assert label and text and label in str(chips.flags([flag]))
