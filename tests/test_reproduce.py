"""reproaudit reproduce: local and hf-jobs re-runs write records the judge reads.

The hf-jobs tests talk to a real HTTP server on 127.0.0.1 that speaks the few
Hub jobs endpoints ``huggingface_hub.HfApi`` calls, and actually runs the job
command it is sent (the runner, which clones a local git repository), so the
whole path from ``run_job`` to the written record is exercised offline.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from reproaudit.errors import EndpointError, ReproauditError
from reproaudit.judge.rules import _MISSING, resolve_pointer
from reproaudit.judge.run import judge_repo
from reproaudit.reproduce import RUNNER, describe_record, reproduce_logbook
from reproaudit.reproduce.hfjobs import MARK, final_status, read_job_log
from reproaudit.reproduce.record import LOG_KEEP_BYTES, LogTail
from tests.conftest import needs_bwrap
from tests.gitutil import git

ROOT = Path(__file__).resolve().parents[1]
PAPER = "Tq7mV2pLx0"
ALLOWED_ENV = {
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "LC_ALL",
    "PYTHONHASHSEED",
    "PYTHONDONTWRITEBYTECODE",
}


def add_logbook(
    repo: Path,
    logbook: str,
    command: str,
    files: dict[str, str],
    *,
    timeout: str = "1m",
    outputs: str | None = "results/metrics.json",
    hardware: str = "cpu",
    code: str | None = None,
) -> str:
    """A logbook of the mini repo's paper with its code folder; returns its path."""
    folder = repo / "logbooks" / PAPER / logbook
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    reproduce = {"command": command, "hardware": hardware, "timeout": timeout}
    if outputs is not None:
        reproduce["outputs"] = outputs
    doc = {
        "logbook": {
            "id": logbook,
            "paper": PAPER,
            "claims_version": 2,
            "contributor": {"github": "ann"},
        },
        "code": yaml.safe_load(code) if code else {"path": f"{logbook}/"},
        "reproduce": reproduce,
        "results": [],
    }
    rel = f"logbooks/{PAPER}/{logbook}.yaml"
    (repo / rel).write_text(yaml.safe_dump(doc, sort_keys=False))
    return rel


def run_json(out: Path, logbook: str) -> dict[str, Any]:
    return json.loads((out / PAPER / logbook / "run.json").read_text())


def outputs_of(out: Path, logbook: str) -> Any:
    return json.loads((out / PAPER / logbook / "outputs.json").read_text())


# --- local backend -----------------------------------------------------------


@needs_bwrap
def test_passing_run_writes_the_record_and_the_judge_uses_it(mini_repo: Path, tmp_path: Path):
    out = tmp_path / "reruns"
    rel = f"logbooks/{PAPER}/ann-1.yaml"
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert (record.status, record.exit_code, record.backend, record.url) == (
        "passed",
        0,
        "local",
        None,
    )
    assert record.outputs_written
    assert outputs_of(out, "ann-1") == {"C1": {"accuracy": 0.912}}
    run = run_json(out, "ann-1")
    assert list(run) == [
        "status",
        "exit_code",
        "duration_s",
        "backend",
        "sandbox",
        "url",
        "log_tail",
        "logbook_sha256",
        "writeup_sha256",
        "code_sha256",
        "outputs_sha256",
        "environment",
        "limits",
        "reproaudit_version",
    ]
    assert run["sandbox"] == "bwrap" and run["environment"]["image_used"] is False
    assert (
        run["outputs_sha256"]
        == hashlib.sha256((out / PAPER / "ann-1" / "outputs.json").read_bytes()).hexdigest()
    )
    assert run["logbook_sha256"] == hashlib.sha256((mini_repo / rel).read_bytes()).hexdigest()
    assert run["status"] == "passed" and run["duration_s"] < 10
    assert describe_record(record).startswith("passed in ")
    # the command ran in a copy: nothing was written into the repository
    assert not (mini_repo / "logbooks" / PAPER / "ann-1" / "results").exists()

    judge_repo(mini_repo, mode="rules", reruns=out, logbook="ann-1")
    verdict = yaml.safe_load((mini_repo / "verdicts" / PAPER / "ann-1.yaml").read_text())
    assert verdict["rerun"]["status"] == "passed"
    assert verdict["rerun"]["backend"] == "local"
    c1 = next(c for c in verdict["claims"] if c["claim"] == "C1")
    assert c1["verdict"] == "verified"
    assert "not_rerun" not in c1["flags"]


