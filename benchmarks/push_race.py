"""How ``reproaudit ci push`` behaves when many jobs commit to main at once.

Starts K threads, each standing for a commands.yml job, each recording M reviews of the
same paper through ``push_change`` against one local bare repository (so every push races
every other), then prints the wall time, how many attempts the pushes took, and checks
that every review landed exactly once. Also times the git tree comparison the report job
runs on a pull request padded with N files.

    python benchmarks/push_race.py [--jobs 4] [--reviews 5] [--padding 3000 30000]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import yaml

from reproaudit.ci.changes import tree_changes
from reproaudit.ci.push import apply_review, push_change
from reproaudit.errors import ReproauditError

ROOT = Path(__file__).resolve().parents[1]
PAPER = "Kp4rT9vQ2x"


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-C", str(cwd), *args],
        check=True,
        capture_output=True,
        input=stdin,
    ).stdout.decode()


def review(job: int, n: int) -> dict:
    return {
        "claim": "C1",
        "logbook": "carol-paging-1",
        "kind": "review",
        "stance": "confirm",
        "by": f"maint{job}",
        "at": f"2026-07-21T10:{job:02d}:{n:02d}Z",
        "link": f"https://github.com/o/r/pull/7#issuecomment-{job * 100 + n}",
        "text": f"job {job} review {n}",
        "paper": PAPER,
    }


def race(tmp: Path, jobs: int, reviews: int, backoff: float) -> None:
    seed = tmp / "seed"
    for name in ("claims", "logbooks", "verdicts"):
        shutil.copytree(ROOT / name, seed / name)
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "base")
    bare = tmp / "origin.git"
    git(tmp, "clone", "-q", "--bare", str(seed), str(bare))
    clones = []
    for j in range(jobs):
        clones.append(tmp / f"job{j}")
        git(tmp, "clone", "-q", str(bare), str(clones[-1]))
    attempts: Counter[int] = Counter()
    lock = threading.Lock()

    failed: list[str] = []

    def job(j: int) -> None:
        for n in range(reviews):
            try:
                result = push_change(
                    clones[j], apply_review(review(j, n)), f"review {j}.{n}", backoff=backoff
                )
            except ReproauditError as exc:  # attempts exhausted, no fallback configured here
                with lock:
                    failed.append(str(exc).splitlines()[0][:120])
                continue
            with lock:
                attempts[result.attempts] += 1

    start = time.perf_counter()
    threads = [threading.Thread(target=job, args=(j,)) for j in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    text = git(bare, "show", f"main:verdicts/{PAPER}/reviews.yaml")
    landed = Counter(r["text"] for r in yaml.safe_load(text)["reviews"])
    expected = jobs * reviews - len(failed)
    ok = sum(landed.values()) == expected and set(landed.values()) <= {1}
    print(
        f"{jobs} jobs x {reviews} reviews (back-off {backoff} s): {elapsed:.1f} s; "
        f"{sum(landed.values())} reviews on main, each once: {ok}; "
        f"{len(failed)} gave up (would open a pull request); "
        f"attempts per push: {dict(sorted(attempts.items()))}"
    )
    if not ok:
        sys.exit(1)


def padded(tmp: Path, padding: int) -> None:
    repo = tmp / f"pad{padding}"
    (repo / "scripts").mkdir(parents=True)
    (repo / "scripts/judge.py").write_text("x = 1\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    blob = git(repo, "hash-object", "-w", "--stdin", stdin=b"pad\n").strip()
    index = "".join(f"100644 {blob}\tlogbooks/P/m/pad{i:06d}\n" for i in range(padding))
    git(repo, "update-index", "--add", "--index-info", stdin=index.encode())
    (repo / "scripts/judge.py").write_text("x = 2\n")
    git(repo, "add", "scripts/judge.py")
    git(repo, "commit", "-qm", "padded")
    base, head = git(repo, "rev-parse", "main~1", "main").split()
    start = time.perf_counter()
    changes = tree_changes(repo, base, head)
    elapsed = time.perf_counter() - start
    found = any(c.path == "scripts/judge.py" for c in changes)
    print(
        f"tree comparison, {padding} padding files: {len(changes)} changes in {elapsed:.2f} s "
        f"(script change {'found' if found else 'MISSED'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--reviews", type=int, default=5)
    parser.add_argument("--backoff", type=float, default=0.5)
    parser.add_argument("--padding", type=int, nargs="*", default=[3000, 30000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        race(Path(tmp), args.jobs, args.reviews, args.backoff)
        for n in args.padding:
            padded(Path(tmp), n)


if __name__ == "__main__":
    main()
