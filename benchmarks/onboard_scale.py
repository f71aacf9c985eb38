"""Onboard a 2,000-paper venue against stand-ins: wall time, memory, our CPU against waiting.

The OpenReview API v2 stand-in (paging, PDFs) and the chat-completions stand-in
(answering after ``--latency`` seconds, 200 ms by default, claims quoting the paper)
run in this process; ``reproaudit onboard openreview`` runs in a child process, so
its CPU time and peak memory (``wait4``'s rusage) are ours alone. The hosts'
spacing is set to 0 here: a real run is bound by them (arXiv one PDF every 3 s,
OpenReview about 36 PDFs an hour), which the figures printed below say.

    python benchmarks/onboard_scale.py [--papers 2000] [--concurrency 32] [--latency 0.2]

Then runs again with unchanged inputs (target: no PDF and no model request).
Prints figures; exits 0 when the run completes and the second sends nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
from tests.fake_llm import FakeLLM  # noqa: E402
from tests.onboard_stubs import VENUE_ID, OpenReviewStub, extract_reply, openreview_args  # noqa: E402


def run(repo: Path, cache: Path, stub: OpenReviewStub, fake: FakeLLM, concurrency: int):
    env = {**os.environ, "REPROAUDIT_JUDGE_BASE_URL": fake.url, "REPROAUDIT_JUDGE_MODEL": "fake"}
    started = time.monotonic()
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reproaudit",
            *openreview_args(repo, cache, stub, "--concurrency", str(concurrency)),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    out = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    cpu = usage.ru_utime + usage.ru_stime
    return child.returncode, out.strip(), wall, cpu, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = Path(tmp) / "repo", Path(tmp) / "cache"
        (repo / "claims").mkdir(parents=True)
        with (
            OpenReviewStub(
                VENUE_ID, args.papers, withdrawn=args.papers // 20, rejected=args.papers // 10
            ) as stub,
            FakeLLM("reply", replier=extract_reply, latency=args.latency) as fake,
        ):
            code, out, wall, cpu, rss = run(repo, cache, stub, fake, args.concurrency)
            written = sum(1 for _ in (repo / "claims").rglob("*.yaml"))
            ideal = args.papers * args.latency / args.concurrency
            print(
                f"papers: {args.papers} (+{args.papers // 20} withdrawn, "
                f"+{args.papers // 10} rejected in the venue's listing)"
            )
            print(
                f"first run: exit {code}, {written} files, wall {wall:.1f} s "
                f"({args.papers / wall:.1f} papers/s), peak RSS {rss:.0f} MiB"
            )
            print(
                f"  our CPU {cpu:.1f} s = {100 * cpu / wall:.0f}% of wall; the rest is waiting "
                f"(model answers at {args.latency * 1000:.0f} ms, concurrency "
                f"{args.concurrency}: ideal {ideal:.1f} s)"
            )
            print(
                f"  requests: {fake.count} model, {stub.count('/pdf/')} PDF, "
                f"{stub.count('/notes')} listing pages"
            )
            print(f"  {out}")
            model, pdfs = fake.count, stub.count("/pdf/")
            code2, out2, wall2, cpu2, rss2 = run(repo, cache, stub, fake, args.concurrency)
            sent = (fake.count - model) + (stub.count("/pdf/") - pdfs)
            print(
                f"second run: exit {code2}, wall {wall2:.1f} s, CPU {cpu2:.1f} s, "
                f"peak RSS {rss2:.0f} MiB, {sent} PDF or model requests"
            )
            print(f"  {out2}")
            print(
                f"real hosts: {args.papers} PDFs at arXiv's 1 per 3 s = "
                f"{args.papers * 3 / 3600:.1f} h; from OpenReview at ~36 an hour = "
                f"{args.papers / 36:.0f} h (runs resume where they stop)"
            )
            print(
                f"benchmark process peak RSS (stand-ins): "
                f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
            )
    return 0 if code == 0 and written == args.papers and sent == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