@needs_bwrap
def test_failing_command_keeps_its_exit_code(mini_repo: Path, tmp_path: Path):
    out = tmp_path / "reruns"
    # a stale outputs.json from an earlier run must not survive a failed one
    (out / PAPER / "fail-1").mkdir(parents=True)
    (out / PAPER / "fail-1" / "outputs.json").write_text('{"C1": {"accuracy": 0.99}}')
    script = "import sys\nprint('boom: no GPU here')\nsys.exit(3)\n"
    rel = add_logbook(mini_repo, "fail-1", "python fail.py", {"fail.py": script})
    # nor may an outputs file left in the code folder by a run outside reproaudit
    stale = mini_repo / "logbooks" / PAPER / "fail-1" / "results" / "metrics.json"
    stale.parent.mkdir()
    stale.write_text('{"C1": {"accuracy": 0.99}}')
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert (record.status, record.exit_code) == ("failed", 3)
    assert not (out / PAPER / "fail-1" / "outputs.json").exists()
    tail = run_json(out, "fail-1")["log_tail"]
    assert "boom: no GPU here" in tail
    assert "[reproaudit] removed a stale results/metrics.json copied with the code" in tail
    assert "[reproaudit] the command wrote no results/metrics.json" in tail
    assert stale.is_file()  # the repository itself is left alone


@needs_bwrap
def test_missing_program_is_a_failed_run(mini_repo: Path, tmp_path: Path):
    rel = add_logbook(mini_repo, "nope-1", "no-such-program-xyz --flag", {})
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert (record.status, record.exit_code) == ("failed", 127)
    assert "could not start 'no-such-program-xyz'" in record.log_tail


@needs_bwrap
def test_timeout_kills_the_whole_process_group_quickly(mini_repo: Path, tmp_path: Path):
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    script = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', {stubborn!r}])\n"
        "print('child', child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    rel = add_logbook(mini_repo, "slow-1", "python slow.py", {"slow.py": script}, timeout="1s")
    started = time.monotonic()
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    elapsed = time.monotonic() - started
    assert (record.status, record.exit_code) == ("timeout", None)
    assert 1.0 <= record.duration_s < 4 and elapsed < 6
    assert "timed out after 1 s (the logbook's timeout); everything it started was killed" in (
        record.log_tail
    )
    assert not _alive_with(stubborn), "the command's child process survived the timeout"


@needs_bwrap
def test_background_children_do_not_outlive_a_finished_run(mini_repo: Path, tmp_path: Path):
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(61.25)'])\n"
        "print('child', child.pid, flush=True)\n"
    )
    rel = add_logbook(mini_repo, "bg-1", "python bg.py", {"bg.py": script}, outputs=None)
    started = time.monotonic()
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert (record.status, record.exit_code) == ("passed", 0)
    assert time.monotonic() - started < 5  # the child holds the pipe open: not waited for
    assert not _alive_with("time.sleep(61.25)")


def _alive_with(text: str) -> bool:
    """Whether any process on the host has ``text`` in its command line (after a grace)."""
    needle = text.encode()
    for _ in range(50):
        found = False
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            try:
                if needle in (proc / "cmdline").read_bytes() and _alive(int(proc.name), 1):
                    found = True
            except OSError:
                continue
        if not found:
            return False
        time.sleep(0.05)
    return True


def _alive(pid: int, tries: int = 50) -> bool:
    for _ in range(tries):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


@needs_bwrap
def test_output_flood_is_capped(mini_repo: Path, tmp_path: Path):
    script = (
        "import sys\n"
        "line = 'x' * 999 + '\\n'\n"
        "for _ in range(20000):\n"
        "    sys.stdout.write(line)\n"
        "print('THE END')\n"
    )
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "flood-1", "python flood.py", {"flood.py": script}, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert record.status == "passed"
    assert len(record.log_tail) <= 4000
    assert "THE END" in record.log_tail
    log = (out / PAPER / "flood-1" / "log.txt").read_bytes()
    assert len(log) <= LOG_KEEP_BYTES
    assert b"THE END\n" in log[-400:]
    assert log.endswith(b"[reproaudit] the logbook names no reproduce.outputs; nothing to record\n")
    assert b"were dropped\n" in log[-300:]


