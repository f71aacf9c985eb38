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

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.autorerun import plan_books, plan_from_text
from reproaudit.ci import sticky
from reproaudit.ci.pending import PENDING_BRANCH
from reproaudit.ci.report import report_of, rerun_plans
from reproaudit.cli import cli
from reproaudit.report.artifact import load_artifact
from reproaudit.report.markdown import render_markdown
from tests.ci import payloads
from tests.ci.actions import Actions, WorkflowRun
from tests.ci.conftest import HEAD, PR, ROOT, checkout
from tests.ci.fake_github import FakeGitHub
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


# --- a pull request's whole life, replayed through the workflows' own steps ---------------


def life_logbook(logbook_id: str, contributor: str, note: str = "") -> str:
    """A cpu logbook that re-runs C2 and argues against C1 (so reviews and answers apply)."""
    return (
        logbook_text(logbook_id, "cpu", contributor)
        + ("    notes: re-run by CI\n" if not note else f"    notes: {note}\n")
        + """\
  - claim: C1
    setup: full
    falsification: {argument: "Lemma 4.3 undercounts the re-trusts of line 9", counterexample: null}
"""
    )


@dataclass
class Life:
    """The audit repository on 'GitHub' (a bare origin, the API stand-in) and the workflows'
    jobs replayed against it, one event at a time on a clock of one minute per event."""

    origin: Path
    api: FakeGitHub
    actions: Actions
    tmp: Path
    minute: int = 0
    gates_run: int = 0
    builds_run: int = 0
    checked: str = ""  # main's commit when its gates last passed

    def now(self) -> str:
        self.minute += 1
        return f"2026-07-21T{9 + self.minute // 60:02d}:{self.minute % 60:02d}:00Z"

    def show(self, ref: str, rel: str) -> str | None:
        done = subprocess.run(
            ["git", "-C", str(self.origin), "show", f"{ref}:{rel}"],
            capture_output=True,
            text=True,
        )
        return done.stdout if done.returncode == 0 else None

    def files(self, ref: str) -> list[str]:
        done = subprocess.run(
            ["git", "-C", str(self.origin), "ls-tree", "-r", "--name-only", ref],
            capture_output=True,
            text=True,
        )
        return done.stdout.split()

    def push_pr(
        self, pr: int, author: str, files: dict[str, str], *, fork: str | None = None
    ) -> str:
        """The contributor pushes a commit writing ``files`` to pull request ``pr`` (the first
        on main as it is now, a later one on the branch's head, as a plain push); GitHub
        updates the pull request (``base.sha`` is the default branch's tip now) and
        validate.yml's run dates the push. Heads are kept where GitHub keeps them,
        ``refs/pull/<n>/head``, never on a branch a job clones."""
        work = self.tmp / f"contributor-{pr}-{self.minute}"
        git(self.tmp, "clone", "-q", str(self.origin), str(work))
        if pr in self.api.pulls:
            git(work, "fetch", "-q", "origin", f"refs/pull/{pr}/head")
            git(work, "checkout", "-q", "FETCH_HEAD")
        for rel, text in files.items():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_text(text)
        git(work, "add", "-A")
        git(work, "commit", "-qm", f"{author}'s logbook")
        git(work, "push", "-q", "origin", f"HEAD:refs/pull/{pr}/head")
        base, head = self.tip(), sha_of(work)
        ref = "patch-1" if fork else f"{author}-paging"
        self.api.pulls[pr] = payloads.pull(
            pr, head=head, base=base, author=author, changed_files=len(files),
            head_ref=ref, head_repo=fork,
        )  # fmt: skip
        self.api.files[pr] = sorted(files)
        for rel, text in files.items():
            self.api.contents[(rel, head)] = text
        self.api.runs.append(
            payloads.workflow_run(
                head, created_at=self.now(), run_id=5000 + self.minute,
                pulls=() if fork else (pr,), head_ref=ref, head_repo=fork or self.api.repo,
            )
        )  # fmt: skip
        return head

    def rerun(self, pr: int) -> WorkflowRun:
        """rerun.yml after validate.yml succeeded on the pull request's head."""
        pull = self.api.pulls[pr]
        fork = pull["head"]["repo"]["full_name"] != self.api.repo
        event = payloads.workflow_run_event(
            head=pull["head"]["sha"], base=pull["base"]["sha"], number=pr,
            head_repo=pull["head"]["repo"]["full_name"] if fork else None,
            head_ref=pull["head"]["ref"],
        )  # fmt: skip
        done = self.actions.run(
            "rerun.yml", "workflow_run", event, jobs=["contributor", "rerun", "store"]
        )
        assert done["rerun"].result == "success", done["rerun"].log()
        assert done["store"].result == "success", done["store"].log()
        return done

    def comment(self, pr: int, body: str, login: str) -> dict:
        """commands.yml for one new comment; the outcome ``ci command`` printed."""
        event = payloads.issue_comment(
            body, login, number=pr, created_at=self.now(), comment_id=6000 + self.minute
        )
        done = self.actions.run("commands.yml", "issue_comment", event, jobs=["command"])
        assert done["command"].result == "success", done["command"].log()
        out = done["command"].step("Decide and reply").output
        return json.loads(out[out.index("{") :])

    def merge(self, pr: int) -> None:
        """A maintainer merges the pull request: a merge commit on main, then site.yml's push."""
        work = self.tmp / f"merge-{pr}"
        git(self.tmp, "clone", "-q", str(self.origin), str(work))
        git(work, "fetch", "-q", "origin", f"refs/pull/{pr}/head")
        author = self.api.pulls[pr]["user"]["login"]
        git(work, "merge", "-q", "--no-ff", "FETCH_HEAD", "-m",
            f"Merge pull request #{pr} from {author}/patch-1")  # fmt: skip
        git(work, "push", "-q", "origin", "HEAD:main")
        self.api.pulls[pr] |= {"state": "closed", "merged": True, "merged_at": self.now()}
        self.api.pulls[pr]["closed_at"] = self.api.pulls[pr]["merged_at"]

    def site(self, *, build: bool, event: str = "workflow_dispatch") -> WorkflowRun:
        """site.yml on the default branch: move what may move, judge, then either its build job
        (validate, build --strict) or, where a full build adds nothing, validate and stats
        --strict on the same checkout: the default branch passes its gates either way."""
        payload = {"ref": "refs/heads/main", "repository": payloads.repository(self.api.repo),
                   "sender": payloads.user("maint")}  # fmt: skip
        jobs = ["pending", "verdicts", "build"] if build else ["pending", "verdicts"]
        done = self.actions.run("site.yml", event, payload, jobs=jobs)
        for name in jobs:
            assert done[name].result == "success", done[name].log()
        self.gates_run += 1
        self.checked = self.tip()
        if build:
            self.builds_run += 1
            return done
        work = self.tmp / f"gates-{self.gates_run}"
        git(self.tmp, "clone", "-q", "--depth", "1", f"file://{self.origin}", str(work))
        for gate in (["validate"], ["stats", "--strict"]):
            result = CliRunner().invoke(cli, [*gate, "--repo", str(work)])
            assert result.exit_code == 0, (gate, result.output)
        return done

    def tip(self) -> str:
        return git(self.origin, "rev-parse", "main")

    def untouched(self) -> None:
        """After a bot push that must leave main alone: main is the commit whose gates passed
        last (so they still pass), and no site run was started for it."""
        assert self.tip() == self.checked
        assert self.api.dispatches == []

    def moves(self) -> str:
        """site.yml's pending job alone (what ``ci promote`` said)."""
        payload = {"ref": "refs/heads/main", "repository": payloads.repository(self.api.repo)}
        done = self.actions.run("site.yml", "workflow_dispatch", payload, jobs=["pending"])
        assert done["pending"].result == "success", done["pending"].log()
        return done["pending"].step("Move what merged").output

    def site_pages(self, run: WorkflowRun) -> Path:
        workspace = run["build"].workspace
        assert workspace is not None
        return workspace / "_site"


