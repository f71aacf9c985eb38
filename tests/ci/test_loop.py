"""The loop on GitHub, replayed job by job against local stand-ins.

A local HTTP server plays GitHub's REST API (``fake_github.py``), a local bare
repository plays the audit repository (a pull request's head is a real commit
under ``refs/pull/<n>/head``, as GitHub keeps it), payloads are in GitHub's
documented shapes, and each workflow step is the same ``reproaudit ci ...``
command line the workflow runs. A ``cpu`` logbook is re-run (real bwrap) and stored with no
maintainer command; a GPU one waits for ``/reproduce``; the bot's push starts the
site workflow on the default branch.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml
from click.testing import CliRunner

from reproaudit.autorerun import plan_books, plan_from_text
from reproaudit.ci import sticky
from reproaudit.ci.report import report_of, rerun_plans
from reproaudit.cli import cli
from reproaudit.report.artifact import load_artifact
from reproaudit.report.markdown import render_markdown
from tests.ci import payloads
from tests.ci.conftest import HEAD, PR, ROOT, checkout
from tests.conftest import needs_bwrap
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
CPU = f"logbooks/{PAPER}/zed-paging-1"
GPU = f"logbooks/{PAPER}/yara-paging-1"
RUN_PY = """\
import json, os, sys
os.makedirs("results", exist_ok=True)
with open("results/metrics.json", "w") as f:
    json.dump({"C2": {"competitive_ratio": 1.0}}, f)
print("token seen:", [k for k in os.environ if "TOKEN" in k])
"""


def logbook_text(logbook_id: str, hardware: str, contributor: str = "zed") -> str:
    return f"""\
logbook:
  id: {logbook_id}
  paper: {PAPER}
  claims_version: 1
  contributor: {{github: {contributor}}}
code: {{path: {logbook_id}/}}
reproduce:
  command: python run.py
  image: python:3.12-slim
  hardware: {hardware}
  timeout: 5m
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


def on_main(origin: Path, rel: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(origin), "show", f"main:{rel}"], capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


def sha_of(repo: Path, ref: str = "HEAD") -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", ref], capture_output=True, text=True, check=True
    ).stdout.strip()


def push_pr(origin: Path, files: dict[str, str]) -> tuple[str, str]:
    """The contributor's commit adding ``files`` on main, kept where GitHub keeps a PR's head.

    Pushed to ``refs/pull/7/head`` of ``origin`` (never to a branch a job clones),
    so a job has the commit only by fetching it. Returns (base, head).
    """
    work = origin.parent / f"{origin.name}-contributor"
    git(origin.parent, "clone", "-q", str(origin), str(work))
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "add logbooks")
    git(work, "push", "-q", "origin", f"HEAD:refs/pull/{PR}/head")
    return sha_of(work, "HEAD~1"), sha_of(work)


def open_pr(
    github_api, files: dict[str, str], origin: Path | None = None, author: str = "zed"
) -> str:
    """PR 7 adds ``files``; the API names its head and serves them there. Returns the head.

    With ``origin`` the head is a real commit there (``push_pr``) and the API says
    so; without it (no git read), the head is the payloads' ``HEAD``.
    """
    base, head = push_pr(origin, files) if origin is not None else (payloads.BASE, HEAD)
    github_api.pulls[PR] = payloads.pull(
        PR, head=head, base=base, author=author, changed_files=len(files)
    )
    github_api.files[PR] = sorted(files)
    for rel, text in files.items():
        github_api.contents[(rel, head)] = text
    return head


def pr_files(*books: tuple[str, str]) -> dict[str, str]:
    files = {}
    for rel, hardware in books:
        name = rel.rsplit("/", 1)[1]
        files[f"{rel}.yaml"] = logbook_text(name, hardware)
        files[f"{rel}/run.py"] = RUN_PY
    return files


def event_file(tmp_path: Path, github_api) -> Path:
    """validate.yml's ``workflow_run`` event for PR 7 at the head the API reports."""
    pull = github_api.pulls[PR]
    path = tmp_path / "workflow_run.json"
    event = payloads.workflow_run_event(
        head=pull["head"]["sha"], base=pull["base"]["sha"], number=PR
    )
    path.write_text(json.dumps(event))
    return path


