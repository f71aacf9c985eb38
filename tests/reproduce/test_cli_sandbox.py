"""``--sandbox`` on the command line: the default, ``none`` said loudly, refusals in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.reproduce.sandbox import bwrap_available
from tests.test_check import repo_copy
from tests.test_reproduce import PAPER

ERIN = "logbooks/Zm7Lw_3HqE/erin-asd-1.yaml"


def test_check_with_sandbox_none_says_it_was_not_sandboxed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    repo = repo_copy(tmp_path)
    result = CliRunner().invoke(cli, ["check", ERIN, "--repo", str(repo), "--sandbox", "none"])
    assert result.exit_code == 0, result.output
    assert (
        "NOT SANDBOXED: the re-run ran unconfined on this machine (--sandbox none); "
        "CI always runs it in a sandbox." in result.output
    )


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
def test_check_runs_in_bwrap_by_default(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    result = CliRunner().invoke(cli, ["check", ERIN, "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert "NOT SANDBOXED" not in result.output


def test_sandbox_none_is_refused_in_ci(mini_repo: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = CliRunner().invoke(
        cli,
        ["reproduce", f"logbooks/{PAPER}/ann-1.yaml", "--repo", str(mini_repo),
         "--out", str(tmp_path / "o"), "--sandbox", "none"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.output == (
        "--sandbox: --sandbox none is refused in CI: contributor code never runs unconfined "
        "there\n"
        "  hint: use --sandbox bwrap (CPU) or --sandbox docker (GPU runners)\n"
    )
    assert not (tmp_path / "o").exists()


def test_missing_bubblewrap_is_one_line_with_the_fix(mini_repo, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    result = CliRunner().invoke(
        cli,
        ["reproduce", f"logbooks/{PAPER}/ann-1.yaml", "--repo", str(mini_repo),
         "--out", str(tmp_path / "o")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.output.startswith(
        "--sandbox: bubblewrap (bwrap) is not installed or cannot create namespaces here"
        "\n  hint: install it (`sudo apt-get install bubblewrap`)"
    )


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
def test_reproduce_records_the_sandbox_and_limits(mini_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    result = CliRunner().invoke(
        cli, ["reproduce", f"logbooks/{PAPER}/ann-1.yaml", "--repo", str(mini_repo),
              "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "[local, sandbox bwrap]" in result.output
    run = json.loads((out / PAPER / "ann-1" / "run.json").read_text())
    assert run["limits"]["wall_s"] == 600 and run["limits"]["processes"] == 256
