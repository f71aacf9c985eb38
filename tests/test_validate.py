"""Repository-wide validation: references, paths, sizes, formats, --changed-from."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.validate import validate_repo
from tests.gitutil import branch_from_main, git

LOGBOOK = "logbooks/Tq7mV2pLx0/ann-1.yaml"


def run(repo: Path, *args: str):
    return CliRunner().invoke(cli, ["validate", *args, "--repo", str(repo)])


def codes(repo: Path, *paths: str, changed_from: str | None = None) -> list[str]:
    return [p.code for p in validate_repo(repo, paths, changed_from).problems]


def test_the_mini_repo_is_valid(mini_repo: Path) -> None:
    result = run(mini_repo)
    assert (result.exit_code, result.output) == (0, "4 files checked: all valid\n")


def test_stale_claims_version_is_a_warning_not_a_failure(mini_repo: Path) -> None:
    path = mini_repo / LOGBOOK
    path.write_text(path.read_text().replace("claims_version: 2", "claims_version: 1"))
    result = run(mini_repo, LOGBOOK)
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == (
        "logbooks/Tq7mV2pLx0/ann-1.yaml:4: warning: logbook.claims_version: written against "
        "claims_version 1; paper Tq7mV2pLx0 is now at version 2 [claims_version_stale]"
    )


def test_paper_id_must_be_unique_across_venues(mini_repo: Path) -> None:
    other = mini_repo / "claims" / "otherconf"
    other.mkdir()
    shutil.copy(mini_repo / "claims/testconf/Tq7mV2pLx0.yaml", other / "Tq7mV2pLx0.yaml")
    assert codes(mini_repo).count("duplicate_id") == 2


def test_a_code_link_out_of_the_folder_is_refused(mini_repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token")
    os.symlink(secret, mini_repo / "logbooks/Tq7mV2pLx0/ann-1/leak.txt")
    problems = validate_repo(mini_repo).problems
    assert [(p.code, p.path) for p in problems] == [
        ("not_a_regular_file", "logbooks/Tq7mV2pLx0/ann-1/leak.txt"),  # any link, on disk
        ("path_not_allowed", "logbooks/Tq7mV2pLx0/ann-1/leak.txt"),
    ]


def test_code_path_that_is_a_link_elsewhere_is_refused(mini_repo: Path, tmp_path: Path) -> None:
    folder = mini_repo / "logbooks/Tq7mV2pLx0/ann-1"
    shutil.rmtree(folder)
    os.symlink(tmp_path, folder)
    assert codes(mini_repo, LOGBOOK) == ["not_a_regular_file", "path_not_allowed"]


def test_size_limits_for_writeups_and_code(mini_repo: Path) -> None:
    (mini_repo / "logbooks/Tq7mV2pLx0/ann-1.md").write_text("x" * 300_000)
    (mini_repo / "logbooks/Tq7mV2pLx0/ann-1/weights.bin").write_bytes(b"\0" * 1_100_000)
    problems = validate_repo(mini_repo, [LOGBOOK]).problems
    assert sorted((p.code, p.path) for p in problems) == [
        ("writeup_too_large", "logbooks/Tq7mV2pLx0/ann-1.md"),
        ("writeup_too_large", "logbooks/Tq7mV2pLx0/ann-1/weights.bin"),
    ]


def test_misplaced_and_yml_files(mini_repo: Path) -> None:
    (mini_repo / "logbooks/stray.yaml").write_text("a: 1\n")
    (mini_repo / "claims/testconf/other.yml").write_text("a: 1\n")
    (mini_repo / "verdicts/Tq7mV2pLx0/deep").mkdir()
    (mini_repo / "verdicts/Tq7mV2pLx0/deep/v.yaml").write_text("a: 1\n")
    found = sorted((p.code, p.path) for p in validate_repo(mini_repo).problems)
    assert found == [
        ("misplaced_file", "logbooks/stray.yaml"),
        ("misplaced_file", "verdicts/Tq7mV2pLx0/deep/v.yaml"),
        ("wrong_extension", "claims/testconf/other.yml"),
    ]


def test_changing_a_paper_rechecks_its_logbooks_verdicts_and_reviews(mini_repo: Path) -> None:
    paper = mini_repo / "claims/testconf/Tq7mV2pLx0.yaml"
    text = paper.read_text()
    paper.write_text(text.replace("  - id: C3\n", "  - id: C4\n"))
    report = validate_repo(mini_repo, ["claims/testconf"])
    assert report.checked == 4
    assert sorted((p.path, p.field) for p in report.problems) == [
        ("logbooks/Tq7mV2pLx0/ann-1.yaml", "results[1].claim"),
        ("verdicts/Tq7mV2pLx0/ann-1.yaml", "claims[2].claim"),
    ]


def test_formats(mini_repo: Path) -> None:
    path = mini_repo / LOGBOOK
    path.write_text(path.read_text().replace("claim: C3", "claim: C9"))
    gh = run(mini_repo, "--format", "github")
    assert gh.exit_code == 1
    assert gh.output.startswith(
        "::error file=logbooks/Tq7mV2pLx0/ann-1.yaml,line=21,title=unknown_claim::"
        "results[1].claim: 'C9' is not a claim of paper Tq7mV2pLx0 (it has C1, C2, C3)%0Ahint: "
    )
    js = run(mini_repo, "--format", "json")
    body = json.loads(js.output)
    assert (js.exit_code, body["ok"], body["errors"]) == (1, False, 1)
    assert body["problems"][0] | {"hint": None} == {
        "code": "unknown_claim",
        "path": "logbooks/Tq7mV2pLx0/ann-1.yaml",
        "line": 21,
        "field": "results[1].claim",
        "message": "'C9' is not a claim of paper Tq7mV2pLx0 (it has C1, C2, C3)",
        "hint": None,
        "severity": "error",
    }


def test_usage_errors_exit_2(mini_repo: Path) -> None:
    assert run(mini_repo, "--format", "xml").exit_code == 2
    result = CliRunner().invoke(cli, ["validate", "--repo", str(mini_repo / "nope")])
    assert result.exit_code == 2


@pytest.fixture
def git_repo(mini_repo: Path) -> Path:
    return branch_from_main(mini_repo, "pr")


def test_changed_from_checks_only_the_change(git_repo: Path) -> None:
    # a broken paper already on main is not this PR's business
    paper = git_repo / "claims/testconf/Tq7mV2pLx0.yaml"
    assert validate_repo(git_repo, changed_from="main").checked == 0
    new = git_repo / "logbooks/Tq7mV2pLx0/bea-1.yaml"
    new.write_text(
        (git_repo / LOGBOOK)
        .read_text()
        .replace("id: ann-1", "id: bea-1")
        .replace("ann-1/", "bea-1/")
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "pr")
    report = validate_repo(git_repo, changed_from="main")
    assert [(p.code, p.path) for p in report.problems] == [
        ("missing_code_path", "logbooks/Tq7mV2pLx0/bea-1.yaml")
    ]
    # an untracked, uncommitted code file counts as part of the change
    shutil.copytree(git_repo / "logbooks/Tq7mV2pLx0/ann-1", git_repo / "logbooks/Tq7mV2pLx0/bea-1")
    report = validate_repo(git_repo, changed_from="main")
    assert (report.ok, report.checked) == (True, 2)  # the logbook and the paper's reviews
    assert paper.exists()


def test_changed_from_a_deleted_logbook_flags_its_orphan_verdict(git_repo: Path) -> None:
    (git_repo / LOGBOOK).unlink()
    found = sorted((p.code, p.path) for p in validate_repo(git_repo, changed_from="main").problems)
    assert found == [
        ("unknown_logbook", "verdicts/Tq7mV2pLx0/ann-1.yaml"),
        ("unknown_logbook", "verdicts/Tq7mV2pLx0/reviews.yaml"),
    ]


def test_changed_from_refuses_oversized_changes(git_repo: Path) -> None:
    folder = git_repo / "logbooks/Tq7mV2pLx0/ann-1"
    for i in range(22):
        (folder / f"chunk{i}.bin").write_bytes(os.urandom(1_000_000))
    found = {p.code for p in validate_repo(git_repo, changed_from="main").problems}
    assert "change_too_large" in found and "writeup_too_large" in found


def test_changed_from_an_unknown_ref(git_repo: Path) -> None:
    """Git failing is an expected failure, raised and shown once: not a problem in a file."""
    for fmt in ("text", "json", "github"):
        result = run(git_repo, "--changed-from", "no-such-branch", "--format", fmt)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == (
            "cannot list changes since 'no-such-branch': fatal: Not a valid object name "
            "no-such-branch\n  hint: run inside a git checkout and fetch the base branch first\n"
        )


def test_a_claim_naming_its_evaluations_size_should_state_its_scale(mini_repo: Path) -> None:
    """Rules version 4 compares target.scale with the re-run's; a size left out is not."""
    paper = mini_repo / "claims/testconf/Tq7mV2pLx0.yaml"
    statement = "on the held-out split."
    paper.write_text(paper.read_text().replace(statement, "on 20,000 held-out examples."))
    problems = [p for p in validate_repo(mini_repo).problems if p.code == "scale_unstated"]
    assert [(p.line, p.field, p.is_error) for p in problems] == [(16, "claims[0].target", False)]
    assert problems[0].message.startswith("the statement names the evaluation's size (n_test: ")
    assert problems[0].hint == "add it to the target: scale: {n_test: 20000}"
    target = "tolerance: {abs: 0.01}\n"
    paper.write_text(
        paper.read_text().replace(target, target + "      scale: {n_test: 20000}\n", 1)
    )
    assert "scale_unstated" not in codes(mini_repo)


def test_an_efficiency_claim_naming_a_gpu_should_state_its_hardware(mini_repo: Path) -> None:
    paper = mini_repo / "claims/testconf/Tq7mV2pLx0.yaml"
    text = paper.read_text()
    statement = "One training step takes at most 120 ms per batch of 32."
    paper.write_text(text.replace(statement, statement[:-1] + " on one A100."))
    problems = [p for p in validate_repo(mini_repo).problems if p.code == "hardware_unstated"]
    assert [(p.path, p.line, p.field, p.is_error) for p in problems] == [
        ("claims/testconf/Tq7mV2pLx0.yaml", 26, "claims[1].target", False)
    ]
    assert problems[0].message.startswith("the statement names A100 but the target states no")
    # stated: no warning (and the judge caps a re-run on other hardware at toy)
    target = "tolerance: {rel: 0.1}}"
    paper.write_text(
        paper.read_text().replace(target, "tolerance: {rel: 0.1}, hardware: a100-large}")
    )
    assert "hardware_unstated" not in codes(mini_repo)
