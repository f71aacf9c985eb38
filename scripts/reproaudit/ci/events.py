"""Reading the JSON files a workflow hands to a step (events, outcomes) as untrusted data."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import ArtifactError, ReproauditError
from ..models import GITHUB_PATTERN
from .github import GitHub

MAX_EVENT_BYTES = 25_000_000  # GitHub caps webhook payloads at 25 MB


def read_json(path: Path) -> Any:
    """The JSON value in ``path``; a file that is unreadable or not JSON is an artifact error."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_EVENT_BYTES:
            raise ArtifactError(path, f"larger than {MAX_EVENT_BYTES} bytes; refusing it")
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise ArtifactError(path, f"cannot read it: {exc.strerror}") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise ArtifactError(path, f"not JSON: {exc}") from None


def pr_target(
    github: GitHub, event: Path | None, pr: int | None, sha: str | None
) -> tuple[int, str]:
    """(PR number, head SHA): from a ``workflow_run`` event file when given, else as given."""
    if event is not None:
        return pr_of_workflow_run(read_json(event), github)
    assert pr is not None and sha is not None, "the command line checks --pr and --sha"
    return pr, sha


def pr_of_workflow_run(event: dict[str, Any], github: GitHub) -> tuple[int, str]:
    """(PR number, head SHA) of a ``workflow_run`` event, from trusted fields only.

    ``workflow_run.pull_requests`` is empty for pull requests from forks; then the
    open pull request whose head is the run's head SHA is looked up.
    """
    try:
        run = event["workflow_run"]
        head_sha = str(run["head_sha"])
        repo = str(event["repository"]["full_name"])
    except (KeyError, TypeError) as exc:
        raise ArtifactError("the event", f"not a workflow_run event: missing {exc}") from None
    for pull in run.get("pull_requests") or []:
        if str(pull.get("head", {}).get("sha")) == head_sha:
            return int(pull["number"]), head_sha
    for pull in github.paginate(f"/repos/{repo}/pulls", state="open"):
        if pull["head"]["sha"] == head_sha:
            return int(pull["number"]), head_sha
    raise ReproauditError(f"no open pull request has head {head_sha[:12]}")


def pr_author(github: GitHub, event: Path) -> str:
    """The login of the author of a ``workflow_run`` event's pull request, lower case.

    rerun.yml keys its concurrency group on it: one automatic re-run at a time per
    contributor, however many branches or pull requests they open. From trusted facts only
    (the event's head, then the pull request as the API gives it), never from a branch name
    or a file of the pull request; a login not in GitHub's form is refused, since it is
    written into the workflow's outputs.
    """
    data = read_json(event)
    number, _ = pr_of_workflow_run(data, github)
    repo = str(data["repository"]["full_name"])
    try:
        login = str(github.pull(repo, number)["user"]["login"])
    except (KeyError, TypeError):
        raise ReproauditError(f"pull request {number} names no author") from None
    if not re.fullmatch(GITHUB_PATTERN, login):
        raise ReproauditError(f"pull request {number}: {login[:60]!r} is not a GitHub login")
    return login.lower()


def head_of_workflow_run(event: Path) -> str:
    """The head SHA of a ``workflow_run`` event file, read offline (no API call)."""
    data = read_json(event)
    try:
        head = str(data["workflow_run"]["head_sha"])
    except (KeyError, TypeError) as exc:
        raise ArtifactError(event, f"not a workflow_run event: missing {exc}") from None
    if len(head) != 40 or any(c not in "0123456789abcdef" for c in head):
        raise ArtifactError(event, f"workflow_run.head_sha: {head[:60]!r} is not a full SHA")
    return head
