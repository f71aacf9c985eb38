"""CPU of the commands that read a whole corpus: the fitness check, ``stats``, ``build``.

``stats``, ``build`` and ``export`` first check that the corpus is fit to publish
(``corpus_check.check_corpus``: validation, then every verdict read with its
inputs), then read the corpus again for their own work. With one ``Corpus`` per
command the second stage reads nothing the first one read. This prints, for each
command run as its own process on a generated corpus (``benchmarks/corpus.py``,
7,012 files by default), the process's CPU time (user + system), its wall time
and its peak memory, and the fitness check alone.

    python benchmarks/read_once.py [--corpus DIR] [--papers N] [--logbooks N]
                                   [--command fitness|stats|build ...]

To compare with another checkout, put its ``scripts/`` first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import generate_corpus

FITNESS = "from reproaudit.corpus_check import check_corpus; import sys; check_corpus(sys.argv[1])"


def measure(argv: list[str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS in MB) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    stderr = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}):\n{stderr[-2000:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="reuse this corpus instead of generating one")
    parser.add_argument("--papers", type=int, default=2352)
    parser.add_argument("--logbooks", type=int, default=2330)
    parser.add_argument("--repeat", type=int, default=3, help="runs per command; the best counts")
    parser.add_argument(
        "--command",
        dest="commands",
        action="append",
        choices=["fitness", "stats", "build"],
        help="what to time; repeatable [default: fitness and stats; build runs mkdocs: slow]",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="reproaudit-read-once-") as tmp:
        root = args.corpus
        if root is None:
            root = Path(tmp) / "corpus"
            counts = generate_corpus(
                root, papers=args.papers, logbooks=args.logbooks, claims_total=args.papers * 6,
                verdicts=True,
            )  # fmt: skip
            print(f"corpus: {counts['files']:,} files ({counts['papers']:,} papers, "
                  f"{counts['logbooks']:,} logbooks, {counts['verdicts']:,} verdicts)")  # fmt: skip
        py = sys.executable
        out = str(Path(tmp) / "site")
        every = {
            "fitness": ("fitness check alone", [py, "-c", FITNESS, str(root)]),
            "stats": (
                "stats (fitness check + table)",
                [py, "-m", "reproaudit", "stats", "--repo", str(root)],
            ),
            "build": (
                "build (fitness check + site)",
                [py, "-m", "reproaudit", "build", "--out", out, "--repo", str(root)],
            ),
        }
        runs = dict(every[name] for name in args.commands or ["fitness", "stats"])
        print(f"{'command':<32} {'CPU s':>7} {'wall s':>7} {'peak MB':>8}")
        for label, command in runs.items():
            best = min(measure(command) for _ in range(args.repeat))
            print(f"{label:<32} {best[0]:>7.2f} {best[1]:>7.2f} {best[2]:>8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
