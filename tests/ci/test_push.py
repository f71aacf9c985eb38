"""Commits to main from workflows: two real pushers at once against a local bare repository."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from reproaudit.ci.push import (
    ApplyConflict,
    apply_records,
    apply_review,
    apply_verdicts,
    push_change,
)
from reproaudit.errors import ReproauditError
from tests.ci.conftest import checkout
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"


def review(by: str, stance: str = "confirm") -> dict:
    return {
        "claim": "C1",
        "logbook": "carol-paging-1",
        "kind": "review",
        "stance": stance,
        "by": by,
        "at": "2026-07-21T10:00:00Z",
        "link": f"https://github.com/o/r/pull/7#issuecomment-{len(by)}",
        "text": f"{by} looked",
        "paper": PAPER,
    }


def main_file(origin: Path, rel: str, branch: str = "main") -> str:
    return subprocess.run(
        ["git", "-C", str(origin), "show", f"{branch}:{rel}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_two_concurrent_reviews_both_land(origin: Path, tmp_path: Path) -> None:
    jobs = [checkout(origin, tmp_path / f"job{i}") for i in range(2)]
    # both jobs fetch and apply before either pushes: one push must lose the race
    barrier = threading.Barrier(2, timeout=30)
    results: dict[int, object] = {}

    def job(i: int) -> None:
        inner = apply_review(review(["maint", "other-maint"][i]))
        calls = []

        def apply(work: Path) -> list[str]:
            calls.append(1)
            paths = inner(work)
            if len(calls) == 1:
                barrier.wait()
            return paths

        results[i] = push_change(
            jobs[i], apply, f"Record review {i}", backoff=0.01, sleep=lambda s: None
        )

    threads = [threading.Thread(target=job, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    statuses = sorted((r.status, r.attempts) for r in results.values())
    assert statuses == [("pushed", 1), ("pushed", 2)]  # the loser fetched and re-applied
    saved = yaml.safe_load(main_file(origin, f"verdicts/{PAPER}/reviews.yaml"))
    assert sorted(r["by"] for r in saved["reviews"]) == ["maint", "other-maint"]
    log = subprocess.run(
        ["git", "-C", str(origin), "log", "--format=%an %s", "main"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert len(log) == 3  # base + one commit per review, no merge commit
    assert all(line.startswith("reproaudit[bot] Record review") for line in log[:2])


def test_two_processes_storing_records_and_a_review(origin: Path, tmp_path: Path) -> None:
    """Real separate processes, each through the CLI, started together: a pull request's
    records and a review both land on the pending branch (made by whichever comes first),
    nothing of them on main."""
    records = tmp_path / "records"
    folder = records / PAPER / "carol-paging-1"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text('{"status": "passed"}\n')
    (folder / "outputs.json").write_text('{"C1": {}}\n')
    (folder / "stray.sh").write_text("echo not copied\n")
    outcome = tmp_path / "outcome.json"
    outcome.write_text(json.dumps({"allowed": True, "record": review("maint"), "pr": 7}))
    jobs = [checkout(origin, tmp_path / f"job{i}") for i in range(2)]
    pr = {"reruns": ["--pr", "7"], "review": []}
    procs = [
        subprocess.Popen(
            [
                "reproaudit",
                "ci",
                "push",
                kind,
                "--from",
                str(src),
                "--message",
                f"store {kind}",
                *pr[kind],
            ],
            cwd=job,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for job, kind, src in zip(jobs, ["reruns", "review"], [records, outcome], strict=True)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    pending = "reproaudit/pending"
    assert json.loads(
        main_file(origin, f"pr-7/reruns/{PAPER}/carol-paging-1/run.json", pending)
    ) == {"status": "passed"}
    assert "maint" in main_file(origin, f"pr-7/verdicts/{PAPER}/reviews.yaml", pending)
    files = subprocess.run(
        ["git", "-C", str(origin), "ls-tree", "-r", "--name-only", pending],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert files == [
        "README.md",
        f"pr-7/reruns/{PAPER}/carol-paging-1/outputs.json",
        f"pr-7/reruns/{PAPER}/carol-paging-1/run.json",
        f"pr-7/verdicts/{PAPER}/reviews.yaml",
    ]
    on_main = subprocess.run(
        ["git", "-C", str(origin), "ls-tree", "-r", "--name-only", "main"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert not [f for f in on_main if f.startswith("reruns/") or f.endswith("reviews.yaml")]


def test_a_job_started_on_old_main_pushes_on_current_main(origin: Path, tmp_path: Path) -> None:
    old = checkout(origin, tmp_path / "old")
    other = checkout(origin, tmp_path / "other")
    (other / "NEWS.md").write_text("a commit that landed while the job ran\n")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "meanwhile")
    git(other, "push", "-q", "origin", "HEAD:main")
    result = push_change(
        old, apply_review(review("maint")), "Record a review", sleep=lambda s: None
    )
    assert (result.status, result.attempts) == ("pushed", 1)
    assert main_file(origin, "NEWS.md")  # kept: the review went on top of current main


def test_the_same_review_twice_is_one_record(origin: Path, tmp_path: Path) -> None:
    job = checkout(origin, tmp_path / "job")
    assert (
        push_change(job, apply_review(review("maint")), "r", sleep=lambda s: None).status
        == "pushed"
    )
    again = push_change(job, apply_review(review("maint")), "r", sleep=lambda s: None)
    assert again.status == "nothing"


def test_a_protected_main_opens_an_honest_pull_request(origin: Path, tmp_path: Path) -> None:
    hook = origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\nwhile read old new ref; do\n"
        '  [ "$ref" = refs/heads/main ] &&\n'
        '  { echo "GH006: Protected branch update failed" >&2; exit 1; }\n'
        "done\nexit 0\n"
    )
    hook.chmod(0o755)
    job = checkout(origin, tmp_path / "job")
    opened = []

    def open_pull(branch: str, title: str, body: str) -> str:
        opened.append((branch, title, body))
        return "https://github.com/o/r/pull/99"

    result = push_change(
        job,
        apply_review(review("maint")),
        "Record a review",
        fallback_branch="reproaudit/reviews-1",
        open_pull=open_pull,
        sleep=lambda s: None,
    )
    assert (result.status, result.attempts, result.url) == (
        "pull_request",
        1,
        "https://github.com/o/r/pull/99",
    )
    ((branch, title, body),) = opened
    assert branch == "reproaudit/reviews-1" and title == "Record a review"
    assert body.startswith("`main` refused the bot's push (this is not a race with another push)")
    assert "GH006: Protected branch update failed" in body
    listed = subprocess.run(
        ["git", "-C", str(origin), "ls-tree", "--name-only", "main", f"verdicts/{PAPER}/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "reviews.yaml" not in listed  # main refused it: nothing landed there
    shown = subprocess.run(
        ["git", "-C", str(origin), "show", f"reproaudit/reviews-1:verdicts/{PAPER}/reviews.yaml"],
        capture_output=True,
        text=True,
    )
    assert "maint looked" in shown.stdout


def test_a_change_main_no_longer_accepts_goes_to_a_pull_request(
    origin: Path, tmp_path: Path
) -> None:
    job = checkout(origin, tmp_path / "job")
    opened = []

    def apply(work: Path) -> list[str]:
        if (work / "NEWS.md").exists():
            raise ApplyConflict("the logbook was deleted on main")
        (work / "NEWS.md").write_text("x\n")
        return ["NEWS.md"]

    other = checkout(origin, tmp_path / "other")
    (other / "NEWS.md").write_text("landed first\n")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "meanwhile")
    git(other, "push", "-q", "origin", "HEAD:main")
    result = push_change(
        job,
        apply,
        "Store records",
        fallback_branch="reproaudit/reruns-1",
        open_pull=lambda b, t, body: opened.append(body) or "url",
        sleep=lambda s: None,
    )
    assert result.status == "pull_request"
    assert opened[0].startswith(
        "The change could not be applied to `main` as it is now: the logbook was deleted on main"
    )
    with pytest.raises(ReproauditError, match="could not be applied"):
        push_change(job, apply, "Store records", sleep=lambda s: None)


def test_records_replace_the_folder_whole(origin: Path, tmp_path: Path) -> None:
    src = tmp_path / "src" / PAPER / "carol-paging-1"
    src.mkdir(parents=True)
    (src / "run.json").write_text("{}\n")
    work = tmp_path / "work"
    (work / "reruns" / PAPER / "carol-paging-1").mkdir(parents=True)
    (work / "reruns" / PAPER / "carol-paging-1" / "outputs.json").write_text("old\n")
    assert apply_records(tmp_path / "src")(work) == [f"reruns/{PAPER}/carol-paging-1"]
    assert sorted(p.name for p in (work / "reruns" / PAPER / "carol-paging-1").iterdir()) == [
        "run.json"
    ]


def test_verdicts_never_replace_a_later_judgement(tmp_path: Path) -> None:
    src, work = tmp_path / "src" / PAPER, tmp_path / "work" / "verdicts" / PAPER
    src.mkdir(parents=True)
    work.mkdir(parents=True)
    (src / "carol-paging-1.yaml").write_text("judged_at: '2026-07-21T10:00:00Z'\n")
    (src / "bob-paging-1.yaml").write_text("judged_at: '2026-07-21T10:00:00Z'\n")
    (src / "reviews.yaml").write_text("reviews: []\n")
    (work / "carol-paging-1.yaml").write_text("judged_at: '2026-07-21T11:00:00Z'\n")
    (src / "gone-paging-1.yaml").write_text("judged_at: '2026-07-21T10:00:00Z'\n")
    books = tmp_path / "work" / "logbooks" / PAPER
    books.mkdir(parents=True)
    for name in ("carol-paging-1.yaml", "bob-paging-1.yaml"):
        (books / name).write_text("logbook: {}\n")
    written = apply_verdicts(tmp_path / "src")(tmp_path / "work")
    assert written == [f"verdicts/{PAPER}/bob-paging-1.yaml"]
    assert not (work / "gone-paging-1.yaml").exists()
    assert "11:00" in (work / "carol-paging-1.yaml").read_text()
    assert not (work / "reviews.yaml").exists()  # reviews go through apply_review only
