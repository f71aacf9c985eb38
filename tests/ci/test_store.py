"""``ci store-reruns`` on real git trees and a local fake GitHub API: only current records
of logbooks the PR's author may change are stored, and each refusal says why."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from reproaudit.ci.github import GitHub
from reproaudit.ci.store import store_reruns
from reproaudit.judge.run import judge_repo
from reproaudit.reproduce import reproduce_logbook
from reproaudit.reproduce.sandbox import bwrap_available
from tests.ci import payloads
from tests.ci.fake_github import FakeGitHub
from tests.gitutil import git
from tests.test_reproduce import PAPER

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
REPO = "org/audit"
REL = f"logbooks/{PAPER}/ann-1.yaml"


def head_of(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


@pytest.fixture
def pr(mini_repo: Path, tmp_path: Path):
    """A git repository whose ``main`` lacks ann-1 and whose branch ``pr`` adds it (by ann)."""
    repo = tmp_path / "git"
    shutil.copytree(mini_repo, repo)
    keep = tmp_path / "kept"
    keep.mkdir()
    for name in ("ann-1.yaml", "ann-1.md", "ann-1"):
        shutil.move(repo / "logbooks" / PAPER / name, keep / name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = head_of(repo)
    git(repo, "checkout", "-qb", "pr")
    for name in ("ann-1.yaml", "ann-1.md", "ann-1"):
        shutil.move(keep / name, repo / "logbooks" / PAPER / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "ann-1")
    with FakeGitHub(repo=REPO) as fake:
        fake.pulls[7] = payloads.pull(7, head=head_of(repo), base=base, author="ann", repo=REPO)
        yield repo, fake


def store(fake: FakeGitHub, repo: Path, artifact: Path, out: Path):
    github = GitHub(fake.url, "t", backoff=0.01)
    sha = fake.pulls[7]["head"]["sha"]
    return store_reruns(github, REPO, 7, sha, artifact, out, git_dir=repo)


def test_an_honest_prs_record_is_stored_and_judged_current(pr, tmp_path: Path) -> None:
    repo, fake = pr
    artifact = tmp_path / "artifact"
    assert reproduce_logbook(repo, REL, out=artifact).status == "passed"
    # forged and stray files beside the honest record
    other = artifact / PAPER / "bob-9"
    other.mkdir()
    shutil.copy(artifact / PAPER / "ann-1" / "run.json", other / "run.json")
    (artifact / "evil.json").write_text("{}")
    (artifact / "etc").symlink_to("/etc")
    main = tmp_path / "main"
    (main / "reruns" / PAPER / "bob-9").mkdir(parents=True)
    (main / "reruns" / PAPER / "bob-9" / "run.json").write_text('{"victim": true}')
    report = store(fake, repo, artifact, main)
    assert report.stored == [f"reruns/{PAPER}/ann-1"]
    assert dict(report.refused) == {
        f"{PAPER}/bob-9/run.json": "pull request 7 does not change that logbook",
        "evil.json": "not <paper>/<logbook>/{run,outputs}.json",
        "etc": "not a regular file (a link?)",
    }
    assert (main / "reruns" / PAPER / "bob-9" / "run.json").read_text() == '{"victim": true}'
    # the stored record is current for the logbook at the head: the judge uses it
    judge_repo(repo, mode="rules", reruns=main / "reruns", logbook="ann-1")
    verdict = yaml.safe_load((repo / "verdicts" / PAPER / "ann-1.yaml").read_text())
    c1 = next(c for c in verdict["claims"] if c["claim"] == "C1")
    assert "stale_rerun" not in c1.get("flags", []) and verdict["rerun"]["status"] == "passed"


def test_a_code_only_push_after_the_rerun_is_not_stored(pr, tmp_path: Path) -> None:
    repo, fake = pr
    artifact = tmp_path / "artifact"
    reproduce_logbook(repo, REL, out=artifact)
    # after the re-run, a push changes only the code; the maintainer approves the new head
    script = repo / "logbooks" / PAPER / "ann-1" / "run.py"
    script.write_text(script.read_text() + "# something else runs now\n")
    git(repo, "commit", "-qam", "code only")
    fake.pulls[7]["head"]["sha"] = head_of(repo)
    report = store(fake, repo, artifact, tmp_path / "main")
    assert report.stored == []
    assert dict(report.refused)[f"{PAPER}/ann-1/run.json"] == (
        "not current at the approved commit: the code tree changed since the re-run "
        "(code_sha256 differs)"
    )
    assert not (tmp_path / "main" / "reruns").exists()


def test_writeup_and_outputs_changes_are_not_stored(pr, tmp_path: Path) -> None:
    repo, fake = pr
    artifact = tmp_path / "artifact"
    reproduce_logbook(repo, REL, out=artifact)
    outputs = artifact / PAPER / "ann-1" / "outputs.json"
    good = outputs.read_bytes()
    outputs.write_text('{"C1": {"accuracy": 1.0}}')  # forged after the run
    report = store(fake, repo, artifact, tmp_path / "s1")
    assert dict(report.refused)[f"{PAPER}/ann-1/run.json"] == (
        "not current at the approved commit: outputs.json does not match the outputs_sha256 "
        "of run.json"
    )
    outputs.write_bytes(good)
    writeup = repo / "logbooks" / PAPER / "ann-1.md"
    writeup.write_text("Answer verified for every claim.\n")
    git(repo, "commit", "-qam", "write-up only")
    fake.pulls[7]["head"]["sha"] = head_of(repo)
    report = store(fake, repo, artifact, tmp_path / "s2")
    assert dict(report.refused)[f"{PAPER}/ann-1/run.json"] == (
        "not current at the approved commit: the write-up changed since the re-run "
        "(writeup_sha256 differs)"
    )
    run = json.loads((artifact / PAPER / "ann-1" / "run.json").read_text())
    run["status"] = "verified"
    (artifact / PAPER / "ann-1" / "run.json").write_text(json.dumps(run))
    report = store(fake, repo, artifact, tmp_path / "s3")
    assert dict(report.refused)[f"{PAPER}/ann-1/run.json"].startswith("run.json: status:")


def test_a_logbook_the_author_does_not_own_stores_nothing(pr, tmp_path: Path) -> None:
    repo, fake = pr
    artifact = tmp_path / "artifact"
    reproduce_logbook(repo, REL, out=artifact)
    # mallory opens the PR that adds ann's logbook (and its re-run): ann's record must not
    # be replaced through mallory's approval
    fake.pulls[7]["user"] = payloads.user("mallory")
    main = tmp_path / "main"
    report = store(fake, repo, artifact, main)
    assert report.stored == []
    assert dict(report.refused) == {
        f"{PAPER}/ann-1/run.json": (
            "pull request 7 fails the ownership rule (logbooks/Tq7mV2pLx0/ann-1.yaml: a new "
            "logbook must be its author's: contributor.github is ann, and the pull request is "
            "by mallory); nothing is stored"
        )
    }
    assert not (main / "reruns").exists()
    # control: with write access the rule lets mallory change ann's logbook, as the report does
    fake.permissions["mallory"] = "write"
    assert store(fake, repo, artifact, main).stored == [f"reruns/{PAPER}/ann-1"]
