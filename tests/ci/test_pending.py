"""The pending branch on a local bare origin: a pull request's records and answers wait
there, and move onto main only with the merge (``ci/pending.py``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.ci.github import GitHub
from reproaudit.ci.pending import (
    PENDING_BRANCH,
    Decision,
    PendingRecord,
    apply_removal,
    pending_records,
    pending_review,
    promote,
    push_pending,
    read_pending,
    store_pending,
)
from reproaudit.cli import cli
from tests.ci import payloads
from tests.ci.conftest import ROOT, checkout
from tests.ci.fake_github import FakeGitHub
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
CAROL = f"logbooks/{PAPER}/carol-paging-1"
RECORD = ROOT / "reruns" / PAPER / "carol-paging-1"
NOW = datetime(2026, 8, 1, tzinfo=UTC)


def answer(by: str = "ivandermeer", stance: str = "disagree") -> dict:
    return {
        "claim": "C1",
        "logbook": "carol-paging-1",
        "kind": "author_response",
        "stance": stance,
        "by": by,
        "at": "2026-07-21T10:00:00Z",
        "link": "https://github.com/Codertocat/Hello-World/pull/7#issuecomment-1",
        "text": "Line 9 runs once per phase",
        "paper": PAPER,
    }


def show(origin: Path, ref: str, rel: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(origin), "show", f"{ref}:{rel}"], capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


def files_at(origin: Path, ref: str) -> list[str]:
    return git(origin, "ls-tree", "-r", "--name-only", ref).split()


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """main holds the example data without carol's logbook (her pull request adds it)."""
    repo = tmp_path / "base"
    for name in ("claims", "logbooks", "verdicts", "reruns"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    for rel in (f"{CAROL}.yaml", f"{CAROL}.md", f"verdicts/{PAPER}/carol-paging-1.yaml"):
        (repo / rel).unlink()
    shutil.rmtree(repo / CAROL)
    shutil.rmtree(repo / "reruns" / PAPER / "carol-paging-1")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    return origin


def merge_carol(origin: Path, tmp_path: Path, *, change: bool = False) -> None:
    """The pull request's merge: carol's logbook lands on main (``change``: other bytes)."""
    work = checkout(origin, tmp_path / f"merge-{change}")
    for rel in (f"{CAROL}.yaml", f"{CAROL}.md"):
        (work / rel).write_bytes((ROOT / rel).read_bytes())
    shutil.copytree(ROOT / CAROL, work / CAROL, ignore=shutil.ignore_patterns("results"))
    if change:
        with open(work / f"{CAROL}.yaml", "a") as handle:
            handle.write("# edited in the merge\n")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "Merge pull request #7 from carol/paging")
    git(work, "push", "-q", "origin", "HEAD:main")


def record_source(tmp_path: Path) -> Path:
    src = tmp_path / "checked" / "reruns"
    shutil.copytree(RECORD, src / PAPER / "carol-paging-1")
    return src


def test_a_record_waits_on_the_pending_branch_and_moves_with_the_merge(
    bare: Path, tmp_path: Path
) -> None:
    job = checkout(bare, tmp_path / "store-job")
    done = push_pending(
        pending_records(record_source(tmp_path), 7), 7, job, "store", github=None, repo_name=None
    )
    assert done.stored.status == "pushed" and not done.main_pushed
    (kept,) = done.promoted.decisions
    assert kept.line() == (
        "kept the re-run record of Kp4rT9vQ2x/carol-paging-1 (pull request #7): GitHub did not "
        "say whether the pull request is merged (the logbook does not exist at the default "
        "branch)"
    )
    # main is untouched; the pending branch is a root of its own with the record and a README
    assert show(bare, "main", f"reruns/{PAPER}/carol-paging-1/run.json") is None
    assert files_at(bare, PENDING_BRANCH) == [
        "README.md",
        f"pr-7/reruns/{PAPER}/carol-paging-1/outputs.json",
        f"pr-7/reruns/{PAPER}/carol-paging-1/run.json",
    ]
    assert git(bare, "rev-list", "--count", PENDING_BRANCH) == "1"
    shared = subprocess.run(["git", "-C", str(bare), "merge-base", "main", PENDING_BRANCH])
    assert shared.returncode == 1  # no history shared with main

    merge_carol(bare, tmp_path)
    report = promote(checkout(bare, tmp_path / "site-job"), github=None, repo_name=None)
    assert [d.fate for d in report.decisions] == ["moved"]
    assert report.main is not None and report.main.status == "pushed"
    assert show(bare, "main", f"reruns/{PAPER}/carol-paging-1/run.json") == (
        (RECORD / "run.json").read_text()
    )
    assert files_at(bare, PENDING_BRANCH) == ["README.md"]
    # promoting again finds nothing to do
    again = promote(checkout(bare, tmp_path / "site-job-2"), github=None, repo_name=None)
    assert again.decisions == [] and again.main is None


