"""Privileged steps: fetch a PR's logbooks as data at one commit, refuse a moved head,
judge and comment, start an approved run."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from reproaudit.ci import sticky
from reproaudit.ci.flow import dispatch_run, fetch_pr_logbooks
from reproaudit.cli import cli
from tests.ci import payloads
from tests.ci.conftest import HEAD, PR, ROOT
from tests.gitutil import git
from tests.records import write_current_rerun

CAROL = "logbooks/Kp4rT9vQ2x/carol-paging-1"


def git_pr(github_api, base_repo: Path, extra: dict[str, str] | None = None) -> str:
    """A real git history: main without carol's logbook, the PR adding it (and ``extra``).

    The checkout is left on main, as the privileged jobs check it out; the fake API
    says the PR's base and head are those commits. Returns the head SHA.
    """
    saved = {rel: (ROOT / rel).read_text() for rel in (f"{CAROL}.yaml", f"{CAROL}.md")}
    saved[f"{CAROL}/sweep.py"] = (ROOT / f"{CAROL}/sweep.py").read_text()
    shutil.rmtree(base_repo / CAROL)
    for rel in saved:
        (base_repo / rel).unlink(missing_ok=True)
    git(base_repo, "init", "-q", "-b", "main")
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "main")
    base = rev(base_repo)
    git(base_repo, "checkout", "-qb", "pr")
    for rel, text in {**saved, **(extra or {})}.items():
        (base_repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (base_repo / rel).write_text(text)
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "carol's logbook")
    head = rev(base_repo)
    git(base_repo, "checkout", "-q", "main")
    github_api.pulls[PR] = payloads.pull(PR, head=head, base=base, author="carol")
    return head


def rev(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def test_fetch_takes_only_logbook_files_at_the_approved_commit(
    github_api, client, base_repo, tmp_path
) -> None:
    head = git_pr(github_api, base_repo, {".github/workflows/site.yml": "on: push\n"})
    got = fetch_pr_logbooks(client(), github_api.repo, PR, head, base_repo, tmp_path / "a")
    assert got == [f"{CAROL}.md", f"{CAROL}.yaml"]  # data only, and nothing outside logbooks/
    with_code = fetch_pr_logbooks(
        client(), github_api.repo, PR, head, base_repo, tmp_path / "b", with_code=True
    )
    assert with_code == [f"{CAROL}.md", f"{CAROL}.yaml", f"{CAROL}/sweep.py"]
    assert (tmp_path / "b" / f"{CAROL}/sweep.py").read_text() == (
        ROOT / f"{CAROL}/sweep.py"
    ).read_text()
    assert not (base_repo / f"{CAROL}.yaml").exists()  # nothing written into the checkout
    assert not (tmp_path / "a" / ".github").exists()


def test_judge_pr_refuses_a_moved_head(github_api, base_repo, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    git_pr(github_api, base_repo)
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
    head = git_pr(github_api, base_repo)
    args = [
        "ci",
        "judge-pr",
        "--repo-name",
        github_api.repo,
        "--pr",
        str(PR),
        "--sha",
        head,
        "--post",
        "--repo",
        str(base_repo),
    ]
    env = {"REPROAUDIT_JUDGE_BASE_URL": ""}
    plan = base_repo.parent / "mentions" / "plan.json"
    first = CliRunner(env=env).invoke(cli, [*args, "--mentions-out", str(plan)])
    assert first.exit_code == 0, first.output
    # no re-run yet: awaiting one, the evidence says what the typed numbers would give
    assert "| C1 | inconclusive | growth_detected, not_rerun | typed numbers would falsify" in (
        first.output
    )
    assert CliRunner(env=env).invoke(cli, args).exit_code == 0
    comments = github_api.comments[PR]
    # one sticky comment; its falsification section argues against C1, but nobody re-ran
    # it: the paper's authors are not mentioned, and no mention is planned
    assert len(comments) == 1 and comments[0]["body"].startswith("<!-- reproaudit:sticky ")
    bot = sticky.parse(comments[0]["body"])
    assert bot.status("llm") == {"mode": "rules", "sha": head, "reran": []}  # no re-run yet
    assert bot.status("authors") is None
    assert not plan.exists()
    assert not (base_repo / f"{CAROL}.yaml").exists()  # judged in a folder of its own


def test_an_approved_reproduce_dispatches_the_workflow(github_api, client) -> None:
    outcome = {"command": "reproduce", "allowed": True, "head_sha": HEAD}
    done = dispatch_run(client(), github_api.repo, "main", outcome, PR)
    assert done == f"started reproduce.yml (reproduce) on local for PR {PR} at {HEAD[:12]}"
    assert github_api.dispatches == [
        {
            "workflow": "reproduce.yml",
            "ref": "main",
            "inputs": {"pr": str(PR), "head_sha": HEAD, "action": "reproduce", "backend": "local"},
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


def test_judge_pr_sees_the_prs_code_so_an_honest_rerun_is_current(
    github_api, base_repo, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    head = git_pr(github_api, base_repo)  # the code folder is new in this PR too
    reruns = tmp_path / "reruns"
    shutil.copytree(
        ROOT / "reruns" / "Kp4rT9vQ2x" / "carol-paging-1", reruns / "Kp4rT9vQ2x" / "carol-paging-1"
    )

    def judge(sha: str):
        args = ["ci", "judge-pr", "--repo-name", github_api.repo, "--pr", str(PR), "--sha", sha]
        args += ["--repo", str(base_repo), "--reruns", str(reruns)]
        return CliRunner(env={"REPROAUDIT_JUDGE_BASE_URL": ""}).invoke(cli, args)

    done = judge(head)
    assert done.exit_code == 0, done.output
    assert "(re-run passed)" in done.output
    assert "stale_rerun" not in done.output and "not_rerun" not in done.output
    # the same record once the PR's code differs from what ran: stale, naming the code tree
    git(base_repo, "checkout", "-q", "pr")
    sweep = base_repo / f"{CAROL}/sweep.py"
    sweep.write_text(sweep.read_text() + "\n# changed after the re-run\n")
    git(base_repo, "commit", "-qam", "a change after the re-run")
    moved = rev(base_repo)
    git(base_repo, "checkout", "-q", "main")
    github_api.pulls[PR]["head"]["sha"] = moved
    done = judge(moved)
    assert "stale_rerun" in done.output
    assert "the code tree changed since the re-run" in done.output


def without_falsification(text: str) -> str:
    """Carol's logbook with no ``falsification:`` section: only a verdict can challenge."""
    start = text.index("    falsification:\n")
    return text[:start] + text[text.index("    notes:", start) :]


