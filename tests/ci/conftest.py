"""Fixtures for the GitHub flow: real webhook payloads, a fake REST API, a base checkout."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reproaudit.ci.github import GitHub
from tests.ci.fake_github import FakeGitHub
from tests.conftest import SHARED_FIXTURES

ROOT = Path(__file__).resolve().parents[2]
PAYLOADS = SHARED_FIXTURES / "github"  # REPROAUDIT_SHARED_FIXTURES moves it
HEAD = "9f1c2ab3c4d5e6f708192a3b4c5d6e7f80912a3b"
PR = 7


@pytest.fixture
def payloads() -> Path:
    if not PAYLOADS.is_dir():
        pytest.skip(f"{PAYLOADS} is absent (the webhook payload fixtures live in shared/)")
    return PAYLOADS


@pytest.fixture
def base_repo(tmp_path: Path) -> Path:
    """The base branch as the workflows check it out: this repository's data."""
    repo = tmp_path / "base"
    for name in ("claims", "logbooks", "verdicts"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    return repo


@pytest.fixture
def github_api() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.pulls[PR] = {"number": PR, "head": {"sha": HEAD}}
        fake.files[PR] = [
            "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml",
            "logbooks/Kp4rT9vQ2x/carol-paging-1.md",
            "logbooks/Kp4rT9vQ2x/carol-paging-1/sweep.py",
        ]
        fake.permissions.update({"maint": "maintain", "reader": "read", "ivandermeer": "read"})
        yield fake


@pytest.fixture
def client(github_api: FakeGitHub) -> Callable[..., GitHub]:
    def make(read_only: bool = False) -> GitHub:
        return GitHub(github_api.url, "test-token", read_only=read_only, backoff=0.01)

    return make


@pytest.fixture
def comment_event(payloads: Path) -> Callable[..., dict[str, Any]]:
    """The real `issue_comment.created` payload, on a PR, with this body and login."""
    original = json.loads((payloads / "issue_comment.created.json").read_text())

    def make(
        body: str,
        login: str = "maint",
        *,
        on_pr: bool = True,
        action: str = "created",
        user_type: str = "User",
    ) -> dict[str, Any]:
        event = copy.deepcopy(original)
        event["action"] = action
        event["issue"]["number"] = PR
        if on_pr:
            event["issue"]["pull_request"] = {
                "url": f"https://api.github.com/repos/Codertocat/Hello-World/pulls/{PR}"
            }
        event["comment"]["body"] = body
        event["comment"]["user"]["login"] = login
        event["comment"]["user"]["type"] = user_type
        return event

    return make
