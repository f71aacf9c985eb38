"""``ci command --offline``: a command decided from the payload and a local clone alone.

No GitHub stand-in runs here: the API address points at a closed port and httpx is
made to fail on any request, so a single network call fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from tests.ci import payloads
from tests.ci.test_loop import logbook_text
from tests.gitutil import branch_from_main, git

PAPER = "Kp4rT9vQ2x"


@pytest.fixture
def clone(base_repo: Path, monkeypatch) -> Path:
    """A clone of the pull request: main, then a branch adding zed's cpu logbook."""
    branch_from_main(base_repo, "patch-1")
    rel = base_repo / "logbooks" / PAPER / "zed-paging-1.yaml"
    rel.write_text(logbook_text("zed-paging-1", "cpu"))
    (base_repo / "logbooks" / PAPER / "zed-paging-1").mkdir()
    (base_repo / "logbooks" / PAPER / "zed-paging-1" / "run.py").write_text("print(1)\n")
    git(base_repo, "add", "-A")
    git(base_repo, "commit", "-qm", "add zed's logbook")

    def no_network(*args, **kwargs):
        raise AssertionError("ci command --offline made a network request")

    monkeypatch.setattr(httpx.Client, "send", no_network)
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return base_repo


def offline(clone: Path, tmp_path: Path, body: str, login: str, association: str) -> dict:
    payload = tmp_path / "event.json"
    payload.write_text(json.dumps(payloads.issue_comment(body, login, association=association)))
    result = CliRunner().invoke(
        cli, ["ci", "command", "--payload", str(payload), "--offline", "--repo", str(clone)]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def head(clone: Path) -> str:
    return (clone / ".git" / "refs" / "heads" / "patch-1").read_text().strip()


def test_reproduce_is_decided_offline_and_says_what_would_happen(clone, tmp_path) -> None:
    said = offline(clone, tmp_path, "/reproduce hf-jobs", "maint", "MEMBER")
    assert (said["allowed"], said["backend"], said["head_sha"]) == (True, "hf-jobs", head(clone))
    assert said["logbooks"] == [f"{PAPER}/zed-paging-1"]
    assert said["offline"] is True
    assert said["would"] == [
        "reply in the pull request's thread (the text in `reply`)",
        f"start reproduce.yml (reproduce, backend hf-jobs) at {head(clone)[:12]}, after the "
        "`reproduce` environment's approval",
    ]
    assert any("author_association" in c for c in said["caveats"])


def test_permission_and_authorship_come_from_the_payload_and_the_paper_file(
    clone, tmp_path
) -> None:
    refused = offline(clone, tmp_path, "/reproduce", "zed", "CONTRIBUTOR")
    assert (refused["allowed"], refused["reason"]) == (False, "not_allowed")
    assert refused["would"] == [
        "reply in the pull request's thread (the text in `reply`)",
        "nothing else: refused (not_allowed)",
    ]
    answer = offline(clone, tmp_path, "/author disagree C1 the bound holds", "ivandermeer", "NONE")
    assert answer["allowed"] is True
    assert (
        answer["record"]["stance"] == "disagree" and answer["record"]["logbook"] == "zed-paging-1"
    )
    assert answer["would"][-1] == (
        f"append a author_response (disagree C1) to verdicts/{PAPER}/reviews.yaml of pull "
        f"request #{answer['pr']} on the pending branch through ci push; onto the default "
        "branch (then start site.yml) once the pull request is merged"
    )
    assert (
        not (clone / "verdicts" / PAPER / "reviews.yaml").exists()
        or "disagree" not in (clone / "verdicts" / PAPER / "reviews.yaml").read_text()
    )  # offline writes nothing
    stranger = offline(clone, tmp_path, "/author agree C1 fine", "mallory", "NONE")
    assert (stranger["allowed"], stranger["reason"]) == (False, "not_author")


def test_offline_says_what_is_missing_in_a_clone_without_the_base(tmp_path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    git(lonely, "init", "-q", "-b", "work")
    (lonely / "f").write_text("x")
    git(lonely, "add", "-A")
    git(lonely, "commit", "-qm", "x")
    payload = tmp_path / "event.json"
    payload.write_text(json.dumps(payloads.issue_comment("/reproduce", "maint")))
    result = CliRunner().invoke(
        cli, ["ci", "command", "--payload", str(payload), "--offline", "--repo", str(lonely)]
    )
    assert result.exit_code == 1
    assert "no commit 'main' in this clone" in result.output
    assert "--base" in result.output
