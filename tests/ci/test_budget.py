"""The bot's work has the contributor's budget: a cap on a pull request's automatic re-run
time that the report and the job apply alike, and one automatic re-run at a time per
contributor (the pull request author's login, from the API, never a branch name).

The re-run is real (bwrap), against a local bare repository and a local GitHub stand-in,
with the workflows' own ``reproaudit ci ...`` command lines. The control: an honest pull
request's logbooks, under the cap, re-run and stored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.autorerun import CAP_SETTING, DEFAULT_CAP, cap_s
from reproaudit.ci.report import rerun_plans
from reproaudit.cli import cli
from reproaudit.report.artifact import load_artifact
from tests.ci import payloads
from tests.ci.conftest import PR, ROOT, checkout
from tests.conftest import needs_bwrap
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
WORKFLOWS = ROOT / ".github" / "workflows"
RUN_PY = """\
import json, os
os.makedirs("results", exist_ok=True)
with open("results/metrics.json", "w") as f:
    json.dump({"C2": {"competitive_ratio": 1.0}}, f)
"""


def logbook_text(name: str, timeout: str) -> str:
    return f"""\
logbook:
  id: {name}
  paper: {PAPER}
  claims_version: 1
  contributor: {{github: zed}}
code: {{path: {name}/}}
reproduce:
  command: python run.py
  image: python:3.12-slim
  hardware: cpu
  timeout: {timeout}
  outputs: results/metrics.json
results:
  - claim: C2
    setup: full
    measurements:
      - {{metric: competitive_ratio, value: 1.0, unit: dimensionless,
         source: "outputs:/C2/competitive_ratio"}}
