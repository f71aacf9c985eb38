"""A machine that cannot run anything is the machine's failure, never the logbook's.

Played for real with bubblewrap, never on the machine itself: a ``/dev/null`` that
is a regular file (the state ``--out /dev/null`` once left a CI runner in) is bound
into the sandbox from the test's own folder (``bwrap.DEV_FROM``), and an interpreter
is made unreadable in a copy of its own (a venv made with ``--copies``). Each run is
a ``host_error`` record that names the path, the open or exec and why; it never
replaces a record already there, the judge reads it as no re-run, ``store-reruns``
refuses it, and ``check`` says the machine, not the logbook, is at fault.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from reproaudit.check import check_logbook
from reproaudit.ci.store import check_record
from reproaudit.judge.inputs import read_rerun
from reproaudit.layout import RUN_JSON
from reproaudit.reproduce import bwrap, describe_record, reproduce_logbook
from reproaudit.reproduce.local import run_root
from reproaudit.reproduce.runner import host_problem, start_failure
from tests.conftest import needs_bwrap
from tests.reproduce.test_environment import build_wheel, with_requirements
from tests.reproduce.test_records import inputs_of
from tests.test_reproduce import PAPER, add_logbook

REL = f"logbooks/{PAPER}/ann-1.yaml"
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
BROKEN_NULL = (
    "/dev/null is not a character device but a regular file: no command can read or write it "
    "(the sandbox shows the machine's own; recreate it on the machine: mknod -m 666 /dev/null "
    "c 1 3)"
)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0,
    reason="only a sandbox running as a uid of its own (reproaudit as root, as in CI) is "
    "refused an interpreter its owner can run",
)


@pytest.fixture
def broken_dev() -> Iterator[Path]:
    """A folder of device nodes whose ``null`` is a regular root-only-writable file, as the
    incident left ``/dev/null``; the others are the machine's. Where the sandbox's uid reaches."""
    folder = Path(tempfile.mkdtemp(prefix="reproaudit-test-dev-", dir=run_root(True)))
    try:
        os.chmod(folder, 0o755)
        (folder / "null").write_text("")
        os.chmod(folder / "null", 0o644)
        for name in bwrap.DEV_NODES[1:]:
            (folder / name).symlink_to(f"/dev/{name}")
        yield folder
    finally:
        shutil.rmtree(folder)


@needs_bwrap
def test_a_broken_dev_null_in_the_sandbox_is_a_host_error_not_the_logbooks(
    mini_repo: Path, tmp_path: Path, broken_dev: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    good = reproduce_logbook(mini_repo, REL, out=out, sandbox="bwrap")
    assert good.status == "passed", good.log_tail  # the control: this machine's /dev/null
    kept = (out / PAPER / "ann-1" / RUN_JSON).read_bytes()
    monkeypatch.setattr(bwrap, "DEV_FROM", str(broken_dev))
    # over a record already there: the broken machine's run replaces nothing
    again = reproduce_logbook(mini_repo, REL, out=out, sandbox="bwrap")
    assert (again.status, again.kept, again.record.host_error) == ("host_error", True, BROKEN_NULL)
    assert (out / PAPER / "ann-1" / RUN_JSON).read_bytes() == kept
    assert describe_record(again).endswith(
        "(the record already there is kept)\n  this machine could not run the re-run, through "
        f"no fault of the logbook: {BROKEN_NULL}"
    )
    # where there is none: written, saying so, and nothing of the logbook ran
    fresh = tmp_path / "fresh"
    record = reproduce_logbook(mini_repo, REL, out=fresh, sandbox="bwrap")
    run = json.loads((fresh / PAPER / "ann-1" / RUN_JSON).read_text())
    assert (run["status"], run["host_error"], run["exit_code"]) == ("host_error", BROKEN_NULL, None)
    assert "running [" not in run["log_tail"] and not record.outputs_written
    # the judge reads it as no re-run at all; store-reruns refuses to store it
    assert read_rerun(fresh, PAPER, "ann-1", inputs_of(mini_repo, "ann-1")) is None
    why, payload = check_record(
        {RUN_JSON: fresh / PAPER / "ann-1" / RUN_JSON}, inputs_of(mini_repo, "ann-1")
    )
    assert (why, payload) == (
        "this machine could not run the re-run, through no fault of the logbook "
        f"({BROKEN_NULL}): no re-run of the logbook to store; fix the runner, then /reproduce "
        "again",
        {},
    )


@needs_bwrap
def test_check_blames_the_machine_never_the_logbook(
    mini_repo: Path, broken_dev: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bwrap, "DEV_FROM", str(broken_dev))
    result = check_logbook(mini_repo, REL, rerun=True, sandbox="bwrap")
    report = result.report
    assert (report.ok, report.status) == (False, "host_error")
    from reproaudit.report.model import outcome_sentence

    assert outcome_sentence(report, code_of=str) == (
        "The local re-run could not run on this machine in your working copy (not committed), "
        f"through no fault of the logbook: {BROKEN_NULL}. Fix the machine and check again, or "
        "check with --no-rerun: CI re-runs the logbook on its own runners."
    )
    assert "fix the command" not in outcome_sentence(report)
    # no verdict rests on it: each claim awaits a re-run
    flags = {f for v in report.verdicts for c in v.claims for f in c.flags}
    assert "rerun_failed" not in flags and "not_rerun" in flags


@needs_bwrap
def test_the_install_phase_on_a_broken_machine_never_runs_pip(
    mini_repo: Path,
    tmp_path: Path,
    broken_dev: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wheel = build_wheel(tmp_path, "tinydep", "VALUE = 1\n")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel.parent))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    rel = add_logbook(mini_repo, "dep-1", "python run.py", {"run.py": "import tinydep\n"})
    with_requirements(mini_repo, rel, "dep-1", "tinydep==1.0\n")
    monkeypatch.setattr(bwrap, "DEV_FROM", str(broken_dev))
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", sandbox="bwrap")
    assert (record.status, record.record.host_error) == ("host_error", BROKEN_NULL)
    assert "installing" not in record.log_tail  # pip never ran, nor was the logbook blamed


def _venv_reproduce(python: Path, repo: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SCRIPTS), *site.getsitepackages()])}
    done = subprocess.run(
        [str(python), "-m", "reproaudit", "reproduce", REL, "--repo", str(repo),
         "--out", str(out), "--sandbox", "bwrap"],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    return json.loads((out / PAPER / "ann-1" / RUN_JSON).read_text())


@needs_bwrap
@needs_root
def test_an_interpreter_the_sandbox_may_not_exec_is_named_with_why(
    mini_repo: Path, tmp_path: Path
) -> None:
    """A copy of the interpreter, made unreadable for the sandbox's uid: first the one the
    logbook's ``python`` finds, then the one the runner itself runs on."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--copies", "--without-pip", venv], check=True)
    versioned = venv / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    os.chmod(venv / "bin" / "python", 0o700)  # what `python` finds first on the sandbox's PATH
    run = _venv_reproduce(versioned, mini_repo, tmp_path / "out1")
    assert run["status"] == "host_error", run["log_tail"]
    assert run["host_error"] == (
        f"python: Permission denied while exec'ing {venv}/bin/python (marked executable: the "
        "machine refuses it)"
    )
    os.chmod(versioned, 0o700)  # the runner's own interpreter
    run = _venv_reproduce(versioned, mini_repo, tmp_path / "out2")
    assert run["status"] == "host_error", run["log_tail"]
    assert run["host_error"] == (
        "the bwrap sandbox did not start reproaudit's runner (exit code 1): bwrap: execvp "
        f"{versioned}: Permission denied"
    )


