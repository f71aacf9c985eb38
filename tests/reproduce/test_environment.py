"""The declared environment: requirements installed in their own phase, then no network."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from reproaudit.problems import ReproauditError
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


def test_requirements_are_installed_then_the_run_has_no_network(mini_repo, tmp_path):
    rel = add_logbook(mini_repo, "deps-1", "python run.py", {"run.py": SCRIPT})
    folder = mini_repo / "logbooks" / PAPER / "deps-1"
    make_wheel(folder / "wheels")
    req = folder / "requirements.txt"
    req.write_text("--no-index\n--find-links wheels\ntinydep==1.0\n")
    text = (mini_repo / rel).read_text()
    text = text.replace("reproduce:\n", "reproduce:\n  requirements: deps-1/requirements.txt\n")
    (mini_repo / rel).write_text(text)
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
