"""Fetching a commit, the one copy of the rule: exactly that commit, no credentials kept.

A shallow fetch of the one commit (GitHub serves any commit by SHA), then all
refs as a fallback; the checkout must be the commit asked for. ``FETCH_HEAD``
is removed afterwards: it records the URL, which may carry credentials the
command must not read. Standard library and Python 3.8 syntax only: the job
runner ships this file's text.
"""

from __future__ import annotations

import os
import re
import subprocess

GIT_TIMEOUT_S = 600
SHA40 = re.compile(r"[0-9a-f]{40}")


def fetch_commit(url: str, sha: str, dest: str, timeout: float = GIT_TIMEOUT_S):
    """Check out exactly ``sha`` of ``url`` into ``dest``; None on success, else why not."""
    if not url or url.startswith("-"):
        return f"refused clone source {url!r}"
    if not SHA40.fullmatch(sha or ""):
        return f"refused commit {sha!r} (40 lowercase hex characters)"
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ALLOW_PROTOCOL="http:https:file")

    def git(*args):
        return subprocess.run(
            ["git", "-C", dest, *list(args)],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    os.makedirs(dest, exist_ok=True)
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
        fetch_head = os.path.join(dest, ".git", "FETCH_HEAD")
        if os.path.exists(fetch_head):
            os.unlink(fetch_head)
    if head != sha:
        return f"checked out {head}, not {sha}"
    return None
