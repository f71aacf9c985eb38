"""Who may change what: a logbook is its contributor's; papers are for maintainers.

The attacks are played through the offline PR flow: a real git repository with a
base and a pull-request branch, validate-pr with the PR's author, and the report
against the local GitHub API, comparing trees with git.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.ci.changes import Change
from reproaudit.ci.ownership import Author, author_from_association, rule_pr
from reproaudit.ci.report import publish_report
from reproaudit.ci.validation import validate_pr
from reproaudit.cli import cli
from reproaudit.report.artifact import load_artifact
from tests.ci import payloads
from tests.ci.conftest import PR
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
ANN = f"logbooks/{PAPER}/ann-paging-1.yaml"


def sha(repo: Path, ref: str = "HEAD") -> str:
    import subprocess

    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", ref], check=True, capture_output=True, text=True
    ).stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return sha(repo)


@pytest.fixture
def flow(base_repo: Path):
    """main holds ann's logbook; returns the repo and a function making the PR branch."""
    carol = (base_repo / f"logbooks/{PAPER}/carol-paging-1.yaml").read_text()
    ann = carol.replace("id: carol-paging-1", "id: ann-paging-1")
    ann = ann.replace("github: carol-lin, hf: carollin", "github: ann")
    ann = ann.replace("path: carol-paging-1/", "path: ann-paging-1/")
    (base_repo / ANN).write_text(ann)
    (base_repo / f"logbooks/{PAPER}/ann-paging-1").mkdir()
    (base_repo / f"logbooks/{PAPER}/ann-paging-1/sweep.py").write_text("print('ann')\n")
    git(base_repo, "init", "-q", "-b", "main")
    base = commit(base_repo, "base")
    git(base_repo, "checkout", "-qb", "pr")
    return base_repo, base


def post(artifact: dict, github_api, client, repo: Path, **pull) -> dict:
    github_api.pulls[PR] = payloads.pull(PR, head=artifact["head_sha"], **pull)
    checked = load_artifact(json.dumps(artifact).encode(), pr=PR, head_sha=artifact["head_sha"])
    return publish_report(checked, github=client(), repo=github_api.repo, repo_dir=repo)


def test_mallory_rewriting_anns_logbook_is_refused(flow, github_api, client) -> None:
    repo, base = flow
    book = repo / ANN
    book.write_text(book.read_text().replace("github: ann", "github: mallory"))
    head = commit(repo, "my logbook now")
    mallory = author_from_association("mallory", "CONTRIBUTOR")
    artifact = validate_pr(repo, base, PR, head, author=mallory)
    (problem,) = [p for p in artifact["problems"] if p["code"] == "not_owner"]
    assert problem["path"] == ANN
    assert problem["message"] == (
        "this logbook belongs to ann (its contributor.github), and the pull request is by "
        "mallory; it also changes contributor.github from ann to mallory"
    )
    # the report (base-branch code) decides again, from git trees and the permissions API,
    # even when the artifact (made by the PR's code) says all is well
    artifact["problems"] = []
    result = post(artifact, github_api, client, repo, base=base, author="mallory")
    assert result["ok"] is False
    assert github_api.check_runs[-1]["conclusion"] == "failure"
    body = github_api.comments[PR][-1]["body"]
    assert "this logbook belongs to ann" in body and "(`not\\_owner`)" in body


def test_the_write_up_and_code_folder_are_the_owners_too(flow, github_api, client) -> None:
    repo, base = flow
    (repo / f"logbooks/{PAPER}/ann-paging-1.md").write_text("# Ann was wrong\n")
    (repo / f"logbooks/{PAPER}/ann-paging-1/sweep.py").write_text("print('mallory')\n")
    head = commit(repo, "edit ann's files")
    artifact = validate_pr(repo, base, PR, head)
    result = post(artifact, github_api, client, repo, base=base, author="mallory")
    assert result["ok"] is False
    assert result["comment"].count("this logbook belongs to ann") == 1  # one per logbook


def test_a_new_logbook_must_name_its_author(flow, github_api, client) -> None:
    repo, base = flow
    text = (repo / ANN).read_text().replace("id: ann-paging-1", "id: mallory-paging-1")
    (repo / f"logbooks/{PAPER}/mallory-paging-1.yaml").write_text(
        text.replace("path: ann-paging-1/", "path: ann-paging-1/../ann-paging-1/")
    )
    head = commit(repo, "a logbook in ann's name")
    result = post(
        validate_pr(repo, base, PR, head), github_api, client, repo, base=base, author="mallory"
    )
    assert "a new logbook must be its author's: contributor.github is ann" in result["comment"]
    # the same logbook by its owner, whose handle differs only in case, passes the rule
    result = post(
        validate_pr(repo, base, PR, head), github_api, client, repo, base=base, author="Ann"
    )
    assert "not_owner" not in result["comment"]


def test_write_access_may_change_others_logbooks_and_the_report_says_so(
    flow, github_api, client
) -> None:
    repo, base = flow
    book = repo / ANN
    book.write_text(book.read_text().replace("human_in_loop: true", "human_in_loop: false"))
    head = commit(repo, "a maintainer fixes a field")
    github_api.permissions["maint"] = "write"
    result = post(
        validate_pr(repo, base, PR, head),
        github_api,
        client,
        repo,
        base=base,
        author="maint",
        association="COLLABORATOR",
    )
    assert result["ok"] is True
    assert (
        "maint has write access (permission write, author\\_association COLLABORATOR): "
        "this pull request changes logbooks of other contributors (ann)." in result["comment"]
    )


