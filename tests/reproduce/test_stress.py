"""Eight re-runs at once, beside a pytest session that plays outputs on devices: all pass.

The incident this guards against: a test session wrote ``--out /dev/null`` as root and
every sandbox on the machine failed after it. Here a child pytest session runs the tests
that write outputs into device nodes, FIFOs and sockets of their own, while eight
``reproaudit reproduce`` processes (as on a shared machine) run real bwrap re-runs, let
go together once each says it is ready (an event, not a clock): seven logbooks, one of
them twice into the same record folder. Every run passes, each record holds its own logbook's
outputs whole, the session passes, and the machine's ``/dev/null`` is still the null
device (read, never touched). Tiny logbooks keep it affordable; ``benchmarks/rerun_stress.py``
is the heavier version, with figures.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, needs_bwrap
from tests.test_reproduce import PAPER, add_logbook

RUNS = 8
WORK = (
    "import json, os, sys\n"
    "total = sum(i * i for i in range(200_000))\n"
    "os.makedirs('results', exist_ok=True)\n"
    "json.dump({{'C1': {{'accuracy': {n}}}, 'total': total}}, open('results/metrics.json', 'w'))\n"
)
pytestmark = needs_bwrap


def dev_null_is_the_null_device() -> bool:
    """The machine's /dev/null, looked at (never opened for writing)."""
    st = os.stat("/dev/null")
    return stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == (1, 3)


# a re-run process that says when it is ready (imports done), then waits for the go
GATED = (
    "import sys\n"
    "import reproaudit.reproduce\n"
    "from reproaudit.cli import main\n"
    "print('ready', flush=True)\n"
    "sys.stdin.readline()\n"
    "sys.argv[0] = 'reproaudit'\n"
    "main()\n"
)


def test_eight_concurrent_reruns_beside_a_pytest_session_all_pass(
    mini_repo: Path, tmp_path: Path
) -> None:
    names = [f"stress-{n}" for n in range(RUNS - 1)]
    rels = [add_logbook(mini_repo, name, "python w.py", {"w.py": WORK.format(n=n)})
            for n, name in enumerate(names)]  # fmt: skip
    rels.append(rels[0])  # the eighth: the first logbook again, into the same record folder
    out = tmp_path / "out"
    session = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
         "tests/test_fsutil.py", "tests/test_out_devices.py", "-k", "not folder_option"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    common = ["--repo", str(mini_repo), "--out", str(out), "--sandbox", "bwrap"]
    reruns = [
        subprocess.Popen(
            [sys.executable, "-c", GATED, "reproduce", rel, *common],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for rel in rels
    ]
    for proc in reruns:  # every one is ready: then all go at once
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    for proc in reruns:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    said = [proc.communicate()[0] for proc in reruns]
    log, _ = session.communicate()
    assert [proc.returncode for proc in reruns] == [0] * RUNS, said
    assert all(line.startswith("passed in ") for line in said), said
    for n, name in enumerate(names):  # each folder is one whole record of its own logbook
        folder = out / PAPER / name
        run = json.loads((folder / "run.json").read_text())
        outputs = (folder / "outputs.json").read_bytes()
        assert run["status"] == "passed"
        assert run["outputs_sha256"] == hashlib.sha256(outputs).hexdigest()
        assert json.loads(outputs)["C1"] == {"accuracy": n}
    assert session.returncode == 0, log
    assert dev_null_is_the_null_device()