def test_log_tail_keeps_only_the_end_of_a_stream():
    tail = LogTail(keep=10)
    for chunk in (b"0123456789" * 3, b"abc", b"", b"defghijklmnop"):
        tail.feed(chunk)
    assert (tail.data(), tail.total, tail.truncated) == (b"gh" + b"ijklmnop", 46, True)


@needs_bwrap
def test_shell_metacharacters_are_plain_arguments(mini_repo: Path, tmp_path: Path):
    pwned = tmp_path / "pwned"
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "Path('results').mkdir()\n"
        "Path('results/metrics.json').write_text(json.dumps(sys.argv[1:]))\n"
    )
    command = f"python argv.py ; touch {pwned} && echo $HOME > home.txt | cat `id` $(id)"
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "meta-1", command, {"argv.py": script})
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert record.status == "passed"
    assert outputs_of(out, "meta-1") == shlex.split(command)[2:]
    assert outputs_of(out, "meta-1")[:3] == [";", "touch", str(pwned)]
    assert not pwned.exists()


@needs_bwrap
def test_environment_is_scrubbed(mini_repo: Path, tmp_path: Path, monkeypatch):
    for name in ("HF_TOKEN", "GITHUB_TOKEN", "REPROAUDIT_JUDGE_API_KEY", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "s3cr3t-" + name)
    monkeypatch.setenv("GITHUB_REPOSITORY", "org/audit")
    script = (
        "import json, os\n"
        "os.makedirs('results')\n"
        "env = dict(os.environ, CWD=os.getcwd())\n"
        "open('results/metrics.json', 'w').write(json.dumps(env))\n"
    )
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "env-1", "python env.py", {"env.py": script})
    assert reproduce_logbook(mini_repo, rel, out=out).status == "passed"
    env = outputs_of(out, "env-1")
    cwd = Path(env.pop("CWD"))
    assert set(env) <= ALLOWED_ENV
    assert "s3cr3t" not in json.dumps(env)
    assert env["HOME"] != os.environ.get("HOME") and Path(env["HOME"]).name == "home"
    assert (env["PYTHONHASHSEED"], env["LC_ALL"]) == ("0", "C.UTF-8")
    assert not cwd.is_relative_to(mini_repo.resolve())
    assert not cwd.exists(), "the temporary folder is removed after the run"


@needs_bwrap
def test_outputs_link_leading_outside_is_refused(mini_repo: Path, tmp_path: Path):
    secret = tmp_path / "elsewhere.json"
    secret.write_text('{"C1": {"accuracy": 1.0}}')
    script = (
        f"import os\nos.makedirs('results')\nos.symlink({str(secret)!r}, 'results/metrics.json')\n"
    )
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "link-1", "python link.py", {"link.py": script})
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert record.status == "passed" and not record.outputs_written
    assert not (out / PAPER / "link-1" / "outputs.json").exists()
    assert (
        "[reproaudit] results/metrics.json leads outside the code folder (a link?); refused"
        in record.log_tail
    )


@needs_bwrap
def test_outputs_that_are_not_json_are_not_recorded(mini_repo: Path, tmp_path: Path):
    script = "import os\nos.makedirs('results')\nopen('results/metrics.json', 'w').write('{nope')\n"
    rel = add_logbook(mini_repo, "bad-json-1", "python w.py", {"w.py": script})
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "passed" and not record.outputs_written
    assert "results/metrics.json is not valid JSON (" in record.log_tail


def test_outputs_path_outside_the_folder_is_refused_before_running(mini_repo: Path, tmp_path):
    rel = add_logbook(mini_repo, "up-1", "python x.py", {}, outputs="../../x.json")
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert "reproduce.outputs: '../../x.json' must be a relative path" in str(err.value)


def test_code_path_must_stay_in_the_logbook_folder(mini_repo: Path, tmp_path: Path):
    rel = add_logbook(mini_repo, "borrow-1", "python run.py", {}, code="{path: ann-1/}")
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert str(err.value) == (
        f"{rel}: code.path: 'ann-1/' is outside this logbook's own folder "
        f"logbooks/{PAPER}/borrow-1/ [path_not_allowed]\n"
        f"  hint: put the code in logbooks/{PAPER}/borrow-1/ and write `path: borrow-1/`"
    )


