"""Run one command as an argument list: scrubbed environment, deadline, bounded log.

The command is untrusted contributor code. It never goes through a shell,
sees no credentials from the caller's environment, runs in its own process
group so a timeout (or a finished run) kills everything it started, and its
output is read incrementally into a fixed-size tail so a flood cannot
exhaust memory.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .record import LOG_KEEP_BYTES, LogTail

KILL_GRACE_S = 2.0  # between SIGTERM and SIGKILL on a timeout
DRAIN_S = 1.0  # how long to keep reading after exit while stray children hold the pipe
READ_CHUNK = 64 * 1024


@dataclass
class ProcessResult:
    """How a command ended: exit code (None when killed on timeout or never started)."""

    exit_code: int | None
    timed_out: bool
    duration_s: float
    log: LogTail
    notes: list[str]


def scrubbed_env(home: Path, tmpdir: Path) -> dict[str, str]:
    """The only environment a re-run sees: no tokens, no CI or Hub variables.

    ``PATH`` is the caller's, with the running interpreter's folder first so
    ``python`` means the Python that runs reproaudit (and its installed
    packages), not whatever a shim would pick.
    """
    path = os.pathsep.join(
        dict.fromkeys(
            [str(Path(sys.executable).parent), *os.environ.get("PATH", "").split(os.pathsep)]
        )
    )
    return {
        "PATH": path,
        "HOME": str(home),
        "TMPDIR": str(tmpdir),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def run_process(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    *,
    keep_bytes: int = LOG_KEEP_BYTES,
    kill_grace_s: float = KILL_GRACE_S,
) -> ProcessResult:
    """Run ``argv`` in ``cwd`` until it exits or ``timeout_s`` passes; stdout+stderr merged."""
    log = LogTail(keep_bytes)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed as one
            close_fds=True,
        )
    except OSError as exc:
        note = f"could not start {argv[0]!r}: {exc.strerror or exc}"
        return ProcessResult(None, False, time.monotonic() - start, log, [note])
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    deadline = start + timeout_s
    timed_out = _pump(proc, fd, log, deadline)
    if not timed_out:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True  # closed its output but kept running
    notes = []
    if timed_out:
        _signal_group(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=kill_grace_s)
        notes.append(f"timed out after {timeout_s:g} s; its process group was killed")
    duration = time.monotonic() - start
    _signal_group(proc.pid, signal.SIGKILL)  # whatever it left running in the background
    proc.wait()
    _drain(fd, log)
    proc.stdout.close()
    code = None if timed_out else proc.returncode
    if code is not None and code < 0:
        notes.append(f"killed by signal {-code}")
    return ProcessResult(code, timed_out, duration, log, notes)


def _pump(proc: subprocess.Popen[bytes], fd: int, log: LogTail, deadline: float) -> bool:
    """Copy output into ``log`` until end of file or the deadline; True on the deadline."""
    exited_at: float | None = None
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if now >= deadline:
                return True
            if proc.poll() is not None:
                exited_at = exited_at or now
                if now - exited_at > DRAIN_S:
                    return False  # a background child still holds the pipe open
            if sel.select(timeout=min(0.2, deadline - now)):
                try:
                    chunk = os.read(fd, READ_CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    return False
                log.feed(chunk)


def _drain(fd: int, log: LogTail) -> None:
    """Read what is left in the pipe after the group was killed, without blocking."""
    for _ in range(1024):
        try:
            chunk = os.read(fd, READ_CHUNK)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            return
        log.feed(chunk)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
