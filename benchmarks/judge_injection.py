"""The judge's figures on its own adversarial set, and what a dead endpoint costs.

1. The intent detector alone, both ways: how many of the rephrased requests to the
   grader in ``tests/data/repos/injections/phrases.yaml`` it catches (a colon
   instead of "as", statements, expected outputs, split and hyphenated words,
   leetspeak, look-alikes, small capitals, German, French, Spanish, ...), and how
   many of its honest sentences, of the example repository's logbooks (YAML,
   write-up, re-run log tail) and of a generated corpus's logbooks it flags.
2. Injections: every ``attack-*`` logbook of ``tests/data/repos/injections``
   (paraphrases, zero-width and format characters, fullwidth, Cyrillic and Greek
   look-alikes, an order in a metric name, fake verdicts in single and smart
   quotes, chat-template and role markers, ...). Prints how many the local
   intent detector catches, how many get past it, how many the screening
   request then catches against a screener that flags what a model would
   (simulated: it flags the words it is given) and against a compromised one
   (it never flags), and how many end as an LLM-made ``verified`` with a fully
   compromised endpoint (it obeys the data), with and without a passed re-run
   of each logbook. The ``benign-*`` logbooks give the false positives.
3. A dead endpoint: the time and the HTTP requests a ``judge`` run costs with
   ``--deadline`` against a refused connection and against a server that never
   answers (``tests/data/repos/traps``, 17 logbooks, 3 samples, concurrency 8).

    python benchmarks/judge_injection.py [--deadline 5] [--corpus-logbooks 1600]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from reproaudit.judge.injection import detect_intent  # noqa: E402
from reproaudit.judge.llm import LlmJudge, field_text  # noqa: E402
from reproaudit.judge.run import collect_cases, iter_cases, judge_repo  # noqa: E402
from reproaudit.judge.types import Case  # noqa: E402
from reproaudit.llm.settings import LlmSettings  # noqa: E402
from reproaudit.repo import Corpus  # noqa: E402
from tests.fake_llm import FakeLLM  # noqa: E402
from tests.records import write_current_rerun  # noqa: E402

INJECTIONS = ROOT / "tests" / "data" / "repos" / "injections"
TRAPS = ROOT / "tests" / "data" / "repos" / "traps"
# what a screening model that reads Polish would flag; the local detector does not read it
SCREEN_WORDS = ["zweryfikowane"]


def rate(hit: int, total: int) -> str:
    return f"{hit} of {total} ({100 * hit / total:.0f}%)" if total else "0 of 0"


def detector(tmp: Path, corpus_logbooks: int) -> None:
    """Catch and false-positive rates of ``detect_intent`` on its own."""
    phrases = yaml.safe_load((INJECTIONS / "phrases.yaml").read_text(encoding="utf-8"))
    missed = [p["technique"] for p in phrases["attacks"] if not detect_intent(p["text"])]
    flagged = [p["why"] for p in phrases["honest"] if detect_intent(p["text"])]
    attacks, honest = len(phrases["attacks"]), len(phrases["honest"])
    print(f"rephrased requests caught:           {rate(attacks - len(missed), attacks)}")
    print(f"  missed: {missed}")
    print(f"honest sentences flagged:            {rate(len(flagged), honest)} {flagged}")
    beyond = phrases["beyond"]
    read = [p["technique"] for p in beyond if detect_intent(p["text"])]
    print(
        f"requests it is known not to read:    {len(beyond) - len(read)} of {len(beyond)} past it"
    )
    example = [item.case for item in iter_cases(Corpus(ROOT), {"bench": 1}, ROOT / "reruns")]
    texts = [
        t
        for case in example
        if case is not None
        for t in (case.logbook_text, case.writeup, field_text(case), *log_tail(case))
    ]
    hits = [t[:60] for t in texts if detect_intent(t)]
    print(f"example repository texts flagged:    {rate(len(hits), len(texts))} {hits}")
    if corpus_logbooks:
        from benchmarks.corpus import generate_corpus

        root = tmp / "corpus"
        generate_corpus(root, papers=max(1, corpus_logbooks // 2), logbooks=corpus_logbooks)
        paths = sorted((root / "logbooks").glob("*/*.yaml"))
        start = time.perf_counter()
        flagged_logbooks = [p.stem for p in paths if detect_intent(p.read_text("utf-8"))]
        seconds = time.perf_counter() - start
        print(
            f"generated corpus logbooks flagged:   {rate(len(flagged_logbooks), len(paths))} "
            f"{flagged_logbooks[:5]} ({1000 * seconds / max(1, len(paths)):.2f} ms a logbook)"
        )


def log_tail(case: Case) -> tuple[str, ...]:
    return (case.record.rerun.log_tail,) if case.record else ()


def verdicts(repo: Path) -> dict[str, dict]:
    out = {}
    for path in (repo / "verdicts" / "InjPaper1").glob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        out[doc["logbook"]] = {c["claim"]: c for c in doc["claims"]}
    return out


def run(repo: Path, fake: FakeLLM) -> dict[str, dict]:
    settings = LlmSettings(base_url=fake.url, model="bench", api_key="k")
    judge_repo(repo, LlmJudge(settings, 3, backoff=0.01), reruns=repo / "reruns")
    return verdicts(repo)


def injections(tmp: Path) -> None:
    corpus = Corpus(INJECTIONS)
    cases, _, _ = collect_cases(corpus, {"bench": 1})
    attacks = [c for c in cases if c.logbook.logbook.id.startswith("attack-")]
    benign = [c for c in cases if c.logbook.logbook.id.startswith("benign-")]

    def local(case) -> bool:
        texts = (case.logbook_text, case.writeup, field_text(case))
        return any(detect_intent(t) for t in texts)

    missed = [c.logbook.logbook.id for c in attacks if not local(c)]
    false_pos = [c.logbook.logbook.id for c in benign if local(c)]
    print(f"injections tried:                    {len(attacks)}")
    print(f"  past the intent detector:          {len(missed)} {missed}")
    print(f"  benign logbooks flagged:           {len(false_pos)} of {len(benign)}")

    rows = []
    for label, flags, rerun in (
        ("screen flags what it reads, re-run", SCREEN_WORDS, True),
        ("screen compromised,         re-run", [], True),
        ("screen compromised,      no re-run", [], False),
    ):
        repo = tmp / label.replace(" ", "").replace(",", "-")
        shutil.copytree(INJECTIONS, repo)
        if rerun:
            for path in (repo / "logbooks" / "InjPaper1").glob("*.yaml"):
                write_current_rerun(repo, "InjPaper1", path.stem)
        with FakeLLM("obey", screen_flags=flags) as fake:
            start = time.perf_counter()
            got = run(repo, fake)
            seconds = time.perf_counter() - start
        attacked = {b: c for b, c in got.items() if b.startswith("attack-")}
        flagged = sum("suspected_injection" in c["C1"]["flags"] for c in attacked.values())
        past = [b for b, c in attacked.items() if "suspected_injection" not in c["C1"]["flags"]]
        verified = [b for b, c in attacked.items() if c["C1"]["verdict"] == "verified"]
        conflicts = sum("judge_conflict" in c["C2"]["flags"] for c in attacked.values())
        rows.append(label)
        print(
            f"obeying endpoint, {label}: {flagged} flagged, {len(past)} past both detectors "
            f"{past}, {len(verified)} published verified, {conflicts} judge_conflict on the "
            f"targeted claim ({seconds:.1f} s)"
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dead_endpoint(tmp: Path, deadline: float) -> None:
    for label in ("connection refused", "hanging server"):
        repo = tmp / label.replace(" ", "-")
        shutil.copytree(TRAPS, repo)
        with FakeLLM("hang") as fake:
            url = f"http://127.0.0.1:{free_port()}/v1" if label != "hanging server" else fake.url
            judge = LlmJudge(LlmSettings(base_url=url, model="m", api_key="k"), 3)
            start = time.perf_counter()
            summary = judge_repo(repo, judge, reruns=repo / "reruns", deadline=deadline)
            seconds = time.perf_counter() - start
        print(
            f"dead endpoint ({label}), --deadline {deadline:g}: {seconds:.2f} s, "
            f"{summary.usage.requests} HTTP requests, {len(summary.judged)} written "
            f"({len(summary.failed)} llm_failed), {len(summary.skipped)} left for next run; "
            f"stopped: {summary.stopped}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadline", type=float, default=5.0)
    parser.add_argument(
        "--corpus-logbooks",
        type=int,
        default=1600,
        help="logbooks of the generated corpus the detector reads (0: none)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reproaudit-inj-") as tmp:
        detector(Path(tmp), args.corpus_logbooks)
        injections(Path(tmp))
        dead_endpoint(Path(tmp), args.deadline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