@needs_bwrap
def test_links_out_of_the_code_folder_are_refused(mini_repo: Path, tmp_path: Path):
    rel = add_logbook(mini_repo, "sneaky-1", "python run.py", {"run.py": "print(1)\n"})
    (mini_repo / "logbooks" / PAPER / "sneaky-1" / "ssh").symlink_to(tmp_path)
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert (
        "code.path: not re-run: the code tree cannot be hashed: ssh in the code folder is a "
        "symbolic link [path_not_allowed]" in str(err.value)
    )
    assert not (tmp_path / "out").exists()


def test_logbook_without_reproduce_has_nothing_to_run(mini_repo: Path, tmp_path: Path):
    rel = f"logbooks/{PAPER}/bare-1.yaml"
    meta = f"{{id: bare-1, paper: {PAPER}, claims_version: 2, contributor: {{github: ann}}}}"
    (mini_repo / rel).write_text(f"logbook: {meta}\nresults: []\n")
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert str(err.value) == (
        f"{rel}: code: nothing to re-run: the logbook has no code and reproduce [nothing_to_run]\n"
        "  hint: add `code` (a path or a repo and commit) and `reproduce` (command, hardware, "
        "timeout, outputs)"
    )


def test_unsplittable_command_is_refused(mini_repo: Path, tmp_path: Path):
    rel = add_logbook(mini_repo, "quote-1", "python run.py 'unclosed", {})
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert "cannot be split into arguments: No closing quotation [bad_command]" in str(err.value)


def _commit_all(folder: Path, message: str) -> str:
    if not (folder / ".git").exists():
        git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", message)
    return git(folder, "rev-parse", "HEAD")


EVAL_SCRIPT = (
    "import json, os, sys\n"
    "os.makedirs('results', exist_ok=True)\n"
    "json.dump({'C1': {'accuracy': ACC}, 'fetch_head': os.path.exists('.git/FETCH_HEAD')},\n"
    "          open(sys.argv[1], 'w'))\n"
)


@needs_bwrap
def test_repo_and_commit_are_fetched_at_exactly_that_commit(mini_repo: Path, tmp_path: Path):
    src = tmp_path / "contributor-repo"
    src.mkdir()
    (src / "eval.py").write_text(EVAL_SCRIPT.replace("ACC", "0.95"))
    pinned = _commit_all(src, "the run")
    (src / "eval.py").write_text(EVAL_SCRIPT.replace("ACC", "0.5"))
    _commit_all(src, "a later change")
    code = f"{{repo: 'https://github.com/ann/eval', commit: {pinned}}}"
    rel = add_logbook(mini_repo, "git-1", "python eval.py results/m.json", {}, code=code)
    shutil.rmtree(mini_repo / "logbooks" / PAPER / "git-1")
    out = tmp_path / "out"
    # the logbook names results/metrics.json, the command writes results/m.json
    record = reproduce_logbook(mini_repo, rel, out=out, clone_url=str(src))
    assert record.status == "passed"
    assert "the command wrote no results/metrics.json" in record.log_tail

    doc = yaml.safe_load((mini_repo / rel).read_text())
    doc["reproduce"]["command"] = "python eval.py results/metrics.json"
    (mini_repo / rel).write_text(yaml.safe_dump(doc))
    record = reproduce_logbook(mini_repo, rel, out=out, clone_url=str(src))
    assert record.status == "passed"
    assert outputs_of(out, "git-1") == {"C1": {"accuracy": 0.95}, "fetch_head": False}


@needs_bwrap
def test_unknown_commit_is_a_failed_run(mini_repo: Path, tmp_path: Path):
    src = tmp_path / "contributor-repo"
    src.mkdir()
    (src / "eval.py").write_text("print(1)\n")
    _commit_all(src, "one")
    code = f"{{repo: 'https://github.com/ann/eval', commit: '{'0' * 40}'}}"
    rel = add_logbook(mini_repo, "git-2", "python eval.py", {}, code=code)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", clone_url=str(src))
    assert (record.status, record.exit_code) == ("failed", None)
    assert f"[reproaudit] could not fetch {'0' * 40} from {src}: " in record.log_tail


