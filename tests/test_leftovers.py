"""No leftovers: real processes killed with SIGKILL, SIGTERM or SIGINT while they hold a
temporary file or folder (each waits at a marker file, no sleeps), then a clean next run.

SIGTERM and Ctrl-C run the clean-up at once (exit 143 / 130, no traceback). SIGKILL runs
nothing: what it leaves is swept by the next run, which never touches what a live
process still holds (the control, beside each sweep).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from reproaudit.ci.push import apply_records, push_change
from reproaudit.reproduce.record import replace_folder
from tests.conftest import DATA, needs_bwrap
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]
EXIT = {signal.SIGKILL: -9, signal.SIGTERM: 143, signal.SIGINT: 130}


def wait_for(path: Path, proc: subprocess.Popen, limit: float = 300.0) -> None:
    """Until ``path`` exists (the process reached the point), or the process ended."""
    end = time.monotonic() + limit
    while not path.exists():
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"the process ended before reaching its marker: {err[-2000:]}")
        assert time.monotonic() < end, "the marker never appeared"
        time.sleep(0.02)


def blocked_cli(tmp_path: Path, patch: str, argv: list[str]) -> tuple[subprocess.Popen, Path]:
    """`reproaudit ARGV` in its own process, with ``patch`` making it write the marker and
    block at one point of its work."""
    marker = tmp_path / "marker"
    script = (
        textwrap.dedent(
            """
        import sys, time
        from pathlib import Path
        MARKER = Path(sys.argv[1])
        def block(*args, **kwargs):
            MARKER.write_text("here")
            time.sleep(3600)
        """
        )
        + textwrap.dedent(patch)
        + textwrap.dedent(
            """
        from reproaudit.cli import main
        sys.argv = ["reproaudit", *sys.argv[2:]]
        main()
        """
        )
    )
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(marker), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    wait_for(marker, proc)
    return proc, marker


def stop(proc: subprocess.Popen, sig: signal.Signals) -> str:
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == EXIT[sig], err
    if sig != signal.SIGKILL:
        assert "Traceback" not in err, err
        assert err.strip().splitlines()[-1] in ("interrupted", "terminated"), err
    return err


def cli(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    return subprocess.run(
        [sys.executable, "-m", "reproaudit", *argv], capture_output=True, text=True, env=env
    )


def holder(folder: Path) -> subprocess.Popen:
    """A live process holding a temporary file in ``folder``, as a writer does."""
    script = (
        "import sys, time\nfrom pathlib import Path\nfrom reproaudit.scratch import held_file\n"
        "fd, path = held_file(Path(sys.argv[1]), '.live.yaml.', '.tmp')\n"
        "print(path, flush=True)\ntime.sleep(3600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    return proc


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(DATA / "repos" / "site", repo)
    for path in repo.glob("verdicts/*/*.yaml"):
        if path.name != "reviews.yaml":
            path.unlink()  # something for the judge to write
    return repo


def temp_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob(".*.tmp"))


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_judge_killed_while_writing_a_verdict(repo: Path, tmp_path: Path, sig) -> None:
    patch = "import os\nos.replace = block\n"  # stop between the temp file and its rename
    proc, _ = blocked_cli(tmp_path, patch, ["judge", "--mode", "rules", "--repo", str(repo)])
    [left] = temp_files(repo / "verdicts")
    assert left.name.startswith(".") and left.name.endswith(".tmp")
    stop(proc, sig)
    if sig != signal.SIGKILL:
        assert temp_files(repo / "verdicts") == []  # cleaned on the way out
    live = holder(left.parent)  # the control: a writer still at work keeps its file
    try:
        done = cli(tmp_path, "judge", "--mode", "rules", "--repo", str(repo))
        assert done.returncode == 0, done.stderr
        assert [p.name.startswith(".live.yaml.") for p in temp_files(repo / "verdicts")] == [True]
    finally:
        live.kill()
        live.wait()
    assert len(list(repo.glob("verdicts/*/*-*.yaml"))) >= 10


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_build_killed_while_building(repo: Path, tmp_path: Path, sig) -> None:
    before = sorted(p.name for p in repo.iterdir())
    patch = "import reproaudit.site.build as b\nb._render_and_build = block\n"
    out = tmp_path / "site"
    proc, _ = blocked_cli(tmp_path, patch, ["build", "--repo", str(repo), "--out", str(out)])
    stages = list((tmp_path / "tmp").glob("reproaudit-build-*"))
    assert len(stages) == 1 and (stages[0] / "docs").is_dir()  # staged in $TMPDIR
    assert sorted(p.name for p in repo.iterdir()) == before  # and never in the repository
    stop(proc, sig)
    left = list((tmp_path / "tmp").glob("reproaudit-build-*"))
    assert left == ([] if sig != signal.SIGKILL else stages)
    done = cli(tmp_path, "build", "--repo", str(repo), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "tmp").glob("reproaudit-build-*")) == []
    assert sorted(p.name for p in repo.iterdir()) == before
    assert (out / "index.html").is_file()


@needs_bwrap
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: s.name)
def test_a_rerun_killed_while_running_leaves_no_code_copy(
    mini_repo: Path, tmp_path: Path, sig
) -> None:
    rel = "logbooks/Tq7mV2pLx0/ann-1.yaml"
    patch = "import reproaudit.reproduce.local as loc\nloc.run_process = block\n"
    out = tmp_path / "reruns"
    argv = ["reproduce", rel, "--repo", str(mini_repo), "--out", str(out)]
    # The sandbox's own uid must pass through $TMPDIR's parents. pytest's are 0700, and any
    # other pytest session starting meanwhile sets them back to 0700: so a folder in /tmp.
    base = Path(tempfile.mkdtemp(prefix="reproaudit-leftovers-", dir="/tmp"))
    try:
        base.chmod(0o711)
        proc, _ = blocked_cli(base, patch, argv)
        [copy] = list((base / "tmp").glob("reproaudit-run-*"))
        assert (copy / "src").is_dir()  # the code's copy
        stop(proc, sig)
        done = cli(base, *argv)
        assert done.returncode == 0, done.stdout + done.stderr
        assert list((base / "tmp").glob("reproaudit-run-*")) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert (out / "Tq7mV2pLx0" / "ann-1" / "run.json").is_file()


# --- ci push and store-reruns -------------------------------------------------------


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    shutil.copytree(DATA / "repos" / "site", base)
    git(base, "init", "-q", "-b", "main")
    git(base, "add", "-A")
    git(base, "commit", "-qm", "base")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(base), str(bare))
    return bare


def worktrees(job: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(job), "worktree", "list", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line.startswith("worktree ")]


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_push_killed_mid_way_leaves_no_checkout(origin: Path, tmp_path: Path, sig) -> None:
    job = tmp_path / "job"
    git(tmp_path, "clone", "-q", str(origin), str(job))
    records = tmp_path / "records"
    folder = records / PAPER / "carol-paging-1"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text('{"status": "passed"}\n')
    patch = "import reproaudit.ci.push as p\np._commit = block\n"
    argv = [
        "ci",
        "push",
        "reruns",
        "--from",
        str(records),
        "--pr",
        "7",
        "--message",
        "store",
        "--repo",
        str(job),
    ]
    proc, _ = blocked_cli(tmp_path, patch, argv)
    assert len(list((tmp_path / "tmp").glob("reproaudit-push-*"))) == 1
    assert len(worktrees(job)) == 2
    stop(proc, sig)
    if sig != signal.SIGKILL:
        assert list((tmp_path / "tmp").glob("reproaudit-push-*")) == []
        assert len(worktrees(job)) == 1
    done = cli(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "tmp").glob("reproaudit-push-*")) == []
    assert len(worktrees(job)) == 1  # registrations pruned too


def test_a_killed_store_leaves_no_folder_that_blocks_the_next_push(
    origin: Path, tmp_path: Path
) -> None:
    """`store-reruns` killed between writing the new record and renaming it: its
    `.<logbook>.new-*` folder is ignored by `ci push reruns` and swept by the next store."""
    job = tmp_path / "job"
    git(tmp_path, "clone", "-q", str(origin), str(job))
    target = job / "reruns" / PAPER / "carol-paging-1"
    marker = tmp_path / "stored-marker"
    script = textwrap.dedent(
        """
        import os, sys, time
        from pathlib import Path
        from reproaudit.reproduce import record
        def block(*args):
            Path(sys.argv[2]).write_text("here")
            time.sleep(3600)
        record.os.rename = block
        record.replace_folder(Path(sys.argv[1]), {"run.json": b'{"status": "passed"}'})
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(target), str(marker)], stderr=subprocess.PIPE
    )
    wait_for(marker, proc)
    proc.kill()
    proc.wait()
    [left] = list(target.parent.glob(".carol-paging-1.new-*"))
    assert (left / "run.json").is_file()
    # the next push of reruns/ takes the records and leaves the dot-folder alone
    changed = job / "reruns" / PAPER / "bob-paging-1" / "run.json"
    changed.write_text('{"status": "timeout"}\n')
    result = push_change(job, apply_records(job / "reruns"), "store reruns")
    assert result.status == "pushed", result
    tree = subprocess.run(
        ["git", "-C", str(origin), "ls-tree", "-r", "--name-only", "main", "reruns"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".new-" not in tree and f"reruns/{PAPER}/bob-paging-1/run.json" in tree
    shown = ["git", "-C", str(origin), "show", f"main:reruns/{PAPER}/bob-paging-1/run.json"]
    assert "timeout" in subprocess.run(shown, capture_output=True, text=True).stdout
    # and the next store sweeps it, keeping a live writer's folder (the control)
    live = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom pathlib import Path\nfrom reproaudit.scratch import held_dir\n"
            "with held_dir(Path(sys.argv[1]), '.carol-paging-1.new-') as d:\n"
            "    print(d, flush=True); time.sleep(3600)\n",
            str(target.parent),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert live.stdout is not None
    held = Path(live.stdout.readline().strip())
    try:
        replace_folder(target, {"run.json": b'{"status": "failed"}'})
        assert not left.exists()
        assert held.is_dir()
        assert (target / "run.json").read_text() == '{"status": "failed"}'
    finally:
        live.kill()
        live.wait()


# --- Ctrl-C at any moment -------------------------------------------------------------


@pytest.mark.parametrize("when", ["at once", "click", "reproaudit.cli.ci", "running"])
def test_ctrl_c_at_any_moment_exits_130_without_a_traceback(
    repo: Path, tmp_path: Path, when: str
) -> None:
    """Interrupted at spawn, while importing click or the commands (import events read from
    `-X importtime`), and once the command runs: exit 130 (or killed by the signal before
    Python set its handler), never a traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "reproaudit", "stats", "--repo", str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    seen = []
    if when != "at once":
        wanted = "reproaudit.corpus_check" if when == "running" else when
        for line in proc.stderr:
            seen.append(line)
            if line.rstrip().endswith(f"| {wanted}") or line.rstrip().endswith(f"|   {wanted}"):
                break
            if line.split("|")[-1].strip() == wanted:
                break
        else:
            pytest.fail(f"{wanted} was never imported: {''.join(seen)[-2000:]}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    err = "".join(seen) + err
    assert "Traceback" not in err, err[-3000:]
    assert proc.returncode in (130, -signal.SIGINT), err[-3000:]


def test_an_export_killed_while_writing(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    patch = "import os\nos.replace = block\n"
    argv = ["export", "--format", "csv", "--repo", str(repo), "--out", str(out)]
    proc, _ = blocked_cli(tmp_path, patch, argv)
    [left] = temp_files(out)
    stop(proc, signal.SIGKILL)
    assert left.exists()
    done = cli(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    assert temp_files(out) == [] and (out / "claims-verdicts.csv.gz").is_file()


def test_a_run_whose_sandbox_uid_cannot_pass_tmpdir_goes_to_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from reproaudit.reproduce.local import run_root

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    assert run_root(other_uid=False) == private  # the run's own uid: $TMPDIR as asked
    assert run_root(other_uid=True) == Path("/tmp")  # a 0700 folder above: /tmp instead
