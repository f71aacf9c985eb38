"""When was the head pushed? Dated by this PR's own runs and timeline, never commit dates."""

from __future__ import annotations

from typing import Any

from reproaudit.ci.binding import decide
from tests.ci import payloads

HEAD = payloads.HEAD
PR = payloads.PR
AT = "2026-07-21T10:00:00Z"
PULL = payloads.pull(PR, head=HEAD)


def check(runs: list[dict[str, Any]], timeline: list[dict[str, Any]] | None = None, at: str = AT):
    return decide(HEAD, at, runs, timeline or [], number=PR, pull=PULL)


def test_a_run_before_the_comment_proves_the_push() -> None:
    runs = [
        payloads.workflow_run(HEAD, created_at="2026-07-21T10:30:00Z", run_id=2),
        payloads.workflow_run(HEAD, created_at="2026-07-21T09:59:59Z", run_id=1),
    ]
    assert check(runs).status == "before"  # the earliest run counts


def test_runs_of_other_commits_and_events_prove_nothing() -> None:
    runs = [
        payloads.workflow_run("1" * 40, created_at="2026-07-21T09:00:00Z"),
        payloads.workflow_run(HEAD, created_at="2026-07-21T09:00:00Z", event="workflow_dispatch"),
    ]
    got = check(runs, [payloads.committed(HEAD, "2020-01-01T00:00:00Z")])
    assert (got.status, got.why) == (
        "unknown",
        "may have been pushed after your comment: no workflow run of this pull request dates it",
    )


def test_another_prs_run_of_the_same_commit_never_dates_this_one() -> None:
    # PR 8 held the commit at 09:00; after the comment, PR 7's branch was fast-forwarded to
    # it. GitHub lists every open PR whose head matches in pull_requests, so PR 8's run
    # names PR 7 too by now: the run's branch says whose push it was.
    theirs = payloads.workflow_run(
        HEAD, created_at="2026-07-21T09:00:00Z", pulls=(8, PR), head_ref="evil"
    )
    assert check([theirs]).status == "unknown"
    ours = payloads.workflow_run(HEAD, created_at="2026-07-21T10:05:00Z", run_id=2)
    assert check([theirs, ours]).status == "after"
    # a run of another PR from a fork with the same branch name: another head repository
    forked = payloads.workflow_run(
        HEAD, created_at="2026-07-21T09:00:00Z", pulls=(PR,), head_repo="mallory/Hello-World"
    )
    assert check([forked]).status == "unknown"
    # a run that does not list this PR (or lists none, as for a fork's PR) dates nothing
    unlisted = payloads.workflow_run(HEAD, created_at="2026-07-21T09:00:00Z", pulls=(8,))
    assert check([unlisted]).status == "unknown"
    assert check([payloads.workflow_run(HEAD, pulls=())]).status == "unknown"
    # control: this PR's own run before the comment dates it
    assert check([theirs, payloads.workflow_run(HEAD)]).status == "before"


def test_unreadable_times_are_not_evidence() -> None:
    runs = [payloads.workflow_run(HEAD, created_at="yesterday")]
    assert check(runs).status == "unknown"
    assert check(runs, at="not a time").status == "unknown"
    good = [payloads.workflow_run(HEAD, created_at="2026-07-21T09:00:00Z")]
    rewritten = [payloads.force_pushed("garbled")]
    assert check(good, rewritten).status == "after"


FORK = "yara/Hello-World"
FORK_PULL = payloads.pull(PR, head=HEAD, head_repo=FORK)


def test_a_forks_pull_request_is_dated_by_the_forks_own_run() -> None:
    """GitHub lists no pull request in the runs of a fork's pull request: the fork and its
    branch say whose push a run was."""

    def fork_check(runs: list[dict[str, Any]], timeline: list[dict[str, Any]] | None = None):
        return decide(HEAD, AT, runs, timeline or [], number=PR, pull=FORK_PULL)

    ours = payloads.workflow_run(HEAD, pulls=(), head_repo=FORK)
    assert fork_check([ours]).status == "before"
    # another fork's branch of the same name, another branch of this fork, the base
    # repository's own branch: none is this pull request's push
    assert (
        fork_check([payloads.workflow_run(HEAD, pulls=(), head_repo="mallory/Hello-World")]).status
        == "unknown"
    )
    assert (
        fork_check([payloads.workflow_run(HEAD, pulls=(), head_repo=FORK, head_ref="main")]).status
        == "unknown"
    )
    assert fork_check([payloads.workflow_run(HEAD, pulls=())]).status == "unknown"
    # a run listing a pull request is not a fork's run (GitHub lists none for those)
    assert fork_check([payloads.workflow_run(HEAD, pulls=(8,), head_repo=FORK)]).status == "unknown"
    # the fork's branch rewritten after the comment, back to a commit with an early run
    assert fork_check([ours], [payloads.force_pushed("2026-07-21T10:00:05Z")]).status == "after"
    late = payloads.workflow_run(HEAD, pulls=(), head_repo=FORK, created_at="2026-07-21T10:01:00Z")
    assert fork_check([late]).status == "after"
    # and a same-repository pull request still needs its own number in the run
    assert check([payloads.workflow_run(HEAD, pulls=())]).status == "unknown"
