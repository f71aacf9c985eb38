"""A malicious logbook through ``ci reproduce-pr`` and ``ci store-reruns``, end to end.

The fake GitHub API runs on 127.0.0.1; the logbook's code tries to read the
token, reach that server, forge another team's record in the ``--out`` folder
and leave a process behind. The store then takes only this PR's record.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.reproduce.sandbox import bwrap_available
from tests.ci.conftest import PR
from tests.ci.payloads import pull
from tests.gitutil import git
from tests.test_reproduce import _alive_with

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")

PAPER = "Kp4rT9vQ2x"
TOKEN = "ghs_fakeToken0123456789"
EVIL = """
import json, os, socket, subprocess, sys, urllib.request
found = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for what in ("environ", "cmdline"):
            try:
                found.append(open(f"/proc/{pid}/{what}", "rb").read().decode(errors="replace"))
            except OSError:
                pass
found.append(json.dumps(dict(os.environ)))
try:
    urllib.request.urlopen(sys.argv[1] + "/pwned", timeout=2)
    found.append("REACHED")
except Exception as exc:
    found.append("unreachable: " + type(exc).__name__)
for arg in open("/proc/self/cmdline", "rb").read().split(b"\\0"):
    found.append(arg.decode(errors="replace"))
victim = sys.argv[2]
try:
    os.makedirs(victim, exist_ok=True)
    open(os.path.join(victim, "run.json"), "w").write('{"status": "failed"}')
    found.append("FORGED")
except OSError as exc:
    found.append("no forge: " + str(exc.errno))
if os.fork() == 0:
    os.setsid()
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(71.625)"])
    os._exit(0)
os.makedirs("results", exist_ok=True)
json.dump({"found": found}, open("results/metrics.json", "w"))
"""


def rev_parse(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def logbook_text(api_url: str, victim: str) -> str:
    return (
        "logbook:\n  id: mallory-paging-1\n  paper: Kp4rT9vQ2x\n  claims_version: 1\n"
        "  contributor: {github: mallory}\n"
        "code: {path: mallory-paging-1/}\n"
        "reproduce:\n"
        f"  command: python evil.py {api_url} {victim}\n"
        "  hardware: cpu\n  timeout: 1m\n  outputs: results/metrics.json\n"
        "results: []\n"
    )


def commit_pr(github_api, repo: Path, files: dict[str, str]) -> str:
    """``repo`` as main, a PR commit adding ``files``; the checkout stays on main."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    base = rev_parse(repo)
    git(repo, "checkout", "-qb", "pr")
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    sha = rev_parse(repo)
    git(repo, "checkout", "-q", "main")
    github_api.pulls[PR] = pull(PR, head=sha, base=base, author="mallory")
    return sha


def test_a_malicious_logbook_through_reproduce_pr_and_store(github_api, base_repo, tmp_path):
    out = tmp_path / "artifact"
    victim = out / PAPER / "carol-paging-1"
    rel = f"logbooks/{PAPER}/mallory-paging-1.yaml"
    code = f"logbooks/{PAPER}/mallory-paging-1/evil.py"
    files = {rel: logbook_text(github_api.url, str(victim)), code: EVIL}
    head = commit_pr(github_api, base_repo, files)
    github_api.files[PR] = [rel, code]
    github_api.contents[(rel, head)] = files[rel]  # what the store reads at the approved SHA
    env = {"GITHUB_API_URL": github_api.url, "GITHUB_TOKEN": TOKEN, "CI": "true"}
    args = ["--repo-name", github_api.repo, "--pr", str(PR), "--sha", head]
    into = tmp_path / "pr-files"
    common = ["ci", "reproduce-pr", *args, "--out", str(out), "--repo", str(base_repo)]
    common += ["--into", str(into)]
    # as the workflow does: fetch with the token, re-run in a step without it
    fetched = CliRunner(env=env).invoke(cli, [*common, "--stage", "fetch"])
    assert fetched.exit_code == 0, fetched.output
    assert fetched.output == f"1 logbook(s) fetched at {head[:12]} into {into}\n"
    assert not (base_repo / rel).exists()  # fetched into its own folder, not the checkout
    no_token = {**env, "GITHUB_TOKEN": None, "GITHUB_API_URL": "http://127.0.0.1:9"}
    result = CliRunner(env=no_token).invoke(cli, [*common, "--stage", "run"])
    assert result.exit_code == 0, result.output
    assert "mallory-paging-1: passed" in result.output
    outputs = (out / PAPER / "mallory-paging-1" / "outputs.json").read_text()
    found = json.loads(outputs)["found"]
    assert TOKEN not in outputs and "GITHUB" not in outputs
    assert "REACHED" not in found and "unreachable: URLError" in found
    assert not (victim / "run.json").exists()
    assert not any(path.endswith("/pwned") for _, path, _ in github_api.requests)
    assert not _alive_with("time.sleep(71.625)")

    # the store takes this PR's record only (mallory's own logbook), checked against the
    # logbook, write-up and code tree at HEAD
    main = tmp_path / "main"
    shutil.copytree(base_repo / "logbooks", main / "logbooks")
    carol = Path(__file__).resolve().parents[2] / "reruns" / PAPER / "carol-paging-1"
    shutil.copytree(carol, main / "reruns" / PAPER / "carol-paging-1")
    before = (main / "reruns" / PAPER / "carol-paging-1" / "run.json").read_bytes()
    forged = out / PAPER / "carol-paging-1"
    forged.mkdir(parents=True, exist_ok=True)
    (forged / "run.json").write_text('{"status": "failed"}')  # what a forger would upload
    store = ["ci", "store-reruns", "--artifact", str(out), *args, "--repo", str(main)]
    result = CliRunner(env={**env, "CI": "true"}).invoke(cli, [*store, "--git", str(base_repo)])
    assert result.exit_code == 1, result.output
    assert f"stored reruns/{PAPER}/mallory-paging-1" in result.output
    assert (
        f"refused {PAPER}/carol-paging-1/run.json: pull request {PR} does not change that "
        "logbook" in result.output
    )
    assert (main / "reruns" / PAPER / "carol-paging-1" / "run.json").read_bytes() == before
    stored = main / "reruns" / PAPER / "mallory-paging-1"
    assert sorted(p.name for p in stored.iterdir()) == ["outputs.json", "run.json"]


def test_the_run_stage_refuses_without_a_fetch_for_that_sha(base_repo, tmp_path):
    result = CliRunner().invoke(
        cli,
        ["ci", "reproduce-pr", "--repo-name", "o/r", "--pr", "3", "--sha", "a" * 40,
         "--out", str(tmp_path / "o"), "--repo", str(base_repo), "--stage", "run",
         "--into", str(tmp_path / "pr-files")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert f"no fetched logbooks of pull request 3 at {'a' * 12} here" in result.output
    assert "run `reproaudit ci reproduce-pr --stage fetch` with the same options first" in (
        result.output
    )