@needs_bwrap
def test_the_six_cpu_examples_rerun_and_every_pointer_resolves(tmp_path: Path):
    repo = tmp_path / "audit"
    for top in ("claims", "logbooks"):
        shutil.copytree(ROOT / top, repo / top, ignore=shutil.ignore_patterns("results"))
    out = tmp_path / "reruns"
    examples = []
    for path in sorted((repo / "logbooks").glob("*/*.yaml")):
        doc = yaml.safe_load(path.read_text())
        if (doc.get("reproduce") or {}).get("hardware") == "cpu" and "path" in doc.get("code", {}):
            examples.append((path, doc))
    assert len(examples) == 6
    timings = {}
    for path, doc in examples:
        record = reproduce_logbook(repo, path.relative_to(repo), out=out)
        name = f"{doc['logbook']['paper']}/{doc['logbook']['id']}"
        assert record.status == "passed", f"{name}: {record.log_tail}"
        timings[name] = record.duration_s
        outputs = json.loads((record.folder / "outputs.json").read_text())
        sources = [
            item["source"]
            for result in doc["results"]
            for item in [*result.get("measurements", []), result.get("sweep") or {}]
            if item.get("source")
        ]
        assert sources, f"{name} has no outputs: pointer"
        for source in sources:
            pointer = source.removeprefix("outputs:")
            assert resolve_pointer(outputs, pointer) is not _MISSING, f"{name}: {source}"
    assert max(timings.values()) < 30, timings

    judge_repo(repo, mode="rules", reruns=out)
    for _, doc in examples:
        verdict_path = repo / "verdicts" / doc["logbook"]["paper"] / f"{doc['logbook']['id']}.yaml"
        verdict = yaml.safe_load(verdict_path.read_text())
        assert verdict["rerun"]["status"] == "passed"
        for claim in verdict["claims"]:
            assert "not_rerun" not in claim["flags"], (verdict_path.name, claim)
            assert "missing_outputs" not in claim["flags"], (verdict_path.name, claim)


# --- hf-jobs backend ---------------------------------------------------------


class FakeHub:
    """A Hub that speaks the jobs endpoints HfApi calls, and really runs each job.

    ``POST /api/jobs/{ns}`` starts the job's command here (``python3`` is this
    interpreter, standing in for the image's), ``GET /api/jobs/{ns}/{id}``
    reports its stage, ``GET .../logs`` replays its output as server-sent
    events, ``POST .../cancel`` stops it, ``GET /api/whoami-v2`` names the user.
    """

    def __init__(
        self, tmp: Path, hold: bool = False, image_env: dict[str, str] | None = None
    ) -> None:
        self.tmp, self.hold = tmp, hold
        self.image_env = image_env or {}  # what the job's image sets (a pip index, say)
        self.specs: list[dict[str, Any]] = []
        self.auth: list[str | None] = []
        self.jobs: dict[str, dict[str, Any]] = {}
        self.cancelled: list[str] = []
        self.files: dict[str, bytes] = {}  # extra GET paths (archives)
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hub.auth.append(self.headers.get("authorization"))
                parts = self.path.split("?")[0].strip("/").split("/")
                if self.path.split("?")[0] in hub.files:
                    self._send(200, hub.files[self.path.split("?")[0]], "application/gzip")
                elif parts == ["api", "whoami-v2"]:
                    self._json({"name": "tester", "type": "user"})
                elif len(parts) == 4 and parts[:2] == ["api", "jobs"]:
                    self._json(hub.info(parts[3]))
                elif len(parts) == 5 and parts[4] == "logs":
                    job = hub.jobs[parts[3]]
                    body = "".join(
                        f"data: {json.dumps({'timestamp': ts, 'data': line})}\n\n"
                        for ts, line in list(job["lines"])
                    )
                    self._send(200, body.encode(), "text/event-stream")
                else:
                    self._send(404, b"{}", "application/json")

            def do_POST(self) -> None:
                hub.auth.append(self.headers.get("authorization"))
                parts = self.path.strip("/").split("/")
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if len(parts) == 3 and parts[:2] == ["api", "jobs"]:
                    self._json(hub.start(parts[2], json.loads(body)))
                elif len(parts) == 5 and parts[4] == "cancel":
                    hub.cancel(parts[3])
                    self._send(200, b"", "application/json")
                else:
                    self._send(404, b"{}", "application/json")

            def _json(self, data: Any) -> None:
                self._send(200, json.dumps(data).encode(), "application/json")

            def _send(self, code: int, body: bytes, kind: str) -> None:
                self.send_response(code)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        for job in self.jobs.values():
            if job["proc"] is not None and job["proc"].poll() is None:
                job["proc"].kill()
        self.server.shutdown()
        self.server.server_close()

    def start(self, ns: str, spec: dict[str, Any]) -> dict[str, Any]:
        self.specs.append(spec)
        job_id = f"job{len(self.jobs) + 1:04d}"
        job: dict[str, Any] = {"ns": ns, "spec": spec, "stage": "SCHEDULING", "message": None}
        job.update(lines=[(_now(), "===== Job started =====")], proc=None)
        self.jobs[job_id] = job
        if not self.hold:
            threading.Thread(target=self._run, args=(job,), daemon=True).start()
        return self.info(job_id)

    def _run(self, job: dict[str, Any]) -> None:
        argv = list(job["spec"]["command"])
        if argv[0] == "python3":
            argv[0] = sys.executable
        home = self.tmp / f"job-home-{id(job)}"
        home.mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": str(home), **self.image_env}
        env |= job["spec"]["environment"]
        proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        job["proc"], job["stage"] = proc, "RUNNING"
        assert proc.stdout is not None
        for line in proc.stdout:
            job["lines"].append((_now(), line.rstrip("\n")))
        code = proc.wait()
        if job["stage"] == "RUNNING":
            job["stage"] = "COMPLETED" if code == 0 else "ERROR"
            job["message"] = None if code == 0 else f"Job failed with exit code: {code}"

    def cancel(self, job_id: str) -> None:
        self.cancelled.append(job_id)
        job = self.jobs[job_id]
        job["stage"] = "CANCELED"
        if job["proc"] is not None:
            job["proc"].kill()

    def info(self, job_id: str) -> dict[str, Any]:
        job = self.jobs[job_id]
        return {
            "id": job_id,
            "createdAt": _now(),
            "dockerImage": job["spec"].get("dockerImage"),
            "command": job["spec"]["command"],
            "arguments": [],
            "environment": job["spec"]["environment"],
            "flavor": job["spec"]["flavor"],
            "labels": job["spec"].get("labels"),
            "status": {"stage": job["stage"], "message": job["message"]},
            "owner": {"id": "u1", "name": job["ns"], "type": "user"},
        }


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@pytest.fixture
def hub(tmp_path: Path):
    fake = FakeHub(tmp_path)
    yield fake
    fake.close()


