"""`reproaudit check`: what CI will do to a logbook, locally, with the same report."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from reproaudit.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def repo_copy(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    return repo


def test_check_reruns_a_cpu_logbook_and_prints_the_pr_report(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    result = CliRunner().invoke(
        cli, ["check", "logbooks/Zm7Lw_3HqE/erin-asd-1.yaml", "--repo", str(repo)]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("<!-- reproaudit:report status=ok")
    assert "| C1 | falsified |" in out
    assert "(re-run)" in out  # the judge read the local re-run's outputs
    assert "Local re-run: passed in" in out
    assert "reproaudit check logbooks/Zm7Lw_3HqE/erin-asd-1.yaml" in out
    assert not (repo / "verdicts").exists()  # nothing written into the contribution


def test_check_without_rerun_and_an_invalid_logbook(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    ok = CliRunner().invoke(
        cli, ["check", "logbooks/Zm7Lw_3HqE/erin-asd-1.yaml", "--no-rerun", "--repo", str(repo)]
    )
    assert ok.exit_code == 0 and "not_rerun" in ok.output and "Local re-run" not in ok.output
    book = repo / "logbooks/Zm7Lw_3HqE/erin-asd-1.yaml"
    book.write_text(book.read_text().replace("self_assessment:", "self_asessment:", 1))
    bad = CliRunner().invoke(cli, ["check", str(book), "--repo", str(repo)])
    assert bad.exit_code == 1
    assert "status=fail" in bad.output.splitlines()[0]
    assert "unknown field 'self\\_asessment'" in bad.output


def test_check_refuses_what_is_not_a_logbook(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    result = CliRunner().invoke(
        cli, ["check", "claims/icml2026/Kp4rT9vQ2x.yaml", "--repo", str(repo)]
    )
    assert result.exit_code == 1
    assert "not a logbook" in result.output
