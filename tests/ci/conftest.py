"""Fixtures for the GitHub flow: payloads in GitHub's shapes, a fake REST API, a base checkout."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reproaudit.ci.github import GitHub
from tests.ci import payloads as payloads_mod
from tests.ci.fake_github import FakeGitHub
from tests.conftest import SHARED_FIXTURES
from tests.gitutil import git

ROOT = Path(__file__).resolve().parents[2]
PAYLOADS = SHARED_FIXTURES / "github"  # REPROAUDIT_SHARED_FIXTURES moves it
HEAD = payloads_mod.HEAD
PR = payloads_mod.PR


@pytest.fixture
def payloads() -> Path:
    """The real examples (an extra check only: every test builds its own payloads)."""
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
def origin(base_repo: Path, tmp_path: Path) -> Path:
    """The audit repository on 'GitHub': a bare repository whose main holds ``base_repo``."""
    git(base_repo, "init", "-q", "-b", "main")
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "base")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(base_repo), str(bare))
    return bare


def checkout(origin: Path, where: Path) -> Path:
    """A job's ``actions/checkout`` of the default branch, as it was when the job started."""
    git(where.parent, "clone", "-q", str(origin), str(where))
    return where


@pytest.fixture
def github_api() -> Iterator[FakeGitHub]:
    """The PR adds carol's logbook; its head was pushed (validate ran) before comments at 10:00."""
    with FakeGitHub() as fake:
        fake.pulls[PR] = payloads_mod.pull(PR, author="carol", changed_files=3)
        fake.files[PR] = [
            "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml",
            "logbooks/Kp4rT9vQ2x/carol-paging-1.md",
            "logbooks/Kp4rT9vQ2x/carol-paging-1/sweep.py",
        ]
        fake.runs.append(payloads_mod.workflow_run(HEAD, created_at="2026-07-21T09:00:00Z"))
        fake.permissions.update({"maint": "maintain", "reader": "read", "ivandermeer": "read"})
        yield fake


@pytest.fixture
def client(github_api: FakeGitHub) -> Callable[..., GitHub]:
    def make(read_only: bool = False) -> GitHub:
        return GitHub(github_api.url, "test-token", read_only=read_only, backoff=0.01)

    return make


@pytest.fixture
def comment_event() -> Callable[..., dict[str, Any]]:
    """An ``issue_comment`` payload in GitHub's documented shape, on PR 7 at 10:00."""

    def make(body: str, login: str = "maint", **kwargs: Any) -> dict[str, Any]:
        return payloads_mod.issue_comment(body, login, **kwargs)

    return make
