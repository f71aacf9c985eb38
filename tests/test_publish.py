"""`publish` checks the Hub repo id before writing anything, and leaves no temp folder."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from tests.test_export import repo_copy


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Python's temp folder, moved somewhere this test can watch."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


@pytest.mark.parametrize(
    ("repo_id", "message"),
    [
        ("org/name\n", "may hold only letters"),
        ("org/na\nme", "may hold only letters"),
        ("org/name\n---\nlicense: evil", "may hold only letters"),
        ("org/n\u00e4me", "may hold only letters"),
        ("org/a b", "may hold only letters"),
        ("org/a--b", "is not a Hub repo id"),
        ("org/..x", "is not a Hub repo id"),
        ("org/x.git", "is not a Hub repo id"),
        ("a/b/c", "is not ORG/NAME"),
        ("org/" + "x" * 97, "may hold only letters"),
    ],
)
def test_a_bad_repo_id_is_refused_before_anything_is_written(
    tmp_path: Path, temp_root: Path, repo_id: str, message: str
) -> None:
    result = CliRunner().invoke(
        cli, ["publish", "--repo", str(repo_copy(tmp_path)), "--repo-id", repo_id, "--dry-run"]
    )
    assert result.exit_code == 1
    assert message in result.output
    assert "--repo-id" in result.output
    assert list(temp_root.iterdir()) == []


def test_a_dry_run_cleans_up_its_temp_folder(tmp_path: Path, temp_root: Path) -> None:
    repo = repo_copy(tmp_path)
    for _ in range(3):
        result = CliRunner(env={"HF_TOKEN": ""}).invoke(
            cli, ["publish", "--repo", str(repo), "--repo-id", "audit-org/icml2026", "--dry-run"]
        )
        assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "dry run: would upload README.md, claims-verdicts.csv.gz, claims-verdicts.jsonl.gz, "
        "claims-verdicts.parquet to datasets/audit-org/icml2026 (37 rows; written to a "
        "temporary folder, now removed"
    )
    assert list(temp_root.iterdir()) == []


def test_a_kept_folder_holds_a_card_naming_the_dataset(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner(env={"HF_TOKEN": ""}).invoke(
        cli,
        [
            "publish",
            "--repo",
            str(repo_copy(tmp_path)),
            "--repo-id",
            "audit-org/icml2026.v2_x",
            "--dry-run",
            "--folder",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    card = (out / "README.md").read_text()
    assert "\n# audit-org/icml2026.v2_x\n" in card
