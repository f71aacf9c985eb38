"""Shared fixtures: a small real repository and the shared fixtures folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = ROOT.parent / "shared" / "fixtures"


@pytest.fixture
def mini_repo(tmp_path: Path) -> Path:
    """A copy of tests/data/repos/mini that a test may change."""
    repo = tmp_path / "repo"
    shutil.copytree(DATA / "repos" / "mini", repo)
    return repo


@pytest.fixture
def shared_fixtures() -> Path:
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"{SHARED_FIXTURES} is absent (only the project's own machines have it)")
    return SHARED_FIXTURES
