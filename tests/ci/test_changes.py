"""The changed-files check cannot be padded: trees compared with git, or a complete list."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from reproaudit.ci.changes import BlobReader, Change, read_blob, tree_changes
from reproaudit.ci.report import publish_report
from reproaudit.errors import ReproauditError
from reproaudit.report.artifact import load_artifact
from tests.ci import payloads
from tests.ci.conftest import PR
from tests.gitutil import git

PADDING = 3000
BOOK = "logbooks/Kp4rT9vQ2x/mallory-paging-1"


def rev(repo: Path) -> str:
    out = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True)
    return out.stdout.decode().strip()


@pytest.fixture(scope="module")
def padded(tmp_path_factory) -> tuple[Path, str, str, list[str]]:
    """A PR branch with 3,000 padding files in a logbook's code folder and one script.

    The padding goes straight into git's index (one blob, 3,000 names): a real commit,
    made in a fraction of the time 3,000 files on disk would take.
    """
    repo = tmp_path_factory.mktemp("padded") / "repo"
    (repo / "scripts").mkdir(parents=True)
    (repo / "scripts/judge.py").write_text("VERDICT = 'honest'\n")
    (repo / "logbooks").mkdir()
    (repo / "logbooks/.keep").write_text("")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = rev(repo)
    git(repo, "checkout", "-qb", "pr")
    blob = (
        subprocess.run(
            ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
            input=b"padding\n",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    names = [f"{BOOK}/pad{i:04d}.txt" for i in range(PADDING)]
    subprocess.run(
        ["git", "-C", str(repo), "update-index", "--add", "--index-info"],
        input="".join(f"100644 {blob}\t{name}\n" for name in names).encode(),
        check=True,
    )
    (repo / "scripts/judge.py").write_text("VERDICT = 'verified'  # always\n")
    git(repo, "add", "scripts/judge.py")
    git(repo, "commit", "-qm", "a big logbook")
    return repo, base, rev(repo), [*names, "scripts/judge.py"]


def test_git_sees_the_change_behind_the_padding(padded) -> None:
    repo, base, head, _ = padded
    changes = tree_changes(repo, base, head)
    assert len(changes) == PADDING + 1
    assert Change("scripts/judge.py", "M", "100644") in changes
    assert read_blob(repo, head, "scripts/judge.py") == b"VERDICT = 'verified'  # always\n"
    assert read_blob(repo, base, f"{BOOK}/pad0000.txt") is None


def test_the_report_refuses_the_padded_pr(padded, github_api, client) -> None:
    repo, base, head, names = padded
    github_api.page_size = 100
    github_api.files[PR] = names  # the API lists the first 3,000 only: the script is cut off
    github_api.pulls[PR] = payloads.pull(
        PR, head=head, base=base, author="mallory", changed_files=len(names)
    )
    artifact = {
        "schema": "reproaudit-pr-result/1",
        "pr": PR,
        "head_sha": head,
        "files": [],
        "outside": [],
        "problems": [],
        "verdicts": [],
    }
    checked = load_artifact(json.dumps(artifact).encode(), pr=PR, head_sha=head)
    # without git: the list is incomplete, so the PR is refused rather than passed
    listed = publish_report(checked, github=client(), repo=github_api.repo)
    assert listed["ok"] is False
    assert "GitHub lists 3000 of the files this pull request changes (3001)" in listed["comment"]
    assert "scripts/judge.py" not in listed["comment"]
    # with git (the report job's clone): the script change is named
    compared = publish_report(checked, github=client(), repo=github_api.repo, repo_dir=repo)
    assert compared["ok"] is False
    assert "### Files outside `logbooks/`" in compared["comment"]
    assert "scripts/judge.py" in compared["comment"]


def test_names_are_data(tmp_path: Path) -> None:
    with pytest.raises(ReproauditError, match="is not a commit or branch name"):
        tree_changes(tmp_path, "--output=/tmp/x", "HEAD")


def test_one_reader_for_many_files(padded) -> None:
    repo, base, head, _ = padded
    with BlobReader(repo) as reader:
        assert reader.read(head, "scripts/judge.py") == b"VERDICT = 'verified'  # always\n"
        assert reader.read(base, "scripts/judge.py") == b"VERDICT = 'honest'\n"
        assert reader.read(base, f"{BOOK}/pad0001.txt") is None  # not there yet
        assert reader.read(head, BOOK) is None  # a folder, not a file
        assert reader.read(head, "scripts/judge.py\nHEAD:scripts/judge.py") is None
        assert reader.read(head, f"{BOOK}/pad2999.txt") == b"padding\n"
