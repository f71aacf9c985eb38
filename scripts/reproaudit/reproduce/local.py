"""The local backend: run a logbook's command on this machine, inside a sandbox.

The code is copied (``code.path``) or fetched at exactly the pinned commit
(``code: {repo, commit}``) into a fresh host folder that the sandbox sees
read-only; the runner (``runner.py``) copies it into the sandbox's own bounded
writable space, runs the command, kills whatever it left running and prints
the outputs between markers, which are read here from the stream (the
runner's nonce arrives on its standard input, never in its argv). Requirements
are installed first, in a phase of their own: wheels downloaded here on the
host (``wheels.py``: pip builds nothing), then installed inside the sandbox with
no network into a folder the run phase sees read-only on ``PYTHONPATH``.
When reproaudit is root, each run has a uid of its own and, where the host
allows one, a cgroup bounding its memory and processes as a whole.

A machine that cannot run anything (a sandbox that never starts the runner or
pip, a ``/dev/null`` no command can use, an interpreter it will not exec) makes
the run a ``host_error`` that says what failed: never the logbook's failure
(``runner.host_problem``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import secrets
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from ..escaping import clip
from ..scratch import held_dir, sweep, temp_root
from .bundle import RUNNER
from .bwrap import (
    bwrap_argv,
    make_readable,
    preexec_for,
    sandbox_path,
    sandbox_uid,
    staging_for,
)
from .cgroup import RunCgroup, remove_cgroup, run_cgroup
from .docker import DEFAULT_IMAGE, docker_argv
from .envscrub import scrubbed_env
from .fetch import fetch_commit
from .markers import MARK, MarkerReader
from .process import ProcessResult, run_process
from .record import LogTail, RunOutcome, Status, log_text
from .runner import host_problem
from .sandbox import Launch, Limits
from .spec import RunSpec, copy_code, requirements_bytes, requirements_file
from .wheels import (
    PROBE,
    RequirementRefused,
    download_argv,
    download_env,
    install_argv,
    read_requirements,
    target_args,
    why_no_wheel,
)

RUN_PREFIX = "reproaudit-run-"  # a run's folder in $TMPDIR: the code's copy, home, tmp, deps
SETUP_GRACE_S = 120  # copying the code in and the outputs out, beyond the command's timeout
INSTALL_TIMEOUT_S = 1800


class HostBroken(Exception):
    """This machine cannot run the logbook at all (the message says what failed)."""


def one_line(text: str, limit: int = 600) -> str:
    """Text from a sandbox's output as one bounded line for ``run.json``'s ``host_error``."""
    printable = "".join(c if c.isprintable() else " " for c in text)
    return clip(" ".join(printable.split()), limit) or "no output"


def never_started(sandbox: str, what: str, result: ProcessResult, log: bytes) -> str:
    """What a sandbox that never started ``what`` said: its exit and its last lines."""
    ended = "timed out" if result.timed_out else f"exit code {result.exit_code}"
    if result.exit_code is None and not result.timed_out:
        ended = "it could not be launched"
    said = [line for line in log.decode("utf-8", errors="replace").splitlines() if line.strip()]
    said = said[-3:] or list(result.notes)
    return one_line(f"the {sandbox} sandbox did not start {what} ({ended}): {' | '.join(said)}")


@dataclass
class LocalRun:
    """A local run before it is bound and written: how it went, its outputs and log."""

    outcome: RunOutcome
    outputs: bytes | None
    log: str
    requirements_sha256: str | None = None
    limits: Limits | None = None  # as enforced (the writable space grows with the code)
    image_digest: str | None = None  # docker: the digest the image resolved to
    memory_scope: Literal["run", "process"] = "process"  # run: one cgroup bounds it all


def run_local(
    repo: Path,
    spec: RunSpec,
    *,
    sandbox: str,
    limits: Limits,
    clone_url: str | None = None,
) -> LocalRun:
    """Run ``spec`` here in ``sandbox``; return the outcome (not yet written), outputs and log.

    ``clone_url`` replaces ``code.repo`` as the place to fetch from (a mirror,
    or a local repository in tests); the commit is the logbook's either way.
    """
    notes: list[str] = []
    uid = sandbox_uid() if sandbox == "bwrap" else None
    root = run_root(uid is not None)
    sweep(root, RUN_PREFIX)  # code copies of runs that were killed
    held = contextlib.ExitStack()
    base = held.enter_context(held_dir(root, RUN_PREFIX))  # held while we live
    cgroup = run_cgroup(limits) if sandbox in ("bwrap", "none") else None
    nonce = secrets.token_hex(12)
    scope: Literal["run", "process"] = "process"
    if sandbox == "docker" or (cgroup is not None and cgroup.memory is not None):
        scope = "run"
    try:
        src = base / "src"
        started = time.monotonic()
        problem = host_problem() if sandbox == "none" else None  # the others check inside
        if problem is not None:
            return _host_error(sandbox, problem, started)
        if spec.code.path is not None:
            copy_code(repo, spec, src)
        else:
            url, sha = clone_url or spec.code.repo or "", spec.code.commit or ""
            error = fetch_commit(url, sha, str(src))
            if error is not None:
                notes.append(f"could not fetch {sha} from {url}: {error}")
                outcome = RunOutcome(
                    "failed", None, time.monotonic() - started, "local", None, sandbox
                )
                return LocalRun(outcome, None, log_text(LogTail(), notes))
        req = requirements_file(repo, spec)
        req_sha = None
        deps = None
        if req is not None:
            req_bytes = requirements_bytes(repo, spec) or b""
            req_sha = hashlib.sha256(req_bytes).hexdigest()
            try:
                deps, why = _install(spec, base, req, req_bytes, sandbox, limits, uid, cgroup)
            except HostBroken as exc:
                return replace(_host_error(sandbox, str(exc), started), requirements_sha256=req_sha)
            if why is not None:
                notes.append(why)
                outcome = RunOutcome(
                    "failed", None, time.monotonic() - started, "local", None, sandbox
                )
                return LocalRun(outcome, None, log_text(LogTail(), notes), req_sha)
        if sandbox == "none":
            notes.append(
                "NOT SANDBOXED: the command ran unconfined on this machine (--sandbox none)"
            )
        if uid is not None or sandbox == "docker":  # the sandbox reads as another user
            make_readable(base)
        # the code's copy lives in the writable space too: that much comes on top
        limits = replace(limits, writable_bytes=limits.writable_bytes + tree_size(src))
        staged = staging_for(base) if uid is not None else {}
        argv, _env, host_env = _launch_argv(spec, base, src, deps, sandbox, limits, staged, nonce)
        reader = MarkerReader(nonce, spec.reproduce.outputs or "", limits.log_bytes)
        result = run_process(
            argv,
            base,
            host_env,
            spec.timeout_s + SETUP_GRACE_S,
            sink=reader.feed,
            preexec=preexec_for(limits, cgroup, uid=uid, staged=staged)
            if sandbox in ("bwrap", "none")
            else None,
            stdin=nonce.encode() + b"\n",
        )
        parsed = reader.finish()
        notes.extend(result.notes)
        if cgroup is not None and cgroup.oom_kills():
            notes.append(
                f"the memory limit of the whole run (memory_bytes = {limits.memory_bytes}) "
                "was reached: the kernel killed a process of the run"
            )
        status = parsed.status or {}
        notes.extend(str(n) for n in status.get("notes") or [])
        outcome = _outcome(spec, sandbox, result, status, notes, parsed.started, parsed.log.data())
        if outcome.host_error is not None:  # nothing of the logbook ran: no limit, no outputs
            if outcome.host_error not in notes:
                notes.append(outcome.host_error)
            return LocalRun(outcome, None, log_text(parsed.log, notes), req_sha, limits)
        if outcome.status != "passed":
            notes.extend(limit_hints(parsed.log.data(), limits))
        if spec.reproduce.outputs and parsed.outputs is None:
            notes.append(parsed.outputs_note or str(status.get("outputs") or "no outputs"))
        elif not spec.reproduce.outputs:
            notes.append("the logbook names no reproduce.outputs; nothing to record")
        digest = _docker_digest(launch_image(spec)) if sandbox == "docker" else None
        log = log_text(parsed.log, notes)
        return LocalRun(outcome, parsed.outputs, log, req_sha, limits, digest, scope)
    finally:
        if sandbox == "docker":  # also when interrupted: the container is not our child
            _docker_cleanup(f"reproaudit-{nonce}")
        remove_cgroup(cgroup)
        held.close()  # removes base


def _host_error(sandbox: str, problem: str, started: float) -> LocalRun:
    """The run of a machine that cannot run anything: nothing of the logbook ran."""
    problem = one_line(problem)
    duration = time.monotonic() - started
    outcome = RunOutcome("host_error", None, duration, "local", None, sandbox, problem)
    return LocalRun(outcome, None, log_text(LogTail(), [problem]))


def run_root(other_uid: bool) -> Path:
    """Where a run's folder goes: ``$TMPDIR``, unless the sandbox runs as a uid of its own
    and cannot pass through a folder above it (a 0700 ``$TMPDIR`` or home); then ``/tmp``."""
    root = temp_root()
    if not other_uid or _others_can_reach(root):
        return root
    for fallback in (Path("/tmp"), Path("/var/tmp")):
        if _others_can_reach(fallback):
            return fallback
    return root


def _others_can_reach(folder: Path) -> bool:
    try:
        resolved = folder.resolve()
        return all(p.stat().st_mode & stat.S_IXOTH for p in (resolved, *resolved.parents))
    except OSError:
        return False


# What a limit looks like from inside, in the command's own output.
_LIMIT_SIGNS = (
    (b"File too large", "file_bytes", "the file size limit"),
    (b"No space left on device", "writable_bytes", "the writable space"),
    (b"MemoryError", "memory_bytes", "the memory limit"),
    (b"Cannot allocate memory", "memory_bytes", "the memory limit"),
    (b"Resource temporarily unavailable", "processes", "the process limit"),
)


def limit_hints(log: bytes, limits: Limits) -> list[str]:
    """Notes naming the limits a failed run's output shows it ran into."""
    out = []
    for sign, field, name in _LIMIT_SIGNS:
        value = getattr(limits, field)
        note = f"the output shows {sign.decode()!r}: {name} ({field} = {value}) was reached"
        if sign in log and note not in out:
            out.append(note)
    return out


