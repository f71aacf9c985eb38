"""``ci command --offline``: decide a comment from the payload and a local clone alone.

A maintainer tries a command before posting it, or a developer replays a recorded
event, with no token and no network. ``LocalGitHub`` answers the handful of reads the
command handlers make from the event payload and from git in a local clone of the
pull request (its ``HEAD`` is the PR's head, the base is the default branch):

- the commenter's permission comes from the comment's ``author_association``
  (OWNER is admin; MEMBER and COLLABORATOR write; anyone else read), where the real
  run asks the permissions API;
- the changed files are ``git diff --name-status --no-renames BASE...HEAD``;
- a file at a commit is ``git cat-file`` of that blob (never a link);
- the head is taken as pushed before the comment (no workflow run can date it here).

Every write raises ``ReadOnlyError``: nothing is sent. ``describe`` says in words what
the real run would do with the outcome. The two approximations above are printed with
the outcome, so nobody mistakes an offline "approved" for a real one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import layout
from ..errors import ReadOnlyError, ReproauditError
from .changes import BlobReader, tree_changes

ASSOCIATION_ROLE = {"OWNER": "admin", "MEMBER": "write", "COLLABORATOR": "write"}
CAVEATS = [
    "offline: the commenter's permission is read from the comment's author_association, "
    "not from the permissions API",
    "offline: the local HEAD is taken as the pull request's head, pushed before the comment",
]


class LocalGitHub:
    """The reads ``ci.commands`` makes, answered from the payload and a local git clone."""

    read_only = True

    def __init__(self, payload: dict[str, Any], clone: Path, base: str | None = None) -> None:
        self.payload = payload
        self.clone = Path(clone)
        default = str(payload.get("repository", {}).get("default_branch") or "main")
        self.base = base or self._first_ref(f"origin/{default}", default)
        self.head = self._git_sha("HEAD")
        self.writes: list[tuple[str, str]] = []

    def _git_sha(self, ref: str) -> str:
        from ..gitrun import git_or_none

        found = git_or_none(self.clone, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        sha = (found or "").strip()
        if len(sha) != 40:
            raise ReproauditError(
                f"{self.clone}: no commit {ref!r} in this clone",
                "run it in a clone of the pull request's branch, with --base naming the "
                "default branch (e.g. --base origin/main)",
            )
        return sha

    def _first_ref(self, *refs: str) -> str:
        for ref in refs:
            try:
                self._git_sha(ref)
                return ref
            except ReproauditError:
                continue
        return self._git_sha(refs[-1]) and refs[-1]  # raises with the hint

    # --- the reads ------------------------------------------------------------------

    def permission(self, repo: str, user: str) -> str:
        comment = self.payload.get("comment") or {}
        return ASSOCIATION_ROLE.get(str(comment.get("author_association") or ""), "read")

    def pull(self, repo: str, number: int) -> dict[str, Any]:
        issue = self.payload.get("issue") or {}
        return {
            "number": number,
            "head": {"sha": self.head},
            "base": {"sha": self._git_sha(self.base)},
            "user": issue.get("user") or {"login": "unknown"},
            "author_association": issue.get("author_association") or "NONE",
            # the issue_comment payload says whether the pull request is merged
            "merged": bool((issue.get("pull_request") or {}).get("merged_at")),
        }

    def pull_files(self, repo: str, number: int) -> list[str]:
        return [c.path for c in tree_changes(self.clone, self._git_sha(self.base), self.head)]

    def pull_files_complete(self, repo: str, number: int) -> tuple[list[str], bool]:
        return self.pull_files(repo, number), True  # git lists them all

    def workflow_runs(self, repo: str, head_sha: str, *, event: str) -> list[dict[str, Any]]:
        # no run can date the push offline: the head is taken as pushed before the comment,
        # by this pull request's own run (``binding.dates_this_pull`` wants it named)
        when = str((self.payload.get("comment") or {}).get("created_at") or "")
        number = (self.payload.get("issue") or {}).get("number")
        return [
            {
                "head_sha": head_sha,
                "event": "pull_request",
                "created_at": when,
                "pull_requests": [{"number": number}],
            }
        ]

    def timeline(self, repo: str, number: int) -> list[dict[str, Any]]:
        return []

    def file_text(self, repo: str, path: str, ref: str) -> str | None:
        with BlobReader(self.clone) as reader:
            data = reader.read(ref, path)
        return None if data is None else data.decode("utf-8", "replace")

    # --- every write is refused -----------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        if method == "GET":
            raise ReproauditError(f"offline: {path} cannot be read without the GitHub API")
        raise ReadOnlyError(f"offline: refusing to send {method} {path}")

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path)

    def paginate(self, path: str, **params: Any) -> list[Any]:
        return self.request("GET", path)

    def comment(self, repo: str, number: int, body: str) -> dict[str, Any]:
        return self.request("POST", f"/repos/{repo}/issues/{number}/comments")

    def edit_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        return self.request("PATCH", f"/repos/{repo}/issues/comments/{comment_id}")


def describe(outcome: dict[str, Any], default_backend: str = "local") -> list[str]:
    """What the real workflow run would do with this outcome, one line per action."""
    lines: list[str] = []
    if outcome.get("reply"):
        lines.append("reply in the pull request's thread (the text in `reply`)")
    if not outcome.get("allowed"):
        if outcome.get("command"):
            lines.append(f"nothing else: refused ({outcome.get('reason')})")
        return lines
    command = outcome.get("command")
    if command == "reproduce":
        backend = outcome.get("backend") or default_backend
        lines.append(
            f"start reproduce.yml (reproduce, backend {backend}) at "
            f"{str(outcome.get('head_sha'))[:12]}, after the `reproduce` environment's approval"
        )
    elif command == "rejudge":
        lines.append("start reproduce.yml (rejudge) unless a re-run of the PR is pending")
    record = outcome.get("record")
    if record:
        lines.append(
            f"append a {record.get('kind')} ({record.get('stance')} {record.get('claim')}) to "
            f"{layout.reviews_rel(str(record.get('paper')))} of pull request "
            f"#{outcome.get('pr')} on the pending branch through ci push; onto the default "
            "branch (then start site.yml) once the pull request is merged"
        )
    return lines
