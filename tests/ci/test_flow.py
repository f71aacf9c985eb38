"""Privileged steps: fetch a PR's logbooks as data at one commit, refuse a moved head,
judge and comment, start an approved run."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reproaudit.ci import sticky
from reproaudit.ci.flow import dispatch_run, fetch_pr_logbooks
from reproaudit.cli import cli
from tests.ci import payloads
from tests.ci.conftest import HEAD, PR, ROOT

CAROL = "logbooks/Kp4rT9vQ2x/carol-paging-1"


def serve_pr_files(github_api, base_repo: Path) -> None:
    """The PR's version of carol's logbook, as the contents API serves it at HEAD."""
    for rel in (f"{CAROL}.yaml", f"{CAROL}.md", f"{CAROL}/sweep.py"):
        github_api.contents[(rel, HEAD)] = (ROOT / rel).read_text()
    (base_repo / f"{CAROL}.yaml").unlink()  # the logbook is new in this PR
    (base_repo / f"{CAROL}.md").unlink()


def test_fetch_takes_only_logbook_files_at_the_approved_commit(
    github_api, client, base_repo
) -> None:
    serve_pr_files(github_api, base_repo)
    github_api.files[PR] += [".github/workflows/site.yml", "logbooks/../scripts/evil.py"]
    got = fetch_pr_logbooks(client(), github_api.repo, PR, HEAD, base_repo)
    assert got == [f"{CAROL}.md", f"{CAROL}.yaml"]  # data only, and nothing outside logbooks/
    with_code = fetch_pr_logbooks(client(), github_api.repo, PR, HEAD, base_repo, with_code=True)
    assert f"{CAROL}/sweep.py" in with_code
    asked = {p for m, p, _ in github_api.requests if "/contents/" in p}
    assert not any("workflows" in p or "evil" in p for p in asked)


def test_judge_pr_refuses_a_moved_head(github_api, base_repo, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    serve_pr_files(github_api, base_repo)
    result = CliRunner(env={"REPROAUDIT_JUDGE_BASE_URL": ""}).invoke(
        cli,
        [
            "ci",
            "judge-pr",
            "--repo-name",
            github_api.repo,
            "--pr",
            str(PR),
            "--sha",
            "1" * 40,
            "--post",
            "--repo",
            str(base_repo),
        ],
    )
    assert result.exit_code == 1
    assert "the head moved after approval" in result.output
    assert github_api.writes() == []


def test_judge_pr_judges_the_fetched_logbook_and_posts_one_comment(
    github_api, base_repo, monkeypatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    serve_pr_files(github_api, base_repo)
    args = [
        "ci",
        "judge-pr",
        "--repo-name",
        github_api.repo,
        "--pr",
        str(PR),
        "--sha",
        HEAD,
        "--post",
        "--repo",
        str(base_repo),
    ]
    env = {"REPROAUDIT_JUDGE_BASE_URL": ""}
    first = CliRunner(env=env).invoke(cli, args)
    assert first.exit_code == 0, first.output
    # no re-run yet: awaiting one, the evidence says what the typed numbers would give
    assert "| C1 | inconclusive | growth_detected, not_rerun | typed numbers would falsify" in (
        first.output
    )
    assert CliRunner(env=env).invoke(cli, args).exit_code == 0
    comments = github_api.comments[PR]
    assert len(comments) == 1 and comments[0]["body"].startswith("<!-- reproaudit:sticky ")
    assert sticky.parse(comments[0]["body"]).status("llm") == {"mode": "rules"}


def test_an_approved_reproduce_dispatches_the_workflow(github_api, client) -> None:
    outcome = {"command": "reproduce", "allowed": True, "head_sha": HEAD}
    done = dispatch_run(client(), github_api.repo, "main", outcome, PR)
    assert done == f"started reproduce.yml (reproduce) for PR {PR} at {HEAD[:12]}"
    assert github_api.dispatches == [
        {
            "workflow": "reproduce.yml",
            "ref": "main",
            "inputs": {"pr": str(PR), "head_sha": HEAD, "action": "reproduce"},
        }
    ]
    refused = {"command": "reproduce", "allowed": False}
    assert dispatch_run(client(), github_api.repo, "main", refused, PR) == "nothing to start"
    assert len(github_api.dispatches) == 1


def test_dispatch_command_reads_the_outcome_file(
    github_api, comment_event, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    outcome = tmp_path / "outcome.json"
    outcome.write_text(json.dumps({"command": "rejudge", "allowed": True}))
    payload = tmp_path / "event.json"
    payload.write_text(json.dumps(comment_event("/rejudge")))
    result = CliRunner().invoke(
        cli, ["ci", "dispatch", "--outcome", str(outcome), "--payload", str(payload)]
    )
    assert result.exit_code == 0, result.output
    assert github_api.dispatches[0]["inputs"]["action"] == "rejudge"


def test_a_rejudge_waits_for_a_running_rerun(github_api, client) -> None:
    running = payloads.workflow_run(
        HEAD,
        event="workflow_dispatch",
        conclusion=None,
        workflow="reproduce",
        display_title=f"reproduce #{PR} reproduce {HEAD}",
    )
    github_api.runs.append(running)
    rejudge = {"command": "rejudge", "allowed": True}
    done = dispatch_run(client(), github_api.repo, "main", rejudge, PR)
    assert done == f"not started: a re-run of PR {PR} is queued or running and judges when done"
    assert github_api.dispatches == []
    # another PR's re-run does not hold this one back; a finished one neither
    running["display_title"] = f"reproduce #{PR + 10} reproduce {HEAD}"
    assert dispatch_run(client(), github_api.repo, "main", rejudge, PR).startswith("started")
    running.update(display_title=f"reproduce #{PR} reproduce {HEAD}", status="completed")
    assert dispatch_run(client(), github_api.repo, "main", rejudge, PR).startswith("started")
