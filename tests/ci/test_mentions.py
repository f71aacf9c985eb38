"""Mentions of a paper's authors: one ledger per paper on the default branch, at most one
mention per author per paper per week, written through ``ci push`` before anyone is told.

A local bare repository plays the audit repository and a local HTTP server GitHub's API;
each step is the ``reproaudit ci push mentions`` command line the workflows run (real
processes for the race). The control: an author mentioned once, their ledger entry on main.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.ci import sticky
from reproaudit.ci.authors import MENTION_EVERY, due
from reproaudit.cli import cli
from reproaudit.models import Mention
from reproaudit.validate import validate_repo
from tests.ci.conftest import PR, checkout
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
LEDGER = f"verdicts/{PAPER}/mentions.yaml"
MONDAY = datetime(2026, 7, 20, 9, 0, tzinfo=UTC)


def plan_file(tmp_path: Path, pr: int, name: str = "plan.json", **extra: object) -> Path:
    """What ``ci judge-pr --mentions-out`` writes when a re-run falsifies C1."""
    path = tmp_path / f"pr{pr}" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    item = {
        "paper": PAPER,
        "paper_file": f"claims/icml2026/{PAPER}.yaml",
        "logbook": "carol-paging-1",
        "claims": ["C1"],
    }
    path.write_text(json.dumps({"pr": pr, "head_sha": "a" * 40, "mentions": [item], **extra}))
    return path


def push_mentions(github_api, origin: Path, job: Path, plan: Path, when: datetime):
    args = ["ci", "push", "mentions", "--from", str(plan), "--message", "mentions"]
    args += ["--branch", "main", "--repo-name", github_api.repo, "--repo", str(job)]
    env = {"SOURCE_DATE_EPOCH": str(int(when.timestamp())), "GITHUB_API_URL": github_api.url}
    return CliRunner(env=env).invoke(cli, args)


def on_main(origin: Path, tmp_path: Path, name: str) -> Path:
    return checkout(origin, tmp_path / name)


def ledger_of(origin: Path, tmp_path: Path, name: str) -> list[dict]:
    main = on_main(origin, tmp_path, name)
    path = main / LEDGER
    return yaml.safe_load(path.read_text())["mentions"] if path.is_file() else []


def mentions_on(github_api, pr: int) -> list[str]:
    return [c["body"] for c in github_api.comments.get(pr, []) if c["body"].startswith("@")]


def test_an_author_is_mentioned_once_and_the_ledger_on_main_says_so(
    github_api, origin: Path, tmp_path: Path
) -> None:
    job = on_main(origin, tmp_path, "mention-job")
    done = push_mentions(github_api, origin, job, plan_file(tmp_path, PR), MONDAY)
    assert done.exit_code == 0, done.output
    assert done.output.startswith("pushed after 1 attempt(s)")
    entries = ledger_of(origin, tmp_path, "main-1")
    assert entries == [
        {"author": a, "at": "2026-07-20T09:00:00Z", "pr": PR, "logbook": "carol-paging-1",
         "claims": ["C1"]}
        for a in ("ivandermeer", "twrobel-tcs")
    ]  # fmt: skip
    (mention,) = mentions_on(github_api, PR)
    assert mention.startswith(
        "@ivandermeer @twrobel-tcs: you are listed as an author of a paper whose claim a re-run "
        "in this pull request falsifies.\n\n- logbook `` carol-paging-1 `` falsifies claim "
        "**C1** (Theorem 3.2) of *Trust, Then Mark: Near-Harmonic Robustness for "
        "Learning-Augmented Paging*, by CI's re-run of its command\n"
    )
    assert "at most once a week" in mention
    assert "Listed without a GitHub handle: Amara Okafor." in mention
    bot = sticky.find(github_api.comments[PR])
    assert bot is not None
    assert bot[1].status("authors") == {"mentioned": ["ivandermeer", "twrobel-tcs"], "held": []}
    # the ledger is a validated data file of the default branch
    main = on_main(origin, tmp_path, "main-2")
    problems = [p for p in validate_repo(main).problems if p.path == LEDGER]
    assert problems == []


def test_other_pull_requests_within_a_week_mention_nobody_again(
    github_api, origin: Path, tmp_path: Path
) -> None:
    """Three pull requests falsify one claim: its authors hear of it once that week; the
    same pull request pushed again never pings them twice; a week on, another one may."""
    job = on_main(origin, tmp_path, "mention-job")
    assert push_mentions(github_api, origin, job, plan_file(tmp_path, PR), MONDAY).exit_code == 0
    for pr in (PR + 1, PR + 2):
        done = push_mentions(
            github_api, origin, job, plan_file(tmp_path, pr), MONDAY + timedelta(days=3)
        )
        assert done.exit_code == 0, done.output
        assert "nothing" in done.output  # no ledger change to push
        assert mentions_on(github_api, pr) == []
        bot = sticky.find(github_api.comments[pr])
        assert bot is not None
        section = bot[1].sections["authors"]
        assert section.status == {"mentioned": [], "held": ["ivandermeer", "twrobel-tcs"]}
        assert (
            f"Not mentioned again: `` ivandermeer ``, told about `` {PAPER} `` on 2026-07-20 "
            f"in #{PR} (at most once a week per paper)."
        ) in section.body
    assert len(ledger_of(origin, tmp_path, "main-1")) == 2
    # a week later: the first pull request again (a new push) is still told-already
    later = MONDAY + MENTION_EVERY + timedelta(hours=1)
    assert push_mentions(github_api, origin, job, plan_file(tmp_path, PR), later).exit_code == 0
    assert len(mentions_on(github_api, PR)) == 1
    # ... and another pull request may tell them again
    done = push_mentions(github_api, origin, job, plan_file(tmp_path, PR + 3), later)
    assert done.exit_code == 0 and done.output.startswith("pushed")
    assert len(mentions_on(github_api, PR + 3)) == 1
    assert [e["pr"] for e in ledger_of(origin, tmp_path, "main-2")] == [PR, PR, PR + 3, PR + 3]


def test_two_jobs_at_once_mention_each_author_once(
    github_api, origin: Path, tmp_path: Path
) -> None:
    """Two pull requests' mention jobs race to the default branch: the ledger is the lock,
    so one of them records and mentions the authors, the other finds them told."""
    env = {
        **os.environ,
        "GITHUB_API_URL": github_api.url,
        "GITHUB_TOKEN": "ghs_job_token",
        "SOURCE_DATE_EPOCH": str(int(MONDAY.timestamp())),
    }
    jobs = []
    for pr in (PR, PR + 1):
        job = on_main(origin, tmp_path, f"job-{pr}")
        argv = [sys.executable, "-m", "reproaudit", "ci", "push", "mentions"]
        argv += ["--from", str(plan_file(tmp_path, pr)), "--message", f"mentions of #{pr}"]
        argv += ["--branch", "main", "--repo-name", github_api.repo, "--repo", str(job)]
        jobs.append(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True))
    outputs = [p.communicate(timeout=600)[0] for p in jobs]
    assert [p.returncode for p in jobs] == [0, 0], outputs
    entries = ledger_of(origin, tmp_path, "main")
    assert sorted(e["author"] for e in entries) == ["ivandermeer", "twrobel-tcs"]
    told = [pr for pr in (PR, PR + 1) if mentions_on(github_api, pr)]
    assert len(told) == 1 and {e["pr"] for e in entries} == set(told)
    log = git(origin, "log", "--format=%s", "main")
    assert log.count("mentions of #") == 1  # one commit: the other had nothing to add


def test_a_plan_names_no_one_the_paper_file_does_not(
    github_api, origin: Path, tmp_path: Path
) -> None:
    """The plan is another job's file: handles come from the paper file on main, a plan
    that names authors or a path out of claims/ is refused or mentions nobody."""
    job = on_main(origin, tmp_path, "mention-job")
    forged = plan_file(tmp_path, PR, authors=["victim"])
    done = push_mentions(github_api, origin, job, forged, MONDAY)
    assert done.exit_code == 1 and "not a mention plan" in done.output
    escaping = plan_file(tmp_path, PR + 1, name="escape.json")
    data = json.loads(escaping.read_text())
    data["mentions"][0]["paper_file"] = f"claims/../../{PAPER}.yaml"
    escaping.write_text(json.dumps(data))
    done = push_mentions(github_api, origin, job, escaping, MONDAY)
    assert done.exit_code == 0, done.output
    assert mentions_on(github_api, PR + 1) == [] and ledger_of(origin, tmp_path, "main") == []


def test_the_rate_is_per_author_per_paper(tmp_path: Path) -> None:
    entry = Mention(author="Ada", at=MONDAY, pr=3, logbook="a-1", claims=["C1"])
    assert due([entry], "ada", 3, MONDAY + timedelta(days=30)) == entry  # same PR: never again
    assert due([entry], "ada", 4, MONDAY + timedelta(days=6)) == entry  # within the week
    assert due([entry], "ada", 4, MONDAY + MENTION_EVERY) is None
    assert due([entry], "bob", 4, MONDAY) is None  # another author


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("mentions:\n  - {author: 'not a handle!', at: 2026-07-20T09:00:00Z, pr: 1, "
         "logbook: a-1, claims: [C1]}\n", "mentions[0].author"),
        ("mentions:\n  - {author: ada, at: 2026-07-20T09:00:00Z, pr: 0, logbook: a-1, "
         "claims: [C1]}\n", "mentions[0].pr"),
        ("mentions:\n  - {author: ada, at: 2026-07-20T09:00:00Z, pr: 1, logbook: a-1, "
         "claims: []}\n", "mentions[0].claims"),
    ],
)  # fmt: skip
def test_validate_reads_the_ledger_with_file_line_and_field(
    mini_repo: Path, text: str, field: str
) -> None:
    rel = "verdicts/Tq7mV2pLx0/mentions.yaml"
    good = "mentions:\n  - {author: ada, at: 2026-07-20T09:00:00Z, pr: 1, logbook: a-1, "
    good += "claims: [C1]}\n"
    (mini_repo / rel).write_text(good)
    assert validate_repo(mini_repo, [rel]).problems == []  # the control
    (mini_repo / rel).write_text(text)
    (problem,) = validate_repo(mini_repo, [rel]).problems
    assert (problem.path, problem.line, problem.field) == (rel, 2, field)