def test_a_maintainers_paper_pr_gets_a_green_check(flow, github_api, client) -> None:
    repo, base = flow
    source = (repo / "claims/icml2026/T5wPj8mRaK.yaml").read_text()
    (repo / "claims/icml2026/Nw2PaPer00.yaml").write_text(
        source.replace("T5wPj8mRaK", "Nw2PaPer00")
    )
    head = commit(repo, "add a paper")
    member = author_from_association("maint", "MEMBER")
    artifact = validate_pr(repo, base, PR, head, author=member)
    assert artifact["outside"] == [] and artifact["problems"] == []
    result = post(
        artifact, github_api, client, repo, base=base, author="maint", association="MEMBER"
    )
    assert result["ok"] is True and github_api.check_runs[-1]["conclusion"] == "success"
    assert "maint is a maintainer" in result["comment"]
    # the same PR from a contributor: the artifact and the report agree it is refused
    outsider = validate_pr(repo, base, PR, head, author=author_from_association("zoe", "NONE"))
    assert outsider["outside"] == ["claims/icml2026/Nw2PaPer00.yaml"]
    result = post(artifact, github_api, client, repo, base=base, author="zoe")
    assert result["ok"] is False and "claims/icml2026/Nw2PaPer00.yaml" in result["comment"]


def test_write_access_makes_maintainers(flow, github_api, client) -> None:
    """A maintainers' team gets write access on the repository (no team lookup, no org token)."""
    repo, base = flow
    source = (repo / "claims/icml2026/T5wPj8mRaK.yaml").read_text()
    (repo / "claims/icml2026/Nw2PaPer00.yaml").write_text(
        source.replace("T5wPj8mRaK", "Nw2PaPer00")
    )
    head = commit(repo, "add a paper")
    github_api.permissions["tess"] = "write"  # what a team with write access gives
    github_api.pulls[PR] = payloads.pull(PR, head=head, base=base, author="tess")
    checked = load_artifact(
        json.dumps(validate_pr(repo, base, PR, head)).encode(), pr=PR, head_sha=head
    )
    shown = publish_report(checked, github=client(), repo=github_api.repo, repo_dir=repo)
    # validate.yml (no token: the association only) said "outside"; the report knows better
    assert shown["ok"] is True
    assert "tess is a maintainer" in shown["comment"]


@pytest.mark.parametrize(
    ("changes", "owners", "expect"),
    [
        ([Change(ANN, "M")], {"base": "ann", "head": "ann"}, "belongs to ann"),
        ([Change(ANN, "M")], {"base": "mallory", "head": "ann"}, "changes from mallory to ann"),
        ([Change(ANN, "D")], {"base": "ann", "head": None}, "belongs to ann"),
        ([Change(ANN, "A")], {"base": None, "head": "ann"}, "must be its author's"),
        ([Change(ANN, "M")], {"base": "MALLORY", "head": "Mallory"}, None),
        ([Change(f"{ANN[:-5]}/ok.txt", "A")], {"base": None, "head": None}, None),
        ([Change("logbooks/stray.txt", "A")], {"base": None, "head": None}, "not a logbook"),
        ([Change(ANN, "M", "120000")], {"base": None, "head": None}, "a symbolic link"),
        ([Change("logbooks/.gitattributes", "A")], {"base": None, "head": None}, "dot-file"),
        ([Change("logbooks/.gitattributes", "D")], {"base": None, "head": None}, None),
    ],
)
def test_the_rule(changes, owners, expect) -> None:
    mallory = Author("mallory", maintainer=False, can_write=False, basis="test")
    ruling = rule_pr(changes, mallory, lambda side, rel: owners[side])
    messages = " ".join(p.message for p in ruling.problems)
    assert (expect in messages) if expect else ruling.ok


def test_the_cli_posts_the_report_with_git_trees(flow, github_api, tmp_path, monkeypatch) -> None:
    repo, base = flow
    book = repo / ANN
    book.write_text(book.read_text().replace("github: ann", "github: mallory"))
    head = commit(repo, "mine")
    artifact = tmp_path / "result.json"
    result = CliRunner().invoke(
        cli,
        [
            "ci",
            "validate-pr",
            "--base",
            base,
            "--pr",
            str(PR),
            "--sha",
            head,
            "--out",
            str(artifact),
            "--author",
            "mallory",
            "--association",
            "NONE",
            "--repo",
            str(repo),
            "--format",
            "text",
        ],
    )
    assert result.exit_code == 1 and "belongs to ann" in result.output
    github_api.pulls[PR] = payloads.pull(PR, head=head, base=base, author="mallory")
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payloads.workflow_run_event(head=head)))
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    result = CliRunner().invoke(
        cli,
        [
            "ci",
            "report",
            "--artifact",
            str(artifact),
            "--event",
            str(event),
            "--repo-name",
            github_api.repo,
            "--post",
            "--git",
            str(repo),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"posted the report on PR {PR} (problems)"
