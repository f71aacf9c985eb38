"""Run one command as an argument list: given environment, deadline, bounded log.

Here the command is a sandbox (bwrap, docker) or, with ``--sandbox none``, the
runner itself. It never goes through a shell, runs in its own process group so
a timeout, a finished run, or an interrupt of reproaudit (SIGINT, SIGTERM)
kills it, and its output is read incrementally (into a fixed-size tail, or a
``sink``) so a flood cannot exhaust memory. ``preexec`` runs in the child
before it starts (the cgroup, limits and uid a sandbox inherits); ``stdin``
bytes arrive on a pipe closed after them (the runner's nonce: never in argv).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
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


def run_process(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    *,
    keep_bytes: int = LOG_KEEP_BYTES,
    kill_grace_s: float = KILL_GRACE_S,
    sink: Callable[[bytes], None] | None = None,
    preexec: Callable[[], None] | None = None,
    stdin: bytes | None = None,
) -> ProcessResult:
    """Run ``argv`` in ``cwd`` until it exits or ``timeout_s`` passes; stdout+stderr merged.

    Output goes to ``sink`` when given (the result's log is then empty), else
    into the bounded log tail.
    """
    log = LogTail(keep_bytes)
    feed = sink or log.feed
    start = time.monotonic()
    given = _pipe_with(stdin) if stdin is not None else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed as one
            close_fds=True,
            preexec_fn=preexec,
        )
    except OSError as exc:
        note = f"could not start {argv[0]!r}: {exc.strerror or exc}"
        return ProcessResult(None, False, time.monotonic() - start, log, [note])
    finally:
        if isinstance(given, int) and given >= 0:
            os.close(given)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    deadline = start + timeout_s
    try:
        timed_out = _pump(proc, fd, feed, deadline)
    except BaseException:  # KeyboardInterrupt, SystemExit: the run dies with us
        _signal_group(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        raise
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
    _drain(fd, feed)
    proc.stdout.close()
    code = None if timed_out else proc.returncode
    if code is not None and code < 0:
        notes.append(f"killed by signal {-code}")
    return ProcessResult(code, timed_out, duration, log, notes)


def _pipe_with(data: bytes) -> int:
    """The read end of a pipe holding ``data``, its write end already closed."""
    read, write = os.pipe()
    try:
        os.write(write, data)  # small (a nonce): fits the pipe's buffer, never blocks
    finally:
        os.close(write)
    return read


def _pump(
    proc: subprocess.Popen[bytes], fd: int, feed: Callable[[bytes], None], deadline: float
) -> bool:
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
                feed(chunk)


def _drain(fd: int, feed: Callable[[bytes], None]) -> None:
    """Read what is left in the pipe after the group was killed, without blocking."""
    for _ in range(1024):
        try:
            chunk = os.read(fd, READ_CHUNK)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            return
        feed(chunk)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
