"""--strict for stats, build and export: the corpus damage that used to change numbers silently."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.corpus_check import check_corpus

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks", "verdicts", "reruns"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    return repo


def truncate(repo: Path) -> str:
    rel = "verdicts/Kp4rT9vQ2x/bob-paging-1.yaml"
    text = (repo / rel).read_text()
    (repo / rel).write_text(text[: len(text) // 2].rsplit("\n", 1)[0] + "\n  - claim: [\n")
    return rel


def duplicate(repo: Path) -> str:
    rel = "verdicts/T5wPj8mRaK/kai-speedup-1.yaml"
    text = (repo / rel).read_text()
    first = text.index("- claim: C1")
    second = text.index("- claim:", first + 1)
    (repo / rel).write_text(text + text[first:second])
    return rel


def bad_outputs(repo: Path) -> str:
    rel = "reruns/Zm7Lw_3HqE/dave-asd-1/outputs.json"
    (repo / rel).write_text('{"C1": {"value": 0.9')
    return rel


def renamed_claim(repo: Path) -> str:
    rel = "claims/icml2026/r8GdN2-yUc.yaml"
    text = (repo / rel).read_text()
    (repo / rel).write_text(text.replace("id: C1", "id: C9", 1))
    return "verdicts/r8GdN2-yUc/frank-distill-1.yaml"


def deleted_logbook(repo: Path) -> str:
    (repo / "logbooks/Hq3VbX0tLs/ivan-tagger-1.yaml").unlink()
    return "verdicts/Hq3VbX0tLs/ivan-tagger-1.yaml"


DAMAGE = [truncate, duplicate, bad_outputs, renamed_claim, deleted_logbook]


def test_the_example_corpus_is_clean(corpus: Path) -> None:
    assert check_corpus(corpus).problems == []


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__)
def test_strict_stats_fails_on_each_kind_of_damage(corpus: Path, damage) -> None:
    rel = damage(corpus)
    before = CliRunner().invoke(cli, ["stats", "--json", "--repo", str(corpus)])
    assert (
        before.exit_code == 0
    )  # without --strict: the numbers, and a word about what was left out
    json.loads(before.stdout)
    assert re.match(r"skipped \d+ file\(s\) with problems, left out or read only", before.stderr)
    strict = CliRunner().invoke(cli, ["stats", "--strict", "--repo", str(corpus)])
    assert strict.exit_code == 1
    assert strict.stdout == ""
    assert any(line.startswith(rel) for line in strict.stderr.splitlines()), strict.stderr


def test_one_line_per_file(corpus: Path) -> None:
    rels = [damage(corpus) for damage in DAMAGE]
    check = check_corpus(corpus)
    lines = check.lines()
    assert len(lines) == len(check.by_file())
    for rel in rels:
        assert sum(line.startswith(rel) for line in lines) == 1, (rel, lines)
    assert any("duplicate_id: claim 'C1' is judged again" in line for line in lines)
    # the record readers' one shape (rerun_files), as the judge and the store say it
    assert any(":1: invalid_value: outputs.json is not valid JSON (" in line for line in lines)


@pytest.mark.parametrize("command", [["build", "--out", "SITE"], ["export", "--out", "SITE"]])
def test_strict_build_and_export_write_nothing(corpus: Path, tmp_path: Path, command) -> None:
    bad_outputs(corpus)
    out = tmp_path / "out"
    args = [str(out) if a == "SITE" else a for a in command]
    result = CliRunner().invoke(cli, [*args, "--strict", "--repo", str(corpus)])
    assert result.exit_code == 1
    # the outputs file, and the verdict that read other outputs (now stale)
    assert result.stderr.splitlines()[-1] == "--strict: 2 file(s) with problems"
    assert not out.exists()
