"""The small pieces every page repeats: an inconclusive verdict awaiting a re-run says so."""

from __future__ import annotations

from reproaudit.site import words
from reproaudit.site.chips import Chips


def test_an_inconclusive_verdict_flagged_not_rerun_reads_awaiting_rerun() -> None:
    chips = Chips(lambda path: "/" + path)
    assert str(chips.verdict("inconclusive", flags=["not_rerun", "unit_mismatch"])) == (
        '<a class="ra-chip ra-chip--awaiting" href="/meaning/#state-awaiting">awaiting re-run</a>'
    )
    # control: other inconclusive verdicts, and decided ones, keep their own word
    assert ">inconclusive</a>" in str(chips.verdict("inconclusive", flags=["unit_mismatch"]))
    assert ">verified</a>" in str(chips.verdict("verified", flags=[]))
    for flag in ("not_rerun", "hardware_mismatch", "judge_error", "scale_suspect"):
        label, text = words.FLAGS[flag]
        assert label and text and label in str(chips.flags([flag]))


def test_a_verdict_nobody_re_ran_is_drawn_apart_from_a_re_run_one() -> None:
    chips = Chips(lambda path: "/" + path)
    typed = str(chips.verdict("verified", flags=["not_rerun"]))
    rerun = str(chips.verdict("verified", flags=[]))
    assert ">verified, not re-run</a>" in typed and "ra-chip--not_rerun" in typed
    assert ">verified</a>" in rerun and "not_rerun" not in rerun  # control


def test_a_falsification_reads_under_review_or_confirmed_with_the_authors_answer() -> None:
    chips = Chips(lambda path: "/" + path)
    assert ">falsified, under review</a>" in str(chips.verdict("falsified", state="under_review"))
    confirmed = str(chips.verdict("falsified", review="confirm", state="confirmed"))
    assert 'href="/meaning/#state-confirmed">falsified, confirmed</a>' in confirmed
    shown = words.claim_state("falsified", [], "under_review", "disagree")
    assert shown.label == "falsified, under review, disputed by the authors"
