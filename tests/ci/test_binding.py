"""When was the head pushed? Decided from workflow runs and timeline events, never commit dates."""

from __future__ import annotations

from reproaudit.ci.binding import decide
from tests.ci import payloads

HEAD = payloads.HEAD
AT = "2026-07-21T10:00:00Z"


def test_a_run_before_the_comment_proves_the_push() -> None:
    runs = [
        payloads.workflow_run(HEAD, created_at="2026-07-21T10:30:00Z", run_id=2),
        payloads.workflow_run(HEAD, created_at="2026-07-21T09:59:59Z", run_id=1),
    ]
    assert decide(HEAD, AT, runs, []).status == "before"  # the earliest run counts


def test_runs_of_other_commits_and_events_prove_nothing() -> None:
    runs = [
        payloads.workflow_run("1" * 40, created_at="2026-07-21T09:00:00Z"),
        payloads.workflow_run(HEAD, created_at="2026-07-21T09:00:00Z", event="workflow_dispatch"),
    ]
    check = decide(HEAD, AT, runs, [payloads.committed(HEAD, "2020-01-01T00:00:00Z")])
    assert (check.status, check.why) == (
        "unknown",
        "may have been pushed after your comment: no workflow run dates it",
    )


def test_unreadable_times_are_not_evidence() -> None:
    runs = [payloads.workflow_run(HEAD, created_at="yesterday")]
    assert decide(HEAD, AT, runs, []).status == "unknown"
    assert decide(HEAD, "not a time", runs, []).status == "unknown"
    good = [payloads.workflow_run(HEAD, created_at="2026-07-21T09:00:00Z")]
    rewritten = [payloads.force_pushed("garbled")]
    assert decide(HEAD, AT, good, rewritten).status == "after"