def _api(hub: FakeHub):
    from huggingface_hub import HfApi

    return HfApi(endpoint=hub.endpoint, token="hf_launcher_only_token")


def _pushed_mini_repo(mini_repo: Path) -> str:
    """Commit the mini repo as if it were the audit repository at a PR head; its SHA."""
    return _commit_all(mini_repo, "pull request head")


def test_hf_jobs_run_end_to_end_against_a_local_hub(mini_repo: Path, tmp_path: Path, hub):
    sha = _pushed_mini_repo(mini_repo)
    out = tmp_path / "reruns"
    rel = f"logbooks/{PAPER}/ann-1.yaml"
    record = reproduce_logbook(
        mini_repo,
        rel,
        backend="hf-jobs",
        out=out,
        api=_api(hub),
        namespace="audit-org",
        source_repo_url=str(mini_repo),
        source_sha=sha,
        poll_s=0.05,
    )
    assert (record.status, record.exit_code, record.backend) == ("passed", 0, "hf-jobs"), (
        record.log_tail
    )
    assert record.url == f"{hub.endpoint}/jobs/audit-org/job0001"
    assert outputs_of(out, "ann-1") == {"C1": {"accuracy": 0.912}}
    assert "[reproaudit-runner] running" in record.log_tail
    assert MARK not in record.log_tail  # marker lines are not part of the log

    (spec,) = hub.specs
    assert spec["flavor"] == "cpu-basic"
    assert spec["dockerImage"] == "python:3.12-slim"
    assert spec["timeoutSeconds"] == 600 + 600  # the logbook's 10m plus time to fetch the code
    # no secret reaches the job; only the runner's nonce, which is not in its argv
    assert list(spec["environment"]) == ["REPROAUDIT_NONCE"] and "secrets" not in spec
    assert spec["environment"]["REPROAUDIT_NONCE"] not in " ".join(spec["command"])
    assert spec["labels"]["reproaudit-paper"] == PAPER
    assert spec["labels"]["reproaudit-logbook"] == "ann-1"
    command = spec["command"]
    assert command[:4] == ["python3", "-c", RUNNER, "env"]  # the nonce comes from the env
    assert command[4:11] == [
        str(mini_repo),
        sha,
        "",
        f"logbooks/{PAPER}/ann-1",
        f"logbooks/{PAPER}/ann-1",
        "results/metrics.json",
        "600",
    ]
    assert command[11:] == ["--", "python", "run.py", "--out", "results/metrics.json"]
    assert "hf_launcher_only_token" not in json.dumps(spec)
    assert set(hub.auth) == {"Bearer hf_launcher_only_token"}

    judge_repo(mini_repo, mode="rules", reruns=out, logbook="ann-1")
    verdict = yaml.safe_load((mini_repo / "verdicts" / PAPER / "ann-1.yaml").read_text())
    assert verdict["rerun"]["backend"] == "hf-jobs"
    assert verdict["rerun"]["url"] == record.url
    c1 = next(c for c in verdict["claims"] if c["claim"] == "C1")
    assert c1["verdict"] == "verified" and "not_rerun" not in c1["flags"]