def test_a_merged_prs_record_of_other_bytes_is_dropped_not_published(
    bare: Path, tmp_path: Path
) -> None:
    job = checkout(bare, tmp_path / "store-job")
    store_pending(job, pending_records(record_source(tmp_path), 7), "store")
    merge_carol(bare, tmp_path, change=True)  # merged after a later push, not re-run yet
    with FakeGitHub() as fake:
        fake.pulls[7] = payloads.pull(
            7, state="closed", merged=True, closed_at="2026-07-30T00:00:00Z"
        )
        report = promote(job, github=GitHub(fake.url, "t", backoff=0.01), repo_name=fake.repo)
    (dropped,) = report.decisions
    assert dropped.fate == "dropped"
    assert dropped.why.startswith(
        "the pull request is merged, but not current at the default branch: the logbook YAML "
        "changed since the re-run"
    )
    assert show(bare, "main", f"reruns/{PAPER}/carol-paging-1/run.json") is None
    assert files_at(bare, PENDING_BRANCH) == ["README.md"]


def test_answers_move_only_once_github_says_the_pull_request_is_merged(
    origin: Path, tmp_path: Path
) -> None:
    """carol's logbook is on main already; answers on PRs 7 and 8 about it wait for a merge."""
    job = checkout(origin, tmp_path / "commands-job")
    store_pending(job, pending_review(answer(), 7), "answer on 7")
    store_pending(job, pending_review(answer("aokafor", "agree"), 8), "answer on 8")
    with FakeGitHub() as fake:
        github = GitHub(fake.url, "t", backoff=0.01)
        fake.pulls[7] = payloads.pull(7)
        fake.pulls[8] = payloads.pull(8, state="closed", closed_at="2026-07-25T00:00:00Z")
        report = promote(job, github=github, repo_name=fake.repo, now=NOW)
        assert [(d.entry.pr, d.fate) for d in report.decisions] == [(7, "kept"), (8, "kept")]
        assert report.decisions[0].why == "the pull request is open (it waits for the merge)"
        assert report.decisions[1].why == (
            "the pull request is closed without merging; kept 30 days in case it is reopened"
        )
        assert show(origin, "main", f"verdicts/{PAPER}/reviews.yaml") is None

        fake.pulls[7] = payloads.pull(
            7, state="closed", merged=True, closed_at="2026-07-31T00:00:00Z"
        )
        later = NOW + timedelta(days=30)  # PR 8 was closed 37 days before
        report = promote(job, github=github, repo_name=fake.repo, now=later)
    assert [(d.entry.pr, d.fate) for d in report.decisions] == [(7, "moved"), (8, "dropped")]
    reviews = yaml.safe_load(show(origin, "main", f"verdicts/{PAPER}/reviews.yaml") or "")
    assert [(r["by"], r["stance"]) for r in reviews["reviews"]] == [("ivandermeer", "disagree")]
    assert files_at(origin, PENDING_BRANCH) == ["README.md"]


