"""The docker sandbox's exact argv, a real docker re-run, and the jobs runner (``ci store-reruns``
is tested in ``tests/ci/test_store.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reproaudit.reproduce import Limits, reproduce_logbook
from reproaudit.reproduce.docker import docker_argv, gpu_count
from reproaudit.reproduce.sandbox import Launch, docker_available
from tests.reproduce.test_environment import make_wheel
from tests.test_reproduce import PAPER

HEAD = "9f1c2ab3c4d5e6f708192a3b4c5d6e7f80912a3b"


def test_docker_argv_is_exact(tmp_path):
    launch = Launch(
        ["-c", "RUNNER", "--pidns", "n"],
        tmp_path / "src",
        tmp_path / "deps",
        {"HOME": "/tmp/home", "TMPDIR": "/tmp"},
        hardware="a100x4",
        image="pytorch/pytorch@sha256:" + "a" * 64,
    )
    limits = Limits(
        wall_s=60, processes=100, memory_bytes=1 << 30, file_bytes=1 << 20, writable_bytes=1 << 24
    )
    assert docker_argv(launch, limits, "reproaudit-n") == [
        "docker", "run", "--rm", "-i", "--name", "reproaudit-n", "--pull", "missing",
        "--network", "none",
        "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--pids-limit", "100",
        "--memory", str(1 << 30), "--memory-swap", str(1 << 30),
        "--ulimit", f"fsize={1 << 20}:{1 << 20}", "--ulimit", "core=0:0",
        "--tmpfs", f"/tmp:rw,exec,nosuid,nodev,size={(1 << 24) - (1 << 22)}",
        "--shm-size", str(1 << 22),
        "--user", "65534:65534", "--workdir", "/tmp",
        "--gpus", "4",
        "--mount", f"type=bind,source={tmp_path / 'src'},target=/src,readonly",
        "--mount", f"type=bind,source={tmp_path / 'deps'},target=/deps,readonly",
        "--env", "HOME=/tmp/home", "--env", "TMPDIR=/tmp",
        "--entrypoint", "python3", "pytorch/pytorch@sha256:" + "a" * 64,
        "-c", "RUNNER", "--pidns", "n",
    ]  # fmt: skip
    assert [gpu_count(h) for h in ("cpu", "t4-small", "a10g-largex2", "h200x8")] == [0, 1, 2, 8]


@pytest.mark.skipif(not docker_available(), reason="no docker daemon is reachable here")
def test_a_real_docker_rerun(mini_repo, tmp_path):
    record = reproduce_logbook(
        mini_repo, f"logbooks/{PAPER}/ann-1.yaml", out=tmp_path / "out", sandbox="docker"
    )
    assert record.status == "passed" and record.sandbox == "docker"


def test_the_jobs_runner_installs_the_requirements_before_the_command(tmp_path):
    import subprocess
    import sys

    from reproaudit.reproduce.bundle import RUNNER
    from reproaudit.reproduce.markers import read_job_log
    from tests.reproduce.test_environment import make_wheel

    wheels = make_wheel(tmp_path / "wheels").parent
    src = tmp_path / "src"
    src.mkdir()
    (src / "run.py").write_text(
        "import json, os, tinydep\nos.makedirs('r')\n"
        "json.dump({'v': tinydep.VALUE}, open('r/o.json', 'w'))\n"
    )
    requirements = f"--no-index\n--find-links {wheels}\ntinydep==1.0\n"
    args = ["--requirements", requirements, "env", f"dir:{src}", "", "", "", "", "r/o.json"]
    nonce = "0123456789abcdef" * 2  # in the job's environment, never in its argv
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args, "30", "--", sys.executable, "run.py"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "REPROAUDIT_NONCE": nonce},
    )
    parsed = read_job_log(done.stdout.splitlines(), nonce, "r/o.json")
    assert parsed.status and parsed.status["status"] == "passed", done.stdout + done.stderr
    assert json.loads(parsed.outputs or b"null") == {"v": 42}
    assert len(parsed.status["code_sha256"]) == 64


def test_the_shipped_runner_is_python_3_8_and_one_copy_of_each_rule():
    import ast

    from reproaudit.reproduce.bundle import RUNNER

    ast.parse(RUNNER, feature_version=(3, 8))  # job images may carry an old Python
    for name in ("def inside(", "def scrubbed_env(", "def fetch_commit(", "def main("):
        assert RUNNER.count(name) == 1, name


FAKE_DOCKER = r'''#!PYTHON
"""A stand-in for the docker CLI: records each call, runs `run` as a plain process.