def test_hf_jobs_failure_metacharacters_and_whoami(mini_repo: Path, tmp_path: Path, hub):
    pwned = tmp_path / "pwned"
    script = "import sys\nprint('argv', sys.argv[1:])\nsys.exit(7)\n"
    rel = add_logbook(mini_repo, "hf-fail-1", f"python f.py ; touch {pwned}", {"f.py": script})
    sha = _pushed_mini_repo(mini_repo)
    out = tmp_path / "reruns"
    record = reproduce_logbook(
        mini_repo,
        rel,
        backend="hf-jobs",
        out=out,
        api=_api(hub),
        source_repo_url=str(mini_repo),
        source_sha=sha,
        poll_s=0.05,
    )
    assert (record.status, record.exit_code) == ("failed", 7)
    assert record.url == f"{hub.endpoint}/jobs/tester/job0001"  # namespace from whoami
    assert f"argv [';', 'touch', '{pwned}']" in record.log_tail
    assert "the command wrote no results/metrics.json" in record.log_tail
    assert not pwned.exists()
    assert not (out / PAPER / "hf-fail-1" / "outputs.json").exists()


def test_hf_jobs_gives_up_after_the_bounded_wait_and_cancels(mini_repo: Path, tmp_path: Path):
    hub = FakeHub(tmp_path, hold=True)  # the job never leaves SCHEDULING
    try:
        sha = _pushed_mini_repo(mini_repo)
        started = time.monotonic()
        record = reproduce_logbook(
            mini_repo,
            f"logbooks/{PAPER}/ann-1.yaml",
            backend="hf-jobs",
            out=tmp_path / "out",
            api=_api(hub),
            namespace="audit-org",
            source_repo_url=str(mini_repo),
            source_sha=sha,
            poll_s=0.05,
            max_wait_s=0.5,
        )
        assert time.monotonic() - started < 5
        assert (record.status, record.exit_code) == ("timeout", None)
        assert hub.cancelled == ["job0001"]
        assert "the job was cancelled" in record.log_tail
    finally:
        hub.close()


def test_hf_jobs_refuses_hardware_off_the_allow_list(mini_repo: Path, tmp_path: Path, hub):
    rel = add_logbook(mini_repo, "h100-1", "python x.py", {}, hardware="h100")
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(
            mini_repo,
            rel,
            backend="hf-jobs",
            out=tmp_path / "out",
            api=_api(hub),
            source_repo_url=str(mini_repo),
            source_sha="a" * 40,
        )
    assert "reproduce.hardware: 'h100' is not on reproaudit's list of Jobs flavors" in str(
        err.value
    )
    assert "[hardware_not_allowed]" in str(err.value)
    assert hub.specs == []


def test_hf_jobs_needs_a_pinned_source_for_code_in_the_repository(mini_repo, tmp_path, hub):
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(
            mini_repo,
            f"logbooks/{PAPER}/ann-1.yaml",
            backend="hf-jobs",
            out=tmp_path / "out",
            api=_api(hub),
            source_repo_url="https://github.com/org/audit",
            source_sha="abc123",
        )
    assert "[source_not_pinned]" in str(err.value)
    assert hub.specs == []


def test_hf_jobs_api_errors_are_reported(mini_repo: Path, tmp_path: Path):
    from huggingface_hub import HfApi

    api = HfApi(endpoint="http://127.0.0.1:9", token="t")  # nothing listens on port 9
    with pytest.raises(EndpointError) as err:
        reproduce_logbook(
            mini_repo,
            f"logbooks/{PAPER}/ann-1.yaml",
            backend="hf-jobs",
            out=tmp_path / "out",
            api=api,
            namespace="x",
            source_repo_url="https://github.com/org/audit",
            source_sha="a" * 40,
        )
    assert str(err.value).startswith("hf-jobs: run_job failed: ")
    assert "hint: check the token" in str(err.value)  # a service failure, not a file finding


