"""Many bwrap re-runs at once, round after round: how many pass, and how long they take.

The heavy version of ``tests/reproduce/test_stress.py`` (eight tiny re-runs beside a pytest
session): ``--concurrency`` ``reproaudit reproduce`` processes start together (each says
when it is ready, then all are let go) for ``--rounds`` rounds, each
logbook's command burning ``--work`` million loop steps of CPU, the last slot of every round
re-running the first slot's logbook into the same record folder. It prints, per round and in
all, the runs that passed, the host errors and failures (each with what it said), and the
wall time of a round and of a run (from the go to the process's end, read in slot order: an
upper bound). A figure to read, not a bar to pass; it exits 1 when any
run did not pass or a record is not whole.

    python benchmarks/rerun_stress.py [--concurrency 8] [--rounds 3] [--work 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "data" / "repos" / "mini"
PAPER = "Tq7mV2pLx0"
WORK = (
    "import json, os\n"
    "total = 0\n"
    "for i in range({steps}):\n"
    "    total += i * i\n"
    "os.makedirs('results', exist_ok=True)\n"
    "json.dump({{'C1': {{'accuracy': {n}}}, 'total': total}}, open('results/metrics.json', 'w'))\n"
)


def make_repo(folder: Path, logbooks: int, steps: int) -> list[str]:
    """A copy of the tests' mini repository with ``logbooks`` tiny CPU logbooks; their paths."""
    shutil.copytree(MINI, folder)
    rels = []
    for n in range(logbooks):
        name = f"stress-{n}"
        code = folder / "logbooks" / PAPER / name
        code.mkdir(parents=True)
        (code / "w.py").write_text(WORK.format(steps=steps, n=n))
        doc = {
            "logbook": {"id": name, "paper": PAPER, "claims_version": 2,
                        "contributor": {"github": "ann"}},
            "code": {"path": f"{name}/"},
            "reproduce": {"command": "python w.py", "hardware": "cpu", "timeout": "10m",
                          "outputs": "results/metrics.json"},
            "results": [],
        }  # fmt: skip
        rel = f"logbooks/{PAPER}/{name}.yaml"
        (folder / rel).write_text(yaml.safe_dump(doc, sort_keys=False))
        rels.append(rel)
    return rels


# one `reproaudit reproduce` process: says when its imports are done, then waits for the go
GATED = (
    "import sys\n"
    "import reproaudit.reproduce\n"
    "from reproaudit.cli import main\n"
    "print('ready', flush=True)\n"
    "sys.stdin.readline()\n"
    "sys.argv[0] = 'reproaudit'\n"
    "main()\n"
)


def one_round(repo: Path, rels: list[str], out: Path) -> tuple[float, list[tuple[str, float, str]]]:
    """Start every slot's re-run process, let them all go at once when each is ready;
    (round wall time, [(status, seconds the process took after the go, what it said)])."""
    slots = [*rels, rels[0]]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", GATED, "reproduce", rel, "--repo", str(repo), "--out",
             str(out), "--sandbox", "bwrap"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        for rel in slots
    ]  # fmt: skip
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    began = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = []
    for proc in procs:
        said = proc.communicate()[0]
        took = time.perf_counter() - began  # an upper bound: read in slot order
        status = said.split(" ", 1)[0] if proc.returncode in (0, 1) else "error"
        results.append((status, took, said))
    return time.perf_counter() - began, results


def whole_records(out: Path, logbooks: int) -> list[str]:
    """The record folders whose outputs.json is not the one their run.json hashed."""
    bad = []
    for n in range(logbooks):
        folder = out / PAPER / f"stress-{n}"
        run = json.loads((folder / "run.json").read_text())
        outputs = (folder / "outputs.json").read_bytes()
        hashed = run["outputs_sha256"] == hashlib.sha256(outputs).hexdigest()
        if not hashed or json.loads(outputs)["C1"] != {"accuracy": n}:
            bad.append(str(folder))
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=8, help="re-runs at once [8]")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of them [3]")
    parser.add_argument("--work", type=float, default=2.0, help="million loop steps each [2]")
    args = parser.parse_args(argv)
    if args.concurrency < 2:
        parser.error("--concurrency must be 2 or more (the last slot re-runs the first)")
    from reproaudit.reproduce.sandbox import bwrap_available

    if not bwrap_available():
        print("bubblewrap (bwrap) cannot run here: apt-get install bubblewrap", file=sys.stderr)
        return 1
    logbooks = args.concurrency - 1
    with tempfile.TemporaryDirectory(prefix="reproaudit-stress-") as tmp:
        repo = Path(tmp) / "repo"
        rels = make_repo(repo, logbooks, int(args.work * 1_000_000))
        out = Path(tmp) / "out"
        seconds: list[float] = []
        not_passed = 0
        for number in range(1, args.rounds + 1):
            wall, results = one_round(repo, rels, out)
            passed = sum(status == "passed" for status, _, _ in results)
            not_passed += len(results) - passed
            seconds += [s for _, s, _ in results]
            print(f"round {number}: {passed}/{len(results)} passed in {wall:.2f} s")
            for status, took, said in results:
                if status != "passed":
                    print(f"  {status} after {took:.2f} s: {' '.join(said.split())}")
        broken = whole_records(out, logbooks)
    runs = args.rounds * args.concurrency
    print(
        f"{runs - not_passed}/{runs} re-runs passed, {args.concurrency} at a time; a run took "
        f"{statistics.median(seconds):.2f} s (median), {max(seconds):.2f} s (slowest)"
    )
    for folder in broken:
        print(f"not a whole record: {folder}")
    return 1 if not_passed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