def test_a_newer_record_that_arrived_meanwhile_stays_pending(bare: Path, tmp_path: Path) -> None:
    job = checkout(bare, tmp_path / "job")
    store_pending(job, pending_records(record_source(tmp_path), 7), "store")
    pending = read_pending(job, tmp_path / "read", remote="origin", branch=PENDING_BRANCH)
    (record,) = pending.records
    assert isinstance(record, PendingRecord) and set(record.files) == {"run.json", "outputs.json"}
    # a later push's record replaced it on the pending branch before the removal ran
    newer = tmp_path / "newer" / "reruns"
    shutil.copytree(RECORD, newer / PAPER / "carol-paging-1")
    (newer / PAPER / "carol-paging-1" / "run.json").write_text('{"status": "passed"}\n')
    store_pending(job, pending_records(newer, 7), "a later record")
    work = checkout(bare, tmp_path / "pending-view")
    git(work, "checkout", "-q", PENDING_BRANCH)
    remove = apply_removal(pending, [Decision(record, "moved", "merged")])
    assert remove(work) == []
    assert (work / "pr-7" / "reruns" / PAPER / "carol-paging-1" / "run.json").is_file()


def test_two_jobs_create_the_pending_branch_at_once_and_both_land(
    bare: Path, tmp_path: Path
) -> None:
    jobs = [checkout(bare, tmp_path / f"job{i}") for i in range(2)]
    barrier = threading.Barrier(2, timeout=30)
    results: dict[int, object] = {}

    def job(i: int) -> None:
        inner = pending_review(answer(["ivandermeer", "aokafor"][i]), 7 + i)
        calls: list[int] = []

        def apply(work: Path) -> list[str]:
            calls.append(1)
            paths = inner(work)
            if len(calls) == 1:
                barrier.wait()  # both saw no branch: one root commit must lose the race
            return paths

        from reproaudit.ci.pending import with_readme
        from reproaudit.ci.push import push_change

        results[i] = push_change(
            jobs[i], with_readme(apply), f"answer {i}", branch=PENDING_BRANCH, create=True,
            backoff=0.01, sleep=lambda s: None,
        )  # fmt: skip

    threads = [threading.Thread(target=job, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted((r.status, r.attempts) for r in results.values()) == [  # type: ignore[attr-defined]
        ("pushed", 1),
        ("pushed", 2),
    ]
    assert files_at(bare, PENDING_BRANCH) == [
        "README.md",
        f"pr-7/verdicts/{PAPER}/reviews.yaml",
        f"pr-8/verdicts/{PAPER}/reviews.yaml",
    ]
    assert git(bare, "rev-list", "--max-parents=0", PENDING_BRANCH).count("\n") == 0  # one root


def test_ci_push_sends_records_and_reviews_to_the_pending_branch_only(
    origin: Path, tmp_path: Path
) -> None:
    job = checkout(origin, tmp_path / "job")
    runner = CliRunner()
    args = ["ci", "push", "reruns", "--from", str(record_source(tmp_path)), "--message", "m"]
    refused = runner.invoke(cli, [*args, "--repo", str(job)])
    assert refused.exit_code == 2
    assert "re-run records wait under their pull request: give --pr N or --event" in (
        refused.output
    )
    outcome = tmp_path / "outcome.json"
    outcome.write_text(json.dumps({"allowed": True, "record": answer()}))
    no_pr = runner.invoke(cli, ["ci", "push", "review", "--from", str(outcome), "--message", "m",
                                "--repo", str(job)])  # fmt: skip
    assert no_pr.exit_code == 1
    assert "pr: not the number of the pull request it came from" in no_pr.output
    stored = runner.invoke(cli, [*args, "--pr", "7", "--repo", str(job)])
    assert stored.exit_code == 0, stored.output
    assert stored.output.splitlines()[0].startswith("pending branch: pushed after 1 attempt(s)")
    # main holds carol's logbook with the bytes it re-ran: the record moves on at once
    lines = stored.output.splitlines()
    assert lines[1] == (
        "moved the re-run record of Kp4rT9vQ2x/carol-paging-1 (pull request #7): the default "
        "branch holds the bytes it re-ran"
    )
    assert lines[2].startswith("default branch: pushed after 1 attempt(s): pushed ")
    assert lines[3].startswith("pending branch: pushed after 1 attempt(s): pushed ")
    assert lines[4:] == ["1 moved to the default branch, 0 kept pending, 0 dropped"]
    assert show(origin, "main", f"reruns/{PAPER}/carol-paging-1/run.json") is not None
    assert files_at(origin, PENDING_BRANCH) == ["README.md"]
