"""The command line: scaffolds that validate, the task brief, schemas, help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.validate import validate_repo


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_help_lists_the_commands() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for name in ("validate", "schema", "new", "task"):
        assert f"  {name} " in result.output


def test_new_paper_and_logbook_validate_as_written(tmp_path: Path) -> None:
    repo = str(tmp_path)
    result = invoke("new", "paper", "Ab12Cd34Ef", "--title", 'A: tricky "title"', "--repo", repo)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {tmp_path}/claims/icml2026/Ab12Cd34Ef.yaml\n"
    result = invoke(
        "new", "logbook", "Ab12Cd34Ef", "--id", "bob-1", "--contributor", "bob", "--repo", repo
    )
    assert result.exit_code == 0, result.output
    # the scaffold's placeholders are refused until a person replaces them
    paper = tmp_path / "claims/icml2026/Ab12Cd34Ef.yaml"
    found = validate_repo(tmp_path).problems
    assert [(p.code, p.field) for p in found] == [
        ("placeholder", "paper.authors[0].name"),
        ("placeholder", "claims[0].statement"),
    ]
    paper.write_text(
        paper.read_text()
        .replace("First Author", "Ada Lovelace")
        .replace("One central, checkable claim of the paper, in one sentence.", "It is fast.")
    )
    assert validate_repo(tmp_path).problems == []
    text = (tmp_path / "logbooks/Ab12Cd34Ef/bob-1.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=../../schemas/logbook.schema.json\n")
    # the starter script runs and writes the outputs file the logbook names
    code = tmp_path / "logbooks/Ab12Cd34Ef/bob-1"
    subprocess.run(
        [sys.executable, "reproduce.py", "--out", "results/metrics.json"], cwd=code, check=True
    )
    # each claim's number with its unit, to be filled in (a None is judged missing_outputs)
    assert json.loads((code / "results/metrics.json").read_text()) == {
        "C1": {"accuracy": {"value": None, "unit": "dimensionless"}}
    }


def test_new_never_overwrites(tmp_path: Path) -> None:
    args = ("new", "paper", "Ab12Cd34Ef", "--title", "T", "--repo", str(tmp_path))
    assert invoke(*args).exit_code == 0
    path = tmp_path / "claims/icml2026/Ab12Cd34Ef.yaml"
    path.write_text("edited\n")
    result = invoke(*args)
    assert result.exit_code == 1
    assert "already exists; not overwriting it" in result.output
    assert path.read_text() == "edited\n"


def test_new_logbook_for_an_unknown_paper(mini_repo: Path) -> None:
    result = invoke(
        "new",
        "logbook",
        "Tq7mV2pLxX",
        "--id",
        "bob-1",
        "--contributor",
        "bob",
        "--repo",
        str(mini_repo),
    )
    assert result.exit_code == 1
    assert result.output == (
        "claims/: there is no paper 'Tq7mV2pLxX' [unknown_paper]\n"
        "  hint: known papers include Tq7mV2pLx0\n"
    )
    assert not (mini_repo / "logbooks/Tq7mV2pLxX").exists()


def test_new_logbook_rejects_a_bad_id(mini_repo: Path) -> None:
    result = invoke(
        "new",
        "logbook",
        "Tq7mV2pLx0",
        "--id",
        "Bob 1",
        "--contributor",
        "bob",
        "--repo",
        str(mini_repo),
    )
    assert result.exit_code == 1
    assert "'Bob 1' is not a valid logbook id" in result.output


def test_task_brief_has_claims_targets_regimes_rules_and_template(mini_repo: Path) -> None:
    result = invoke("task", "Tq7mV2pLx0", "--repo", str(mini_repo))
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("# Reproduce: A Small Paper for Tests\n")
    assert "- Released code: https://github.com/dana-author/small" in out
    assert "### C2 (efficiency) — Section 5.2" in out
    assert "- Target: `step_time` at_most 120 ms per batch of 32, tolerance ±10% relative" in out
    assert "- Regime: `T` from 10 to no upper end (asymptotic" in out
    assert "- `logbooks/Tq7mV2pLx0/ann-1.yaml`" in out
    assert "self_assessment` is shown next to the verdict but never trusted" in out
    assert "  - claim: C3\n" in out
    assert not (mini_repo / "logbooks/Tq7mV2pLx0/yourname-1.yaml").exists()


def test_schema_writes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "s"
    assert invoke("schema", "--out", str(out), "--check").exit_code == 1
    assert invoke("schema", "--out", str(out)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "logbook.schema.json",
        "mentions.schema.json",
        "paper.schema.json",
        "reviews.schema.json",
        "verdict.schema.json",
    ]
    assert invoke("schema", "--out", str(out), "--check").exit_code == 0


def test_console_script_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "reproaudit", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "version" in result.stdout


def test_the_repository_own_data_validates_and_its_verdicts_are_current(tmp_path: Path) -> None:
    import shutil

    root = Path(__file__).resolve().parents[1]
    for name in ("claims", "logbooks", "verdicts", "reruns"):
        shutil.copytree(root / name, tmp_path / name, ignore=shutil.ignore_patterns("results"))
    problems = validate_repo(tmp_path).problems
    assert [p for p in problems if p.is_error] == []
    assert {p.code for p in problems} <= {"image_not_pinned"}  # the examples use tags
    result = invoke(
        "judge", "--mode", "rules", "--repo", str(tmp_path), "--reruns", str(tmp_path / "reruns")
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("0 verdict(s) written"), (
        "verdicts/ is out of date: run `reproaudit judge --mode rules --reruns reruns` and "
        "commit it"
    )


def test_one_option_name_per_concept() -> None:
    """A value is spelled by one flag in every command (the PR head is --sha everywhere)."""
    import click

    spellings: dict[str, set[str]] = {}
    concepts: dict[str, set[str]] = {}

    def walk(command: click.Command) -> None:
        for param in command.params:
            if isinstance(param, click.Option):
                concept = {"fmt": "format", "formats": "format"}.get(param.name, param.name)
                concept = concept.removesuffix("s") if concept == "papers" else concept
                spellings.setdefault(concept, set()).update(param.opts)
                for flag in param.opts:
                    concepts.setdefault(flag, set()).add(concept)
        if isinstance(command, click.Group):
            for sub in command.commands.values():
                walk(sub)

    walk(cli)
    assert {c: s for c, s in spellings.items() if len(s) > 1} == {}
    assert {f: c for f, c in concepts.items() if len(c) > 1} == {}
    assert "--head-sha" not in concepts and spellings["sha"] == {"--sha"}
    assert spellings["repo_name"] == {"--repo-name"} and spellings["post"] == {"--post"}


def test_new_paper_refuses_an_id_another_venue_has(tmp_path: Path) -> None:
    assert (
        invoke("new", "paper", "Ab12Cd34Ef", "--title", "T", "--repo", str(tmp_path)).exit_code == 0
    )
    result = invoke(
        "new",
        "paper",
        "Ab12Cd34Ef",
        "--title",
        "T",
        "--venue",
        "ICLR 2026",
        "--repo",
        str(tmp_path),
    )
    assert result.exit_code == 1
    assert "already has a file at claims/icml2026/Ab12Cd34Ef.yaml" in result.output
    assert not (tmp_path / "claims/iclr2026").exists()