def test_the_plan_says_what_runs_by_itself_and_why() -> None:
    cpu = plan_from_text(PAPER, "zed-paging-1", logbook_text("zed-paging-1", "cpu"))
    gpu = plan_from_text(PAPER, "yara-paging-1", logbook_text("yara-paging-1", "a10g-small"))
    bare = plan_from_text(PAPER, "x-1", "logbook: {id: x-1}\n")
    gone = plan_from_text(PAPER, "x-2", None)
    assert (cpu.kind, gpu.kind, bare.kind, gone.kind) == ("auto", "reproduce", "invalid", "none")
    assert gpu.why == (
        "hardware `a10g-small` needs a GPU: it waits for a maintainer's `/reproduce` "
        "(a self-hosted GPU runner) or `/reproduce hf-jobs` (Hugging Face Jobs)"
    )
    assert "re-run automatically in a sandbox on a GitHub-hosted runner" in cpu.why


@needs_bwrap
def test_a_cpu_logbook_is_rerun_and_stored_with_no_maintainer_command(
    github_api, origin: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_read_only_job_token")
    head = open_pr(github_api, pr_files((CPU, "cpu"), (GPU, "a10g-small")), origin)
    event = event_file(tmp_path, github_api)
    out = tmp_path / "artifact"
    repo = github_api.repo

    # rerun.yml, job "rerun": fetch with the token, then run without it
    job = checkout(origin, tmp_path / "rerun-job")
    into = tmp_path / "pr-files"  # $RUNNER_TEMP/pr-files: outside the checkout
    fetched = run(
        "ci", "reproduce-pr", "--stage", "fetch", "--auto", "--event", str(event),
        "--repo-name", repo, "--out", str(out), "--repo", str(job), "--into", str(into),
    )  # fmt: skip
    assert fetched.strip() == f"2 logbook(s) fetched at {head[:12]} into {into}"
    ran = run(
        "ci", "reproduce-pr", "--stage", "run", "--auto", "--event", str(event),
        "--repo-name", repo, "--backend", "local", "--sandbox", "bwrap",
        "--out", str(out), "--repo", str(job), "--into", str(into),
        env={"GITHUB_TOKEN": None, "GITHUB_API_URL": "http://127.0.0.1:9"},
    )  # fmt: skip
    lines = ran.splitlines()
    assert lines[0].startswith(
        f"{PAPER}/yara-paging-1: not re-run here: hardware a10g-small needs a GPU"
    )
    assert lines[1].startswith(f"{PAPER}/zed-paging-1: passed in ")
    assert lines[-1] == "1 logbook(s) re-run, 0 not passed"
    assert sorted(p.name for p in (out / PAPER).iterdir()) == ["zed-paging-1"]
    run_json = json.loads((out / PAPER / "zed-paging-1" / "run.json").read_text())
    assert "token seen: []" in run_json["log_tail"]

    # job "store": check the records, post what was stored, push, start the site
    site_saw: list[str | None] = []

    def watch(method: str, path: str) -> None:
        if path.endswith("/actions/workflows/site.yml/dispatches"):
            site_saw.append(on_main(origin, "reruns/Kp4rT9vQ2x/zed-paging-1/run.json"))

    github_api.after.append(watch)
    store_job = checkout(origin, tmp_path / "store-job")
    checked = tmp_path / "checked"
    stored = run(
        "ci", "store-reruns", "--artifact", str(out), "--repo-name", repo,
        "--event", str(event), "--repo", str(checked), "--git", str(store_job), "--post",
    )  # fmt: skip
    assert "stored reruns/Kp4rT9vQ2x/zed-paging-1" in stored
    pushed = run(
        "ci", "push", "reruns", "--from", str(checked / "reruns"), "--message", "store",
        "--branch", "main", "--repo-name", repo, "--dispatch", "site.yml",
        "--repo", str(store_job),
    )  # fmt: skip
    assert pushed.splitlines()[-1] == "started site.yml on main"
    assert github_api.dispatches == [{"workflow": "site.yml", "ref": "main"}]
    assert site_saw and site_saw[0] is not None  # the record was on main when the site started
    assert json.loads(site_saw[0])["status"] == "passed"

    # no maintainer command was needed; the bot comment says what was re-run
    assert not any(d["workflow"] == "reproduce.yml" for d in github_api.dispatches)
    (comment,) = github_api.comments[PR]
    section = sticky.parse(comment["body"]).sections["reruns"]
    assert section.status == {"sha": head, "stored": [f"{PAPER}/zed-paging-1"], "refused": 0}
    assert "- `` Kp4rT9vQ2x/zed-paging-1 ``: passed in " in section.body
    assert "(local, sandbox bwrap); record stored under `` reruns/Kp4rT9vQ2x/zed-paging-1/ ``" in (
        section.body
    )
    assert "- `` Kp4rT9vQ2x/yara-paging-1 ``: not re-run here" in section.body


def test_the_report_says_which_logbooks_rerun_by_themselves_and_which_await_reproduce(
    github_api, client
) -> None:
    open_pr(github_api, pr_files((CPU, "cpu"), (GPU, "a10g-small")))
    artifact = load_artifact(
        json.dumps(
            {
                "schema": "reproaudit-pr-result/1",
                "pr": PR,
                "head_sha": HEAD,
                "files": sorted(github_api.files[PR]),
                "outside": [],
                "problems": [],
                "verdicts": [],
            }
        ).encode(),
        pr=PR,
        head_sha=HEAD,
    )
    plans = rerun_plans(artifact, github=client(), repo=github_api.repo, repo_dir=None)
    body = render_markdown(report_of(artifact, reruns=plans))
    assert "In CI: 1 re-run automatically, 1 awaiting `/reproduce`." in body
    assert (
        "- `` Kp4rT9vQ2x/yara-paging-1 ``: awaits `/reproduce`: hardware `a10g-small` needs a GPU"
        in body
    )
    assert "- `` Kp4rT9vQ2x/zed-paging-1 ``: re-run automatically: hardware `cpu`: re-run " in body


@needs_bwrap
def test_a_gpu_logbook_is_not_run_by_the_automatic_job(
    github_api, origin: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    open_pr(github_api, pr_files((GPU, "a10g-small")), origin)
    event = event_file(tmp_path, github_api)
    out = tmp_path / "artifact"
    job = checkout(origin, tmp_path / "rerun-job")
    common = ["--event", str(event), "--repo-name", github_api.repo, "--out", str(out)]
    common += ["--into", str(tmp_path / "pr-files")]
    run("ci", "reproduce-pr", "--stage", "fetch", "--auto", *common, "--repo", str(job))
    ran = run("ci", "reproduce-pr", "--stage", "run", "--auto", *common, "--repo", str(job))
    assert ran.splitlines()[-1] == "0 logbook(s) re-run, 0 not passed"
    assert not out.exists() or not any(out.iterdir())  # nothing to upload: store is skipped
    assert github_api.dispatches == []


def test_a_run_stage_refuses_a_fetch_for_another_head(
    github_api, origin: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    open_pr(github_api, pr_files((CPU, "cpu")), origin)
    job = checkout(origin, tmp_path / "rerun-job")
    out = tmp_path / "artifact"
    event = event_file(tmp_path, github_api)
    run(
        "ci", "reproduce-pr", "--stage", "fetch", "--auto", "--event", str(event),
        "--repo-name", github_api.repo, "--out", str(out), "--repo", str(job),
        "--into", str(tmp_path / "pr-files"),
    )  # fmt: skip
    other = tmp_path / "other.json"
    other.write_text(json.dumps(payloads.workflow_run_event(head="1" * 40, number=PR)))
    result = CliRunner().invoke(
        cli,
        ["ci", "reproduce-pr", "--stage", "run", "--auto", "--event", str(other),
         "--repo-name", github_api.repo, "--out", str(out), "--repo", str(job),
         "--into", str(tmp_path / "pr-files")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no fetched logbooks of pull request 7 at 111111111111 here" in result.output
    assert not out.exists()


def test_plan_books_reads_each_logbook_once_at_the_head() -> None:
    asked: list[str] = []

    def read(rel: str) -> str | None:
        asked.append(rel)
        return logbook_text("zed-paging-1", "cpu")

    plans = plan_books([(PAPER, "zed-paging-1")], read)
    assert [p.kind for p in plans] == ["auto"] and asked == [f"{CPU}.yaml"]


def test_site_workflow_runs_on_the_default_branch_whatever_its_name() -> None:
    site = yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text())
    triggers = site[True]
    assert "workflow_dispatch" in triggers and triggers["push"] is None  # no branch written
    assert site["jobs"]["verdicts"]["if"] == (
        "github.ref_name == github.event.repository.default_branch"
    )
    assert not re.search(r"\bmain\b", (ROOT / ".github" / "workflows" / "site.yml").read_text())


def test_reproduce_names_its_backend_and_the_dispatch_carries_it(
    github_api, comment_event, tmp_path: Path, base_repo: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_commands_token")

    def command(body: str, default_backend: str) -> dict:
        payload = tmp_path / "comment.json"
        payload.write_text(json.dumps(comment_event(body)))
        outcome = tmp_path / "outcome.json"
        outcome.write_text(
            run("ci", "command", "--payload", str(payload), "--repo", str(base_repo))
        )
        run(
            "ci", "dispatch", "--outcome", str(outcome), "--payload", str(payload),
            "--ref", "main", "--default-backend", default_backend,
        )  # fmt: skip
        return json.loads(outcome.read_text())

    said = command("/reproduce hf-jobs", "local")
    assert (said["allowed"], said["backend"]) == (True, "hf-jobs")
    assert "at commit" in said["reply"] and "on `hf-jobs`" in said["reply"]
    assert command("/reproduce", "hf-jobs")["backend"] is None  # the repository's default
    assert command(f"/reproduce local {HEAD}", "hf-jobs")["backend"] == "local"
    backends = [d["inputs"]["backend"] for d in github_api.dispatches]
    assert backends == ["hf-jobs", "hf-jobs", "local"]
    assert {d["inputs"]["head_sha"] for d in github_api.dispatches} == {HEAD}

    typo = command("/reproduce hf-job", "local")
    assert (typo["allowed"], typo["reason"]) == (False, "usage")
    assert typo["reply"].startswith("Did you mean `hf-jobs`? `` hf-job `` is not a backend")
    assert len(github_api.dispatches) == 3  # a refusal starts nothing


def test_an_author_answer_committed_by_the_bot_reaches_the_site(
    github_api, comment_event, origin: Path, tmp_path: Path, monkeypatch
) -> None:
    """/author disagree -> the bot's commit -> site.yml dispatched -> the built site shows it
    on the claim chip, the paper header, the badge and both feeds."""
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_commands_token")
    carol = "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml"
    github_api.contents[(carol, HEAD)] = (ROOT / carol).read_text()
    job = checkout(origin, tmp_path / "commands-job")
    payload = tmp_path / "comment.json"
    payload.write_text(
        json.dumps(
            comment_event(
                "/author disagree C1 Line 9 runs once per phase; see Section 4.2.",
                login="ivandermeer",
                created_at="2027-01-15T08:30:00Z",
            )
        )
    )
    outcome = tmp_path / "outcome.json"
    outcome.write_text(run("ci", "command", "--payload", str(payload), "--repo", str(job)))
    assert json.loads(outcome.read_text())["allowed"] is True
    pushed = run(
        "ci", "push", "review", "--from", str(outcome), "--message", "record",
        "--branch", "main", "--repo-name", github_api.repo, "--dispatch", "site.yml",
        "--repo", str(job),
    )  # fmt: skip
    assert pushed.splitlines()[-1] == "started site.yml on main"
    assert github_api.dispatches == [{"workflow": "site.yml", "ref": "main"}]
    recorded = yaml.safe_load(on_main(origin, "verdicts/Kp4rT9vQ2x/reviews.yaml") or "")
    assert recorded["reviews"][-1]["stance"] == "disagree"

    # site.yml, dispatched on the default branch: its build job checks that branch out
    site_job = checkout(origin, tmp_path / "site-job")
    out = tmp_path / "_site"
    run("build", "--repo", str(site_job), "--out", str(out), "--site-url", "https://x.org/a/")
    paper = (out / "papers" / PAPER / "index.html").read_text()
    assert "falsified, under review, disputed by the authors</a>" in paper  # the grid chip
    header = paper[paper.index("outcome:") : paper.index("</p>", paper.index("outcome:"))]
    assert "disputed by the authors" in header
    assert '<time datetime="2027-01-15T08:30:00+00:00">2027-01-15</time>' in header
    logbook_page = (out / "papers" / PAPER / "carol-paging-1" / "index.html").read_text()
    assert "falsified, under review, disputed by the authors</a>" in logbook_page
    badge = (out / "badges" / f"{PAPER}.svg").read_text()
    assert "disputed by the authors</title>" in badge
    for feed in (out / "feed.xml", out / "papers" / PAPER / "feed.xml"):
        text = feed.read_text()
        assert "falsified, under review, disputed by the authors" in text, feed
        assert "C1 disputed by the authors on 2027-01-15." in text, feed
        assert "<updated>2027-01-15T08:30:00Z</updated>" in text, feed


def test_each_logbook_page_links_the_pull_request_that_added_it(base_repo: Path) -> None:
    from datetime import UTC, datetime

    from reproaudit.changes import pull_numbers
    from reproaudit.repo import Corpus
    from reproaudit.site.context import logbook_context
    from reproaudit.site.data import load_site_data

    git(base_repo, "init", "-q", "-b", "main")
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "base")
    git(base_repo, "checkout", "-qb", "patch-1")
    (base_repo / f"{CPU}.yaml").write_text(logbook_text("zed-paging-1", "cpu"))
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "add zed's logbook")
    git(base_repo, "checkout", "-q", "main")
    git(base_repo, "merge", "-q", "--no-ff", "patch-1", "-m", "Merge pull request #12 from zed/p")
    (base_repo / f"{GPU}.yaml").write_text(logbook_text("yara-paging-1", "t4-small", "yara"))
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "Add yara's logbook (#13)")
    numbers = pull_numbers(base_repo)
    assert numbers[f"{CPU}.yaml"] == 12 and numbers[f"{GPU}.yaml"] == 13
    assert f"logbooks/{PAPER}/carol-paging-1.yaml" not in numbers  # a direct commit names none

    data = load_site_data(
        Corpus(base_repo), datetime.now(UTC), repo_url="https://github.com/org/audit"
    )
    zed = logbook_context(data, (PAPER, "zed-paging-1")).links
    assert zed.pull_request == "https://github.com/org/audit/pull/12"
    carol = logbook_context(data, (PAPER, "carol-paging-1")).links
    assert carol.pull_request is None
    assert carol.history == (
        f"https://github.com/org/audit/commits/{data.commit}/logbooks/{PAPER}/carol-paging-1.yaml"
    )


def test_reproduce_hf_jobs_launches_the_job_on_the_hub_without_handing_it_a_token(
    github_api, base_repo: Path, tmp_path: Path, monkeypatch
) -> None:
    """reproduce.yml with backend hf-jobs: the run stage launches the GPU logbook on a local
    stand-in of the Hub's jobs API; the job clones the approved commit and gets no token."""
    import huggingface_hub.constants

    from tests.test_reproduce import FakeHub

    # the audit repository as the job clones it: $GITHUB_SERVER_URL/<owner>/<name>
    server = tmp_path / "server"
    source = server / github_api.repo
    source.parent.mkdir(parents=True)
    git(base_repo, "init", "-q", "-b", "main")
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "base")
    git(tmp_path, "clone", "-q", "--bare", str(base_repo), str(source))
    sha = open_pr(github_api, pr_files((GPU, "t4-small")), source, author="yara")

    hub = FakeHub(tmp_path)
    try:
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", hub.endpoint)
        monkeypatch.setenv("GITHUB_API_URL", github_api.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghs_fetch_only")
        job = checkout(source, tmp_path / "rerun-job")
        out = tmp_path / "artifact"
        common = ["--repo-name", github_api.repo, "--pr", str(PR), "--sha", sha, "--out", str(out)]
        common += ["--into", str(tmp_path / "pr-files")]
        run("ci", "reproduce-pr", "--stage", "fetch", *common, "--repo", str(job))
        ran = run(
            "ci", "reproduce-pr", "--stage", "run", "--backend", "hf-jobs", *common,
            "--repo", str(job),
            env={
                "GITHUB_TOKEN": None,
                "HF_TOKEN": "hf_launch_only",
                "GITHUB_SERVER_URL": str(server),
            },
        )  # fmt: skip
    finally:
        hub.close()
    assert ran.splitlines()[-1] == "1 logbook(s) re-run, 0 not passed", ran
    (spec,) = hub.specs
    assert spec["flavor"] == "t4-small"
    # no secret: only the runner's nonce, which it drops before the command starts
    assert set(spec["environment"]) == {"REPROAUDIT_NONCE"} and "secrets" not in spec
    assert "hf_launch_only" not in json.dumps(spec) and "ghs_" not in json.dumps(spec)
    assert spec["command"][4:6] == [str(source), sha]  # the approved commit, cloned
    # the launcher's token, and no other (never the GitHub one), is what reaches the Hub
    assert set(hub.auth) - {None} == {"Bearer hf_launch_only"}
    record = json.loads((out / PAPER / "yara-paging-1" / "run.json").read_text())
    assert (record["status"], record["backend"]) == ("passed", "hf-jobs")
