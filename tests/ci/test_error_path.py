"""One error path: expected failures are one message and exit 1, bugs keep their traceback.

Played through the real command line (click's runner, which keeps stdout and
stderr apart), a local fake GitHub API and real files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.errors import (
    ArtifactError,
    EndpointError,
    GitHubError,
    InputError,
    ReadOnlyError,
    ReproauditError,
    UsageError,
)
from reproaudit.judge.settings import default_reruns, resolve_mode
from reproaudit.problems import Problem
from tests.ci.conftest import HEAD, PR

ROOT = Path(__file__).resolve().parents[2]
NO_LLM = {"REPROAUDIT_JUDGE_BASE_URL": ""}


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(cli, list(args))


def test_an_artifact_that_is_not_json_is_one_line_naming_the_file(tmp_path: Path) -> None:
    payload = tmp_path / "event.json"
    payload.write_text("{not json")
    result = invoke("ci", "command", "--payload", str(payload), "--dry-run")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"{payload}: not JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)\n"
    )


def test_a_valid_json_payload_of_the_wrong_shape_is_an_artifact_error(tmp_path: Path) -> None:
    payload = tmp_path / "event.json"
    payload.write_text('{"action": "created"}')
    result = invoke("ci", "command", "--payload", str(payload), "--dry-run")
    assert result.exit_code == 1
    assert result.stderr == (f"{payload}: not an issue_comment event: missing or bad 'issue'\n")


def test_a_github_failure_is_one_line_not_a_traceback(github_api, tmp_path: Path) -> None:
    result = invoke(
        "ci", "judge-pr", "--repo-name", github_api.repo, "--pr", "99", "--sha", HEAD,
        "--mode", "rules", "--repo", str(tmp_path),
        env={**NO_LLM, "GITHUB_API_URL": github_api.url},
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == (
        f"GitHub API GET /repos/{github_api.repo}/pulls/99 failed (404): Not Found\n"
    )


def test_an_injected_bug_keeps_its_traceback_and_exits_3(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import reproaudit.scaffold

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("injected bug")

    monkeypatch.setattr(reproaudit.scaffold, "task_brief", broken)
    result = invoke("task", "Tq7mV2pLx0", "--repo", str(mini_repo))
    assert result.exit_code == 3
    lines = result.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-2] == "RuntimeError: injected bug"
    assert lines[-1] == (
        "reproaudit: internal error (a bug, not your input); "
        "please report it with the traceback above"
    )


def test_an_expected_library_error_is_exit_1_with_its_text(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import reproaudit.scaffold

    def refused(*args: object, **kwargs: object) -> str:
        raise EndpointError("the LLM endpoint failed: connection refused")

    monkeypatch.setattr(reproaudit.scaffold, "task_brief", refused)
    result = invoke("task", "Tq7mV2pLx0", "--repo", str(mini_repo))
    assert (result.exit_code, result.stderr) == (
        1,
        "the LLM endpoint failed: connection refused\n",
    )


def test_ctrl_c_is_exit_130_without_a_traceback(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import reproaudit.scaffold

    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(reproaudit.scaffold, "task_brief", interrupted)
    result = invoke("task", "Tq7mV2pLx0", "--repo", str(mini_repo))
    assert (result.exit_code, result.stderr) == (130, "interrupted\n")


def test_input_problems_print_as_the_problems_text(mini_repo: Path) -> None:
    result = invoke("task", "Zz99Zz99Zz", "--repo", str(mini_repo))
    assert result.exit_code == 1
    assert result.stderr.startswith("claims/: there is no paper 'Zz99Zz99Zz' [unknown_paper]\n")
    assert "Traceback" not in result.output


def test_click_usage_errors_stay_exit_2() -> None:
    result = invoke("judge", "--mode", "bogus")
    assert result.exit_code == 2
    assert "Invalid value for '--mode'" in result.stderr


def test_mode_llm_without_a_base_url_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("judge", "--mode", "llm", "--repo", str(tmp_path), env=NO_LLM)
    assert result.exit_code == 2
    assert "--mode llm needs REPROAUDIT_JUDGE_BASE_URL" in result.stderr


def test_judge_pr_never_falls_back_to_a_default_llm_endpoint(github_api, tmp_path: Path) -> None:
    """``ci judge-pr --mode llm`` without a base URL stops before any network call."""
    result = invoke(
        "ci", "judge-pr", "--repo-name", github_api.repo, "--pr", str(PR), "--sha", HEAD,
        "--mode", "llm", "--repo", str(tmp_path),
        env={**NO_LLM, "GITHUB_API_URL": github_api.url, "OPENAI_BASE_URL": ""},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--mode llm needs REPROAUDIT_JUDGE_BASE_URL" in result.stderr
    assert github_api.requests == []


class _Settings:
    def __init__(self, configured: bool) -> None:
        self.configured = configured


def test_mode_is_resolved_in_one_place() -> None:
    assert resolve_mode("auto", _Settings(False)) == "rules"
    assert resolve_mode("auto", _Settings(True)) == "llm"
    assert resolve_mode("rules", _Settings(True)) == "rules"
    assert resolve_mode("llm", _Settings(True)) == "llm"
    with pytest.raises(UsageError, match="needs REPROAUDIT_JUDGE_BASE_URL"):
        resolve_mode("llm", _Settings(False))


def test_a_hostile_author_comment_gets_a_reply_not_a_crash(
    comment_event, base_repo, github_api, tmp_path: Path
) -> None:
    """``/author fixed C1 see https://?x``: the link is not a URL; the bot answers why."""
    payload = tmp_path / "event.json"
    payload.write_text(json.dumps(comment_event("/author fixed C1 see https://?x", "IvanDerMeer")))
    result = invoke(
        "ci", "command", "--payload", str(payload), "--repo", str(base_repo), "--dry-run",
        env={"GITHUB_API_URL": github_api.url, "GITHUB_TOKEN": "t"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert (outcome["command"], outcome["allowed"], outcome["reason"]) == (
        "author",
        False,
        "invalid",
    )
    assert "`` link ``" in outcome["reply"] and "/author agree|disagree|fixed" in outcome["reply"]
    assert outcome.get("record") is None
    assert github_api.writes() == []


def test_push_review_of_a_file_that_is_not_json_names_the_file(tmp_path: Path) -> None:
    outcome = tmp_path / "outcome.json"
    outcome.write_bytes(b"\xff\xfe not json")
    result = invoke("ci", "push", "review", "--from", str(outcome), "--message", "m")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{outcome}: not JSON: ")
    assert len(result.stderr.splitlines()) == 1


def test_the_hierarchy() -> None:
    for kind in (InputError, EndpointError, GitHubError, ReadOnlyError, ArtifactError):
        assert issubclass(kind, ReproauditError)
    problem = Problem("unknown_claim", "logbooks/p/a.yaml", 3, "results[0].claim", "no C9")
    err = InputError(problem)
    assert err.problems == [problem] and str(err) == problem.format_text()
    assert str(ReproauditError("x", "do y")) == "x\n  hint: do y"
    assert str(ArtifactError(Path("a.json"), "not JSON")) == "a.json: not JSON"


def test_problems_are_raised_only_as_an_input_error() -> None:
    """The legacy shape (a ``ReproauditError`` carrying problems) is gone: problems are data."""
    problem = Problem("unknown_claim", "logbooks/p/a.yaml", 3, "results[0].claim", "no C9")
    for given in (problem, [problem]):
        with pytest.raises(TypeError, match="raise InputError"):
            ReproauditError(given)  # type: ignore[arg-type]
    assert not hasattr(ReproauditError("x"), "problems")
    import reproaudit.problems

    # problems.py is data (codes, Problem); the exceptions are errors.py's alone
    assert not hasattr(reproaudit.problems, "ReproauditError")
    assert not hasattr(reproaudit.problems, "InputError")


def test_judge_reads_the_repository_reruns_by_default(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks", "reruns"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    assert default_reruns(repo, None) == repo / "reruns"
    assert default_reruns(repo, tmp_path / "other") == tmp_path / "other"
    args = ("judge", "--mode", "rules", "--paper", "Kp4rT9vQ2x", "--logbook", "carol-paging-1")
    verdict = repo / "verdicts/Kp4rT9vQ2x/carol-paging-1.yaml"

    assert invoke(*args, "--repo", str(repo), env=NO_LLM).exit_code == 0
    assert yaml.safe_load(verdict.read_text())["rerun"]["status"] == "passed"

    shutil.rmtree(repo / "reruns")
    verdict.unlink()
    assert default_reruns(repo, None) is None
    assert invoke(*args, "--repo", str(repo), env=NO_LLM).exit_code == 0
    assert yaml.safe_load(verdict.read_text())["rerun"] is None
