"""One build of the site fixture repository per test session, shared by the site tests.

The fixture (tests/data/repos/site) is a frozen copy of the example corpus with a
maintainer review, a ``site_url`` and a ``repo_url``; it is committed to a real git
repository so logbook pages link their files at that commit.
"""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reproaudit.site.build import build_site
from tests.gitutil import git

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "repos" / "site"
NOW = datetime(2026, 12, 3, tzinfo=UTC)
SITE_URL = "https://audit.example.org/conf2026/"


def site_repo(tmp_path: Path, commit: bool = False) -> Path:
    """A copy of the site fixture repository that a test may change."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    if commit:
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "fixture")
    return repo


def head_of(repo: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture(scope="session")
def site_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(repository, built site) of the fixture, built once."""
    repo = site_repo(tmp_path_factory.mktemp("site"), commit=True)
    report = build_site(repo, repo / "_site", now=NOW)
    assert report.judged == 0  # the fixture's verdicts are all there
    return repo, report.out


@pytest.fixture(scope="session")
def built(site_build: tuple[Path, Path]) -> Path:
    return site_build[1]
