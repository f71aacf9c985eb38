"""The PR result: computed with the PR's code, checked and published with the base's."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from reproaudit.ci.events import pr_of_workflow_run
from reproaudit.ci.report import publish_report, render_comment
from reproaudit.ci.validation import validate_pr
from reproaudit.errors import ReproauditError
from reproaudit.report.artifact import load_artifact
from reproaudit.report.markdown import MARKER
from tests.ci import payloads
from tests.ci.conftest import HEAD, PR
from tests.gitutil import branch_from_main, git


@pytest.fixture
def pr_checkout(base_repo: Path) -> Path:
    """A checkout where a contributor's branch adds a logbook to a paper."""
    branch_from_main(base_repo, "contrib")
    source = base_repo / "logbooks/T5wPj8mRaK/kai-speedup-1.yaml"
    text = source.read_text().replace("id: kai-speedup-1", "id: zoe-speedup-1")
    text = text.replace("github: kai", "github: zoe")
    (base_repo / "logbooks/T5wPj8mRaK/zoe-speedup-1.yaml").write_text(text)
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "add a logbook")
    return base_repo


def test_validate_pr_writes_an_artifact_with_rules_verdicts(pr_checkout: Path) -> None:
    artifact = validate_pr(pr_checkout, "main", PR, HEAD)
    assert artifact["files"] == ["logbooks/T5wPj8mRaK/zoe-speedup-1.yaml"]
    assert artifact["outside"] == []
    # kai's logbook names its image by tag: a warning, not an error
    assert [p["code"] for p in artifact["problems"]] == ["image_not_pinned"]
    (verdict,) = artifact["verdicts"]
    assert verdict["logbook"] == "zoe-speedup-1"
    # no re-run yet: every claim awaits one, its evidence saying what the typed numbers give
    assert [c["verdict"] for c in verdict["claims"]] == ["inconclusive"] * 3
    assert verdict["claims"][0]["evidence"].startswith("typed numbers would verify")
    checked = load_artifact(json.dumps(artifact).encode(), pr=PR, head_sha=HEAD)
    comment = render_comment(checked)
    assert comment.startswith(
        f"{MARKER} status=ok sha={HEAD} -->\n## reproaudit\n\n✅ Valid, 1 claim still empty: "
        "1 logbook checked"
    )
    assert "| C1 | inconclusive *(pending)* | not_rerun | typed numbers would verify" in comment


def test_files_outside_logbooks_and_invalid_files_fail(pr_checkout: Path) -> None:
    (pr_checkout / "scripts").mkdir()
    (pr_checkout / "scripts/evil.py").write_text("print('hi')\n")
    book = pr_checkout / "logbooks/T5wPj8mRaK/zoe-speedup-1.yaml"
    book.write_text(book.read_text().replace("setup: full", "setup: fulll", 1))
    git(pr_checkout, "add", "-A")
    git(pr_checkout, "commit", "-qm", "more")
    artifact = validate_pr(pr_checkout, "main", PR, HEAD)
    assert artifact["outside"] == ["scripts/evil.py"]
    assert artifact["verdicts"] == []  # nothing is judged until the files are valid
    comment = render_comment(load_artifact(json.dumps(artifact).encode(), pr=PR, head_sha=HEAD))
    assert "status=fail" in comment.splitlines()[0]
    assert "### Files outside `logbooks/`" in comment and "scripts/evil.py" in comment
    assert "❌ line" in comment and "'fulll' is not allowed" in comment


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda a: a.update(pr=PR + 1), "artifact is for PR 8, not 7"),
        (lambda a: a.update(head_sha="0" * 40), "not the run's"),
        (lambda a: a.update(pr=str(PR)), "not valid"),
        (lambda a: a.update(extra="field"), "not valid"),
        (
            lambda a: a["verdicts"].append(
                {"paper": "P", "logbook": "L", "claims": [{"claim": "C1", "verdict": "definitely"}]}
            ),
            "not valid",
        ),
        (lambda a: a.update(schema="something-else/9"), "not valid"),
    ],
)
def test_a_forged_artifact_is_refused(edit, message: str) -> None:
    artifact = {
        "schema": "reproaudit-pr-result/1",
        "pr": PR,
        "head_sha": HEAD,
        "files": [],
        "outside": [],
        "problems": [],
        "verdicts": [],
    }
    forged = copy.deepcopy(artifact)
    edit(forged)
    with pytest.raises(ReproauditError, match=message):
        load_artifact(json.dumps(forged).encode(), pr=PR, head_sha=HEAD)
    with pytest.raises(ReproauditError, match="not valid"):
        load_artifact(b"not json", pr=PR, head_sha=HEAD)