def judge_and_post(
    github_api, base_repo: Path, head: str, reruns: Path | None = None, plan: Path | None = None
):
    args = ["ci", "judge-pr", "--repo-name", github_api.repo, "--pr", str(PR), "--sha", head]
    args += ["--post", "--repo", str(base_repo)]
    args += ["--reruns", str(reruns)] if reruns is not None else []
    args += ["--mentions-out", str(plan)] if plan is not None else []
    done = CliRunner(env={"REPROAUDIT_JUDGE_BASE_URL": ""}).invoke(cli, args)
    assert done.exit_code == 0, done.output
    return done


def test_a_new_logbook_its_rerun_falsifies_plans_a_mention_of_the_authors(
    github_api, base_repo, monkeypatch, tmp_path
) -> None:
    """The base branch has neither the logbook nor a verdict of it: the verdict judge-pr just
    made (falsified by a current re-run) is what plans a mention of the authors."""
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    (base_repo / "verdicts" / "Kp4rT9vQ2x" / "carol-paging-1.yaml").unlink()
    stripped = without_falsification((ROOT / f"{CAROL}.yaml").read_text())
    head = git_pr(github_api, base_repo, {f"{CAROL}.yaml": stripped})
    # the re-run of the PR's bytes, stored outside the checkout as the re-run job does
    git(base_repo, "checkout", "-q", "pr")
    outputs = (ROOT / "reruns" / "Kp4rT9vQ2x" / "carol-paging-1" / "outputs.json").read_bytes()
    write_current_rerun(base_repo, "Kp4rT9vQ2x", "carol-paging-1", outputs=outputs)
    shutil.move(base_repo / "reruns", tmp_path / "reruns")
    git(base_repo, "checkout", "-q", "main")
    plan = tmp_path / "mentions" / "plan.json"
    done = judge_and_post(github_api, base_repo, head, tmp_path / "reruns", plan)
    assert "| C1 | falsified | growth_detected" in done.output
    # the judge job only plans: the job that may write records and mentions (test_mentions)
    (comment,) = github_api.comments[PR]
    assert sticky.parse(comment["body"]).status("llm") == {
        "mode": "rules",
        "sha": head,
        "reran": ["Kp4rT9vQ2x/carol-paging-1"],  # its report verdicts are superseded
    }
    assert json.loads(plan.read_text()) == {
        "pr": PR,
        "head_sha": head,
        "mentions": [
            {
                "paper": "Kp4rT9vQ2x",
                "paper_file": "claims/icml2026/Kp4rT9vQ2x.yaml",
                "logbook": "carol-paging-1",
                "claims": ["C1"],
            }
        ],
    }


def test_a_base_verdict_of_other_bytes_mentions_nobody(github_api, base_repo, monkeypatch) -> None:
    """The base branch's verdict file says carol's logbook falsified C1, but the logbook the
    PR holds argues nothing and was not re-run: judged now, it falsifies nothing."""
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    base_verdict = (base_repo / "verdicts" / "Kp4rT9vQ2x" / "carol-paging-1.yaml").read_text()
    assert "verdict: falsified" in base_verdict
    stripped = without_falsification((ROOT / f"{CAROL}.yaml").read_text())
    head = git_pr(github_api, base_repo, {f"{CAROL}.yaml": stripped})
    done = judge_and_post(github_api, base_repo, head)
    assert "| C1 | inconclusive | growth_detected, not_rerun |" in done.output
    comments = github_api.comments[PR]
    assert len(comments) == 1  # the sticky comment alone: no author is mentioned
    assert sticky.parse(comments[0]["body"]).status("authors") is None
