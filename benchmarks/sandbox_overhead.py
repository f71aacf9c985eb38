"""What the sandbox costs per re-run: bwrap against none, on real re-runs.

Each sandbox re-runs the same tiny logbook (a Python command that writes one
outputs file) several times; the figure is the median wall time of the whole
``reproduce_logbook`` call (copying the code, starting the sandbox, the runner,
reading the outputs, writing the record). The overhead is what bwrap adds on
top of ``none``: a fixed cost per re-run, small against any real reproduction.

    python benchmarks/sandbox_overhead.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from reproaudit.reproduce import reproduce_logbook
from reproaudit.reproduce.sandbox import bwrap_available

PAPER = "Bench00001"
SCRIPT = (
    "import json, os\n"
    "os.makedirs('results', exist_ok=True)\n"
    "json.dump({'C1': {'accuracy': 0.9}}, open('results/metrics.json', 'w'))\n"
)


PAPER_FILE = f"""\
paper:
  id: {PAPER}
  title: A Benchmark Paper
  venue: Bench 2026
  authors: [{{name: Bea Bench, github: bea-bench}}]
claims_version: 1
claims:
  - id: C1
    statement: Accuracy is at least 90%.
    anchor: Table 1
    kind: empirical
    target:
      {{metric: accuracy, form: at_least, value: 0.9, unit: dimensionless,
        tolerance: {{abs: 0.01}}}}
"""


def make_repo(root: Path) -> str:
    """A repository of one paper and one CPU logbook that writes its outputs."""
    papers = root / "claims" / "bench2026"
    papers.mkdir(parents=True)
    (papers / f"{PAPER}.yaml").write_text(PAPER_FILE)
    folder = root / "logbooks" / PAPER / "bench-1"
    folder.mkdir(parents=True)
    (folder / "run.py").write_text(SCRIPT)
    doc = {
        "logbook": {"id": "bench-1", "paper": PAPER, "claims_version": 1,
                    "contributor": {"github": "bench"}},
        "code": {"path": "bench-1/"},
        "reproduce": {"command": "python run.py", "hardware": "cpu", "timeout": "1m",
                      "outputs": "results/metrics.json"},
        "results": [],
    }  # fmt: skip
    rel = f"logbooks/{PAPER}/bench-1.yaml"
    (root / rel).write_text(yaml.safe_dump(doc, sort_keys=False))
    return rel


def time_runs(repo: Path, rel: str, sandbox: str, runs: int) -> list[float]:
    times = []
    for i in range(runs + 1):
        started = time.perf_counter()
        record = reproduce_logbook(repo, rel, out=repo / "out", sandbox=sandbox)
        elapsed = time.perf_counter() - started
        if record.status != "passed":
            raise SystemExit(f"{sandbox}: the re-run {record.status}: {record.log_tail}")
        if i:  # the first run warms the caches
            times.append(elapsed)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    if not bwrap_available():
        raise SystemExit("bubblewrap cannot run here: nothing to compare")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        rel = make_repo(repo)
        none = time_runs(repo, rel, "none", args.runs)
        bwrap = time_runs(repo, rel, "bwrap", args.runs)
    m_none, m_bwrap = statistics.median(none), statistics.median(bwrap)
    print(f"re-runs per sandbox: {args.runs} (median wall time of reproduce_logbook)")
    print(f"none : {m_none * 1000:7.1f} ms")
    print(f"bwrap: {m_bwrap * 1000:7.1f} ms")
    print(
        f"overhead of bwrap: {(m_bwrap - m_none) * 1000:+.1f} ms per re-run "
        f"(ratio {m_bwrap / m_none:.2f}x)"
    )


if __name__ == "__main__":
    main()
