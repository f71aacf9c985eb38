"""Webhook payloads and REST objects built in GitHub's documented shapes.

Each builder writes the fields GitHub documents for the event or endpoint
(https://docs.github.com/en/webhooks/webhook-events-and-payloads and the REST
reference), with the values a test chooses. The real examples in
``shared/fixtures/github/`` are an extra check (``test_payloads.py``) that these
shapes match what GitHub sends; the tests themselves never need them.
"""

from __future__ import annotations

from typing import Any

REPO = "Codertocat/Hello-World"
HEAD = "9f1c2ab3c4d5e6f708192a3b4c5d6e7f80912a3b"
BASE = "0a1b2c3d4e5f60718293a4b5c6d7e8f901a2b3c4"
PR = 7
API = "https://api.github.com"
WEB = "https://github.com"


def user(login: str, *, kind: str = "User", uid: int = 21031067) -> dict[str, Any]:
    return {
        "login": login,
        "id": uid,
        "node_id": "MDQ6VXNlcjIxMDMxMDY3",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
        "url": f"{API}/users/{login}",
        "html_url": f"{WEB}/{login}",
        "type": kind,
        "site_admin": False,
    }


def repository(full_name: str = REPO) -> dict[str, Any]:
    owner, name = full_name.split("/")
    return {
        "id": 186853002,
        "node_id": "MDEwOlJlcG9zaXRvcnkxODY4NTMwMDI=",
        "name": name,
        "full_name": full_name,
        "private": False,
        "owner": user(owner),
        "html_url": f"{WEB}/{full_name}",
        "url": f"{API}/repos/{full_name}",
        "default_branch": "main",
    }


def issue_comment(
    body: str,
    login: str = "maint",
    *,
    number: int = PR,
    on_pr: bool = True,
    action: str = "created",
    user_type: str = "User",
    created_at: str = "2026-07-21T10:00:00Z",
    association: str = "NONE",
    comment_id: int = 492700400,
    repo: str = REPO,
) -> dict[str, Any]:
    """An ``issue_comment`` event (``created`` or ``edited``) on a pull request or an issue."""
    issue: dict[str, Any] = {
        "url": f"{API}/repos/{repo}/issues/{number}",
        "html_url": f"{WEB}/{repo}/{'pull' if on_pr else 'issues'}/{number}",
        "id": 444500041,
        "number": number,
        "title": "Add a logbook",
        "user": user("contributor"),
        "state": "open",
        "locked": False,
        "comments": 1,
        "created_at": "2026-07-20T09:00:00Z",
        "updated_at": created_at,
        "author_association": "CONTRIBUTOR",
        "body": "",
    }
    if on_pr:
        issue["pull_request"] = {
            "url": f"{API}/repos/{repo}/pulls/{number}",
            "html_url": f"{WEB}/{repo}/pull/{number}",
            "diff_url": f"{WEB}/{repo}/pull/{number}.diff",
            "patch_url": f"{WEB}/{repo}/pull/{number}.patch",
            "merged_at": None,
        }
    event: dict[str, Any] = {
        "action": action,
        "issue": issue,
        "comment": {
            "url": f"{API}/repos/{repo}/issues/comments/{comment_id}",
            "html_url": f"{WEB}/{repo}/pull/{number}#issuecomment-{comment_id}",
            "issue_url": f"{API}/repos/{repo}/issues/{number}",
            "id": comment_id,
            "node_id": "MDEyOklzc3VlQ29tbWVudDQ5MjcwMDQwMA==",
            "user": user(login, kind=user_type),
            "created_at": created_at,
            "updated_at": created_at,
            "author_association": association,
            "body": body,
        },
        "repository": repository(repo),
        "sender": user(login, kind=user_type),
    }
    if action == "edited":
        event["changes"] = {"body": {"from": "an earlier text"}}
    return event


def pull(
    number: int = PR,
    *,
    head: str = HEAD,
    base: str = BASE,
    author: str = "contributor",
    association: str = "CONTRIBUTOR",
    changed_files: int = 0,
    repo: str = REPO,
    head_ref: str = "patch-1",
    head_repo: str | None = None,
    state: str = "open",
    merged: bool = False,
    closed_at: str | None = None,
) -> dict[str, Any]:
    """``GET /repos/{owner}/{repo}/pulls/{number}`` (the fields the flow reads, and more).

    The head branch is in the base repository (``head.repo``), as for a maintainer-pushed or
    same-repository branch, unless ``head_repo`` names a fork; runs of a same-repository pull
    request list it in ``pull_requests``, runs of a fork's list none. A merged pull request is
    ``state: closed`` with ``merged: true``.
    """
    fork = head_repo or repo
    return {
        "url": f"{API}/repos/{repo}/pulls/{number}",
        "id": 279147437,
        "html_url": f"{WEB}/{repo}/pull/{number}",
        "number": number,
        "title": "Add a logbook",
        "user": user(author),
        "author_association": association,
        "head": {
            "label": f"{fork.split('/')[0]}:{head_ref}",
            "ref": head_ref,
            "sha": head,
            "user": user(author),
            "repo": repository(fork),
        },
        "base": {
            "label": f"{repo.split('/')[0]}:main",
            "ref": "main",
            "sha": base,
            "user": user(repo.split("/")[0]),
            "repo": repository(repo),
        },
        "state": state,
        "merged": merged,
        "merged_at": closed_at if merged else None,
        "closed_at": closed_at,
        "commits": 1,
        "changed_files": changed_files,
    }


