"""The bwrap sandbox (bubblewrap): CPU re-runs here and on ubuntu runners, and the tests.

The command runs in new user, PID, network, IPC, UTS and cgroup namespaces,
with a fresh ``/proc`` (the parent's processes, environment and command line
are invisible; ``/proc/sys`` and ``/proc/sysrq-trigger`` read-only), a ``/dev``
holding only six device nodes and a sized ``/dev/shm``, a read-only view of
the host's system (``/usr``, a few ``/etc`` files, the Python that runs
reproaudit), the code read-only at ``/src`` and two writable places, both
bounded tmpfs that share the writable budget: ``/tmp``, where the runner copies
the code and the command runs, and ``/dev/shm``. ``--die-with-parent`` and the
PID namespace make every descendant die with the run, with a timeout, and with
reproaudit itself even when it is SIGKILLed.

Never host root: when reproaudit is root, bwrap itself is started as a uid of
the run's own (``sandbox_uid``), so the user namespace maps to that uid, not to
host uid 0 (a root-mapped namespace could write ``/proc/sys/kernel/core_pattern``
with no capability at all). A Python folder that uid cannot reach (under
``/root``) is bind-mounted for it by root in a mount namespace of the launching
child alone (``staging_for``). Limits: a cgroup of the run's own where the host
lets root make one (``cgroup.py``: memory and processes for the whole run),
and on every process RLIMIT_NPROC (per uid: the fresh uid starts at 0),
RLIMIT_AS (memory per process; the only memory bound without a memory cgroup)
and RLIMIT_FSIZE.

The logbook's ``image`` cannot be pulled here: bwrap runs the host's Python
(read-only), and the record says so (``environment.image_used: false``).
"""

from __future__ import annotations

import contextlib
import os
import resource
import secrets
import sys
from collections.abc import Callable
from pathlib import Path

from .cgroup import RunCgroup
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
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
DEV_FROM = "/dev"  # the machine's nodes, bound in; a test binds broken ones of its own folder
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


def unreachable(path: str) -> bool:
    """Whether another uid cannot reach ``path`` (a folder on the way lacks o+x: ``/root``)."""
    parts = Path(path).parts
    for depth in range(1, len(parts)):
        try:
            if not os.stat(Path(*parts[:depth])).st_mode & 0o001:
                return True
        except OSError:
            return False
    return False


def staging_for(base: Path) -> dict[str, str]:
    """Where each Python folder a sandbox uid cannot reach is shown to it (under ``base``).

    The folders are bind-mounted there by root, in a mount namespace of the
    launching child alone (``preexec_for``): nothing is left mounted on the host.
    """
    staged = {}
    for number, root in enumerate(r for r in python_roots() if unreachable(r)):
        place = base / "py" / str(number)
        place.mkdir(parents=True, exist_ok=True)
        staged[root] = str(place)
    return staged


def bwrap_argv(
    launch: Launch,
    limits: Limits,
    *,
    bwrap: str = "bwrap",
    staged: dict[str, str] | None = None,
) -> list[str]:
    """The exact bwrap command line for ``launch`` (unit-tested; no shell anywhere).

    ``staged`` maps Python folders to where ``preexec_for`` mounts them for a
    sandbox uid that could not reach them.
    """
    staged = staged or {}
    # no capabilities even when reproaudit is root (else it could mount an unbounded tmpfs);
    # no phase has network: the install phase reads wheels downloaded beforehand
    argv = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    argv += ["--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        host = Path("/") / name
        if host.is_symlink():
            argv += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            argv += ["--ro-bind", str(host), f"/{name}"]
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    argv += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    argv += ["--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"]
    argv += dev_argv(limits)
    argv += ["--size", str(limits.shares()[0]), "--tmpfs", "/tmp"]
    # after the private /tmp, so an interpreter installed under /tmp (a CI checkout's
    # venv) is bound over it rather than hidden by it
    for root in python_roots():
        argv += ["--ro-bind-try", staged.get(root, root), root]
    argv += ["--ro-bind", str(launch.src), "/src"]
    if launch.deps is not None:
        argv += ["--ro-bind", str(launch.deps), "/deps"]
    for host_path, inside in launch.extra_ro:
        argv += ["--ro-bind", str(host_path), inside]
    for host_path, inside in launch.extra_rw:
        argv += ["--bind", str(host_path), inside]
    argv += ["--chdir", "/tmp"]
    for name, value in sorted(launch.env.items()):
        argv += ["--setenv", name, value]
    return [*argv, "--", sys.executable, "-I", *launch.runner_argv]


def dev_argv(limits: Limits) -> list[str]:
    """A read-only ``/dev`` of six device nodes, the std links and a sized ``/dev/shm``.

    bwrap's own ``--dev`` is an unbounded writable tmpfs: this one is a tiny
    tmpfs made read-only once its mount points exist.
    """
    argv = ["--perms", "0755", "--size", str(64 * 1024), "--tmpfs", "/dev"]
    for node in DEV_NODES:
        argv += ["--dev-bind", f"{DEV_FROM}/{node}", f"/dev/{node}"]
    argv += ["--symlink", "/proc/self/fd", "/dev/fd"]
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        argv += ["--symlink", f"/proc/self/fd/{fd}", f"/dev/{name}"]
    argv += ["--perms", "01777", "--size", str(limits.shares()[1]), "--tmpfs", "/dev/shm"]
    return [*argv, "--remount-ro", "/dev"]


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
    limits: Limits,
    cgroup: RunCgroup | None,
    *,
    uid: int | None = None,
    staged: dict[str, str] | None = None,
) -> Callable[[], None]:
    """What the child does before it becomes bwrap: join the run's cgroup, mount the
    ``staged`` folders in a mount namespace of its own, set the limits, then (when
    reproaudit is root) become ``uid`` for good.

    In this order because only root may do the first two. RLIMIT_NPROC counts
    every process of the user, so a user who already runs some gets the
    sandbox's budget on top of those (a fresh uid starts at 0).
    """
    rlimits = rlimits_of(limits)
    if uid is None and os.geteuid() != 0:
        rlimits[resource.RLIMIT_NPROC] = limits.processes + own_processes()
    procs = [str(f / "cgroup.procs") for f in cgroup.folders] if cgroup is not None else []
    mount = _mounter(staged) if staged else None

    def apply() -> None:
        if mount is not None:
            mount()
        for path in procs:
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        for which, value in rlimits.items():
            resource.setrlimit(which, (value, value))
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)

    return apply


def _mounter(staged: dict[str, str]) -> Callable[[], None]:
    """A function that binds each staged folder, in a new private mount namespace (root only)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    ms_rec, ms_private, ms_bind, clone_newns = 0x4000, 0x40000, 0x1000, 0x20000
    pairs = [(src.encode(), dest.encode()) for src, dest in staged.items()]

    def check(result: int, what: str) -> None:
        if result != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    def mount() -> None:
        check(libc.unshare(clone_newns), "unshare")
        check(libc.mount(None, b"/", None, ms_rec | ms_private, None), "private /")
        for src, dest in pairs:
            check(libc.mount(src, dest, None, ms_bind | ms_rec, None), f"bind {src!r}")

    return mount


def sandbox_uid() -> int | None:
    """A uid of this run's own when reproaudit is root (None otherwise).

    bwrap then starts as that uid, so its user namespace maps to it and never to
    host uid 0; RLIMIT_NPROC, which spares root and counts per user, binds it.
    """
    if os.geteuid() != 0:
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
