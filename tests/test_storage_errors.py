"""Expected failures are expected: a full disk, a read-only file system and a folder we may
not write are one line on stderr naming the path, exit 1, never a traceback (exit 3).

Played for real: a 5 MiB tmpfs filled to the last byte, the same tmpfs remounted read-only,
and a folder the command's user (nobody) may not write, for `judge`, `build`, `export` and
`reproduce`, each run as its own process. Each has a control on a healthy folder.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reproaudit.errors import StorageError, storage_error
from tests.conftest import DATA, needs_bwrap

SITE = DATA / "repos" / "site"


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextlib.contextmanager
def small_disk(where: Path, size: str = "5m") -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)):
        pytest.skip("mounting a tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> None:
    """Write until the disk says no more: every byte of it is taken."""
    with open(disk / "filler", "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    with contextlib.suppress(OSError), open(disk / "filler2", "wb") as handle:
        while True:  # and the last few bytes
            handle.write(b"\0" * 512)
            handle.flush()


DROP_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


def run(*args: str, as_plain_user: bool = False) -> subprocess.CompletedProcess:
    prefix = DROP_OVERRIDE if as_plain_user else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "reproaudit", *args], capture_output=True, text=True
    )


def assert_one_line(done: subprocess.CompletedProcess, path: Path, why: str) -> None:
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    last = lines[-1]
    assert last.startswith(f"cannot write {path}"), done.stderr
    assert last.endswith(why), done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(SITE, repo)
    shutil.rmtree(repo / "verdicts" / "Kp4rT9vQ2x")  # something for `judge` to write
    return repo


FULL = "no space left on the device"
READ_ONLY = "read-only file system"


def test_judge_on_a_full_disk(repo: Path) -> None:
    with small_disk(repo / "verdicts" / "Kp4rT9vQ2x") as disk:
        fill(disk)
        done = run("judge", "--mode", "rules", "--repo", str(repo))
        assert_one_line(done, disk, FULL)
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "filler2"]  # no temp file
        (disk / "filler").unlink()
        control = run("judge", "--mode", "rules", "--repo", str(repo))
        assert control.returncode == 0, control.stderr
        assert (disk / "bob-paging-1.yaml").is_file()


def test_judge_on_a_read_only_file_system(repo: Path) -> None:
    with small_disk(repo / "verdicts" / "Kp4rT9vQ2x") as disk:
        assert _mount("-o", "remount,ro", str(disk))
        done = run("judge", "--mode", "rules", "--repo", str(repo))
        assert_one_line(done, disk, READ_ONLY)


@pytest.mark.parametrize("command", ["build", "export"])
def test_build_and_export_to_a_full_disk(repo: Path, tmp_path: Path, command: str) -> None:
    with small_disk(tmp_path / "disk", size="64m") as disk:  # the control's site fits
        fill(disk)
        out = disk / "out"
        done = run(command, "--repo", str(repo), "--out", str(out))
        assert_one_line(done, out, FULL)
        files = sorted(p.name for p in disk.rglob("*") if not p.is_dir())
        assert files == ["filler", "filler2"]  # nothing half-written
        (disk / "filler").unlink()
        (disk / "filler2").unlink()
        control = run(command, "--repo", str(repo), "--out", str(out))
        assert control.returncode == 0, control.stderr
        assert any(out.iterdir())


@pytest.mark.parametrize("command", ["build", "export"])
def test_build_and_export_to_a_read_only_file_system(
    repo: Path, tmp_path: Path, command: str
) -> None:
    with small_disk(tmp_path / "disk") as disk:
        assert _mount("-o", "remount,ro", str(disk))
        done = run(command, "--repo", str(repo), "--out", str(disk / "out"))
        assert_one_line(done, disk / "out", READ_ONLY)


@pytest.mark.parametrize("command", ["judge", "export"])
def test_a_folder_the_user_may_not_write(repo: Path, tmp_path: Path, command: str) -> None:
    """EACCES: the target folder belongs to nobody (0755), and the command runs as root
    without the capability that lets root write anywhere (setpriv drops it)."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot drop CAP_DAC_OVERRIDE")
    target = repo / "verdicts" / "Kp4rT9vQ2x" if command == "judge" else tmp_path / "locked"
    target.mkdir(mode=0o755)
    os.chown(target, 65534, 65534)
    args = ["--mode", "rules"] if command == "judge" else ["--out", str(target)]
    done = run(command, *args, "--repo", str(repo), as_plain_user=True)
    assert_one_line(done, target, "permission denied")
    assert list(target.iterdir()) == []
    os.chown(target, 0, 0)  # the control: the same command, once the folder is ours
    assert run(command, *args, "--repo", str(repo), as_plain_user=True).returncode == 0
    assert list(target.iterdir())


@needs_bwrap
def test_reproduce_to_a_full_disk(mini_repo: Path, tmp_path: Path) -> None:
    rel = "logbooks/Tq7mV2pLx0/ann-1.yaml"
    with small_disk(tmp_path / "disk") as disk:
        fill(disk)
        done = run("reproduce", rel, "--repo", str(mini_repo), "--out", str(disk / "reruns"))
        assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith(f"cannot write {disk}/reruns/"), done.stderr
        assert last.endswith(FULL)
        assert not list((disk / "reruns").rglob(".*"))  # no staging folder left behind


def test_storage_error_reads_the_os_error_and_its_causes() -> None:
    full = OSError(errno.ENOSPC, "No space left on device", "/x/y")
    assert str(storage_error(full)) == f"cannot write /x/y: {FULL}"
    wrapped = RuntimeError("while writing")
    wrapped.__cause__ = OSError(errno.EROFS, "Read-only file system", "/ro")
    assert isinstance(storage_error(wrapped), StorageError)
    assert storage_error(OSError(errno.EPERM, "Operation not permitted")) is None  # no path
    assert storage_error(OSError(errno.ENOENT, "No such file", "/x")) is None  # a bug's kind
    copy = shutil.Error([("/a", "/b/c", "[Errno 28] No space left on device: '/b/c'")])
    assert str(storage_error(copy)) == f"cannot write /b/c: {FULL}"