def pull_request_event(action: str = "opened", **kwargs: Any) -> dict[str, Any]:
    """A ``pull_request`` event (``opened``, ``synchronize``...)."""
    pr = pull(**kwargs)
    event = {
        "action": action,
        "number": pr["number"],
        "pull_request": pr,
        "repository": repository(kwargs.get("repo", REPO)),
        "sender": pr["user"],
    }
    if action == "synchronize":
        event["before"] = "0" * 40
        event["after"] = pr["head"]["sha"]
    return event


def workflow_run_event(
    *,
    head: str = HEAD,
    base: str = BASE,
    number: int | None = PR,
    conclusion: str = "success",
    run_id: int = 30433642,
    repo: str = REPO,
    head_repo: str | None = None,
    head_ref: str = "patch-1",
) -> dict[str, Any]:
    """A ``workflow_run.completed`` event of validate.yml for a pull request's head.

    With ``head_repo`` (a fork), ``pull_requests`` is empty, as GitHub sends it for forks.
    """
    pulls = []
    if number is not None and head_repo is None:
        pulls.append(
            {
                "url": f"{API}/repos/{repo}/pulls/{number}",
                "id": 279147437,
                "number": number,
                "head": {"ref": head_ref, "sha": head, "repo": {"name": repo.split("/")[1]}},
                "base": {"ref": "main", "sha": base, "repo": {"name": repo.split("/")[1]}},
            }
        )
    run = workflow_run(
        head, run_id=run_id, conclusion=conclusion, head_ref=head_ref, head_repo=head_repo or repo
    )
    return {
        "action": "completed",
        "workflow_run": run | {"pull_requests": pulls},
        "repository": repository(repo),
        "sender": user("contributor"),
    }


def run_pull(number: int = PR, head: str = HEAD, head_ref: str = "patch-1") -> dict[str, Any]:
    """One item of a workflow run's ``pull_requests`` (a minimal pull request)."""
    name = REPO.split("/")[1]
    return {
        "url": f"{API}/repos/{REPO}/pulls/{number}",
        "id": 279147437 + number,
        "number": number,
        "head": {"ref": head_ref, "sha": head, "repo": {"id": 186853002, "name": name}},
        "base": {"ref": "main", "sha": BASE, "repo": {"id": 186853002, "name": name}},
    }


def workflow_run(
    head: str = HEAD,
    *,
    created_at: str = "2026-07-21T09:00:00Z",
    run_id: int = 30433642,
    event: str = "pull_request",
    conclusion: str | None = "success",
    workflow: str = "validate",
    display_title: str = "Add a logbook",
    pulls: tuple[int, ...] = (PR,),
    head_ref: str = "patch-1",
    head_repo: str = REPO,
) -> dict[str, Any]:
    """One item of ``GET /repos/{o}/{r}/actions/runs`` (``workflow_runs[]``).

    ``pulls`` are the open pull requests GitHub lists in ``pull_requests`` (empty for a
    pull request from a fork); ``head_ref``/``head_repo`` the branch the run was for.
    """
    return {
        "id": run_id,
        "name": workflow,
        "display_title": display_title,
        "pull_requests": [run_pull(n, head, head_ref) for n in pulls],
        "head_branch": head_ref,
        "head_sha": head,
        "path": f".github/workflows/{workflow}.yml",
        "run_number": 562,
        "event": event,
        "status": "completed" if conclusion else "in_progress",
        "conclusion": conclusion,
        "workflow_id": 159038,
        "created_at": created_at,
        "updated_at": created_at,
        "run_started_at": created_at,
        # a workflow_run's repositories are the short form: no default_branch
        "head_repository": {
            k: v for k, v in repository(head_repo).items() if k != "default_branch"
        },
    }


def force_pushed(created_at: str, actor: str = "contributor") -> dict[str, Any]:
    """A ``head_ref_force_pushed`` item of ``GET /repos/{o}/{r}/issues/{n}/timeline``."""
    return {
        "id": 6430295168,
        "node_id": "HRFPE_lADOA",
        "url": f"{API}/repos/{REPO}/issues/events/6430295168",
        "actor": user(actor),
        "event": "head_ref_force_pushed",
        "commit_id": None,
        "commit_url": None,
        "created_at": created_at,
    }


def committed(sha: str, date: str) -> dict[str, Any]:
    """A ``committed`` timeline item: a commit, with the dates its author wrote."""
    person = {"name": "Contributor", "email": "c@example.org", "date": date}
    return {
        "sha": sha,
        "node_id": "C_kwDOA",
        "url": f"{API}/repos/{REPO}/git/commits/{sha}",
        "html_url": f"{WEB}/{REPO}/commit/{sha}",
        "author": person,
        "committer": person,
        "message": "update",
        "event": "committed",
    }