def _outcome(
    spec: RunSpec,
    sandbox: str,
    result: ProcessResult,
    status: dict[str, Any],
    notes: list[str],
    started: bool,
    log: bytes,
) -> RunOutcome:
    """The run's outcome from the runner's status line, or from how the sandbox ended.

    A ``host_error`` comes from the runner's own status line (which the command
    cannot forge: it never learns the nonce), or from a bwrap or unconfined run
    whose runner never printed its first line. In docker the system is the
    logbook's image: what failed there is the logbook's, said as exactly.
    """
    said = status.get("status")
    code = status.get("exit_code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    duration = status.get("duration_s")
    if not isinstance(duration, (int, float)) or isinstance(duration, bool):
        duration = result.duration_s
    host = sandbox in ("bwrap", "none")
    final: Status
    if said == "host_error":
        what = one_line(str(status.get("host_error") or "the runner gave no reason"))
        if host:
            return RunOutcome("host_error", None, result.duration_s, "local", None, sandbox, what)
        notes.append(f"the image {launch_image(spec)} cannot run the command: {what}")
        final, code = "failed", None
    elif said in ("passed", "failed", "timeout"):
        final = said
    elif not started and host:
        what = never_started(sandbox, "reproaudit's runner", result, log)
        return RunOutcome("host_error", None, result.duration_s, "local", None, sandbox, what)
    elif result.timed_out:
        final, code = "timeout", None
    else:
        final = "failed"
        notes.append(
            f"the {sandbox} sandbox ended without the runner's result"
            + (f" (exit code {result.exit_code})" if result.exit_code is not None else "")
        )
    if final == "timeout":
        code = None
    return RunOutcome(final, code, float(duration), "local", None, sandbox)


def _inside_env(sandbox: str, base: Path, deps: bool) -> dict[str, str]:
    extra = {"PYTHONPATH": "/deps"} if deps else None
    if sandbox == "none":
        (base / "home").mkdir(exist_ok=True)
        (base / "tmp").mkdir(exist_ok=True)
        path = os.pathsep.join(
            dict.fromkeys(
                [os.path.dirname(sys.executable), *os.environ.get("PATH", "").split(os.pathsep)]
            )
        )
        env = scrubbed_env(path, str(base / "home"), str(base / "tmp"))
        if deps:
            env["PYTHONPATH"] = str(base / "deps")
        return env
    env = scrubbed_env(sandbox_path(), "/tmp/home", "/tmp", extra)
    if sandbox == "docker":
        del env["PATH"]  # the image's own
    return env


def _launch_argv(
    spec: RunSpec,
    base: Path,
    src: Path,
    deps: Path | None,
    sandbox: str,
    limits: Limits,
    staged: dict[str, str],
    nonce: str,
) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """(argv that starts the sandbox, environment inside it, environment of the sandbox tool)."""
    env = _inside_env(sandbox, base, deps is not None)
    source = f"dir:{src}" if sandbox == "none" else "dir:/src"
    runner = ["-c", RUNNER]
    if sandbox != "none":
        runner.append("--pidns")
    runner += ["stdin", source, "", "", "", "", spec.reproduce.outputs or "", str(spec.timeout_s)]
    runner += ["--", *spec.argv]
    launch = Launch(runner, src, deps, env, spec.reproduce.hardware, spec.reproduce.image)
    host_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if sandbox == "bwrap":
        return bwrap_argv(launch, limits, staged=staged), env, host_env
    if sandbox == "docker":
        return docker_argv(launch, limits, f"reproaudit-{nonce}"), env, docker_env()
    return [sys.executable, "-I", *runner], env, env


def _install(
    spec: RunSpec,
    base: Path,
    req: Path,
    req_bytes: bytes,
    sandbox: str,
    limits: Limits,
    uid: int | None,
    cgroup: RunCgroup | None,
) -> tuple[Path | None, str | None]:
    """Install the requirements into ``base/deps``; (folder, None) or (None, why).

    Wheels are downloaded here (pip builds nothing: ``--only-binary=:all:``),
    then installed by pip inside the sandbox with no network, from those alone.
    """
    source = str(spec.reproduce.requirements)
    try:
        reqs = read_requirements(req_bytes.decode("utf-8", errors="replace"), source, req.parent)
    except RequirementRefused as exc:
        return None, f"installing {source} refused: {exc}"
    deps, wheels, req_dir = base / "deps", base / "wheels", base / "req"
    for folder in (deps, wheels, req_dir):
        folder.mkdir()
    (req_dir / "requirements.txt").write_text(reqs.text(), encoding="utf-8")
    if not reqs.pinned:
        return deps, None
    target = None
    if sandbox == "docker":  # wheels for the image's Python, which it names with no network
        try:
            target = target_args(_image_python(launch_image(spec)))
        except RequirementRefused as exc:
            return None, f"installing {source} refused: {exc}"
    fetched = run_process(
        download_argv(reqs, req_dir / "requirements.txt", wheels, target),
        base,
        download_env(),
        INSTALL_TIMEOUT_S,
    )
    if fetched.exit_code != 0:
        text = fetched.log.data().decode("utf-8", errors="replace")
        why = why_no_wheel(text, reqs, source) or f"downloading wheels failed: {_tail(text)}"
        return None, f"installing {source} refused: {why}"
    if sandbox == "none":
        argv = install_argv(
            sys.executable, str(req_dir / "requirements.txt"), str(wheels), str(deps), reqs.hashed
        )
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(base), "LANG": "C.UTF-8"}
        result = run_process(argv, req_dir, env, INSTALL_TIMEOUT_S)
    else:
        if uid is not None:
            os.chown(deps, uid, uid)
        if uid is not None or sandbox == "docker":
            make_readable(req_dir, wheels)
            os.chmod(base, 0o755)
        if sandbox == "docker":
            os.chmod(deps, 0o777)  # the install container runs as nobody
        python = sys.executable if sandbox == "bwrap" else "python3"
        pip = install_argv(python, "/src/requirements.txt", "/wheels", "/deps", reqs.hashed)
        marker = f"{MARK}{secrets.token_hex(12)}"
        if sandbox == "bwrap":  # the machine's Python: checked, and says it started, first
            pip = [python, "-c", RUNNER, "--pip", marker, *pip[3:]]
        env = _inside_env(sandbox, base, False)
        launch = Launch(
            pip[1:],
            req_dir,
            None,
            env,
            spec.reproduce.hardware,
            spec.reproduce.image,
            extra_rw=[(deps, "/deps")],
            extra_ro=[(wheels, "/wheels")],
        )
        staged = staging_for(base) if uid is not None else {}
        if sandbox == "bwrap":
            argv = bwrap_argv(launch, limits, staged=staged)
        else:
            argv = docker_argv(launch, limits, f"reproaudit-install-{secrets.token_hex(6)}")
        host_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        if sandbox == "docker":
            host_env = docker_env()
        result = run_process(
            argv,
            base,
            host_env,
            INSTALL_TIMEOUT_S,
            preexec=preexec_for(limits, cgroup, uid=uid, staged=staged)
            if sandbox == "bwrap"
            else None,
        )
    if sandbox == "bwrap":
        _machine_could_install(result, marker)
    if result.exit_code != 0:
        detail = _tail(result.log.data().decode("utf-8", errors="replace"))
        return None, f"installing {source} failed: {detail or '; '.join(result.notes)}"
    return deps, None


