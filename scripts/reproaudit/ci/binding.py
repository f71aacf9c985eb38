"""Was a pull request's head pushed before a comment was written? Dated by this PR alone.

A command approves what its author saw. GitHub records no push time on a commit
(commit dates, in the timeline's ``committed`` items and in ``/pulls/{n}/commits``,
are whatever the pusher wrote), so the evidence is what GitHub itself stamped
for *this* pull request:

- a ``pull_request`` workflow run (``GET /repos/{o}/{r}/actions/runs?head_sha=...
  &event=pull_request``) for the head SHA whose ``pull_requests`` names this
  pull request and whose ``head_branch`` and ``head_repository`` are this pull
  request's head branch and repository. A run is created after the push that
  made it the head, so one created at or before the comment proves the head
  was this PR's by then. GitHub fills ``pull_requests`` with every open pull
  request whose head matches, not only the one that triggered the run, so the
  branch and repository must match too: a run of *another* pull request for the
  same commit never dates this one (a fast-forward to another PR's commit stays
  undated);
- for a pull request from a fork, whose runs GitHub lists with an empty
  ``pull_requests``: a ``pull_request`` run of the head SHA whose
  ``head_repository`` is the fork and whose ``head_branch`` is the pull request's
  head branch. Only a push to that branch of that fork makes such a run, and
  only a force push (on this pull request's timeline, below) brings the branch
  back to an older commit whose run would be earlier;
- this pull request's timeline events ``head_ref_force_pushed``,
  ``head_ref_deleted`` and ``head_ref_restored`` carry their time: one after
  the comment means the branch was rewritten since (for instance back to an
  older commit that has an early run).

Without such a run the answer is "unknown" (usually GitHub's delay: the run of a
push appears seconds to minutes after it): callers record nothing and offer the
full SHA. The decision (``decide``) is pure; the API reads are in
``head_at_comment``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .github import GitHub

Status = Literal["before", "after", "unknown"]
REWRITE_EVENTS = ("head_ref_force_pushed", "head_ref_deleted", "head_ref_restored")


@dataclass(frozen=True)
class HeadCheck:
    """The PR's head now and whether it was already the head when the comment was written."""

    sha: str
    status: Status
    why: str


def parse_time(value: Any) -> datetime | None:
    """GitHub's ISO 8601 timestamps (``2026-07-21T10:00:00Z``), or None when unreadable."""
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def dates_this_pull(run: dict[str, Any], head: str, number: int, pull: dict[str, Any]) -> bool:
    """Whether a workflow run is this pull request's own ``pull_request`` run of ``head``."""
    if str(run.get("head_sha")) != head or run.get("event") != "pull_request":
        return False
    pull_head = _mapping(pull.get("head"))
    if run.get("head_branch") != pull_head.get("ref"):
        return False
    wanted = _mapping(pull_head.get("repo")).get("full_name")
    ran_in = _mapping(run.get("head_repository")).get("full_name")
    if from_fork(pull):
        # GitHub lists no pull request in a fork's runs: the fork and its branch say whose
        return ran_in == wanted and run.get("pull_requests") in ([], None)
    listed = run.get("pull_requests")
    if not isinstance(listed, list) or not any(
        isinstance(item, dict) and item.get("number") == number for item in listed
    ):
        return False
    return not wanted or ran_in == wanted


def from_fork(pull: dict[str, Any]) -> bool:
    """Whether the pull request's head branch lives in another repository than its base."""
    head = _mapping(_mapping(pull.get("head")).get("repo")).get("full_name")
    base = _mapping(_mapping(pull.get("base")).get("repo")).get("full_name")
    return bool(head and base and str(head).lower() != str(base).lower())


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def decide(
    head: str,
    comment_at: str,
    runs: list[dict[str, Any]],
    timeline: list[dict[str, Any]],
    *,
    number: int,
    pull: dict[str, Any],
) -> HeadCheck:
    """Whether ``head`` was pull request ``number``'s pushed head at ``comment_at``.

    ``pull`` is the pull request (``GET /pulls/{n}``), ``runs`` the workflow runs for
    the head SHA, ``timeline`` this pull request's timeline.
    """
    written = parse_time(comment_at)
    if written is None:
        return HeadCheck(head, "unknown", "cannot be dated against your comment (unreadable time)")
    for item in timeline:
        if item.get("event") in REWRITE_EVENTS:
            when = parse_time(item.get("created_at"))
            if when is None or when > written:
                return HeadCheck(
                    head,
                    "after",
                    f"came with a rewrite of the branch ({item.get('event')}) after your comment",
                )
    times = [
        t
        for run in runs
        if dates_this_pull(run, head, number, pull)
        if (t := parse_time(run.get("created_at"))) is not None
    ]
    if not times:
        return HeadCheck(
            head,
            "unknown",
            "may have been pushed after your comment: no workflow run of this pull request "
            "dates it",
        )
    first = min(times)
    if first > written:
        return HeadCheck(head, "after", "was pushed after your comment was written")
    return HeadCheck(head, "before", "was pushed before your comment was written")


def head_at_comment(github: GitHub, repo: str, number: int, comment_at: str) -> HeadCheck:
    """The PR's current head and whether it was pushed before ``comment_at``."""
    pull = github.pull(repo, number)
    head = str(pull["head"]["sha"])
    runs = github.workflow_runs(repo, head, event="pull_request")
    timeline = github.timeline(repo, number)
    return decide(head, comment_at, runs, timeline, number=number, pull=pull)
