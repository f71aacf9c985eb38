"""Judge a conference-scale corpus: rules-only time, LLM throughput, cache hits.

Generates the corpus of ``benchmarks/corpus.py`` (6,352 papers, ~36,000 claims,
6,816 logbooks), then:

1. judges every logbook in rules mode (target: under 20 s on 2 cores);
2. judges every logbook in llm mode against a local chat-completions server
   (``tests/fake_llm.py``, in its own process) that answers after 200 ms, with
   concurrency 64 and 3 samples, and reports requests/s against the ideal
   concurrency / latency (target: at least 80% of it); each logbook costs one
   screening request and ``samples`` judging requests;
3. runs the llm judge again with unchanged inputs (target: zero requests).

    python benchmarks/judge_throughput.py [--logbooks N] [--concurrency 64] [--latency 0.2]

Prints figures; exits 0 when every target is met, 1 otherwise. ``TMPDIR=/dev/shm``
keeps the corpus on tmpfs.
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
sys.path.insert(0, str(HERE))
from corpus import generate_corpus  # noqa: E402

from reproaudit.judge.llm import LlmJudge  # noqa: E402
from reproaudit.judge.run import RulesJudge, judge_repo  # noqa: E402
from reproaudit.llm.settings import LlmSettings  # noqa: E402


def own_cpu() -> float:
    """CPU seconds of this process, every thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_of(pid: int) -> float:
    """CPU seconds of another process, from /proc (utime + stime, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=6352)
    parser.add_argument("--logbooks", type=int, default=6816)
    parser.add_argument("--claims", type=int, default=36000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--samples", type=int, default=3)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="reproaudit-judge-")) / "repo"
    counts = generate_corpus(
        root, papers=args.papers, logbooks=args.logbooks, claims_total=args.claims
    )
    print(
        f"corpus:            {root} ({counts['papers']} papers, {counts['claims']} claims, "
        f"{counts['logbooks']} logbooks)"
    )

    start = time.perf_counter()
    rules = judge_repo(root, RulesJudge())
    rules_s = time.perf_counter() - start
    print(
        f"rules judge:       {rules_s:.2f} s for {len(rules.judged)} logbooks "
        f"({len(rules.judged) / rules_s:.0f} logbooks/s)  target < 20 s: "
        f"{'PASS' if rules_s < 20 else 'FAIL'}"
    )

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_llm.py"), "--latency", str(args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        settings = LlmSettings(base_url=url, model="bench-model", api_key="k")
        llm = LlmJudge(settings, args.samples)

        def judge_all():
            return judge_repo(root, llm, concurrency=args.concurrency)

        start, cpu_start, server_start = time.perf_counter(), own_cpu(), cpu_of(server.pid)
        first = judge_all()
        llm_s = time.perf_counter() - start
        requests = first.usage.requests
        client_ms = 1000 * (own_cpu() - cpu_start) / max(requests, 1)
        server_ms = 1000 * (cpu_of(server.pid) - server_start) / max(requests, 1)
        rate = requests / llm_s
        ideal = args.concurrency / args.latency
        print(
            f"llm judge:         {llm_s:.1f} s, {requests} requests, {rate:.0f} req/s; ideal "
            f"{ideal:.0f} req/s (concurrency {args.concurrency} / {args.latency * 1000:.0f} ms)"
            f" -> {rate / ideal:.0%} of ideal  target >= 80%: "
            f"{'PASS' if rate >= 0.8 * ideal else 'FAIL'}"
        )
        print(
            f"cpu per request:   client {client_ms:.2f} ms (the judge's process: rules, "
            f"prompts, HTTP, parsing), stand-in server {server_ms:.2f} ms; 2 cores allow "
            f"{2000 / (client_ms + server_ms):.0f} req/s"
        )
        print(
            f"tokens:            {first.usage.prompt_tokens} prompt + "
            f"{first.usage.completion_tokens} completion"
        )
        start = time.perf_counter()
        second = judge_all()
        again_s = time.perf_counter() - start
        print(
            f"unchanged re-run:  {again_s:.1f} s, {second.usage.requests} requests, "
            f"{len(second.unchanged)} verdicts unchanged  target 0 requests: "
            f"{'PASS' if second.usage.requests == 0 else 'FAIL'}"
        )
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    ok = rules_s < 20 and rate >= 0.8 * ideal and second.usage.requests == 0
    print(f"result:            {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
