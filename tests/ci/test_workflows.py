"""The workflows are code: linted by zizmor and the workflow schema, and held to our rules."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def test_the_six_workflows_exist() -> None:
    assert [p.name for p in WORKFLOWS] == [
        "commands.yml",
        "report.yml",
        "reproduce.yml",
        "rerun.yml",
        "site.yml",
        "validate.yml",
    ]


def test_zizmor_offline_is_clean() -> None:
    result = subprocess.run(
        [tool("zizmor"), "--offline", "--no-progress", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflow_schema() -> None:
    result = subprocess.run(
        [
            tool("check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_house_rules(path: Path) -> None:
    text = path.read_text()
    doc = yaml.safe_load(text)
    triggers = doc[True] if True in doc else doc["on"]  # YAML 1.1 reads `on` as true
    assert "pull_request_target" not in triggers
    assert doc["permissions"] == {}, "top-level permissions must be empty (read nothing)"
    for uses in re.findall(r"uses:\s*(\S+)", text):
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), f"unpinned: {uses}"
    for name, job in doc["jobs"].items():
        assert "timeout-minutes" in job, f"{name} has no timeout"
        for step in job.get("steps", []):
            run = step.get("run", "")
            assert "${{" not in run, f"{name}: expression inside run: {run[:60]}"
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    if "dangerous-triggers" in text:
        for line in text.splitlines():
            if "zizmor: ignore" in line:
                assert re.search(r"ignore\[[\w-]+\] \S+", line), "an ignore needs its reason"


def load(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def test_every_commit_to_main_goes_through_ci_push() -> None:
    pushing = []
    for path in WORKFLOWS:
        for name, job in yaml.safe_load(path.read_text())["jobs"].items():
            for step in job.get("steps", []):
                run = step.get("run", "")
                assert "git push" not in run and "git commit" not in run, (path.name, name)
                if "reproaudit ci push" in run or "reproaudit ci promote" in run:
                    pushing.append((path.name, name, run.split()[2], run.split()[3]))
    assert sorted(pushing) == [
        ("commands.yml", "command", "push", "review"),
        ("reproduce.yml", "mention", "push", "mentions"),
        ("reproduce.yml", "store", "push", "reruns"),
        ("rerun.yml", "mention", "push", "mentions"),
        ("rerun.yml", "store", "push", "reruns"),
        ("site.yml", "pending", "promote", "--repo-name"),
        ("site.yml", "verdicts", "push", "verdicts"),
    ]


def test_what_a_pull_request_makes_waits_for_its_merge() -> None:
    """Re-run records and reviews go to the pending branch under their pull request (ci push
    reruns|review know it); only site.yml's pending job moves them onto the default branch,
    before its judge reads that branch."""
    for name, job in (("rerun.yml", "store"), ("reproduce.yml", "store")):
        (push,) = [
            s["run"] for s in load(name)["jobs"][job]["steps"] if "ci push" in s.get("run", "")
        ]
        assert "--event" in push or "--pr" in push, name
    site = load("site.yml")["jobs"]
    assert site["verdicts"]["needs"] == "pending"
    assert "!cancelled()" in site["verdicts"]["if"]  # the site is built even if a move failed
    for name in ("pending", "verdicts"):
        assert "github.ref_name == github.event.repository.default_branch" in site[name]["if"]
    # the store job compares the PR's trees on a full clone: a shallow one has no merge base
    # once the default branch moved
    checkout = load("rerun.yml")["jobs"]["store"]["steps"][0]
    assert (checkout["with"]["fetch-depth"], checkout["with"]["filter"]) == (0, "blob:none")


def test_every_bot_commit_starts_the_site() -> None:
    """GitHub starts no workflow for a GITHUB_TOKEN push: each pushing job dispatches site.yml,
    and asks for actions: write to do so (site.yml builds right after its own push)."""
    for path in WORKFLOWS:
        for name, job in yaml.safe_load(path.read_text())["jobs"].items():
            runs = [s.get("run", "") for s in job.get("steps", [])]
            if not any("reproaudit ci push" in r for r in runs) or path.name == "site.yml":
                continue
            assert any("--dispatch site.yml" in r for r in runs), (path.name, name)
            assert job["permissions"]["actions"] == "write", (path.name, name)


def test_the_automatic_rerun_holds_no_secret_and_no_write_token() -> None:
    rerun = load("rerun.yml")
    job = rerun["jobs"]["rerun"]
    assert job["runs-on"] == "ubuntu-latest"
    assert job["permissions"] == {"contents": "read", "pull-requests": "read"}
    assert "environment" not in job
    assert "secrets." not in yaml.safe_dump(job)
    assert job["if"] == (
        "github.event.workflow_run.event == 'pull_request' && "
        "github.event.workflow_run.conclusion == 'success'"
    )
    fetch, run = (s for s in job["steps"] if "reproduce-pr" in s.get("run", ""))
    assert "--stage fetch" in fetch["run"] and "GITHUB_TOKEN" in fetch["env"]
    assert "--stage run" in run["run"] and "--sandbox bwrap" in run["run"]
    assert not any("TOKEN" in k or "secrets" in str(v) for k, v in run["env"].items())
    assert rerun["jobs"]["store"]["needs"] == "rerun"
    assert "--auto" in fetch["run"] and "--auto" in run["run"]


def test_a_rerun_is_never_cancelled_and_stores_on_current_main() -> None:
    reproduce = load("reproduce.yml")
    assert reproduce["concurrency"] == {
        "group": "reproduce-${{ inputs.pr }}",
        "cancel-in-progress": False,
    }
    assert reproduce["run-name"].startswith("reproduce #${{ inputs.pr }} ${{ inputs.action }}")
    checkout = reproduce["jobs"]["store"]["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert load("site.yml")["concurrency"]["cancel-in-progress"] is False
    # no comment's command is dropped for another's
    assert load("commands.yml")["concurrency"]["group"] == "commands-${{ github.event.comment.id }}"


def test_the_report_compares_trees_and_the_site_builds_strict() -> None:
    report = load("report.yml")["jobs"]["report"]["steps"]
    assert report[0]["with"]["fetch-depth"] == 0
    assert "--git ." in report[-1]["run"]
    build = " ".join(s.get("run", "") for s in load("site.yml")["jobs"]["build"]["steps"])
    assert "reproaudit validate" in build and "reproaudit build --strict" in build


def test_the_two_judges_of_one_pull_request_comment_one_at_a_time() -> None:
    """report.yml's judge and rerun.yml's judge both rewrite the verdicts section of the one
    sticky comment: they queue in one concurrency group per branch, and neither cancels."""
    groups = [load(name)["jobs"]["judge"]["concurrency"] for name in ("report.yml", "rerun.yml")]
    assert groups[0] == groups[1]
    assert groups[0]["cancel-in-progress"] is False
    assert "head_branch" in groups[0]["group"] and "head_repository" in groups[0]["group"]