def test_report_is_one_sticky_comment_and_rechecks_paths(github_api, client) -> None:
    # the artifact claims a clean PR, but the API says it also changes a workflow
    github_api.files[PR] = ["logbooks/Kp4rT9vQ2x/carol-paging-1.yaml", ".github/workflows/site.yml"]
    forged_clean = load_artifact(
        json.dumps(
            {
                "schema": "reproaudit-pr-result/1",
                "pr": PR,
                "head_sha": HEAD,
                "files": ["logbooks/Kp4rT9vQ2x/carol-paging-1.yaml"],
                "outside": [],
                "problems": [],
                "verdicts": [],
            }
        ).encode(),
        pr=PR,
        head_sha=HEAD,
    )
    first = publish_report(forged_clean, github=client(), repo=github_api.repo)
    assert first["ok"] is False and first["updated"] is False
    assert ".github/workflows/site.yml" in github_api.comments[PR][0]["body"]
    second = publish_report(forged_clean, github=client(), repo=github_api.repo)
    assert second["updated"] is True
    assert len(github_api.comments[PR]) == 1  # edited in place
    assert [c["conclusion"] for c in github_api.check_runs] == ["failure", "failure"]
    assert github_api.check_runs[0]["head_sha"] == HEAD


def test_pr_and_head_come_from_the_trusted_workflow_run_event(client, github_api) -> None:
    event = payloads.workflow_run_event(head=HEAD, number=PR)
    assert pr_of_workflow_run(event, client()) == (PR, HEAD)
    # a fork PR: pull_requests is empty, the open PR with that head is found through the API
    forked = payloads.workflow_run_event(head=HEAD, number=None)
    assert pr_of_workflow_run(forked, client()) == (PR, HEAD)
    github_api.pulls.clear()
    with pytest.raises(ReproauditError, match="no open pull request"):
        pr_of_workflow_run(forked, client())


def test_validate_pr_with_an_unknown_base_reports_the_git_error_once(
    pr_checkout: Path, tmp_path: Path
) -> None:
    """A base git cannot compare with: one message on stderr, exit 1, no artifact."""
    from click.testing import CliRunner

    from reproaudit.cli import cli

    out = tmp_path / "result.json"

    def validate_pr_cli(base: str):
        return CliRunner().invoke(
            cli,
            ["ci", "validate-pr", "--base", base, "--pr", str(PR), "--sha", HEAD,
             "--out", str(out), "--repo", str(pr_checkout)],
        )  # fmt: skip

    result = validate_pr_cli("nosuchref")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "cannot list changes since 'nosuchref': fatal: Not a valid object name nosuchref\n"
        "  hint: run inside a git checkout and fetch the base branch first\n"
    )
    assert not out.exists()
    # control: the base the branch came from gives an artifact
    result = validate_pr_cli("main")
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["files"] == ["logbooks/T5wPj8mRaK/zoe-speedup-1.yaml"]


def test_the_report_command_refuses_a_mismatched_run(tmp_path, github_api, monkeypatch) -> None:
    from click.testing import CliRunner

    from reproaudit.cli import cli

    artifact = tmp_path / "result.json"
    artifact.write_text(
        json.dumps(
            {
                "schema": "reproaudit-pr-result/1",
                "pr": PR,
                "head_sha": HEAD,
                "files": [],
                "outside": [],
                "problems": [],
                "verdicts": [],
            }
        )
    )
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    result = CliRunner().invoke(
        cli, ["ci", "report", "--artifact", str(artifact), "--pr", "3", "--sha", HEAD]
    )
    assert result.exit_code == 1
    assert "artifact is for PR 7, not 3" in result.output
    result = CliRunner().invoke(
        cli, ["ci", "report", "--artifact", str(artifact), "--pr", str(PR), "--sha", HEAD]
    )
    assert result.exit_code == 0 and result.output.startswith(MARKER)
    assert shutil.which("git")
