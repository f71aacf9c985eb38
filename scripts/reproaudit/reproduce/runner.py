"""reproaudit's job runner: fetch code at one commit, run one command, print its outputs.

A Hugging Face Job runs this file's text as
``python3 -c RUNNER NONCE URL SHA ARCHIVE JAIL SUBDIR OUTPUTS TIMEOUT -- ARGV...``.
Every value arrives as a separate argument and the command is run as an
argument list: nothing is ever parsed by a shell. The job holds no token, so
the code is fetched anonymously: with git when the image has it, else as the
commit's archive (``python:3.12-slim`` has no git). Afterwards the outputs
file is printed base64-encoded between marker lines carrying the caller's
nonce, then one status line, so the caller can read both from the job logs.

Standard library only, and Python 3.8 syntax: job images are arbitrary.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

MARK = "::reproaudit::"
MAX_OUTPUTS = 16 * 1024 * 1024
MAX_ARCHIVE = 2 * 1024 * 1024 * 1024
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|CREDENTIAL|API_KEY|ACCESS_KEY", re.IGNORECASE)


def note(text: str) -> None:
    print("[reproaudit-runner] " + text, flush=True)


def inside(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root + os.sep)


def fetch_git(url: str, sha: str, dest: str) -> bool:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ALLOW_PROTOCOL="http:https:file")

    def git(*args: str) -> bool:
        done = subprocess.run(["git", "-C", dest, *args], env=env, stdin=subprocess.DEVNULL)
        return done.returncode == 0

    os.makedirs(dest, exist_ok=True)
    ok = git("init", "-q") and (
        git("fetch", "-q", "--depth", "1", "--", url, sha)
        or git("fetch", "-q", "--", url, "+refs/*:refs/remotes/source/*")
    )
    ok = ok and git("-c", "advice.detachedHead=false", "checkout", "-q", "--detach", sha)
    fetch_head = os.path.join(dest, ".git", "FETCH_HEAD")
    if os.path.exists(fetch_head):
        os.unlink(fetch_head)
    if not ok:
        return False
    head = subprocess.run(
        ["git", "-C", dest, "rev-parse", "HEAD"], stdout=subprocess.PIPE, text=True
    ).stdout.strip()
    return head == sha


def fetch_archive(url: str, dest: str) -> None:
    """Download a tar.gz of the commit and unpack it, dropping its top folder.

    Only regular files and folders are unpacked, and only inside ``dest``.
    """
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
    if not re.fullmatch(r"[0-9a-f]{40}", sha) or url.startswith("-"):
        raise RuntimeError(f"refused source {url!r} at {sha!r}")
    if shutil.which("git"):
        note(f"fetching {url} at {sha} with git")
        if fetch_git(url, sha, dest):
            return
        note("git could not fetch the commit")
        shutil.rmtree(dest, ignore_errors=True)
    if not archive.startswith(("https://", "http://")):
        raise RuntimeError(f"cannot fetch {url} at {sha} (no git, or git failed; no archive)")
    note(f"downloading {archive}")
    fetch_archive(archive, dest)


def run(argv: list, cwd: str, timeout: float) -> tuple:
    """Run the command in its own process group; (exit code or None on timeout, seconds)."""
    env = {k: v for k, v in os.environ.items() if not SECRET_NAME.search(k)}
    env.update(PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
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
        note(f"could not start {argv[0]!r}: {exc}")
        return 127, time.monotonic() - start
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        note(f"timed out after {timeout:g} s; its process group was killed")
    duration = time.monotonic() - start
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    return code, duration


def print_outputs(nonce: str, workdir: str, rel: str) -> str:
    """Print the outputs file between markers; return 'ok' or why it was not printed."""
    path = os.path.join(workdir, rel)
    if not os.path.lexists(path):
        return f"the command wrote no {rel}"
    if not inside(path, workdir):
        return f"{rel} leads outside the code folder (a link?); refused"
    if not os.path.isfile(path):
        return f"{rel} is not a regular file; refused"
    with open(path, "rb") as handle:
        raw = handle.read(MAX_OUTPUTS + 1)
    if len(raw) > MAX_OUTPUTS:
        return f"{rel} is over the 16 MiB limit; not recorded"
    encoded = base64.b64encode(raw).decode("ascii")
    print(f"{MARK}{nonce} outputs-begin", flush=True)
    for i in range(0, len(encoded), 76):
        print(encoded[i : i + 76])
    print(f"{MARK}{nonce} outputs-end {hashlib.sha256(raw).hexdigest()}", flush=True)
    return "ok"


def main(args: list) -> int:
    if len(args) < 10 or args[8] != "--":
        print("usage: NONCE URL SHA ARCHIVE JAIL SUBDIR OUTPUTS TIMEOUT -- ARGV...")
        return 2
    nonce, url, sha, archive, jail, subdir, outputs, timeout = args[:8]
    argv = args[9:]
    status = {"status": "failed", "exit_code": None, "duration_s": 0.0, "outputs": None}
    root = tempfile.mkdtemp(prefix="reproaudit-")
    try:
        checkout = os.path.join(root, "code")
        fetch(url, sha, archive, checkout)
        workdir, jail_dir = os.path.join(checkout, subdir), os.path.join(checkout, jail)
        ok = os.path.isdir(workdir) and inside(workdir, jail_dir) and inside(jail_dir, checkout)
        if not ok:
            raise RuntimeError(f"{subdir or '.'} is not a folder inside {jail or '.'} of the code")
        if outputs:
            stale = os.path.join(workdir, outputs)
            if os.path.lexists(stale) and not os.path.isdir(stale):
                os.unlink(stale)
        note(f"running {json.dumps(argv)}")
        code, duration = run(argv, workdir, float(timeout))
        status["exit_code"], status["duration_s"] = code, round(duration, 3)
        status["status"] = "timeout" if code is None else ("passed" if code == 0 else "failed")
        if outputs:
            status["outputs"] = print_outputs(nonce, workdir, outputs)
    except Exception as exc:  # the caller reads why from the status line
        note(f"{type(exc).__name__}: {exc}")
        status["outputs"] = status["outputs"] or f"not produced: {exc}"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{MARK}{nonce} status {json.dumps(status)}", flush=True)
    return {"passed": 0, "timeout": 124}.get(str(status["status"]), 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