It checks the plumbing (argv, mounts, markers, cleanup), not the isolation: that is
the real-docker test's job, which skips where no daemon is reachable.
"""
import json, os, subprocess, sys
log = os.environ["DOCKER_FAKE_LOG"]
with open(log, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
args = sys.argv[1:]
if args[:1] == ["info"] or args[:2] == ["rm", "-f"]:
    sys.exit(0)
if args[:2] == ["image", "inspect"]:
    print(json.dumps(["python@sha256:" + "b" * 64]))
    sys.exit(0)
assert args[0] == "run", args
i = args.index("--entrypoint")
rest = args[i + 3:]
mounts = {}
home = os.environ["DOCKER_FAKE_HOME"]
env = {"PATH": os.environ["PATH"], "HOME": home, "TMPDIR": home}
for j, a in enumerate(args[:i]):
    if a == "--mount":
        parts = dict(p.split("=", 1) for p in args[j + 1].split(",") if "=" in p)
        mounts[parts["target"]] = parts["source"]
    if a == "--env":
        k, v = args[j + 1].split("=", 1)
        if k not in ("HOME", "TMPDIR"):
            env[k] = v.replace("/deps", mounts.get("/deps", "/deps"))
rest = ["dir:" + mounts["/src"] if r == "dir:/src" else r for r in rest]
rest = [mounts["/src"] + r[4:] if r.startswith("/src/") else r for r in rest]
rest = [mounts.get(r, r) if r in ("/deps", "/wheels") else r for r in rest]
rest = [r for r in rest if r != "--pidns"]  # not in a namespace of its own here
sys.exit(subprocess.run([sys.executable, *rest], env=env).returncode)
'''


@pytest.fixture
def fake_docker(tmp_path, monkeypatch) -> Path:
    """A ``docker`` stand-in first on PATH; returns the file its calls are logged to."""
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "docker"
    fake.write_text(FAKE_DOCKER.replace("PYTHON", sys.executable))
    fake.chmod(0o755)
    calls = tmp_path / "calls.jsonl"
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.setenv("DOCKER_FAKE_LOG", str(calls))
    monkeypatch.setenv("DOCKER_FAKE_HOME", str(tmp_path / "home"))
    return calls


def test_the_docker_path_end_to_end_with_a_stand_in_cli(mini_repo, tmp_path, fake_docker):
    out = tmp_path / "out"
    record = reproduce_logbook(mini_repo, f"logbooks/{PAPER}/ann-1.yaml", out=out, sandbox="docker")
    assert record.status == "passed", record.log_tail
    run = json.loads((out / PAPER / "ann-1" / "run.json").read_text())
    assert run["sandbox"] == "docker"
    assert run["environment"]["image"] == "python:3.12-slim"
    assert run["environment"]["image_used"] is True
    assert run["environment"]["image_digest"] == "sha256:" + "b" * 64
    made = [json.loads(line) for line in fake_docker.read_text().splitlines()]
    docker_run = next(c for c in made if c[0] == "run")
    name = docker_run[docker_run.index("--name") + 1]
    assert docker_run[docker_run.index("--network") + 1] == "none"
    assert "--gpus" not in docker_run  # hardware: cpu
    assert ["rm", "-f", name] in made  # the container is removed whatever happened


def test_docker_installs_downloaded_wheels_in_a_container_without_network(
    mini_repo, tmp_path, fake_docker
):
    from tests.reproduce.test_environment import SCRIPT
    from tests.test_reproduce import add_logbook

    rel = add_logbook(mini_repo, "dock-1", "python run.py", {"run.py": SCRIPT})
    folder = mini_repo / "logbooks" / PAPER / "dock-1"
    make_wheel(folder / "wheels")
    (folder / "requirements.txt").write_text("--no-index\n--find-links wheels\ntinydep==1.0\n")
    text = (mini_repo / rel).read_text()
    (mini_repo / rel).write_text(
        text.replace("reproduce:\n", "reproduce:\n  requirements: dock-1/requirements.txt\n")
    )
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", sandbox="docker")
    assert record.status == "passed", record.log_tail
    runs = [json.loads(x) for x in fake_docker.read_text().splitlines()]
    runs = [c for c in runs if c[0] == "run"]
    probe, install, rerun = runs
    assert probe[probe.index("--network") + 1] == "none" and probe[-2] == "-c"
    assert install[install.index("--network") + 1] == "none"
    assert any(a.endswith("target=/deps") for a in install)  # writable: only the deps folder
    assert any(a.endswith("target=/wheels,readonly") for a in install)
    assert "--no-index" in install and "--only-binary=:all:" in install
    assert rerun[rerun.index("--network") + 1] == "none"
    assert any(a.endswith("target=/deps,readonly") for a in rerun)
