"""The ``/reproduce`` approval says what will happen: each logbook's backend, hardware,
timeout and estimated cost; and a reply that asks for the command again keeps the backend
the maintainer named. Payloads in GitHub's shapes, a local GitHub API."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from reproaudit.ci.commands import carry_out, dispatch, parse_event
from reproaudit.cli import cli
from tests.ci import payloads
from tests.ci.conftest import HEAD, PR

PAPER = "Kp4rT9vQ2x"


def book(name: str, hardware: str, timeout: str) -> str:
    return (
        f"logbook: {{id: {name}, paper: {PAPER}, claims_version: 1,\n"
        "  contributor: {github: carol}}\n"
        f"code: {{path: {name}/}}\n"
        f"reproduce: {{command: python run.py, hardware: {hardware}, timeout: {timeout}}}\n"
        "results: []\n"
    )


@pytest.fixture
def two_logbooks(github_api) -> None:
    """PR 7 holds a GPU logbook (2h on a10g-small) and a cpu one (10m), at its head."""
    books = {"carol-gpu-1": ("a10g-small", "2h"), "carol-cpu-1": ("cpu", "10m")}
    github_api.files[PR] = [f"logbooks/{PAPER}/{n}.yaml" for n in books]
    github_api.pulls[PR]["changed_files"] = len(books)  # the files list is complete
    for name, (hardware, timeout) in books.items():
        github_api.contents[(f"logbooks/{PAPER}/{name}.yaml", HEAD)] = book(name, hardware, timeout)


def run(event, github, repo, default_backend="local"):
    outcome = dispatch(event, github, repo, default_backend=default_backend)
    carry_out(outcome, parse_event(event), github, repo)
    return outcome


def test_the_approval_says_backend_hardware_timeout_and_cost_per_logbook(
    comment_event, client, base_repo, github_api, two_logbooks
) -> None:
    outcome = run(comment_event("/reproduce hf-jobs"), client(), base_repo)
    assert outcome.allowed and outcome.backend == "hf-jobs"
    assert outcome.reply == (
        f"Re-run approved at commit `{HEAD}`, on `hf-jobs` (Hugging Face Jobs):\n"
        "\n"
        f"- `` {PAPER}/carol-cpu-1 ``: hardware `cpu`, timeout 10m, at most $0.01 "
        "($0.01/h; Hugging Face Jobs prices read 2026-12-04)\n"
        f"- `` {PAPER}/carol-gpu-1 ``: hardware `a10g-small`, timeout 2h, at most $2.00 "
        "($1.00/h; Hugging Face Jobs prices read 2026-12-04)\n"
        "\n"
        "In all at most $2.01.\n"
        "\n"
        "Results will be posted here; a push to the branch cancels this approval."
    )
    assert github_api.comments[PR][-1]["body"] == outcome.reply


def test_the_repositorys_default_backend_is_named_and_its_own_runner_not_priced(
    comment_event, client, base_repo, two_logbooks
) -> None:
    """The control: a `/reproduce` naming no backend still says where it runs."""
    outcome = run(comment_event("/reproduce"), client(), base_repo)
    assert outcome.allowed and outcome.backend is None  # dispatch applies the default
    assert outcome.reply.startswith(
        f"Re-run approved at commit `{HEAD}`, on `local` (a self-hosted GPU runner, the "
        "repository's default):\n\n"
        f"- `` {PAPER}/carol-cpu-1 ``: hardware `cpu`, timeout 10m, on the repository's own "
        "runner (not priced)\n"
        f"- `` {PAPER}/carol-gpu-1 ``: hardware `a10g-small`, timeout 2h, on the repository's "
        "own runner (not priced)\n"
    )
    assert "In all" not in outcome.reply
    hosted = run(comment_event("/reproduce"), client(), base_repo, default_backend="hf-jobs")
    assert "on `hf-jobs` (Hugging Face Jobs, the repository's default)" in hosted.reply
    assert "In all at most $2.01." in hosted.reply


def _suggested(reply: str) -> str:
    return re.findall(r"`(/reproduce[^`]*)`", reply)[-1]


@pytest.mark.parametrize(
    ("comment", "reason"),
    [
        ("/reproduce hf-jobs " + "0123456789" * 4, "head_moved"),  # another commit
        ("/reproduce hf-jobs", "head_unconfirmed"),  # GitHub cannot date the head's push
        ("/reproduce hf-jobs 9f1c2ab", "bad_sha"),  # a prefix
    ],
)
def test_a_reply_that_asks_again_keeps_the_backend(
    comment_event, client, base_repo, github_api, comment, reason
) -> None:
    if reason == "head_unconfirmed":
        github_api.runs.clear()
        github_api.timelines[PR] = [payloads.committed(HEAD, "2020-01-01T00:00:00Z")]
    outcome = run(comment_event(comment), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, reason)
    suggested = _suggested(outcome.reply)
    assert suggested.startswith("/reproduce hf-jobs ")
    if reason != "bad_sha":
        assert suggested == f"/reproduce hf-jobs {HEAD}"
        again = run(comment_event(suggested), client(), base_repo)  # typed as suggested
        assert again.allowed and again.backend == "hf-jobs" and again.head_sha == HEAD


def test_without_a_backend_the_reply_names_none(comment_event, client, base_repo) -> None:
    """The control: what the maintainer typed, and no more."""
    outcome = run(comment_event("/reproduce " + "0123456789" * 4), client(), base_repo)
    assert _suggested(outcome.reply) == f"/reproduce {HEAD}"


def test_ci_command_takes_the_repository_default_backend(
    comment_event, github_api, base_repo, tmp_path, monkeypatch, two_logbooks
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_commands_token")
    payload = tmp_path / "comment.json"
    payload.write_text(json.dumps(comment_event("/reproduce")))
    args = ["ci", "command", "--payload", str(payload), "--repo", str(base_repo), "--dry-run"]
    done = CliRunner().invoke(cli, [*args, "--default-backend", "hf-jobs"])
    assert done.exit_code == 0, done.output
    outcome = json.loads(done.output)
    assert "on `hf-jobs` (Hugging Face Jobs, the repository's default)" in outcome["reply"]
    assert outcome["backend"] is None
    assert github_api.writes() == []  # a dry run sends nothing
