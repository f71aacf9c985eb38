"""The local backend: run a logbook's command on this machine, in a fresh folder.

The code is copied (``code.path``) or fetched at exactly the pinned commit
(``code: {repo, commit}``) into a temporary folder, so the command never
writes into the repository and never sees files a previous run left behind.
The Docker ``image`` is not used: the command runs with this machine's tools.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ..judge.inputs import MAX_OUTPUTS_BYTES
from .process import run_process, scrubbed_env
from .record import LogTail, RunRecord, check_outputs, log_text
from .spec import RunSpec, code_folder

GIT_TIMEOUT_S = 600


def run_local(
    repo: Path, spec: RunSpec, *, clone_url: str | None = None
) -> tuple[RunRecord, bytes | None, str]:
    """Run ``spec`` here; return the record (not yet written), the outputs and the log text.

    ``clone_url`` replaces ``code.repo`` as the place to fetch from (a mirror,
    or a local repository in tests); the commit is the logbook's either way.
    """
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="reproaudit-", ignore_cleanup_errors=True) as tmp:
        base = Path(tmp)
        work, home, tmpdir = base / "code", base / "home", base / "tmp"
        home.mkdir()
        tmpdir.mkdir()
        if spec.code.path is not None:
            shutil.copytree(code_folder(repo, spec), work, symlinks=True)
        else:
            url, sha = clone_url or spec.code.repo or "", spec.code.commit or ""
            started = time.monotonic()
            error = fetch_commit(url, sha, work)
            if error is not None:
                notes.append(f"could not fetch {sha} from {url}: {error}")
                record = RunRecord("failed", None, time.monotonic() - started, "local", None, "")
                return record, None, log_text(LogTail(), notes)
        if spec.reproduce.image:
            notes.append(f"local backend: image {spec.reproduce.image} not used")
        if spec.reproduce.outputs and _remove_stale(work, spec.reproduce.outputs):
            notes.append(f"removed a stale {spec.reproduce.outputs} copied with the code")
        env = scrubbed_env(home, tmpdir)
        result = run_process(spec.argv, work, env, spec.timeout_s)
        notes.extend(result.notes)
        outputs = None
        if spec.reproduce.outputs:
            outputs, why = read_outputs(work, spec.reproduce.outputs)
            if why:
                notes.append(why)
        else:
            notes.append("the logbook names no reproduce.outputs; nothing to record")
    if result.timed_out:
        status = "timeout"
    else:
        status = "passed" if result.exit_code == 0 else "failed"
    record = RunRecord(status, result.exit_code, result.duration_s, "local", None, "")
    return record, outputs, log_text(result.log, notes)


def read_outputs(work: Path, rel: str) -> tuple[bytes | None, str | None]:
    """The outputs file the command wrote, if it is a JSON file inside ``work``."""
    root = work.resolve()
    path = work / rel
    if not path.exists() and not path.is_symlink():
        return None, f"the command wrote no {rel}"
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        return None, f"{rel} leads outside the code folder (a link?); refused"
    if not resolved.is_file():
        return None, f"{rel} is not a regular file; refused"
    with open(resolved, "rb") as handle:
        raw = handle.read(MAX_OUTPUTS_BYTES + 1)
    return check_outputs(raw, rel)


def _remove_stale(work: Path, rel: str) -> bool:
    """Delete an outputs file copied with the code (only inside the copy), so it cannot pass."""
    path = work / rel
    if not path.parent.resolve().is_relative_to(work.resolve()):
        return False
    if path.is_symlink() or path.is_file():
        path.unlink()
        return True
    return False


def fetch_commit(url: str, sha: str, dest: Path) -> str | None:
    """Check out exactly ``sha`` of ``url`` into ``dest``; None on success, else why not.

    A shallow fetch of the one commit first (GitHub serves any commit by SHA),
    then all refs as a fallback. ``FETCH_HEAD`` is removed afterwards: it
    records the URL, which may carry credentials the command must not read.
    """
    if not url or url.startswith("-"):
        return f"refused clone source {url!r}"
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "http:https:file"}

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "-C", str(dest), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )

    dest.mkdir(parents=True)
    try:
        done = git("init", "-q")
        if done.returncode == 0:
            done = git("fetch", "-q", "--depth", "1", "--", url, sha)
            if done.returncode != 0:
                done = git("fetch", "-q", "--", url, "+refs/*:refs/remotes/source/*")
        if done.returncode == 0:
            done = git("-c", "advice.detachedHead=false", "checkout", "-q", "--detach", sha)
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            return lines[-1] if lines else f"git exited with {done.returncode}"
        head = git("rev-parse", "HEAD").stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        (dest / ".git" / "FETCH_HEAD").unlink(missing_ok=True)
    if head != sha:
        return f"checked out {head}, not {sha}"
    return None
