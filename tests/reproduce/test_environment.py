"""The declared environment: requirements installed in their own phase, then no network.

The install phase is attacked for real: an sdist whose build calls a server on
127.0.0.1 and an abstract socket, a wheel that calls home when imported, and
requirements lines that point the host's pip at a local server; beside an honest
pinned wheel (built here by ``pip wheel``) that installs and imports offline.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import socket
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from reproaudit.errors import ReproauditError
from reproaudit.reproduce import reproduce_logbook
from reproaudit.reproduce.sandbox import bwrap_available
from tests.test_reproduce import PAPER, add_logbook, outputs_of, run_json

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")


def make_wheel(folder: Path) -> Path:
    """A real (tiny, pure-Python) wheel pip installs offline."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "tinydep-1.0-py3-none-any.whl"
    files = {
        "tinydep/__init__.py": "VALUE = 42\n",
        "tinydep-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
        "tinydep-1.0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = "".join(f"{name},,\n" for name in files) + "tinydep-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
        zf.writestr("tinydep-1.0.dist-info/RECORD", record)
    return wheel


SCRIPT = (
    "import json, os, socket, tinydep\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', 9), timeout=1); net = 'open'\n"
    "except OSError:\n"
    "    net = 'none'\n"
    "os.makedirs('results')\n"
    "json.dump({'C1': {'accuracy': tinydep.VALUE / 100}, 'net': net},"
    " open('results/metrics.json', 'w'))\n"
)


def pin_tinydep(repo: Path, rel: str, logbook: str) -> Path:
    """Make LOGBOOK's requirements pin tinydep==1.0 from a wheel beside it; the file's path."""
    folder = repo / "logbooks" / PAPER / logbook
    make_wheel(folder / "wheels")
    req = folder / "requirements.txt"
    req.write_text("--no-index\n--find-links wheels\ntinydep==1.0\n")
    text = (repo / rel).read_text()
    text = text.replace("reproduce:\n", f"reproduce:\n  requirements: {logbook}/requirements.txt\n")
    (repo / rel).write_text(text)
    return req


def test_requirements_are_installed_then_the_run_has_no_network(mini_repo, tmp_path):
    rel = add_logbook(mini_repo, "deps-1", "python run.py", {"run.py": SCRIPT})
    req = pin_tinydep(mini_repo, rel, "deps-1")
    out = tmp_path / "out"
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert record.status == "passed", record.log_tail
    assert outputs_of(out, "deps-1") == {"C1": {"accuracy": 0.42}, "net": "none"}
    env = run_json(out, "deps-1")["environment"]
    assert env["requirements"] == "deps-1/requirements.txt"
    assert env["requirements_sha256"] == hashlib.sha256(req.read_bytes()).hexdigest()
    assert env["image_used"] is False and env["python"].endswith("(host, read-only)")


def test_a_failed_install_is_a_failed_record_that_says_why(mini_repo, tmp_path):
    rel = add_logbook(mini_repo, "deps-2", "python run.py", {"run.py": SCRIPT})
    (mini_repo / "logbooks" / PAPER / "deps-2" / "requirements.txt").write_text(
        "--no-index\nno-such-package-xyz==1.0\n"
    )
    text = (mini_repo / rel).read_text()
    text = text.replace("reproduce:\n", "reproduce:\n  requirements: deps-2/requirements.txt\n")
    (mini_repo / rel).write_text(text)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "failed" and not record.outputs_written
    assert (
        "installing deps-2/requirements.txt refused: deps-2/requirements.txt:2: "
        "'no-such-package-xyz==1.0' has no wheel pip can use here" in record.log_tail
    )


def test_requirements_outside_the_folder_are_refused(mini_repo, tmp_path):
    rel = add_logbook(mini_repo, "deps-3", "python run.py", {"run.py": SCRIPT})
    text = (mini_repo / rel).read_text()
    text = text.replace("reproduce:\n", "reproduce:\n  requirements: ann-1/requirements.txt\n")
    (mini_repo / rel).write_text(text)
    with pytest.raises(ReproauditError) as err:
        reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert str(err.value).startswith(
        f"{rel}: reproduce.requirements: 'ann-1/requirements.txt' is outside this logbook's "
        f"own folder logbooks/{PAPER}/deps-3/ [requirements_not_allowed]"
    )


# --- the install phase runs no one's code with the host's network ---------------


class Listener:
    """A TCP server on 127.0.0.1 and an abstract unix socket that count who connects."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        self.abstract_name = "reproaudit-probe-" + secrets.token_hex(6)
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + self.abstract_name)
        self.unix.listen()
        self.seen: list[str] = []
        self.threads = [
            threading.Thread(target=self._accept, args=(s, n), daemon=True)
            for s, n in ((self.tcp, "tcp"), (self.unix, "abstract"))
        ]
        for thread in self.threads:
            thread.start()

    def _accept(self, server: socket.socket, name: str) -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed
                return
            self.seen.append(name)
            conn.close()

    def close(self) -> None:
        for server in (self.tcp, self.unix):
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
            server.close()


def probe(listener: Listener, tag: str) -> str:
    """Python source that tries the listener over TCP and the abstract socket."""
    return (
        "import socket\n"
        "def _probe():\n"
        "    got = []\n"
        f"    for family, address in ((socket.AF_INET, ('127.0.0.1', {listener.port})),\n"
        f"                            (socket.AF_UNIX, '\\0{listener.abstract_name}')):\n"
        "        try:\n"
        "            s = socket.socket(family, socket.SOCK_STREAM)\n"
        "            s.settimeout(5)\n"
        "            s.connect(address)\n"
        f"            s.sendall(b'{tag}'); got.append('open')\n"
        "        except OSError:\n"
        "            got.append('none')\n"
        "    return got\n"
        "PROBED = _probe()\n"
    )


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def build_wheel(tmp: Path, name: str, module: str) -> Path:
    """A real wheel of a tiny package, built here by ``pip wheel`` (offline, no isolation)."""
    pkg = tmp / f"src-{name}"
    (pkg / name).mkdir(parents=True)
    (pkg / name / "__init__.py").write_text(module)
    (pkg / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{name}"\nversion = "1.0"\n'
    )
    out = tmp / "wheelhouse"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--quiet", "--wheel-dir", str(out), str(pkg)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    return next(out.glob(f"{name}-1.0-*.whl"))


def with_requirements(repo: Path, rel: str, logbook: str, text: str) -> Path:
    req = repo / "logbooks" / PAPER / logbook / "requirements.txt"
    req.write_text(text)
    doc = (repo / rel).read_text()
    doc = doc.replace("reproduce:\n", f"reproduce:\n  requirements: {logbook}/requirements.txt\n")
    (repo / rel).write_text(doc)
    return req


USE = (
    "import json, os, socket, {name}\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', {port}), timeout=1); net = 'open'\n"
    "except OSError:\n"
    "    net = 'none'\n"
    "os.makedirs('results')\n"
    "json.dump({{'value': {name}.VALUE, 'net': net, 'probed': getattr({name}, 'PROBED', None)}},"
    " open('results/metrics.json', 'w'))\n"
)


def test_an_honest_pinned_wheel_installs_and_imports_offline(
    mini_repo, tmp_path, monkeypatch, listener
):
    wheel = build_wheel(tmp_path, "honestdep", "VALUE = 42\n")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel.parent))  # the operator's own wheel index
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    code = {"run.py": USE.format(name="honestdep", port=listener.port)}
    rel = add_logbook(mini_repo, "honest-2", "python run.py", code)
    with_requirements(mini_repo, rel, "honest-2", f"honestdep==1.0 \\\n  --hash=sha256:{digest}\n")
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "passed", record.log_tail
    assert outputs_of(tmp_path / "out", "honest-2") == {"value": 42, "net": "none", "probed": None}
    assert listener.seen == []


def test_an_sdist_is_refused_and_its_build_code_never_runs(
    mini_repo, tmp_path, monkeypatch, listener
):
    """An sdist whose setup.py calls home (TCP and an abstract socket) is never built."""
    monkeypatch.setenv("PIP_FIND_LINKS", str(evil_sdist(tmp_path, listener)))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    code = {"run.py": USE.format(name="evildep", port=listener.port)}
    rel = add_logbook(mini_repo, "evil-1", "python run.py", code)
    with_requirements(mini_repo, rel, "evil-1", "# the build calls home\nevildep==1.0\n")
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "failed" and not record.outputs_written
    assert (
        "[reproaudit] installing evil-1/requirements.txt refused: evil-1/requirements.txt:2: "
        "'evildep==1.0' has no wheel pip can use here (a source distribution only, or no such "
        "release): re-runs install wheels only, so that no one's build code runs; pin a wheel: "
        "`name==version` of a release that publishes a wheel for this Python" in record.log_tail
    ), record.log_tail
    assert listener.seen == []


def test_a_wheel_that_calls_home_finds_no_network(mini_repo, tmp_path, monkeypatch, listener):
    """Its module, imported by the run, tries 127.0.0.1 and an abstract socket."""
    wheel = build_wheel(tmp_path, "homedep", probe(listener, "import ran") + "VALUE = 7\n")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel.parent))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    code = {"run.py": USE.format(name="homedep", port=listener.port)}
    rel = add_logbook(mini_repo, "home-1", "python run.py", code)
    with_requirements(mini_repo, rel, "home-1", "homedep==1.0\n")
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "passed", record.log_tail
    got = outputs_of(tmp_path / "out", "home-1")
    assert got == {"value": 7, "net": "none", "probed": ["none", "none"]}
    assert listener.seen == []


@pytest.mark.parametrize(
    "line",
    [
        "--index-url http://127.0.0.1:{port}/simple\nanything==1.0",
        "--extra-index-url http://127.0.0.1:{port}/simple\nanything==1.0",
        "--find-links http://127.0.0.1:{port}/\nanything==1.0",
        "anything @ http://127.0.0.1:{port}/anything-1.0.tar.gz",
        "git+http://127.0.0.1:{port}/repo.git#egg=anything",
    ],
)
def test_a_requirements_file_cannot_point_the_host_anywhere(mini_repo, tmp_path, listener, line):
    rel = add_logbook(mini_repo, "point-1", "python run.py", {"run.py": "print(1)\n"})
    with_requirements(mini_repo, rel, "point-1", line.format(port=listener.port) + "\n")
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "failed"
    assert "[reproaudit] installing point-1/requirements.txt refused: " in record.log_tail
    assert listener.seen == []


# --- Hugging Face Jobs: the job installs with its own network, so wheels only -------------


def hf_job(repo: Path, rel: str, tmp: Path, house: Path | None, launched: list | None = None):
    """Re-run ``rel`` as a Hugging Face Job on a local stand-in Hub that really runs it; the
    job's image points pip at ``house`` (its own index), as an image's pip.conf may.
    ``launched`` receives the specs of the jobs the Hub was asked to start."""
    from tests.test_reproduce import FakeHub, _api, _pushed_mini_repo

    env = {"PIP_FIND_LINKS": str(house), "PIP_NO_INDEX": "1"} if house else {}
    hub = FakeHub(tmp, image_env=env)
    try:
        sha = _pushed_mini_repo(repo)
        return reproduce_logbook(
            repo,
            rel,
            backend="hf-jobs",
            out=tmp / "out",
            api=_api(hub),
            source_repo_url=str(repo),
            source_sha=sha,
            poll_s=0.05,
        )
    finally:
        hub.close()
        if launched is not None:
            launched += hub.specs


def evil_sdist(tmp: Path, listener: Listener) -> Path:
    """A house holding only an sdist of evildep whose setup.py calls home."""
    house, pkg = tmp / "house", tmp / "evildep-1.0"
    pkg.mkdir()
    (pkg / "setup.py").write_text(
        probe(listener, "setup.py ran")
        + "from setuptools import setup\nsetup(name='evildep', version='1.0')\n"
    )
    (pkg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: evildep\nVersion: 1.0\n")
    house.mkdir()
    with tarfile.open(house / "evildep-1.0.tar.gz", "w:gz") as tar:
        tar.add(pkg, arcname="evildep-1.0")
    return house


def test_a_jobs_install_builds_no_sdist(mini_repo, tmp_path, listener):
    """In a job, pip installs with the job's network: an sdist's setup.py would run there.
    The runner installs wheels only, so it never runs, and the run says why it failed."""
    house = evil_sdist(tmp_path, listener)
    code = {"run.py": USE.format(name="evildep", port=listener.port)}
    rel = add_logbook(mini_repo, "evil-hf", "python run.py", code)
    with_requirements(mini_repo, rel, "evil-hf", "evildep==1.0\n")
    record = hf_job(mini_repo, rel, tmp_path, house)
    assert listener.seen == [], record.log_tail  # setup.py never ran
    assert record.status == "failed" and not record.outputs_written, record.log_tail
    assert "pip could not install the requirements" in record.log_tail
    assert "re-runs install wheels only, so that no one's build code runs" in record.log_tail


def test_a_jobs_install_takes_an_honest_wheel(mini_repo, tmp_path, listener):
    """The control: a pinned wheel installs in the job and the command imports it."""
    wheel = build_wheel(tmp_path, "honestdep", "VALUE = 42\n")
    code = {"run.py": USE.format(name="honestdep", port=listener.port)}
    rel = add_logbook(mini_repo, "honest-hf", "python run.py", code)
    with_requirements(mini_repo, rel, "honest-hf", "honestdep==1.0\n")
    record = hf_job(mini_repo, rel, tmp_path, wheel.parent)
    assert record.status == "passed", record.log_tail
    assert outputs_of(tmp_path / "out", "honest-hf")["value"] == 42


@pytest.mark.parametrize(
    "line",
    [
        "--index-url http://127.0.0.1:{port}/simple\nanything==1.0",
        "anything @ http://127.0.0.1:{port}/anything-1.0.tar.gz",
        "-e git+http://127.0.0.1:{port}/repo.git#egg=anything",
        "anything>=1.0",
    ],
)
def test_a_jobs_requirements_are_read_strictly_before_launching(
    mini_repo, tmp_path, listener, line
):
    """What the local backend refuses is refused before a job is launched (and paid for)."""
    rel = add_logbook(mini_repo, "point-hf", "python run.py", {"run.py": "print(1)\n"})
    with_requirements(mini_repo, rel, "point-hf", line.format(port=listener.port) + "\n")
    launched: list = []
    with pytest.raises(ReproauditError, match=r"reproduce\.requirements: not launched: "):
        hf_job(mini_repo, rel, tmp_path, None, launched)
    assert launched == [] and listener.seen == []