@pytest.fixture
def life(tmp_path: Path) -> Iterator[Life]:
    """main holds this repository's example data (papers, logbooks, verdicts, re-runs),
    valid and strict-clean; the origin serves partial clones, as GitHub does."""
    repo = tmp_path / "audit"
    for name in ("claims", "logbooks", "verdicts", "reruns"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(origin, "config", "uploadpack.allowFilter", "true")
    with FakeGitHub() as api:
        api.permissions.update({"maint": "maintain", "ivandermeer": "read"})
        actions = Actions(origin, api.url, api.repo, tmp_path / "runs")
        yield Life(origin, api, actions, tmp_path)


ZED = f"logbooks/{PAPER}/zed-paging-1"
YARA = f"logbooks/{PAPER}/yara-paging-1"


def pr_of(rel: str, contributor: str, note: str = "") -> dict[str, str]:
    name = rel.rsplit("/", 1)[1]
    return {f"{rel}.yaml": life_logbook(name, contributor, note), f"{rel}/run.py": RUN_PY}


@needs_bwrap
def test_a_pull_requests_whole_life_never_breaks_the_default_branch(life: Life) -> None:
    """PR 21 (a branch of this repository) is re-run, answered, reviewed, pushed again while
    main moves, and closed unmerged; PR 22 (from a fork) is re-run, answered and merged.
    After every bot push, site.yml's jobs run as written: main validates and passes
    stats/build --strict at every step, holds nothing of PR 21 ever, and after the merge
    holds PR 22's record and answers, which the built site shows."""
    zed = lambda: [f for f in life.files("main") if "zed-paging-1" in f]  # noqa: E731

    # 1. PR 21 opens: rerun.yml re-runs zed's cpu logbook and keeps the record pending
    head = life.push_pr(21, "zed", pr_of(ZED, "zed"))
    ran = life.rerun(21)
    run_json = json.loads(
        (
            ran["rerun"].workspace.parent
            / "runner-temp"
            / "reruns"
            / PAPER
            / "zed-paging-1"
            / "run.json"
        ).read_text()
    )  # type: ignore[union-attr]
    assert run_json["status"] == "passed" and "token seen: []" in run_json["log_tail"]
    assert f"pr-21/reruns/{PAPER}/zed-paging-1/run.json" in life.files(PENDING_BRANCH)
    assert zed() == [] and life.api.dispatches == []  # main did not move: no site run needed
    (comment,) = life.api.comments[21]
    section = sticky.parse(comment["body"]).sections["reruns"]
    assert section.status == {"sha": head, "stored": [f"{PAPER}/zed-paging-1"], "refused": 0}
    assert "once the pull request is merged" in section.body
    life.site(build=True)  # the moment the old flow broke validate and build --strict
    life.untouched()

    # 2. the paper's author answers, and 3. a maintainer confirms, on the open pull request
    said = life.comment(21, "/author disagree C1 Line 9 runs once per phase.", "ivandermeer")
    assert (said["allowed"], said["pr"]) == (True, 21)
    assert "kept with this pull request until the pull request is merged" in said["reply"]
    assert "If the pull request is closed without merging, it is not published." in said["reply"]
    life.untouched()
    said = life.comment(21, "/review confirm C1 the counterexample holds", "maint")
    assert said["allowed"] and "then it counts as **falsified** on the site" in said["reply"]
    life.untouched()
    assert life.show("main", f"verdicts/{PAPER}/reviews.yaml") is None and zed() == []
    pending_reviews = yaml.safe_load(
        life.show(PENDING_BRANCH, f"pr-21/verdicts/{PAPER}/reviews.yaml") or ""
    )
    assert [r["stance"] for r in pending_reviews["reviews"]] == ["disagree", "confirm"]

    # 4. PR 22 opens from a fork: GitHub lists no pull request in its runs
    fork_head = life.push_pr(22, "yara", pr_of(YARA, "yara"), fork="yara/Hello-World")
    life.rerun(22)
    assert f"pr-22/reruns/{PAPER}/yara-paging-1/run.json" in life.files(PENDING_BRANCH)
    life.untouched()
    # 5. the author answers on the fork's pull request (dated by the fork's own run); a
    # maintainer names the commit in full
    said = life.comment(22, "/author agree C1 We will correct Lemma 4.3.", "ivandermeer")
    assert said["allowed"], said["reply"]
    said = life.comment(22, f"/review reject C1 {fork_head} not shown for k < 16", "maint")
    assert said["allowed"] and said["record"]["text"] == "not shown for k < 16"
    life.untouched()

    # 6. PR 22 is merged: site.yml (push) moves its record and answers, judges, builds
    life.merge(22)
    merged = life.site(build=True, event="push")
    moved = merged["pending"].step("Move what merged").output
    assert "moved the re-run record of Kp4rT9vQ2x/yara-paging-1 (pull request #22)" in moved
    assert moved.count("(pull request #22): the pull request is merged") == 2
    assert "kept the re-run record of Kp4rT9vQ2x/zed-paging-1 (pull request #21)" in moved
    record = json.loads(life.show("main", f"reruns/{PAPER}/yara-paging-1/run.json") or "{}")
    assert record["status"] == "passed"
    verdict = yaml.safe_load(life.show("main", f"verdicts/{PAPER}/yara-paging-1.yaml") or "")
    assert verdict["rerun"]["status"] == "passed"  # judged with the moved record
    reviews = yaml.safe_load(life.show("main", f"verdicts/{PAPER}/reviews.yaml") or "")
    assert [(r["logbook"], r["stance"]) for r in reviews["reviews"]] == [
        ("yara-paging-1", "agree"),
        ("yara-paging-1", "reject"),
    ]
    pages = life.site_pages(merged)
    logbook_page = (pages / "papers" / PAPER / "yara-paging-1" / "index.html").read_text()
    assert "<dt>Re-run</dt><dd>passed on local" in logbook_page
    paper_page = (pages / "papers" / PAPER / "index.html").read_text()
    assert "author ivandermeer agree: We will correct Lemma 4.3. (<a href=" in paper_page
    assert "not shown for k &lt; 16" in paper_page  # the maintainer's review, beside it
    assert not (pages / "papers" / PAPER / "zed-paging-1").exists()
    assert [f for f in life.files(PENDING_BRANCH) if "pr-22" in f] == []

    # 7. PR 21 is pushed again on the moved main; the store job compares its trees on a
    # full clone (a shallow one has no merge base now) and the newer record replaces the old
    second = life.push_pr(21, "zed", pr_of(ZED, "zed", note="second push"))
    life.rerun(21)
    pending_run = json.loads(
        life.show(PENDING_BRANCH, f"pr-21/reruns/{PAPER}/zed-paging-1/run.json") or "{}"
    )
    assert (
        pending_run["logbook_sha256"]
        == hashlib.sha256(life.api.contents[(f"{ZED}.yaml", second)].encode()).hexdigest()
    )
    life.untouched()

    # 8. PR 21 is closed unmerged: nothing of it reached main; 30 days on, the pending
    # branch forgets it too
    def closed(days_ago: int) -> str:  # on the real clock: ci promote reads that one
        return (datetime.now(UTC) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")

    life.api.pulls[21] |= {"state": "closed", "closed_at": closed(0)}
    kept = life.moves()  # site.yml's pending job alone: it moves nothing, so main is as checked
    assert "the pull request is closed without merging; kept 30 days in case it is reopened" in (
        kept
    )
    life.untouched()
    assert zed() == [] and any("pr-21/" in f for f in life.files(PENDING_BRANCH))
    life.api.pulls[21]["closed_at"] = closed(31)
    final = life.site(build=False)
    assert "dropped the re-run record of Kp4rT9vQ2x/zed-paging-1 (pull request #21)" in (
        final["pending"].step("Move what merged").output
    )
    assert life.files(PENDING_BRANCH) == ["README.md"] and zed() == []
    assert "zed-paging-1" not in (life.show("main", f"verdicts/{PAPER}/reviews.yaml") or "")
    life.untouched()  # every move happened in a site run: none after a bot push
    assert (life.gates_run, life.builds_run) == (3, 2)


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
    for name, job in site["jobs"].items():  # each job is the default branch's, or after one
        on_default = "github.ref_name == github.event.repository.default_branch"
        assert on_default in job.get("if", "") or job.get("needs"), name
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
    """/author disagree on a merged pull request -> kept pending and moved on at once ->
    site.yml dispatched -> the built site shows it on the claim chip, the paper header, the
    badge and both feeds."""
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_commands_token")
    github_api.pulls[PR] |= {"state": "closed", "merged": True, "merged_at": "2027-01-14T00:00:00Z"}
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
    said = json.loads(outcome.read_text())
    assert said["allowed"] is True and said["pr"] == PR
    assert said["reply"].endswith(
        "This pull request is merged, so it is shown beside the claim on the paper's page on "
        "the site within minutes."
    )
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
