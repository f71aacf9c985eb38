"""The automatic re-runs of one pull request are the contributor's budget: the logbooks'
``reproduce.timeout``s add up to at most the cap, the rest wait for ``/reproduce``, and the
report says so for each logbook (``autorerun.py``, pure)."""

from __future__ import annotations

import pytest

from reproaudit.autorerun import (
    CAP_SETTING,
    DEFAULT_CAP,
    RerunPlan,
    cap_s,
    duration_text,
    plan_from_text,
    within_cap,
)
from reproaudit.errors import SettingError
from reproaudit.report.markdown import render_plans
from reproaudit.report.model import build_report, outcome_sentence

PAPER = "Kp4rT9vQ2x"


def logbook(name: str, hardware: str, timeout: str) -> str:
    return (
        f"logbook: {{id: {name}, paper: {PAPER}, claims_version: 1,\n"
        "  contributor: {github: zed}}\n"
        f"code: {{path: {name}/}}\n"
        f"reproduce: {{command: python run.py, hardware: {hardware}, timeout: {timeout}}}\n"
        "results: []\n"
    )


def plans(*books: tuple[str, str, str], cap: str = "2h") -> dict[str, RerunPlan]:
    made = [plan_from_text(PAPER, n, logbook(n, hw, t)) for n, hw, t in books]
    return {p.logbook: p for p in within_cap(made, cap_s({CAP_SETTING: cap}))}


def test_the_cap_admits_logbooks_in_order_and_the_rest_wait() -> None:
    got = plans(
        ("a-1", "cpu", "1h"),
        ("b-1", "cpu", "50m"),
        ("c-1", "cpu", "20m"),  # 2h10m with the two before it: past the cap
        ("d-1", "a10g-small", "3h"),  # a GPU one waits anyway, whatever its timeout
        ("e-1", "cpu", "5m"),  # would fit, but the rest wait: the order is the rule
    )
    kinds = {name: (p.kind, p.capped) for name, p in got.items()}
    assert kinds == {
        "a-1": ("auto", False),
        "b-1": ("auto", False),
        "c-1": ("reproduce", True),
        "d-1": ("reproduce", False),
        "e-1": ("reproduce", True),
    }
    assert got["c-1"].why == (
        "hardware `cpu`, but this pull request's automatic re-runs may take 2h of "
        "`reproduce.timeout` in all (`REPROAUDIT_AUTO_RERUN_CAP`) and its 20m would pass "
        "that; the logbooks before it take 1h50m: it waits for a maintainer's `/reproduce`"
    )
    assert got["a-1"].timeout_s == 3600 and got["a-1"].hardware == "cpu"


def test_one_logbook_over_the_cap_waits_and_one_under_it_runs() -> None:
    """The control: an honest logbook is re-run by itself; one of 48h is not."""
    assert plans(("a-1", "cpu", "10m"))["a-1"].kind == "auto"
    alone = plans(("a-1", "cpu", "48h"))["a-1"]
    assert alone.kind == "reproduce" and alone.capped
    assert "its 48h would pass that: it waits" in alone.why
    exact = plans(("a-1", "cpu", "1h"), ("b-1", "cpu", "1h"))  # exactly the cap: both run
    assert [p.kind for p in exact.values()] == ["auto", "auto"]


def test_the_report_says_for_each_logbook_what_runs_and_what_waits() -> None:
    got = plans(("a-1", "cpu", "90m"), ("b-1", "cpu", "45m"))
    report = build_report(
        pr=7, head_sha="a" * 40, files=[], problems=[], verdicts=[], reruns=list(got.values())
    )
    lines = render_plans(list(report.reruns))
    assert lines[3].startswith(f"- `` {PAPER}/a-1 ``: re-run automatically: hardware `cpu`")
    assert lines[4].startswith(
        f"- `` {PAPER}/b-1 ``: awaits `/reproduce`: hardware `cpu`, but this pull request's "
        "automatic re-runs may take 2h"
    )
    assert "In CI: 1 re-run automatically, 1 awaiting `/reproduce`." in outcome_sentence(report)


@pytest.mark.parametrize(
    ("value", "seconds"), [(None, 7200), ("", 7200), ("30m", 1800), ("1h30m", 5400)]
)
def test_the_cap_setting(value: str | None, seconds: int) -> None:
    environ = {} if value is None else {CAP_SETTING: value}
    assert cap_s(environ) == seconds
    assert DEFAULT_CAP == "2h"


@pytest.mark.parametrize("value", ["lots", "0s", "49h", "-1h"])
def test_a_cap_that_cannot_work_is_a_setting_error(value: str) -> None:
    with pytest.raises(SettingError, match=CAP_SETTING):
        cap_s({CAP_SETTING: value})


def test_duration_text_writes_durations_as_logbooks_do() -> None:
    assert [duration_text(s) for s in (0, 45, 60, 5400, 7200, 7261)] == [
        "0s",
        "45s",
        "1m",
        "1h30m",
        "2h",
        "2h1m1s",
    ]