"""


def run(*args: str, env: dict[str, str | None] | None = None) -> str:
    result = CliRunner(env=env).invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def open_pr(github_api, origin: Path, books: dict[str, str], author: str = "zed") -> str:
    """PR 7 adds a logbook (and its run.py) per name -> timeout; its head is a real commit
    at ``refs/pull/7/head`` of ``origin``. Returns the head."""
    work = origin.parent / "contributor"
    git(origin.parent, "clone", "-q", str(origin), str(work))
    files = {}
    for name, timeout in books.items():
        files[f"logbooks/{PAPER}/{name}.yaml"] = logbook_text(name, timeout)
        files[f"logbooks/{PAPER}/{name}/run.py"] = RUN_PY
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "add logbooks")
    git(work, "push", "-q", "origin", f"HEAD:refs/pull/{PR}/head")
    base, head = git(work, "rev-parse", "HEAD~1"), git(work, "rev-parse", "HEAD")
    github_api.pulls[PR] = payloads.pull(
        PR, head=head, base=base, author=author, changed_files=len(files)
    )
    github_api.files[PR] = sorted(files)
    return head


def event_file(tmp_path: Path, head: str, number: int | None = PR) -> Path:
    """validate.yml's ``workflow_run`` event; ``number=None``: a fork's (no pull_requests)."""
    path = tmp_path / f"workflow_run-{number}.json"
    path.write_text(json.dumps(payloads.workflow_run_event(head=head, number=number)))
    return path


@needs_bwrap
def test_the_job_reruns_what_the_report_promises_within_the_cap(
    github_api, origin: Path, tmp_path: Path, monkeypatch
) -> None:
    """Three cpu logbooks of 5m each, a cap of 12m: the first two are re-run and stored (the
    control: an honest pull request's re-runs), the third waits for /reproduce; the report
    and the job say it of the same logbook, in the same words."""
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv(CAP_SETTING, "12m")
    head = open_pr(github_api, origin, {"zed-a-1": "5m", "zed-b-1": "5m", "zed-c-1": "5m"})
    event = event_file(tmp_path, head)
    repo, out, into = github_api.repo, tmp_path / "artifact", tmp_path / "pr-files"
    job = checkout(origin, tmp_path / "rerun-job")
    common = ["--event", str(event), "--repo-name", repo, "--out", str(out), "--into", str(into)]
    run("ci", "reproduce-pr", "--stage", "fetch", "--auto", *common, "--repo", str(job))
    ran = run(
        "ci", "reproduce-pr", "--stage", "run", "--auto", *common, "--repo", str(job),
        "--backend", "local", "--sandbox", "bwrap",
        env={"GITHUB_TOKEN": None, "GITHUB_API_URL": "http://127.0.0.1:9"},
    ).splitlines()  # fmt: skip
    waits = (
        "hardware cpu, but this pull request's automatic re-runs may take 12m of "
        "reproduce.timeout in all (REPROAUDIT_AUTO_RERUN_CAP) and its 5m would pass that; the "
        "logbooks before it take 10m: it waits for a maintainer's /reproduce"
    )
    assert ran[0] == f"{PAPER}/zed-c-1: not re-run here: {waits}"
    assert ran[1].startswith(f"{PAPER}/zed-a-1: passed in ")
    assert ran[2].startswith(f"{PAPER}/zed-b-1: passed in ")
    assert ran[-1] == "2 logbook(s) re-run, 0 not passed"
    assert sorted(p.name for p in (out / PAPER).iterdir()) == ["zed-a-1", "zed-b-1"]

    # the report (report.yml's job, from the git trees) promised exactly that
    artifact = load_artifact(
        json.dumps(
            {"schema": "reproaudit-pr-result/1", "pr": PR, "head_sha": head,
             "files": github_api.files[PR], "outside": [], "problems": [], "verdicts": []}
        ).encode(),
        pr=PR,
        head_sha=head,
    )  # fmt: skip
    report_job = checkout(origin, tmp_path / "report-job")
    git(report_job, "fetch", "-q", "origin", f"refs/pull/{PR}/head")
    plans = rerun_plans(artifact, github=None, repo=repo, repo_dir=report_job)
    said = {p.logbook: (p.kind, p.why.replace("`", "")) for p in plans}
    assert said["zed-c-1"] == ("reproduce", waits)
    assert said["zed-a-1"][0] == said["zed-b-1"][0] == "auto"

    # the store job keeps the two records (the control: an honest pull request's re-runs)
    stored = run(
        "ci", "store-reruns", "--artifact", str(out), "--repo-name", repo, "--event", str(event),
        "--repo", str(tmp_path / "checked"), "--git", str(checkout(origin, tmp_path / "store")),
    )  # fmt: skip
    assert f"stored reruns/{PAPER}/zed-a-1" in stored and f"stored reruns/{PAPER}/zed-b-1" in stored
    assert f"no re-run record for reruns/{PAPER}/zed-c-1" in stored
    assert "2 record(s) stored, 0 file(s) refused" in stored


def test_offline_report_never_invites_a_reproduce_ci_does_by_itself(
    github_api, origin: Path, tmp_path: Path
) -> None:
    """`ci report` without --repo-name: with a clone (--git) it says which logbook CI re-runs
    by itself; without one it invites nobody to /reproduce a cpu logbook."""
    head = open_pr(github_api, origin, {"zed-a-1": "5m"})
    result = tmp_path / "result.json"
    result.write_text(
        json.dumps(
            {"schema": "reproaudit-pr-result/1", "pr": PR, "head_sha": head,
             "files": github_api.files[PR], "outside": [], "problems": [],
             "verdicts": [{"paper": PAPER, "logbook": "zed-a-1", "numbers": "self_reported",
                           "claims": [{"claim": "C2", "verdict": "inconclusive",
                                       "flags": ["not_rerun"], "evidence": "awaiting"}]}]}
        )
    )  # fmt: skip
    clone = checkout(origin, tmp_path / "clone")
    git(clone, "fetch", "-q", "origin", f"refs/pull/{PR}/head")
    common = ["ci", "report", "--artifact", str(result), "--pr", str(PR), "--sha", head]
    with_git = run(*common, "--git", str(clone))
    assert "In CI: 1 re-run automatically." in with_git
    assert f"- `` {PAPER}/zed-a-1 ``: re-run automatically: hardware `cpu`" in with_git
    bare = run(*common)
    assert "A maintainer can ask for a re-run" not in bare
    assert (
        "In CI, cpu logbooks are re-run by themselves (within the pull request's cap), the "
        "others after a maintainer's `/reproduce`."
    ) in bare


def test_pr_author_is_the_login_of_whoever_opened_it_fork_or_not(
    github_api, tmp_path: Path, monkeypatch
) -> None:
    """The concurrency group's key: the same for every branch and pull request of one
    contributor, fork-shaped (no ``pull_requests`` in the event) or not; another
    contributor's is another group."""
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    heads = {PR: "1" * 40, PR + 1: "2" * 40, PR + 2: "3" * 40}
    github_api.pulls.clear()
    github_api.pulls[PR] = payloads.pull(PR, head=heads[PR], author="Zed-Contrib")
    github_api.pulls[PR + 1] = payloads.pull(
        PR + 1, head=heads[PR + 1], author="Zed-Contrib", head_ref="other-branch"
    )
    github_api.pulls[PR + 2] = payloads.pull(PR + 2, head=heads[PR + 2], author="amy")
    logins = []
    for number, head in heads.items():
        for shape in (number, None):  # a same-repository run, then a fork's
            path = tmp_path / f"event-{number}-{shape}.json"
            path.write_text(json.dumps(payloads.workflow_run_event(head=head, number=shape)))
            logins.append(run("ci", "pr-author", "--event", str(path)).strip())
    assert logins == ["login=zed-contrib"] * 4 + ["login=amy"] * 2
    # the API is trusted, but what goes into $GITHUB_OUTPUT is checked: one line, a login
    github_api.pulls[PR]["user"]["login"] = "zed\nlogin=someone-else"
    path = tmp_path / "event-forged.json"
    path.write_text(json.dumps(payloads.workflow_run_event(head=heads[PR], number=PR)))
    refused = CliRunner().invoke(cli, ["ci", "pr-author", "--event", str(path)])
    assert refused.exit_code == 1 and "is not a GitHub login" in refused.output


def test_rerun_yml_holds_one_runner_per_contributor_within_the_cap() -> None:
    rerun = yaml.safe_load((WORKFLOWS / "rerun.yml").read_text())
    assert "concurrency" not in rerun  # no group per branch: a contributor has many
    who = rerun["jobs"]["contributor"]
    assert who["permissions"] == {"contents": "read", "pull-requests": "read"}
    (step,) = (s for s in who["steps"] if "pr-author" in s.get("run", ""))
    assert step["id"] == "author" and step["run"] == (
        'reproaudit ci pr-author --event "$GITHUB_EVENT_PATH" >> "$GITHUB_OUTPUT"'
    )
    assert who["outputs"] == {"login": "${{ steps.author.outputs.login }}"}
    job = rerun["jobs"]["rerun"]
    assert job["needs"] == "contributor"
    assert job["concurrency"] == {
        "group": "rerun-${{ needs.contributor.outputs.login }}",
        "cancel-in-progress": False,
    }
    # the cap the job applies is the report's, and fits in the job's time limit
    (run_step,) = (s for s in job["steps"] if "--stage run" in s.get("run", ""))
    assert run_step["env"][CAP_SETTING] == f"${{{{ vars.{CAP_SETTING} }}}}"
    report = yaml.safe_load((WORKFLOWS / "report.yml").read_text())["jobs"]["report"]
    (post,) = (s for s in report["steps"] if "ci report" in s.get("run", ""))
    assert post["env"][CAP_SETTING] == f"${{{{ vars.{CAP_SETTING} }}}}"
    assert cap_s({}) == cap_s({CAP_SETTING: DEFAULT_CAP}) <= (job["timeout-minutes"] - 30) * 60


@pytest.mark.parametrize("name", ["rerun.yml", "reproduce.yml"])
def test_the_jobs_that_mention_authors_hold_no_judge_key(name: str) -> None:
    jobs = yaml.safe_load((WORKFLOWS / name).read_text())["jobs"]
    mention = jobs["mention"]
    assert mention["needs"] == "judge" and "environment" not in mention
    assert "secrets." not in yaml.safe_dump(mention)
    assert "contents" not in jobs["judge"]["permissions"] or (
        jobs["judge"]["permissions"]["contents"] == "read"
    )
    judge = " ".join(s.get("run", "") for s in jobs["judge"]["steps"])
    assert "--mentions-out" in judge
    assert any("ci push mentions" in s.get("run", "") for s in mention["steps"])
