"""The payload builders against GitHub's real examples (skipped when those are absent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reproaudit.ci.commands import parse_event
from tests.ci import payloads


def missing_keys(built: Any, real: Any, where: str = "") -> list[str]:
    """Keys the builder writes that GitHub's example does not have, recursively."""
    if isinstance(built, dict) and isinstance(real, dict):
        out = []
        for key, value in built.items():
            if key not in real:
                out.append(f"{where}.{key}")
            else:
                out += missing_keys(value, real[key], f"{where}.{key}")
        return out
    if isinstance(built, list) and isinstance(real, list) and built and real:
        return missing_keys(built[0], real[0], f"{where}[0]")
    return []


@pytest.mark.parametrize(
    ("name", "built"),
    [
        ("issue_comment.created.json", payloads.issue_comment("/help")),
        ("issue_comment.edited.json", payloads.issue_comment("/help", action="edited")),
        ("pull_request.opened.json", payloads.pull_request_event("opened")),
        ("pull_request.synchronize.json", payloads.pull_request_event("synchronize")),
        ("workflow_run.completed.with-prs.json", payloads.workflow_run_event()),
        # a fork's pull request: GitHub lists no pull request in its run
        ("workflow_run.completed.json", payloads.workflow_run_event(head_repo="yara/Hello-World")),
    ],
)
def test_built_payloads_use_githubs_field_names(payloads_dir: Path, name: str, built) -> None:
    real = json.loads((payloads_dir / name).read_text())
    assert real["action"] == built["action"]
    # the builders write only fields GitHub sends (the REST-only ones are listed)
    extra = set(missing_keys(built, real)) - {
        ".issue.pull_request",  # the example comment is on an issue, not a pull request
        ".issue.pull_request.url",
        ".pull_request.changed_files",
        ".workflow_run.head_repository.full_name",
    }
    assert extra == set()


def test_a_forks_run_lists_no_pull_request_as_in_githubs_example(payloads_dir: Path) -> None:
    real = json.loads((payloads_dir / "workflow_run.completed.json").read_text())
    built = payloads.workflow_run_event(head_repo="yara/Hello-World")
    assert real["workflow_run"]["pull_requests"] == built["workflow_run"]["pull_requests"] == []
    assert built["workflow_run"]["head_repository"]["full_name"] == "yara/Hello-World"


def test_parse_event_reads_the_real_example(payloads_dir: Path) -> None:
    event = parse_event(json.loads((payloads_dir / "issue_comment.created.json").read_text()))
    assert (event.repo, event.is_pull_request, event.action) == (
        "Codertocat/Hello-World",
        False,
        "created",
    )


@pytest.fixture
def payloads_dir(payloads: Path) -> Path:
    return payloads
