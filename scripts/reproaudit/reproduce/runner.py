"""reproaudit's runner: get the code, run one command, print its outputs between markers.

Run as ``python3 -c RUNNER [OPTIONS] NONCE_FROM SOURCE SHA ARCHIVE JAIL SUBDIR OUTPUTS
TIMEOUT -- ARGV...`` inside every sandbox (bwrap, docker, none) and inside
Hugging Face Jobs. ``SOURCE`` is a clone URL (fetched at ``SHA``) or
``dir:PATH``, a read-only folder copied into a fresh working folder. Every
value arrives as a separate argument and the command is run as an argument
list: nothing is ever parsed by a shell. Afterwards the outputs file is printed
base64-encoded between marker lines carrying the caller's nonce, then one
status line.

Its first line is ``started`` (with the nonce), before anything of the logbook
runs: a sandbox whose output lacks it never started the runner, which is the
machine's failure. So is a machine whose ``/dev/null`` no command can use
(``host_problem``, checked before the code is even fetched) and a
program outside the code folder the machine will not exec (an interpreter it
made unreadable): the status is then ``host_error``, saying which path, which
open or exec, and why, and the command never runs. A program the logbook names
that is not there, or a file of its own that is not executable, is the
logbook's failure, said just as exactly.

The nonce is what makes those lines the runner's: the command must never learn
it. It is never in the argument list (anyone may read ``/proc/*/cmdline``):
``NONCE_FROM`` is ``stdin`` (the first line of standard input, a pipe the
caller closes; the command gets ``/dev/null``) or ``env`` (``REPROAUDIT_NONCE``,
removed before the command starts). The runner then makes itself non-dumpable
(``PR_SET_DUMPABLE`` 0), so a command running as the same uid cannot read the
runner's memory, environment or open files through ``/proc/<pid>/``.

``--pip MARKER ARGS...`` is the local install phase (bwrap): the same check of the
machine, a first line ``MARKER started`` (or ``MARKER host_error "why"``), then
``python -m pip ARGS...``, so a sandbox that never ran pip is told apart from pip
failing.

Options: ``--pidns`` (the runner is the first process of its own PID namespace:
when the command ends, every other process in the namespace is killed before
the outputs are printed, so nothing the command left behind can print after
them); ``--requirements TEXT`` (a pip requirements file's text, read strictly by
the caller, installed as wheels only into a folder on ``PYTHONPATH`` before the
command: the Jobs backend's install step).

Standard library only, Python 3.8 syntax: job images are arbitrary. ``RUNNER``
(``bundle.py``) is this file with the shared safety modules (``confine``,
``envscrub``, ``fetch``) in front of it, so each rule still has one source.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
from typing import Any

try:  # inside the package; in a job the bundle defines these names above this file
    from .confine import inside
    from .envscrub import drop_secrets
    from .fetch import SHA40, fetch_commit
except ImportError:
    pass

MARK = "::reproaudit::"
MAX_OUTPUTS = 16 * 1024 * 1024
MAX_ARCHIVE = 2 * 1024 * 1024 * 1024
PIP_TIMEOUT_S = 1800
RECREATE = "recreate it on the machine: mknod -m 666 /dev/null c 1 3"
_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)
LIMIT_SIGNALS = {
    getattr(signal, "SIGXFSZ", 25): "the file size limit (RLIMIT_FSIZE)",
    getattr(signal, "SIGXCPU", 24): "the CPU time limit",
}


def take_nonce(source: str) -> str:
    """Read the nonce from where the caller put it, leaving no copy the command can reach."""
    if source == "stdin":
        nonce = sys.stdin.readline().strip()
        try:
            null = os.open(os.devnull, os.O_RDONLY)
        except OSError:  # host_problem says why, and then no command runs
            os.close(0)
        else:
            os.dup2(null, 0)  # the pipe is closed here; the command reads /dev/null
            os.close(null)
    elif source == "env":
        nonce = os.environ.pop("REPROAUDIT_NONCE", "").strip()
    else:
        raise RuntimeError("NONCE_FROM must be stdin or env, never the nonce itself")
    if len(nonce) < 16 or not all(c in "0123456789abcdef" for c in nonce):
        raise RuntimeError("no nonce arrived (16 or more hex digits expected)")
    return nonce


def host_problem(null: str = os.devnull) -> str | None:
    """Why no command can run on this machine (its fault, never a logbook's), or None.

    A sandbox shows the machine's own ``/dev/null`` (bwrap binds it), and every
    program may read or write it (``subprocess`` opens it for a child's standard
    input): it must be a character device that opens for reading and writing.
    """
    try:
        mode = os.stat(null).st_mode
    except OSError as exc:
        return f"{null} cannot be opened: {exc.strerror} ({RECREATE})"
    if not stat.S_ISCHR(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        return (
            f"{null} is not a character device but {kind}: no command can read or write it "
            f"(the sandbox shows the machine's own; {RECREATE})"
        )
    try:
        fd = os.open(null, os.O_RDWR)
    except OSError as exc:
        return f"opening {null} to read and write failed: {exc.strerror} ({RECREATE})"
    os.close(fd)
    return None


def pip_phase(marker: str, args: list) -> int:
    """The install phase: check the machine, say so on the first line, then run pip."""
    import runpy

    problem = host_problem()
    print(marker + (" host_error " + json.dumps(problem) if problem else " started"), flush=True)
    if problem:
        return 3
    sys.argv = ["pip", *args]
    runpy.run_module("pip", run_name="__main__", alter_sys=True)
    return 0


def undumpable() -> bool:
    """Make this process non-dumpable: its /proc files and memory are closed to its own uid."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE, 0
    except Exception:  # no ctypes or no prctl (not Linux): say so in the status
        return False


def note(text: str) -> None:
    print("[reproaudit-runner] " + text, flush=True)


def has_hashes(text: str) -> bool:
    """Whether a requirements file pins hashes (then every requirement must have one)."""
    return "--hash=" in text or "--hash " in text


def pip_argv(python: str, requirements: str, target: str, hashed: bool) -> list:
    """pip's arguments to install ``requirements`` into ``target``: wheels only (a wheel is
    unpacked, never built, so no one's build code runs with the job's network), with
    ``--require-hashes`` when the file gives hashes."""
    argv = [python, "-m", "pip", "install", "--quiet", "--no-input", "--disable-pip-version-check"]
    argv += ["--no-cache-dir", "--only-binary=:all:", "--target", target, "-r", requirements]
    return argv + (["--require-hashes"] if hashed else [])


def tree_sha256(root: str) -> str:
    """One hash over a code tree: each path, whether it is executable, and its bytes.

    ``.git`` is left out (its contents differ between clones of one commit); a
    link counts as its target text.
    """
    digest = hashlib.sha256()
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not (dirpath == root and d == ".git"))
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            entries.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    for rel in sorted(entries):
        full = os.path.join(root, rel)
        if os.path.islink(full):
            kind, data = "l", hashlib.sha256(os.readlink(full).encode()).hexdigest()
        else:
            kind = "x" if os.stat(full).st_mode & 0o100 else "f"
            file_digest = hashlib.sha256()
            with open(full, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    file_digest.update(chunk)
            data = file_digest.hexdigest()
        digest.update((f"{kind} {data} {rel}\n").encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def fetch_archive(url: str, dest: str) -> None:
    """Download a tar.gz of the commit and unpack it, dropping its top folder.

    Only regular files and folders are unpacked, and only inside ``dest``.
    """
    # imported here: the host imports this module for host_problem, and a network client
    # has no business in `check`'s imports (tests/test_check.py)
    import urllib.request

    with tempfile.TemporaryFile() as tmp:
        with urllib.request.urlopen(url, timeout=120) as response:
            size = 0
            while True:
                chunk = response.read(1 << 20)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_ARCHIVE:
                    raise RuntimeError("archive is larger than 2 GiB")
                tmp.write(chunk)
        tmp.seek(0)
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(fileobj=tmp, mode="r:gz") as tar:
            for member in tar:
                parts = member.name.split("/", 1)
                if len(parts) < 2 or not parts[1] or not (member.isfile() or member.isdir()):
                    continue
                target = os.path.join(dest, parts[1])
                if os.path.isabs(parts[1]) or not inside(target, dest):
                    continue
                if member.isdir():
                    os.makedirs(target, exist_ok=True)
                    continue
                os.makedirs(os.path.dirname(target), exist_ok=True)
                source = tar.extractfile(member)
                if source is None:
                    continue
                with source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
                os.chmod(target, 0o755 if member.mode & 0o100 else 0o644)


def fetch(url: str, sha: str, archive: str, dest: str) -> None:
    if url.startswith("dir:"):
        shutil.copytree(url[4:], dest, symlinks=True)
        return
    if not SHA40.fullmatch(sha) or url.startswith("-"):
        raise RuntimeError(f"refused source {url!r} at {sha!r}")
    if shutil.which("git"):
        note(f"fetching {url} at {sha} with git")
        why = fetch_commit(url, sha, dest)
        if why is None:
            return
        note("git could not fetch the commit: " + why)
        shutil.rmtree(dest, ignore_errors=True)
    if not archive.startswith(("https://", "http://")):
        raise RuntimeError(f"cannot fetch {url} at {sha} (no git, or git failed; no archive)")
    note("downloading " + archive)
    fetch_archive(archive, dest)


def kill_rest(pidns: bool, pgid: int) -> None:
    """Kill what the command left running: its whole PID namespace, else its process group."""
    with contextlib.suppress(OSError):
        if pidns and os.getpid() in (1, 2):  # never outside a namespace of our own
            os.kill(-1, signal.SIGKILL)
        else:
            os.killpg(pgid, signal.SIGKILL)


def program_path(program: str, cwd: str, path: str) -> str | None:
    """Where exec finds ``program``: a path as given (from ``cwd``), else the first entry of
    ``path`` that holds a file of that name (executable or not: that is what is asked)."""
    if "/" in program:
        full = os.path.join(cwd, program)
        return full if os.path.lexists(full) else None
    for folder in path.split(os.pathsep):
        full = os.path.join(folder or ".", program)
        if os.path.lexists(full) and not os.path.isdir(full):
            return full
    return None


def start_failure(exc: OSError, argv: list, cwd: str, env: dict, code: str) -> tuple:
    """(what failed, whether the machine is at fault) when the command could not start.

    The machine is at fault when no command could start (``/dev/null`` would not
    open), or when exec refused a program outside the code folder that is marked
    executable (an interpreter the machine made unreadable): the logbook cannot fix
    either. A program that is not there, or a file that is not executable, is the
    logbook's to fix.
    """
    why = exc.strerror or str(exc)
    if exc.filename == os.devnull:
        return f"opening {os.devnull} for its standard input failed: {why}", True
    program = str(argv[0])
    search = env.get("PATH", os.defpath)
    found = program_path(program, cwd, search)
    if found is None:
        return f"{program!r} is not a program here (PATH is {search})", False
    real = os.path.realpath(found)
    what = f"{program}: {why} while exec'ing {real}"
    try:
        mode = os.stat(real).st_mode
    except OSError:
        mode = 0
    if inside(real, code):
        return what + " (a file of the code folder)", False
    if not stat.S_ISREG(mode):
        return what + " (not a program)", False
    if exc.errno in (errno.EACCES, errno.EPERM) and mode & 0o111:
        return what + " (marked executable: the machine refuses it)", True
    if exc.errno == errno.ENOENT:
        return what + " (the file is there: its interpreter or loader is not)", True
    return what, False


def run(argv: list, cwd: str, timeout: float, env: dict, pidns: bool, code_dir: str) -> tuple:
    """Run the command; (exit code or None, seconds, notes, why the machine could not).

    ``code_dir`` is the code folder: a program there that will not start is the logbook's.
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        what, machine = start_failure(exc, argv, cwd, env, code_dir)
        note(f"could not start {argv[0]!r}: {what}")
        if machine:
            return None, time.monotonic() - start, [], what
        return 127, time.monotonic() - start, ["could not start the command: " + what], None
    notes = []
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
        notes.append(
            f"timed out after {timeout:g} s (the logbook's timeout); everything it started "
            "was killed"
        )
    duration = time.monotonic() - start
    kill_rest(pidns, proc.pid)
    proc.wait()
    if code is not None and code < 0:
        why = LIMIT_SIGNALS.get(-code)
        notes.append(f"killed by signal {-code}" + (f" ({why})" if why else ""))
    return code, duration, notes, None


def print_outputs(nonce: str, workdir: str, rel: str) -> str:
    """Print the outputs file between markers; return 'ok' or why it was not printed."""
    path = os.path.join(workdir, rel)
    if not os.path.lexists(path):
        return "the command wrote no " + rel
    if not inside(path, workdir):
        return rel + " leads outside the code folder (a link?); refused"
    if not os.path.isfile(path):
        return rel + " is not a regular file; refused"
    with open(path, "rb") as handle:
        raw = handle.read(MAX_OUTPUTS + 1)
    if len(raw) > MAX_OUTPUTS:
        return rel + " is over the 16 MiB limit; not recorded"
    encoded = base64.b64encode(raw).decode("ascii")
    print(f"\n{MARK}{nonce} outputs-begin", flush=True)
    for i in range(0, len(encoded), 76):
        print(encoded[i : i + 76])
    print(f"{MARK}{nonce} outputs-end {hashlib.sha256(raw).hexdigest()}", flush=True)
    return "ok"


def install(requirements: str, root: str, env: dict) -> str:
    """Install the requirements into ``root/deps`` (the Jobs install step); return the folder."""
    req = os.path.join(root, "requirements.txt")
    with open(req, "w", encoding="utf-8") as handle:
        handle.write(requirements)
    deps = os.path.join(root, "deps")
    note("installing the requirements into " + deps)
    done = subprocess.run(
        pip_argv(sys.executable, req, deps, has_hashes(requirements)),
        env=env,
        timeout=PIP_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"pip could not install the requirements (exit {done.returncode}): re-runs install "
            "wheels only, so that no one's build code runs; pin releases that publish a wheel"
        )
    return deps


def disk_full(path: str) -> bool:
    with contextlib.suppress(OSError):
        stat = os.statvfs(path)
        return stat.f_bavail * stat.f_frsize < 64 * 1024
    return False


def main(args: list) -> int:
    if args[:1] == ["--pip"] and len(args) >= 2:
        return pip_phase(args[1], args[2:])
    pidns, requirements = False, ""
    while args and args[0] in ("--pidns", "--requirements"):
        if args[0] == "--pidns":
            pidns, args = True, args[1:]
        else:
            requirements, args = args[1], args[2:]
    if len(args) < 10 or args[8] != "--":
        print(
            "usage: [--pidns] [--requirements TEXT] stdin|env SOURCE SHA ARCHIVE JAIL SUBDIR "
            "OUTPUTS TIMEOUT -- ARGV..."
        )
        return 2
    nonce_from, url, sha, archive, jail, subdir, outputs, timeout = args[:8]
    argv = args[9:]
    try:
        nonce = take_nonce(nonce_from)
    except (OSError, RuntimeError) as exc:
        note(f"refused to run: {exc}")
        return 2
    print(f"{MARK}{nonce} started", flush=True)
    status: dict[str, Any] = {
        "status": "failed",
        "exit_code": None,
        "duration_s": 0.0,
        "outputs": None,
        "code_sha256": None,
        "notes": [],
    }
    problem = host_problem()
    if problem:  # before the code is fetched: nothing of the logbook runs on this machine
        note("this machine cannot run any command: " + problem)
        status.update(status="host_error", host_error=problem, notes=[problem])
        print(f"\n{MARK}{nonce} status {json.dumps(status)}", flush=True)
        return 3
    if not undumpable():
        status["notes"].append("the runner could not make itself non-dumpable (no prctl)")
    root = tempfile.mkdtemp(prefix="reproaudit-")
    env = drop_secrets(os.environ)
    env.pop("PWD", None)  # set by bwrap's --chdir: not part of the re-run's environment
    env.update(PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    for name in ("HOME", "TMPDIR"):
        if env.get(name):
            os.makedirs(env[name], exist_ok=True)
    try:
        checkout = os.path.join(root, "code")
        fetch(url, sha, archive, checkout)
        workdir, jail_dir = os.path.join(checkout, subdir), os.path.join(checkout, jail)
        ok = os.path.isdir(workdir) and inside(workdir, jail_dir) and inside(jail_dir, checkout)
        if not ok:
            raise RuntimeError(
                "{} is not a folder inside {} of the code".format(subdir or ".", jail or ".")
            )
        if outputs:
            stale = os.path.join(workdir, outputs)
            if os.path.lexists(stale) and not os.path.isdir(stale):
                os.unlink(stale)
                status["notes"].append(f"removed a stale {outputs} copied with the code")
        status["code_sha256"] = tree_sha256(workdir)
        if requirements:
            deps = install(requirements, root, env)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [deps, env.get("PYTHONPATH")]))
        note("running " + json.dumps(argv))
        code, duration, notes, machine = run(argv, workdir, float(timeout), env, pidns, checkout)
        status["notes"] += notes
        status["exit_code"], status["duration_s"] = code, round(duration, 3)
        status["status"] = "timeout" if code is None else ("passed" if code == 0 else "failed")
        if machine:
            status.update(status="host_error", host_error=machine)
            status["notes"].append("this machine could not start the command: " + machine)
        if disk_full(workdir):
            status["notes"].append(
                "the writable space is full: the bytes-written limit was reached"
            )
        if outputs:
            status["outputs"] = print_outputs(nonce, workdir, outputs)
    except Exception as exc:  # the caller reads why from the status line
        note(f"{type(exc).__name__}: {exc}")
        status["outputs"] = status["outputs"] or f"not produced: {exc}"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n{MARK}{nonce} status {json.dumps(status)}", flush=True)
    return {"passed": 0, "timeout": 124, "host_error": 3}.get(str(status["status"]), 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
