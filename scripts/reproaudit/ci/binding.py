"""Was a pull request's head pushed before a comment was written?

A command approves what its author saw. GitHub records no push time on a commit
(commit dates are whatever the pusher wrote), so the evidence is GitHub's own:

- the first ``pull_request`` workflow run for the head SHA (``GET
  /repos/{o}/{r}/actions/runs?head_sha=...&event=pull_request``) is created after
  the push that made it the head, so a run created at or before the comment
  proves the head existed by then;
- the issue timeline's ``head_ref_force_pushed`` and ``head_ref_restored``
  events carry their time: one after the comment means the branch was rewritten
  since (for instance back to an older commit that has an early run).

Without a run for the head, the answer is "unknown": callers treat it like a
moved head and ask for the full SHA. The decision (``decide``) is pure; the two
API reads are in ``head_at_comment``.
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


def decide(
    head: str, comment_at: str, runs: list[dict[str, Any]], timeline: list[dict[str, Any]]
) -> HeadCheck:
    """Whether ``head`` was the pushed head at ``comment_at``, from runs and timeline events."""
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
        if str(run.get("head_sha")) == head and run.get("event") == "pull_request"
        if (t := parse_time(run.get("created_at"))) is not None
    ]
    if not times:
        return HeadCheck(
            head, "unknown", "may have been pushed after your comment: no workflow run dates it"
        )
    first = min(times)
    if first > written:
        return HeadCheck(head, "after", "was pushed after your comment was written")
    return HeadCheck(head, "before", "was pushed before your comment was written")


def head_at_comment(github: GitHub, repo: str, number: int, comment_at: str) -> HeadCheck:
    """The PR's current head and whether it was pushed before ``comment_at``."""
    head = str(github.pull(repo, number)["head"]["sha"])
    runs = github.workflow_runs(repo, head, event="pull_request")
    timeline = github.timeline(repo, number)
    return decide(head, comment_at, runs, timeline)
