"""What a compromised LLM endpoint can change in what the audit publishes.

Builds a corpus with re-runs whose truth is known by construction
(``tests/judge/compromise.py``: per paper four claims with a target, two without, two
contributors), judges it with the local fake endpoint (``tests/fake_llm.py``) honest, then
compromised, and prints, per kind of claim, how many published verdicts (verdict and who
decided it) the compromised endpoint changed against the honest one, how many claim folds
and paper buckets changed, and how many claims false by construction were published
verified (true ones falsified). Compromised endpoints:

- ``contrary``: answers the opposite of the honest model for every claim;
- ``gullible``: answers verified for every claim;
- ``screen flags real logbooks``: the honest judge, but its screen flags every text that
  looks like a real logbook (it has ``claims_version``) and spares anything else;
- ``contrary, honest second endpoint``: the contrary endpoint judges, an honest and
  independently configured one gives the second opinion on model-judged claims (compared
  with an honest endpoint with an honest second endpoint).

A logbook with no verdict file after a compromised run (the run stopped at an endpoint
fault; judged again next run) is counted apart, not as a change.

    python benchmarks/judge_compromise.py [--papers 30] [--seed 0]
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reproaudit.judge.llm import LlmJudge  # noqa: E402
from reproaudit.judge.run import judge_repo  # noqa: E402
from reproaudit.llm.settings import LlmSettings  # noqa: E402
from tests.fake_llm import FakeLLM  # noqa: E402
from tests.judge.compromise import Published, build_corpus, compare, published  # noqa: E402

HONEST = {"behavior": "correct"}
SCENARIOS = {
    "contrary": ({"behavior": "contrary"}, None),
    "gullible": ({"behavior": "gullible"}, None),
    "screen flags real logbooks": ({"behavior": "correct", "screen": "real"}, None),
    "contrary, honest second endpoint": ({"behavior": "contrary"}, HONEST),
}


def judge(repo: Path, first: dict, second: dict | None) -> tuple[Published, float]:
    with ExitStack() as stack:
        fake = stack.enter_context(FakeLLM(**first))
        kw = {}
        if second is not None:
            if "second" not in inspect.signature(LlmJudge).parameters:
                raise NotImplementedError("this judge takes no second endpoint")
            other = stack.enter_context(FakeLLM(**second))
            kw["second"] = LlmSettings(base_url=other.url, model="bench-2", api_key="k")
        settings = LlmSettings(base_url=fake.url, model="bench", api_key="k")
        start = time.perf_counter()
        judge_repo(repo, LlmJudge(settings, 3, backoff=0.01, **kw), reruns=repo / "reruns")
        seconds = time.perf_counter() - start
    return published(repo), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reproaudit-compromise-") as tmp:
        base = Path(tmp) / "corpus"
        built = build_corpus(base, args.papers, args.seed)
        baselines: dict[bool, Published] = {}
        for with_second in (False, True):
            repo = Path(tmp) / f"honest-{with_second}"
            shutil.copytree(base, repo)
            try:
                honest, seconds = judge(repo, HONEST, HONEST if with_second else None)
            except NotImplementedError:
                continue
            baselines[with_second] = honest
            mine = compare(built, honest, honest)
            print(
                f"honest endpoint{', honest second endpoint' if with_second else ''}: "
                f"{args.papers} papers, {len(honest.verdicts)} claim verdicts, "
                f"{len(honest.claim_folds)} claims ({seconds:.1f} s); "
                f"{mine.false_verified} false claims published verified, "
                f"{mine.true_falsified} true claims falsified"
            )
        for name, (first, second) in SCENARIOS.items():
            repo = Path(tmp) / name.replace(" ", "-").replace(",", "")
            shutil.copytree(base, repo)
            try:
                got, seconds = judge(repo, first, second)
            except NotImplementedError as exc:
                print(f"{name}: not run ({exc})")
                continue
            changes = compare(built, baselines[second is not None], got)
            parts = [
                f"{group}: {changed}/{total} ({100 * changed / total if total else 0:.0f}%)"
                for group, (changed, total) in changes.counts.items()
            ]
            print(f"{name} ({seconds:.1f} s):")
            print("  changed " + "; ".join(parts))
            if changes.missing:
                print(f"  not judged (the run stopped at an endpoint fault): {changes.missing}")
            suspected = {k[:2] for k, f in got.flags.items() if "suspected_injection" in f}
            print(
                f"  {changes.false_verified} false claims published verified "
                f"({changes.false_verified_targeted} with a target), "
                f"{changes.true_falsified} true claims falsified, {len(suspected)} logbooks "
                "stored suspected_injection"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
