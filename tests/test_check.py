"""`reproaudit check`: what CI will do to a logbook, locally, telling the truth about it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.check import check_logbook
from reproaudit.cli import cli
from reproaudit.report.markdown import render_markdown
from reproaudit.report.terminal import render_terminal
from tests.conftest import needs_bwrap

ROOT = Path(__file__).resolve().parents[1]
ERIN = "logbooks/Zm7Lw_3HqE/erin-asd-1.yaml"


def repo_copy(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    return repo


def run(repo: Path, *args: str):
    return CliRunner().invoke(cli, ["check", *args, "--repo", str(repo)])


@needs_bwrap
def test_check_reruns_a_cpu_logbook_and_prints_a_terminal_report(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    result = run(repo, ERIN)
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith(
        "status=ok Valid, 2 claims still empty: 1 logbook checked in your working copy"
    )
    assert "  C1  falsified (pending)" in out
    assert "(re-run)" in out  # the judge read the local re-run's outputs
    assert "Local re-run: passed in" in out
    assert "\\_" not in out and "&lt;" not in out and "&gt;" not in out  # no Markdown escapes
    assert "\x1b[" not in out  # no colour when the output is not a terminal
    assert not (repo / "verdicts").exists()  # nothing written into the contribution


@needs_bwrap
def test_markdown_format_is_the_pr_comment(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    result = run(repo, ERIN, "--format", "markdown")
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    # the logbook is not committed: the header names no commit
    assert first == "<!-- reproaudit:report status=ok sha=uncommitted -->"
    assert "in your working copy (not committed)" in result.output
    assert "| C1 | falsified *(pending)* |" in result.output
    assert "reproaudit check logbooks/Zm7Lw_3HqE/erin-asd-1.yaml" in result.output


def test_header_names_head_only_when_the_logbook_is_committed(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    committed = run(repo, ERIN, "--no-rerun", "--format", "markdown")
    assert f"status=ok sha={head.strip()} -->" in committed.output.splitlines()[0]
    assert f"at `{head[:12]}`" in committed.output
    book = repo / ERIN
    book.write_text(book.read_text().replace("notes:", "notes: |\n      edited\n    x:", 0))
    book.write_text(book.read_text() + "\n")
    edited = run(repo, ERIN, "--no-rerun", "--format", "markdown")
    assert "sha=uncommitted" in edited.output.splitlines()[0]
    assert head[:12] not in edited.output
    assert subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True).stdout


def test_without_rerun_verdicts_are_provisional_and_typos_show_plainly(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    ok = run(repo, ERIN, "--no-rerun")
    assert ok.exit_code == 0 and "not_rerun" in ok.output and "Local re-run" not in ok.output
    assert "No re-run: these verdicts are provisional (pending)." in ok.output
    book = repo / ERIN
    book.write_text(book.read_text().replace("self_assessment:", "self_asessment:", 1))
    bad = run(repo, str(book))
    assert bad.exit_code == 1
    assert bad.output.startswith("status=fail 1 problem to fix")
    assert "unknown field 'self_asessment' [unknown_field]" in bad.output
    assert "hint: did you mean 'self_assessment'?" in bad.output


def crash(repo: Path, script: str) -> None:
    code = repo / "logbooks/Zm7Lw_3HqE/erin-asd-1/find_violation.py"
    code.write_text(script)


@needs_bwrap
def test_a_crashing_script_fails_the_check_and_shows_its_traceback(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    crash(repo, "import sys\nprint('starting')\nraise RuntimeError('diverged at step 12')\n")
    result = run(repo, ERIN)
    assert result.exit_code == 1, result.output
    out = result.output
    assert out.startswith("status=fail The local re-run failed (exit code 1)")
    assert "Local re-run: failed in" in out and "Log tail:" in out
    assert "  | RuntimeError: diverged at step 12" in out
    assert "rerun_failed" in out
    md = run(repo, ERIN, "--format", "markdown").output
    assert md.startswith("<!-- reproaudit:report status=fail")
    assert "RuntimeError: diverged at step 12" in md


@needs_bwrap
def test_a_timed_out_rerun_fails_the_check(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    book = repo / ERIN
    book.write_text(book.read_text().replace("timeout: 2m", "timeout: 1s"))
    crash(repo, "import time\nprint('thinking', flush=True)\ntime.sleep(30)\n")
    result = run(repo, ERIN)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("status=fail The local re-run timed out")
    assert "thinking" in result.output


@needs_bwrap
def test_a_pointer_typo_gets_a_did_you_mean_from_the_rerun_outputs(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    book = repo / ERIN
    text = book.read_text().replace("/C1/first_violation_step", "/C1/first_violaton_step")
    book.write_text(text)
    result = run(repo, ERIN)
    assert result.exit_code == 1
    out = " ".join(result.output.split())  # the terminal renderer wraps long lines
    assert (
        "line 22 results[0].measurements[1].source: 'outputs:/C1/first_violaton_step' points "
        "at nothing in the outputs the re-run wrote [pointer_not_found]" in out
    )
    assert "hint: did you mean outputs:/C1/first_violation_step?" in out


@pytest.mark.parametrize(
    ("path", "message", "hint"),
    [
        (
            "logbooks/Zm7Lw_3HqE/nobody-1.yaml",
            "logbooks/Zm7Lw_3HqE/nobody-1.yaml: no such logbook file [unknown_logbook]",
            "hint: start one with `reproaudit new logbook Zm7Lw_3HqE --id <you>-1",
        ),
        (
            "logbooks/Zm7Lw_3HqE/erin-asd-2.yaml",
            "logbooks/Zm7Lw_3HqE/erin-asd-2.yaml: no such logbook file [unknown_logbook]",
            "hint: did you mean logbooks/Zm7Lw_3HqE/erin-asd-1.yaml?",
        ),
        (
            "logbooks/Zm7Lw_3HqF/erin-asd-1.yaml",
            "there is no paper 'Zm7Lw_3HqF' under claims/ [unknown_paper]",
            "hint: did you mean logbooks/Zm7Lw_3HqE/erin-asd-1.yaml?",
        ),
        ("claims/icml2026/Kp4rT9vQ2x.yaml", "not a logbook", ""),
    ],
)
def test_a_path_that_is_not_a_logbook_of_a_paper_is_a_one_line_error(
    tmp_path: Path, path: str, message: str, hint: str
) -> None:
    repo = repo_copy(tmp_path)
    result = run(repo, path)
    assert result.exit_code == 1
    assert message in result.output and hint in result.output
    assert "Valid" not in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) <= 2


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("logbooks/Zm7Lw_3HqE/erin-asd-2.yaml", "unknown_logbook"),
        ("logbooks/Zm7Lw_3HqF/erin-asd-1.yaml", "unknown_paper"),
        ("claims/icml2026/Kp4rT9vQ2x.yaml", "misplaced_file"),
    ],
)
def test_reproduce_refuses_a_logbook_path_as_check_does(
    tmp_path: Path, path: str, code: str
) -> None:
    """One resolver: ``reproduce`` names the same problem ``check`` does, before any run."""
    from reproaudit.errors import InputError
    from reproaudit.reproduce.spec import load_spec

    repo = repo_copy(tmp_path)
    with pytest.raises(InputError) as raised:
        load_spec(repo, path)
    assert [p.code for p in raised.value.problems] == [code]


@needs_bwrap
def test_colour_only_when_asked_and_untrusted_escapes_are_dropped(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    crash(repo, "print('\\x1b[2J\\x1b[31mowned')\nraise SystemExit(3)\n")
    report = check_logbook(repo, ERIN).report
    plain = render_terminal(report)
    assert "\x1b" not in plain and "[2J[31mowned" in plain
    coloured = render_terminal(report, colour=True)
    assert coloured.startswith("\x1b[31mstatus=fail\x1b[0m")
    assert "\x1b[2J" not in coloured
    assert "```" not in render_markdown(report).split("```text", 1)[1].split("```", 1)[0]


def test_evidence_is_cut_at_a_word_boundary() -> None:
    from reproaudit.report.model import shorten

    text = "growth " * 80
    cut = shorten(text, 300)
    assert len(cut) <= 300 and cut.endswith("growth…")


def test_only_numbers_from_cis_rerun_are_not_pending() -> None:
    from reproaudit.ci.report import render_comment
    from reproaudit.report.artifact import Artifact

    def comment(numbers: str) -> str:
        verdict = {
            "paper": "P1",
            "logbook": "ann-1",
            "numbers": numbers,
            "claims": [{"claim": "C1", "verdict": "verified", "flags": [], "evidence": "ok"}],
        }
        artifact = {
            "schema": "reproaudit-pr-result/1",
            "pr": 4,
            "head_sha": "a" * 40,
            "files": ["logbooks/P1/ann-1.yaml"],
            "outside": [],
            "problems": [],
            "verdicts": [verdict],
        }
        return render_comment(Artifact.model_validate(artifact))

    assert "| C1 | verified |" in comment("ci_rerun") and "pending" not in comment("ci_rerun")
    for numbers in ("self_reported", "local_rerun"):
        text = comment(numbers)
        assert "| C1 | verified *(pending)* |" in text
        assert "*pending*: judged on the numbers the logbook reports" in text


def test_a_path_typed_in_a_subfolder_is_read_from_there_by_the_cli_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI passes its working folder; the library alone reads paths against the repo."""
    from reproaudit.errors import InputError
    from reproaudit.logbook_arg import resolve_logbook

    repo = repo_copy(tmp_path)
    monkeypatch.chdir(repo / "logbooks/Zm7Lw_3HqE")
    assert resolve_logbook(repo, "erin-asd-1.yaml", here=Path.cwd())[0] == ERIN
    with pytest.raises(InputError):
        resolve_logbook(repo, "erin-asd-1.yaml")  # no working folder: the repository only
    result = CliRunner().invoke(cli, ["validate", "erin-asd-1.yaml", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert f"{ERIN}:10: warning" in result.output  # the logbook, found from here
    assert "1 file checked: 0 error(s)" in result.output


_NETWORK_CLIENTS = ("httpx", "requests", "urllib3", "http.client", "openai", "huggingface_hub")
_PROBE = (
    "import importlib, json, sys; importlib.import_module(sys.argv[1]); "
    "print(json.dumps(sorted(sys.modules)))"
)


def modules_after_import(module: str) -> list[str]:
    """Every module loaded by ``import module`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, module], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def ci_and_network(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m == "reproaudit.ci"
        or m.startswith("reproaudit.ci.")
        or any(m == c or m.startswith(c + ".") for c in _NETWORK_CLIENTS)
    ]


def test_importing_check_loads_nothing_of_ci_and_no_network_client() -> None:
    """A contributor's local check needs no GitHub client and no pull request."""
    loaded = modules_after_import("reproaudit.check")
    assert "reproaudit.report.model" in loaded and "reproaudit.check" in loaded
    assert ci_and_network(loaded) == []
    # control: the probe sees the CI layer and its GitHub client where they are loaded
    publishing = ci_and_network(modules_after_import("reproaudit.ci.report"))
    assert "reproaudit.ci.github" in publishing and "httpx" in publishing


def test_a_local_check_has_no_pull_request(tmp_path: Path) -> None:
    repo = repo_copy(tmp_path)
    result = check_logbook(repo, ERIN, rerun=False)
    assert result.report.pr is None
    assert render_markdown(result.report).startswith(
        "<!-- reproaudit:report status=ok sha=uncommitted -->\n## reproaudit\n"
    )