def test_runner_fetches_a_github_style_archive_when_the_image_has_nogit(tmp_path: Path, hub):
    sha = "c" * 40
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:

        def add(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = ""):
            info = tarfile.TarInfo(name)
            info.type, info.linkname, info.size, info.mode = kind, link, len(data), 0o644
            tar.addfile(info, io.BytesIO(data) if data else None)

        script = b"import json\njson.dump({'ok': 1}, open('out.json', 'w'))\nprint('ran')\n"
        add(f"repo-{sha}/", kind=tarfile.DIRTYPE)
        add(f"repo-{sha}/main.py", script)
        add(f"repo-{sha}/../../escaped.txt", b"no")
        add(f"repo-{sha}/link", kind=tarfile.SYMTYPE, link="/etc/passwd")
    hub.files[f"/archive/{sha}.tar.gz"] = buf.getvalue()
    bare_path = tmp_path / "bin"  # a PATH with no git on it
    bare_path.mkdir()
    nonce = "0123abcd" * 3
    args = ["env", "https://example.invalid/x", sha, f"{hub.endpoint}/archive/{sha}.tar.gz"]
    args += ["", "", "out.json", "30", "--", sys.executable, "main.py"]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        env={"PATH": str(bare_path), "HOME": str(tmp_path), "REPROAUDIT_NONCE": nonce},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    parsed = read_job_log(done.stdout.splitlines(), nonce, "out.json")
    assert json.loads(parsed.outputs or b"") == {"ok": 1}
    assert parsed.status is not None and parsed.status["status"] == "passed"
    assert "ran" in parsed.log.data().decode()
    assert not list(tmp_path.rglob("escaped.txt"))


def test_job_log_reading_ignores_foreign_markers_and_refuses_damage():
    good = base64.b64encode(b'{"a": 1}').decode()
    sha = hashlib.sha256(b'{"a": 1}').hexdigest()
    lines = [
        "hello",
        f"{MARK}other outputs-begin",
        "e30=",
        f"{MARK}other outputs-end x",
        f"{MARK}n1 outputs-begin",
        good,
        f"{MARK}n1 outputs-end {sha}",
        f'{MARK}n1 status {{"status": "passed", "exit_code": 0, "outputs": "ok"}}',
    ]
    parsed = read_job_log(lines, "n1", "out.json")
    assert parsed.outputs == b'{"a": 1}'
    assert parsed.status == {"status": "passed", "exit_code": 0, "outputs": "ok"}
    assert parsed.log.data().decode().splitlines() == ["hello", *lines[1:4]]
    # a block the runner did not vouch for in its final status line is dropped
    forged = [*lines[4:], f'{MARK}n1 status {{"status": "passed", "outputs": "no file"}}']
    assert read_job_log(forged, "n1", "out.json").outputs is None

    damaged = [f"{MARK}n1 outputs-begin", good[:-2], f"{MARK}n1 outputs-end {sha}"]
    assert read_job_log(damaged, "n1", "o.json").outputs is None
    truncated = read_job_log([f"{MARK}n1 outputs-begin", good], "n1", "o.json")
    assert truncated.outputs_note == "the logs end inside the o.json block; not recorded"


@pytest.mark.parametrize(
    ("stage", "message", "runner", "expected"),
    [
        ("COMPLETED", None, {"status": "passed", "exit_code": 0}, ("passed", 0)),
        ("ERROR", "Job failed", {"status": "failed", "exit_code": 2}, ("failed", 2)),
        ("ERROR", None, {"status": "timeout", "exit_code": None}, ("timeout", None)),
        ("ERROR", "Job timeout reached", None, ("timeout", None)),
        ("ERROR", "OOM", {"status": "passed", "exit_code": 0}, ("failed", 0)),
        ("COMPLETED", None, None, ("failed", None)),
        ("CANCELED", None, None, ("failed", None)),
    ],
)
def test_final_stage_maps_to_a_status(stage, message, runner, expected):
    status, code, _ = final_status(stage, message, runner)
    assert (status, code) == expected
