"""One interface for the local sandboxes: which one to use, its limits, how to start it.

``bwrap`` (bubblewrap: CPU re-runs, the tests), ``docker`` (GPU runners) and
``none`` (a contributor's own machine, only when asked for, never in CI). Each
backend turns a ``Launch`` (the runner's argument list plus the folders it
needs) into the argument list that starts it; ``local.py`` runs that and reads
the runner's markers from its output, the same way for all three.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import SettingError

SANDBOXES = ("bwrap", "docker", "none")
MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one re-run may use. Every sandbox enforces each of these for real."""

    wall_s: int  # the logbook's timeout
    processes: int = 256  # pids cgroup, and RLIMIT_NPROC for a uid of its own / --pids-limit
    memory_bytes: int = 8 * 1024 * MIB  # memory cgroup (whole run) and RLIMIT_AS / --memory
    file_bytes: int = 256 * MIB  # RLIMIT_FSIZE: the largest file it may write
    writable_bytes: int = 512 * MIB  # /tmp (work folder) and /dev/shm together
    log_bytes: int = 64 * 1024  # the log tail kept
    shm_bytes: int = 64 * MIB  # at most this much of writable_bytes is /dev/shm

    def shares(self) -> tuple[int, int]:
        """(size of /tmp, size of /dev/shm): the writable budget split, never exceeded."""
        shm = max(MIB, min(self.shm_bytes, self.writable_bytes // 4))
        return self.writable_bytes - shm, shm

    def as_record(self) -> dict[str, int]:
        record = asdict(self)
        record["shm_bytes"] = self.shares()[1]
        return record


@dataclass(frozen=True)
class Launch:
    """What a sandbox must start: the runner's argv and the host folders it reads."""

    runner_argv: list[str]  # after the interpreter: -c RUNNER ... -- ARGV
    src: Path  # the code, mounted read-only at /src
    deps: Path | None  # installed requirements, read-only at /deps, on PYTHONPATH
    env: dict[str, str]  # the whole environment inside
    hardware: str = "cpu"
    image: str | None = None
    extra_rw: list[tuple[Path, str]] = field(default_factory=list)  # install phase: /deps
    extra_ro: list[tuple[Path, str]] = field(default_factory=list)  # install phase: /wheels
    pass_fds: tuple[int, ...] = ()  # inherited by the runner (the nonce's pipe)


def in_ci(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return any(env.get(k, "").lower() == "true" for k in ("CI", "GITHUB_ACTIONS"))


def bwrap_available() -> bool:
    """Whether bwrap runs here as a re-run would start it: as a uid of its own when root."""
    path = shutil.which("bwrap")
    if path is None:
        return False
    try:
        done = subprocess.run(
            [path, "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            timeout=20,
            preexec_fn=_drop_root if os.geteuid() == 0 else None,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _drop_root() -> None:
    uid = 1_899_999_999  # beside the run uids (bwrap.UID_BASE and up): no account has it
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def docker_available() -> bool:
    path = shutil.which("docker")
    if path is None:
        return False
    try:
        done = subprocess.run([path, "info"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def choose_sandbox(
    asked: str | None, hardware: str, *, environ: dict[str, str] | None = None
) -> str:
    """The sandbox to use: the one asked for, else the safest available; refuse what is unsafe.

    ``none`` is never chosen by default and refused in CI (``CI`` or
    ``GITHUB_ACTIONS`` is ``true``). A missing tool is a one-line error with
    the command that installs it.
    """
    if asked is not None and asked not in SANDBOXES:
        raise _error(f"unknown sandbox {asked!r}", f"use one of: {', '.join(SANDBOXES)}")
    if asked == "none":
        if in_ci(environ):
            raise _error(
                "--sandbox none is refused in CI: contributor code never runs unconfined there",
                "use --sandbox bwrap (CPU) or --sandbox docker (GPU runners)",
            )
        return "none"
    if asked == "bwrap" or (asked is None and hardware == "cpu"):
        if not bwrap_available():
            raise _error(
                "bubblewrap (bwrap) is not installed or cannot create namespaces here",
                "install it (`sudo apt-get install bubblewrap`), or on your own machine only "
                "pass --sandbox none to run unconfined",
            )
        return "bwrap"
    if not docker_available():
        raise _error(
            f"hardware {hardware!r} re-runs in docker, and no docker daemon is reachable",
            "set up docker and the NVIDIA container toolkit (docs/github-setup.md), "
            "or use --backend hf-jobs",
        )
    return "docker"


def _error(message: str, hint: str) -> SettingError:
    return SettingError(f"--sandbox: {message}", hint)
