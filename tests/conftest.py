"""Shared fixtures: a small real repository and the shared fixtures folder.

Tests run in a user's clone, where `../shared/fixtures/` (real examples kept on the
project's own machines) does not exist. Only two kinds of test may skip there: the
extra checks against those real examples (`shared_fixtures`, `payloads`), the
browser tests without Chromium, and the sandboxed re-runs without bubblewrap (`needs_bwrap`:
`apt-get install bubblewrap`; CI installs it). `REPROAUDIT_SHARED_FIXTURES=/nonexistent pytest`
plays a user's clone on the project's machines; the summary counts skips by reason.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]
BWRAP_REASON = "bubblewrap (bwrap) cannot run here: apt-get install bubblewrap"


def _bwrap_available() -> bool:
    from reproaudit.reproduce.sandbox import bwrap_available

    return bwrap_available()


# Tests that re-run contributor code in the default sandbox (bwrap for CPU logbooks).
needs_bwrap = pytest.mark.skipif(not _bwrap_available(), reason=BWRAP_REASON)
SHARED_FIXTURES = Path(
    os.environ.get("REPROAUDIT_SHARED_FIXTURES") or ROOT.parent / "shared" / "fixtures"
)
SHARED_REASON = "is absent (only the project's own machines have it)"


@pytest.fixture
def mini_repo(tmp_path: Path) -> Path:
    """A copy of tests/data/repos/mini that a test may change."""
    repo = tmp_path / "repo"
    shutil.copytree(DATA / "repos" / "mini", repo)
    return repo


@pytest.fixture
def shared_fixtures() -> Path:
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"{SHARED_FIXTURES} {SHARED_REASON}")
    return SHARED_FIXTURES


def skip_kind(reason: str) -> str:
    """Which of the allowed kinds a skip is: shared fixtures, browser, or other (a defect)."""
    if str(SHARED_FIXTURES) in reason or ("fixtures" in reason and "absent" in reason):
        return "real examples in ../shared/fixtures absent"
    if "Chromium" in reason or "chromium" in reason or "browser" in reason:
        return "no Chromium"
    if reason.endswith(BWRAP_REASON) or "bubblewrap" in reason:
        return "no bubblewrap"
    return "other"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    kinds: Counter[str] = Counter()
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        kinds[skip_kind(reason)] += 1
    line = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    terminalreporter.write_line(f"skips by kind: {line}")
