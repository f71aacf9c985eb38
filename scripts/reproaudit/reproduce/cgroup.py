"""A cgroup of each run's own: memory and processes bounded for the whole run, not per process.

RLIMIT_AS bounds each process's address space, not their sum (six processes of
100 MiB each fit under a 256 MiB RLIMIT_AS), and RLIMIT_NPROC spares root. So
when reproaudit is root and the host lets it, every run gets a fresh cgroup:
cgroup v2 where a folder delegates both controllers, else cgroup v1 under
reproaudit's own cgroup of each controller (the host's limits on reproaudit
still apply). The sandbox joins it before it starts (``bwrap.preexec_for``);
it is emptied and removed after the run, and one an interrupted reproaudit
left behind is removed by the next run. Where none can be made, ``run.json``
says memory is bounded per process (``limits.memory_scope: process``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from .sandbox import Limits


@dataclass(frozen=True)
class RunCgroup:
    """The cgroup folders one run lives in (one per hierarchy) and what they bound.

    cgroup v2 has one folder with both controllers; v1 has one per controller.
    """

    folders: tuple[Path, ...]
    memory: Path | None  # the folder whose memory limit bounds the whole run
    pids: Path | None

    def oom_kills(self) -> int:
        """How many times the kernel killed a process of the run for the memory limit."""
        if self.memory is None:
            return 0
        for name, key in (("memory.events", "oom_kill"), ("memory.oom_control", "oom_kill")):
            with contextlib.suppress(OSError, ValueError):
                for line in (self.memory / name).read_text().splitlines():
                    field, _, value = line.partition(" ")
                    if field == key:
                        return int(value)
        return 0


CGROUP_ROOT = Path("/sys/fs/cgroup")


def run_cgroup(limits: Limits, *, root: Path = CGROUP_ROOT) -> RunCgroup | None:
    """A fresh cgroup bounding the whole run's memory and processes, when root can make one.

    cgroup v2 (``memory.max``, ``memory.swap.max``, ``pids.max``) in a folder
    whose ``cgroup.subtree_control`` delegates both controllers; else cgroup v1
    (``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes``, ``pids.max``),
    each under reproaudit's own cgroup of that controller, so the host's limits on
    reproaudit still apply. None when neither bound can be made (not root, no
    cgroup file system): the record then says memory is bounded per process only.
    """
    if os.geteuid() != 0:
        return None
    own = _own_cgroups()
    for unified in (root, root / "unified"):
        if not (unified / "cgroup.controllers").exists():
            continue
        for parent in _unique([unified / own.get("", "/").lstrip("/"), unified]):
            if {"memory", "pids"} <= set(_read(parent / "cgroup.subtree_control").split()):
                folder = _make(parent, _v2_settings(limits))
                if folder is not None:
                    return RunCgroup((folder,), folder, folder)
    made: dict[str, Path] = {}
    for name, settings in (("memory", _v1_memory(limits)), ("pids", _v1_pids(limits))):
        top = root / name
        if not (top / "cgroup.procs").exists():
            continue
        for parent in _unique([top / own.get(name, "/").lstrip("/"), top]):
            folder = _make(parent, settings)
            if folder is not None:
                made[name] = folder
                break
    if not made:
        return None
    return RunCgroup(tuple(made.values()), made.get("memory"), made.get("pids"))


def _v2_settings(limits: Limits) -> list[tuple[str, str, bool]]:
    """(file, value, required): a missing swap controller is no reason to give up."""
    memory = str(limits.memory_bytes)
    return [
        ("memory.max", memory, True),
        ("memory.swap.max", "0", False),
        ("pids.max", str(limits.processes), True),
    ]


def _v1_memory(limits: Limits) -> list[tuple[str, str, bool]]:
    memory = str(limits.memory_bytes)
    return [("memory.limit_in_bytes", memory, True), ("memory.memsw.limit_in_bytes", memory, False)]


def _v1_pids(limits: Limits) -> list[tuple[str, str, bool]]:
    return [("pids.max", str(limits.processes), True)]


def _make(parent: Path, settings: list[tuple[str, str, bool]]) -> Path | None:
    """A new ``reproaudit-*`` folder under ``parent`` with ``settings`` written, or None."""
    _sweep(parent)
    folder = parent / f"reproaudit-{secrets.token_hex(8)}"
    try:
        folder.mkdir()
    except OSError:
        return None
    try:
        for name, value, required in settings:
            try:
                (folder / name).write_text(value)
            except OSError:
                if required:
                    raise
    except OSError:
        with contextlib.suppress(OSError):
            folder.rmdir()
        return None
    return folder


def _own_cgroups() -> dict[str, str]:
    """reproaudit's own cgroup per controller (``""`` for v2), from /proc/self/cgroup."""
    out: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for name in parts[1].split(",") if parts[1] else [""]:
                out[name] = parts[2]
    return out


def _unique(paths: list[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _sweep(parent: Path, older_than_s: float = 60.0) -> None:
    """Remove empty cgroups an interrupted or killed reproaudit left behind.

    Only old ones: a fresh one may be about to receive its process. A cgroup
    with processes in it cannot be removed (the kernel refuses), so a running
    re-run is never touched.
    """
    now = time.time()
    for path in parent.glob("reproaudit-*"):
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > older_than_s:
                path.rmdir()


def remove_cgroup(cgroup: RunCgroup | None) -> None:
    """Kill anything still in the run's cgroup, then remove its folders."""
    if cgroup is None:
        return
    for folder in cgroup.folders:
        for _ in range(50):
            pids = [int(x) for x in _read(folder / "cgroup.procs").split()]
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            folder.rmdir()