def _machine_could_install(result: ProcessResult, marker: str) -> None:
    """Raise ``HostBroken`` when the install phase's sandbox never ran pip: it never said it
    started, or its check of the machine failed (``runner.pip_phase``)."""
    log = result.log.data()
    first = next((line for line in log.splitlines() if line.startswith(marker.encode())), b"")
    said = first.decode("utf-8", errors="replace")[len(marker) :].strip()
    if said == "started":
        return
    if said.startswith("host_error "):
        try:
            raise HostBroken(str(json.loads(said[len("host_error ") :])))
        except ValueError:
            pass
    raise HostBroken(never_started("bwrap", "pip for the install phase", result, log))


def _image_python(image: str) -> str:
    """The image's own answer to ``wheels.PROBE``: its Python, version and platform."""
    argv = ["docker", "run", "--rm", "--network", "none", "--cap-drop", "ALL"]
    argv += ["--user", "65534:65534", "--entrypoint", "python3", image, "-c", PROBE]
    result = run_process(argv, Path("/"), docker_env(), INSTALL_TIMEOUT_S)
    lines = result.log.data().decode("utf-8", errors="replace").strip().splitlines()
    return lines[-1] if result.exit_code == 0 and lines else ""


def _tail(text: str) -> str:
    return " | ".join(text.strip().splitlines()[-5:])


