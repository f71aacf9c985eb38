"""A small GitHub REST client: the calls the workflows need, and nothing else.

httpx underneath; retries with backoff on 5xx, 429 and secondary rate limits
(honouring ``Retry-After`` and ``x-ratelimit-reset``); pagination through the
``Link`` header. The base URL and token come from ``$GITHUB_API_URL`` and
``$GITHUB_TOKEN`` as in Actions, so tests point it at a local server. A
``read_only`` client refuses every method but GET, which is what
``--dry-run`` means.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import GitHubError, ReadOnlyError

RETRY_STATUSES = {429, 500, 502, 503, 504}
WRITE_PERMISSIONS = {"admin", "maintain", "write"}
MAX_LISTED_FILES = 3000  # the pull-request files endpoint lists no more than this


@dataclass
class GitHub:
    api_url: str
    token: str | None
    read_only: bool = False
    max_retries: int = 4
    backoff: float = 1.0
    timeout: float = 30.0

    @classmethod
    def from_env(cls, *, read_only: bool = False) -> GitHub:
        return cls(
            api_url=os.environ.get("GITHUB_API_URL", "https://api.github.com"),
            token=os.environ.get("GITHUB_TOKEN") or None,
            read_only=read_only,
        )

    def __post_init__(self) -> None:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "reproaudit",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self._client = httpx.Client(
            base_url=self.api_url.rstrip("/"), headers=headers, timeout=self.timeout
        )
        self.writes: list[tuple[str, str]] = []  # (method, path) sent, for logs and tests

    # --- transport ------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        if method != "GET" and self.read_only:
            raise ReadOnlyError(f"dry run: refusing to send {method} {path}")
        for attempt in range(self.max_retries + 1):
            try:
                response = self._client.request(method, path, **kwargs)
            except httpx.TransportError as exc:
                if attempt == self.max_retries:
                    raise GitHubError(0, method, path, str(exc)) from None
                time.sleep(self.backoff * 2**attempt)
                continue
            if self._should_retry(response) and attempt < self.max_retries:
                time.sleep(self._delay(response, attempt))
                continue
            if response.status_code >= 400:
                raise GitHubError(response.status_code, method, path, _message(response))
            if method != "GET":
                self.writes.append((method, path))
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _should_retry(response: httpx.Response) -> bool:
        if response.status_code in RETRY_STATUSES:
            return True
        # secondary rate limits come as 403 with a Retry-After or an exhausted quota
        return response.status_code == 403 and (
            "retry-after" in response.headers
            or response.headers.get("x-ratelimit-remaining") == "0"
        )

    def _delay(self, response: httpx.Response, attempt: int) -> float:
        retry_after = response.headers.get("retry-after")
        if retry_after:
            try:
                return min(float(retry_after), 120.0)
            except ValueError:
                pass
        reset = response.headers.get("x-ratelimit-reset")
        if reset and reset.isdigit():
            return min(max(int(reset) - time.time(), 0.0), 120.0)
        return self.backoff * 2**attempt

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params or None).json()

    def paginate(self, path: str, **params: Any) -> list[Any]:
        """Every item of a list endpoint, following ``Link: <...>; rel="next"``."""
        items: list[Any] = []
        response = self.request("GET", path, params={"per_page": 100, **params})
        while True:
            items.extend(response.json())
            next_url = response.links.get("next", {}).get("url")
            if not next_url:
                return items
            response = self.request("GET", next_url)

    # --- the calls the workflows make -----------------------------------------

    def permission(self, repo: str, user: str) -> str:
        """A user's permission on the repository: admin, maintain, write, triage, read or none."""
        try:
            data = self.get(f"/repos/{repo}/collaborators/{user}/permission")
        except GitHubError as exc:
            if exc.status == 404:
                return "none"
            raise
        return str(data.get("role_name") or data.get("permission") or "none")

    def pull(self, repo: str, number: int) -> dict[str, Any]:
        return self.get(f"/repos/{repo}/pulls/{number}")

    def pull_files(self, repo: str, number: int) -> list[str]:
        return _changed_paths(self.paginate(f"/repos/{repo}/pulls/{number}/files"))

    def pull_files_complete(self, repo: str, number: int) -> tuple[list[str], bool]:
        """The PR's changed paths, and whether that list is complete.

        The files endpoint lists at most 3,000 files: the list is complete only when
        it holds as many entries as the pull request's ``changed_files`` count and
        that count is under the cap.
        """
        total = int(self.pull(repo, number).get("changed_files") or 0)
        items = self.paginate(f"/repos/{repo}/pulls/{number}/files")
        return _changed_paths(items), len(items) == total and total < MAX_LISTED_FILES

    def workflow_runs(self, repo: str, head_sha: str, *, event: str) -> list[dict[str, Any]]:
        """Workflow runs for one head commit and trigger event (newest first, as GitHub lists)."""
        data = self.get(f"/repos/{repo}/actions/runs", head_sha=head_sha, event=event, per_page=100)
        return list(data.get("workflow_runs") or [])

    def timeline(self, repo: str, number: int) -> list[dict[str, Any]]:
        """The issue timeline of a pull request (commits, force pushes, reviews...)."""
        return self.paginate(f"/repos/{repo}/issues/{number}/timeline")

    def file_text(self, repo: str, path: str, ref: str) -> str | None:
        """A file's text at ``ref`` (the raw media type), or None when it does not exist."""
        try:
            response = self.request(
                "GET",
                f"/repos/{repo}/contents/{path}",
                params={"ref": ref},
                headers={"Accept": "application/vnd.github.raw+json"},
            )
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        return response.text

    def issue_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return self.paginate(f"/repos/{repo}/issues/{number}/comments")

    def comment(self, repo: str, number: int, body: str) -> dict[str, Any]:
        return self.request(
            "POST", f"/repos/{repo}/issues/{number}/comments", json={"body": body}
        ).json()

    def edit_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        return self.request(
            "PATCH", f"/repos/{repo}/issues/comments/{comment_id}", json={"body": body}
        ).json()

    def create_pull(self, repo: str, title: str, head: str, base: str, body: str) -> str:
        """Open a pull request from branch ``head`` into ``base``; its web address."""
        data = self.request(
            "POST",
            f"/repos/{repo}/pulls",
            json={"title": title, "head": head, "base": base, "body": body},
        ).json()
        return str(data.get("html_url", ""))

    def check_run(
        self, repo: str, head_sha: str, name: str, conclusion: str, title: str, summary: str
    ) -> dict[str, Any]:
        return self.request(
            "POST",
            f"/repos/{repo}/check-runs",
            json={
                "name": name,
                "head_sha": head_sha,
                "status": "completed",
                "conclusion": conclusion,
                "output": {"title": title, "summary": summary[:65_000]},
            },
        ).json()


def _message(response: httpx.Response) -> str:
    try:
        return str(response.json().get("message", response.text[:200]))
    except ValueError:
        return response.text[:200]


def _changed_paths(items: list[dict[str, Any]]) -> list[str]:
    """Each changed file's path, and its old path too when it was renamed."""
    out = []
    for item in items:
        out.append(item["filename"])
        if item.get("previous_filename"):
            out.append(item["previous_filename"])
    return out