# --- what the runner says when the command cannot start (real exec failures, no sandbox) ---


def _start(argv: list[str], code: Path, path: str) -> tuple[str, bool]:
    try:
        subprocess.Popen(argv, cwd=code, env={"PATH": path}, stdin=subprocess.DEVNULL)
    except OSError as exc:
        return start_failure(exc, argv, str(code), {"PATH": path}, str(code))
    raise AssertionError(f"{argv} started")


def test_what_the_logbook_can_fix_is_never_the_machines(tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "train.sh").write_text("#!/bin/sh\necho hi\n")  # not executable
    assert _start(["./train.sh"], code, "/usr/bin") == (
        f"./train.sh: Permission denied while exec'ing {code}/train.sh (a file of the code folder)",
        False,
    )
    assert _start(["nosuchtool", "--x"], code, "/usr/bin:/bin") == (
        "'nosuchtool' is not a program here (PATH is /usr/bin:/bin)",
        False,
    )
    assert _start(["/usr"], code, "/usr/bin") == (
        "/usr: Permission denied while exec'ing /usr (not a program)",
        False,
    )


def test_a_machine_file_that_cannot_start_is_the_machines(tmp_path: Path) -> None:
    system = tmp_path / "system"
    system.mkdir()
    (system / "tool").write_text("#!/nonexistent/interpreter\n")
    os.chmod(system / "tool", 0o755)  # marked executable, but its interpreter is not there
    code = tmp_path / "code"
    code.mkdir()
    assert _start(["tool"], code, str(system)) == (
        f"tool: No such file or directory while exec'ing {system}/tool (the file is there: its "
        "interpreter or loader is not)",
        True,
    )
    null_failed = OSError(13, "Permission denied", os.devnull)  # as subprocess raises it
    assert start_failure(null_failed, ["python"], str(code), {}, str(code)) == (
        "opening /dev/null for its standard input failed: Permission denied",
        True,
    )


def test_the_machine_check_reads_dev_null_for_what_it_is(tmp_path: Path) -> None:
    assert host_problem() is None  # this machine's /dev/null: only looked at and opened
    regular = tmp_path / "null"
    regular.write_text("")
    assert host_problem(str(regular)) == BROKEN_NULL.replace("/dev/null", str(regular), 1)
    assert host_problem(str(tmp_path / "gone")).startswith(
        f"{tmp_path / 'gone'} cannot be opened: No such file or directory"
    )