def docker_env() -> dict[str, str]:
    """The docker CLI's own environment: where the daemon is, never passed into a container."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    for name, value in os.environ.items():
        if name == "HOME" or name.startswith("DOCKER_"):
            env[name] = value
    return env


def launch_image(spec: RunSpec) -> str:
    return spec.reproduce.image or DEFAULT_IMAGE


def _docker_digest(image: str) -> str | None:
    """The ``sha256:...`` the local image's repository digest names, when docker knows it."""
    try:
        done = subprocess.run(
            ["docker", "image", "inspect", "--format", "{{json .RepoDigests}}", image],
            capture_output=True,
            text=True,
            timeout=60,
            env=docker_env(),
        )
        digests = json.loads(done.stdout or "[]") if done.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    for ref in digests or []:
        if isinstance(ref, str) and "@sha256:" in ref:
            return "sha256:" + ref.split("@sha256:", 1)[1]
    return None


def _docker_cleanup(name: str) -> None:
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            ["docker", "rm", "-f", name], capture_output=True, timeout=60, env=docker_env()
        )


def tree_size(root: Path) -> int:
    """Bytes of the regular files under ``root`` (links not followed)."""
    total = 0
    for dirpath, _dirs, filenames in os.walk(root):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def host_python() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} (host, read-only)"
