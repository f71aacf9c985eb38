"""The run's cgroup and the sandbox's argv, checked without starting anything (pure-ish).

The real kernel's answer (six processes of 100 MiB against a 256 MiB cgroup)
is in ``test_never_root.py``; here a folder stands in for ``/sys/fs/cgroup`` so
each layout (v2 delegating both controllers, v1, none) is checked anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reproaudit.reproduce.bwrap import bwrap_argv
from reproaudit.reproduce.cgroup import remove_cgroup, run_cgroup
from reproaudit.reproduce.sandbox import Launch, Limits

LIMITS = Limits(wall_s=10, processes=99, memory_bytes=256 << 20, writable_bytes=32 << 20)
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="only root makes cgroups")


@root_only
def test_v2_writes_memory_swap_and_pids_in_one_folder(tmp_path: Path):
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("memory pids\n")
    cgroup = run_cgroup(LIMITS, root=tmp_path)
    assert cgroup is not None and cgroup.memory == cgroup.pids == cgroup.folders[0]
    folder = cgroup.folders[0]
    assert folder.parent == tmp_path and folder.name.startswith("reproaudit-")
    assert (folder / "memory.max").read_text() == str(256 << 20)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "99"


@root_only
def test_v1_makes_one_folder_per_controller(tmp_path: Path):
    for name in ("memory", "pids"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "cgroup.procs").write_text("")
    cgroup = run_cgroup(LIMITS, root=tmp_path)
    assert cgroup is not None and len(cgroup.folders) == 2
    assert cgroup.memory is not None and cgroup.pids is not None
    assert (cgroup.memory / "memory.limit_in_bytes").read_text() == str(256 << 20)
    assert (cgroup.pids / "pids.max").read_text() == "99"


@root_only
def test_no_delegated_controller_means_no_cgroup(tmp_path: Path):
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")  # not delegated
    assert run_cgroup(LIMITS, root=tmp_path) is None
    assert list(tmp_path.glob("reproaudit-*")) == []


def test_remove_cgroup_of_nothing_is_nothing():
    remove_cgroup(None)


def test_bwrap_argv_has_read_only_proc_sys_a_small_dev_and_no_network(tmp_path: Path):
    launch = Launch(["-c", "RUNNER"], tmp_path / "src", None, {"HOME": "/tmp/home"})
    argv = bwrap_argv(launch, LIMITS)
    assert "--share-net" not in argv and "--dev" not in argv
    pairs = list(zip(argv, argv[1:], argv[2:], strict=False))
    assert ("--ro-bind", "/proc/sys", "/proc/sys") in pairs
    assert ("--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger") in pairs
    assert ("--remount-ro", "/dev", "--size") in pairs
    dev = argv.index("--dev-bind")
    assert argv[dev - 6 : dev] == ["--perms", "0755", "--size", str(64 * 1024), "--tmpfs", "/dev"]
    nodes = [argv[i + 2] for i, a in enumerate(argv) if a == "--dev-bind"]
    assert nodes == [f"/dev/{n}" for n in ("null", "zero", "full", "random", "urandom", "tty")]
    tmp, shm = LIMITS.shares()
    assert tmp + shm == LIMITS.writable_bytes and shm == 8 << 20
    assert ("--size", str(shm), "--tmpfs") in pairs and ("--size", str(tmp), "--tmpfs") in pairs
    assert not any(a.startswith("/etc/resolv") for a in argv)
