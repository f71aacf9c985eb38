"""The bwrap sandbox (bubblewrap): CPU re-runs here and on ubuntu runners, and the tests.

The command runs in new user, PID, network, IPC, UTS and cgroup namespaces,
with a fresh ``/proc`` (the parent's processes, environment and command line
are invisible), a read-only view of the host's system (``/usr``, a few
``/etc`` files, the Python that runs reproaudit), the code read-only at
``/src`` and one writable place: a private tmpfs of bounded size at ``/tmp``,
where the runner copies the code and the command runs. ``--die-with-parent``
and the PID namespace make every descendant die with the run, with a timeout,
and with reproaudit itself even when it is SIGKILLed. Resource limits are set
on bwrap and inherited: processes (RLIMIT_NPROC, counted per user; root is
exempt from it, so a root reproaudit uses a pids cgroup, or else a uid of the
sandbox's own), memory (RLIMIT_AS) and file size (RLIMIT_FSIZE).

The logbook's ``image`` cannot be pulled here: bwrap runs the host's Python
(read-only), and the record says so (``environment.image_used: false``).
"""

from __future__ import annotations

import contextlib
import os
import resource
import secrets
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .sandbox import Launch, Limits

# /etc files a program may need; never the whole folder (it may hold credentials)
ETC_FILES = (
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "mime.types",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
)
NET_ETC_FILES = ("resolv.conf", "hosts", "gai.conf")
UID_BASE = 1_900_000_000  # sandbox uids when reproaudit runs as root: unused by any account


def python_roots() -> list[str]:
    """Folders holding the Python that runs reproaudit (a venv, a toolcache install).

    Never ``/`` or a home folder itself: those would show the sandbox far more
    than an interpreter.
    """
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    roots |= {os.path.realpath(r) for r in list(roots)}
    roots.add(os.path.dirname(os.path.realpath(sys.executable)))
    too_wide = {
        "/",
        "/home",
        "/root",
        os.path.expanduser("~"),
        os.path.realpath(os.path.expanduser("~")),
    }
    return sorted(
        r
        for r in roots
        if r and r not in too_wide and r != "/usr" and not r.startswith(("/usr/", "/etc/"))
    )


def sandbox_path() -> str:
    return os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"])


def bwrap_argv(launch: Launch, limits: Limits, *, bwrap: str = "bwrap") -> list[str]:
    """The exact bwrap command line for ``launch`` (unit-tested; no shell anywhere)."""
    # no capabilities even when reproaudit is root (else it could mount an unbounded tmpfs)
    argv = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    if launch.network:
        argv.append("--share-net")
    argv += ["--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        host = Path("/") / name
        if host.is_symlink():
            argv += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            argv += ["--ro-bind", str(host), f"/{name}"]
    etc = ETC_FILES + (NET_ETC_FILES if launch.network else ())
    for name in etc:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--size", str(limits.writable_bytes), "--tmpfs", "/tmp"]
    # after the private /tmp, so an interpreter installed under /tmp (a CI checkout's
    # venv) is bound over it rather than hidden by it
    for root in python_roots():
        argv += ["--ro-bind-try", root, root]
    argv += ["--ro-bind", str(launch.src), "/src"]
    if launch.deps is not None:
        argv += ["--ro-bind", str(launch.deps), "/deps"]
    for host_path, inside in launch.extra_rw:
        argv += ["--bind", str(host_path), inside]
    argv += ["--chdir", "/tmp"]
    for name, value in sorted(launch.env.items()):
        argv += ["--setenv", name, value]
    return [*argv, "--", sys.executable, "-I", *launch.runner_argv]


def rlimits_of(limits: Limits) -> dict[int, int]:
    return {
        resource.RLIMIT_NPROC: limits.processes,
        resource.RLIMIT_AS: limits.memory_bytes,
        resource.RLIMIT_FSIZE: limits.file_bytes,
        resource.RLIMIT_CORE: 0,
    }


def own_processes() -> int:
    """How many processes this user runs now (RLIMIT_NPROC counts them all)."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                count += entry.stat().st_uid == uid
    return count


def preexec_for(
    limits: Limits, cgroup: Path | None, *, fresh_uid: bool = False
) -> Callable[[], None]:
    """Set the limits in the child before it becomes bwrap; join the pids cgroup first.

    RLIMIT_NPROC counts every process of the user, so a user who already runs
    some gets the sandbox's budget on top of those (a fresh uid starts at 0).
    """
    rlimits = rlimits_of(limits)
    if not fresh_uid and os.geteuid() != 0:
        rlimits[resource.RLIMIT_NPROC] = limits.processes + own_processes()
    procs = str(cgroup / "cgroup.procs") if cgroup is not None else None

    def apply() -> None:
        if procs is not None:
            with open(procs, "w") as handle:
                handle.write(str(os.getpid()))
        for which, value in rlimits.items():
            resource.setrlimit(which, (value, value))

    return apply


def pids_cgroup(limit: int) -> Path | None:
    """A fresh pids cgroup capped at ``limit`` when reproaudit is root and one can be made.

    RLIMIT_NPROC does not bind root, so a root reproaudit caps processes with
    the pids controller (cgroup v1 ``pids`` or v2 with ``pids`` enabled).
    """
    if os.geteuid() != 0:
        return None
    for root in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        v1 = root.name == "pids" and (root / "cgroup.procs").exists()
        if not v1 and not _v2_pids(root):
            continue
        _sweep(root)
        path = root / f"reproaudit-{secrets.token_hex(8)}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(limit))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            continue
        return path
    return None


def _sweep(root: Path, older_than_s: float = 60.0) -> None:
    """Remove empty cgroups an interrupted or killed reproaudit left behind.

    Only old ones: a fresh one may be about to receive its process. A cgroup
    with processes in it cannot be removed (the kernel refuses), so a running
    re-run is never touched.
    """
    now = time.time()
    for path in root.glob("reproaudit-*"):
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > older_than_s:
                path.rmdir()


def _v2_pids(root: Path) -> bool:
    try:
        return "pids" in (root / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def remove_cgroup(path: Path | None) -> None:
    """Kill anything still in the cgroup, then remove it."""
    if path is None:
        return
    for _ in range(50):
        try:
            pids = [int(x) for x in (path / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
    with contextlib.suppress(OSError):
        path.rmdir()


def sandbox_uid(cgroup: Path | None) -> int | None:
    """A uid of its own for this run when reproaudit is root and has no pids cgroup.

    RLIMIT_NPROC spares root and counts per user: a fresh uid makes it bind.
    """
    if os.geteuid() != 0 or cgroup is not None:
        return None
    return UID_BASE + secrets.randbelow(50_000_000)


def make_readable(*paths: Path) -> None:
    """Let a sandbox running as another uid read ``paths`` (folders traversable, files readable)."""
    for top in paths:
        for dirpath, _dirs, filenames in os.walk(top):
            os.chmod(dirpath, 0o755)
            for name in filenames:
                full = os.path.join(dirpath, name)
                if not os.path.islink(full):
                    os.chmod(full, os.stat(full).st_mode | 0o444)
