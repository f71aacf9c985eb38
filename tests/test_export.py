"""Export and publish: the claims x verdicts table in three formats, and the dataset card."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.export import COLUMNS, FORMATS, corpus_frame, encode, file_name, write_export

ROOT = Path(__file__).resolve().parents[1]
# the site fixture (a frozen copy of the examples), never the repository's live verdicts/
SITE = ROOT / "tests" / "data" / "repos" / "site"


def repo_copy(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks", "verdicts"):
        shutil.copytree(SITE / name, repo / name, ignore=shutil.ignore_patterns("results"))
    return repo


def test_export_rows_cover_every_claim_and_verdict(tmp_path: Path) -> None:
    frame = corpus_frame(repo_copy(tmp_path))
    assert list(frame.columns) == COLUMNS
    judged = frame[frame["logbook"].notna()]
    assert len(judged) == 35
    untested = frame[frame["paper"] == "Ue9sJ4kD7g"]
    assert set(untested["claim_fold"]) == {"untested"} and untested["logbook"].isna().all()
    carol = judged[(judged["logbook"] == "carol-paging-1") & (judged["claim"] == "C1")].iloc[0]
    assert carol["verdict"] == "falsified" and "growth_detected" in carol["flags"].split(";")
    assert carol["paper_bucket"] == "falsified"


def test_export_command_writes_three_formats_that_agree(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    out = tmp_path / "export"
    result = CliRunner().invoke(cli, ["export", "--repo", str(repo), "--out", str(out)])
    assert result.exit_code == 0, result.output
    csv = pd.read_csv(out / "claims-verdicts.csv.gz")
    parquet = pd.read_parquet(out / "claims-verdicts.parquet")
    lines = gzip.decompress((out / "claims-verdicts.jsonl.gz").read_bytes()).splitlines()
    assert len(csv) == len(parquet) == len(lines) == 37  # 35 verdict rows + 2 untested claims
    assert json.loads(lines[0]).keys() == set(COLUMNS)
    assert pd.read_json(out / "claims-verdicts.jsonl.gz", lines=True).shape == csv.shape
    result = CliRunner().invoke(
        cli, ["export", "--repo", str(repo), "--out", str(out / "only"), "--format", "csv"]
    )
    assert sorted(p.name for p in (out / "only").iterdir()) == ["claims-verdicts.csv.gz"]


def test_the_gzipped_files_are_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    frame = corpus_frame(repo_copy(tmp_path))
    first, again = tmp_path / "first", tmp_path / "again"
    write_export(frame, first)
    write_export(frame, again)
    for fmt in FORMATS:
        name = file_name(fmt)
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    raw = (first / "claims-verdicts.csv.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b" and raw[4:8] == bytes(4)  # gzip, modification time 0
    assert not raw[3] & 0x08  # no file name in the header (it would name the temp file)
    assert gzip.decompress(raw) == encode(frame, "csv")


def test_publish_dry_run_writes_the_folder_and_sends_nothing(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    args = ["publish", "--repo", str(repo), "--repo-id", "audit-org/icml2026", "--dry-run"]
    result = CliRunner(env={"HF_TOKEN": ""}).invoke(cli, [*args, "--folder", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "dry run: would upload README.md, claims-verdicts.csv.gz, claims-verdicts.jsonl.gz, "
        "claims-verdicts.parquet from "
    )
    folder = Path(result.output.split(" from ")[1].split(" to ")[0])
    card = (folder / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0\n")
    assert "data_files: claims-verdicts.parquet" in card
    assert "| contested | 1 |" in card
    names = "`claims-verdicts.csv.gz`, `claims-verdicts.parquet`, `claims-verdicts.jsonl.gz`"
    assert f"Files: {names}." in card


def test_publish_refuses_a_bad_repo_id(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["publish", "--repo", str(repo_copy(tmp_path)), "--repo-id", "no-slash", "--dry-run"]
    )
    assert result.exit_code == 1
    assert "'no-slash' is not ORG/NAME" in result.output
