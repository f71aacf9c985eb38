"""The LLM judge under endpoint faults (issue 23): every reply is data that can fail,
throttling is not an outage, a screen that flags everything is a fault, deadlines are
deadlines, and one lock per repository whatever ``TMPDIR`` is.

Each test plays the fault for real against ``tests/fake_llm.py`` (an HTTP server on
127.0.0.1) and beside it a control that still works.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.boundedjson import JsonError, depth, loads
from reproaudit.cli import cli
from reproaudit.judge.llm import LlmJudge
from reproaudit.judge.run import judge_repo, lock_path
from reproaudit.llm.halt import Halt
from reproaudit.llm.settings import LlmSettings
from reproaudit.llm.throttle import Throttle
from tests.fake_llm import FakeLLM
from tests.gitutil import git
from tests.judge.test_llm import ASKED, read_verdicts, run_llm
from tests.judge.test_rules import EXPECTED, TRAPS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def traps(tmp_path: Path) -> Path:
    repo = tmp_path / "traps"
    shutil.copytree(TRAPS, repo)
    return repo


def _env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPROAUDIT_")}
    return env | {"REPROAUDIT_JUDGE_BASE_URL": url, "PYTHONUNBUFFERED": "1"} | extra


def _flags(got: dict) -> set[str]:
    return {f for book in got.values() for claim in book.values() for f in claim["flags"]}


# --- every reply is data that can fail ---------------------------------------------------


def test_bounded_json_refuses_depth_before_parsing() -> None:
    assert loads('{"a": [1, {"b": "]]]"}]}') == {"a": [1, {"b": "]]]"}]}
    assert depth('["\\"[[[[", [[1]]]') == 3  # brackets inside strings are text
    assert depth("[" * 64 + "]" * 64) == 64
    loads("[" * 64 + "]" * 64)  # the limit itself parses
    for text in ["[" * 65 + "]" * 65, "[" * 200_000, '{"a":' * 100_000]:
        with pytest.raises(JsonError, match="nested"):
            loads(text)
    with pytest.raises(JsonError, match="characters"):
        loads("1" * 100, max_chars=10)
    with pytest.raises(JsonError):
        loads(b"\xff")


@pytest.mark.parametrize(
    "fault",
    ["nested-body", "nested-content", "nested-content-deep", "oversized-content"],
)
def test_a_hostile_reply_is_a_failed_sample_never_a_crash(traps: Path, fault: str) -> None:
    """Deeply nested JSON used to raise RecursionError out of the parsers: exit 3 and the
    rest of the run lost. Now each such reply is a failed sample (exit 1, llm_failed)."""
    kw: dict = {
        "nested-body": {"behavior": "nested"},
        "nested-content": {"nest_content": 65},
        "nested-content-deep": {"nest_content": 100_000},
        "oversized-content": {"behavior": "scripted", "replies": ["[" + "0," * 150_000 + "0]"]},
    }[fault]
    with FakeLLM(**kw) as fake:
        env = {"REPROAUDIT_JUDGE_BASE_URL": fake.url}
        args = ["judge", "--repo", str(traps), "--deadline", "120"]
        result = CliRunner(env=env).invoke(cli, args)
    assert result.exit_code == 1, (result.output, result.exception)
    assert "Traceback" not in result.output
    got = read_verdicts(traps)
    assert len(got) == len(EXPECTED)  # every logbook judged: none lost to one reply
    for logbook in ASKED:
        assert any("llm_failed" in c["flags"] for c in got[logbook].values()), logbook
    evidence = got["paging-growth"]["C1"]["evidence"]
    why = {
        "nested-body": "nested 100001 levels deep",
        "nested-content": "nested 65 levels deep",
        "nested-content-deep": "nested 100000 levels deep",
        "oversized-content": "characters of JSON",
    }[fault]
    assert why in evidence, evidence


def test_control_a_healthy_endpoint_after_hostile_replies_repairs_everything(
    traps: Path,
) -> None:
    with FakeLLM(nest_content=100_000) as fake:
        run_llm(traps, fake)
    with FakeLLM("correct") as fake:
        out = run_llm(traps, fake)
    assert out["summary"].complete and "llm_failed" not in _flags(out["verdicts"])


# --- throttling is not an outage --------------------------------------------------------------


def test_twenty_429s_with_retry_after_slow_the_run_and_it_finishes(traps: Path) -> None:
    """20 answers of 429 Retry-After: 1, then healthy answers: the whole run finishes,
    fewer requests in flight after the first 429, none sent before Retry-After passed."""
    with FakeLLM("rate_limited", limit=20, retry_after="1") as fake:
        out = run_llm(traps, fake, concurrency=8)
        arrivals, first_429 = list(fake.arrivals), fake.throttled_at[0]
        sent = fake.count
    summary = out["summary"]
    assert summary.complete and summary.stopped is None, summary
    assert "llm_failed" not in _flags(out["verdicts"])
    assert sent == summary.usage.requests == 4 * len(ASKED) + 20
    # the first round may be in flight when the first 429 answers; after it, requests wait
    # for Retry-After, and no more than half of that round are in flight at once
    early = [t for t, _ in arrivals if t < first_429 + 1.0]
    assert len(early) <= 8, len(early)
    later = [n for _, n in arrivals[8:20]]
    assert max(later) <= 4 + 1, later  # +1: the server counts a reply until it is sent
    text = "\n".join(summary_lines(summary))
    assert "throttled: 20 answer(s) 429" in text


def summary_lines(summary) -> list[str]:
    from reproaudit.judge.run import describe_summary

    return describe_summary(summary, "llm").splitlines()


def test_the_throttle_halves_once_per_round_and_grows_back() -> None:
    throttle, halt = Throttle(patience=300), Halt(None)
    for _ in range(8):
        assert throttle.acquire(halt, 30) is None
    sent = time.monotonic()
    assert throttle.release(sent, True, None) is None  # 8 were in flight: 4 may be
    assert throttle.release(sent, True, 0.5) is None  # same round: no second cut
    assert (throttle.limit, throttle.lowest, throttle.count) == (4, 4, 2)
    assert throttle.not_before > time.monotonic()  # Retry-After holds everyone
    for _ in range(6):
        throttle.release(sent, False, None)
    for _ in range(4):  # a round of answers: one more in flight
        throttle.answered()
    assert throttle.limit == 5
    impatient = Throttle(patience=-1)
    assert impatient.acquire(halt, 30) is None
    assert "answered only 429" in (impatient.release(time.monotonic(), True, None) or "")
    done = Halt(None)
    done.cancel("deadline reached")
    assert throttle.acquire(done, 30) == "not sent: deadline reached"


def test_a_blip_of_500s_does_not_stop_the_run(traps: Path) -> None:
    """Ten answers of 500 in a row, absorbed by the requests' own retries: the breaker
    counts requests that failed for good, and none did."""
    with FakeLLM("correct", outage=(5, 10, 500)) as fake:
        out = run_llm(traps, fake, concurrency=8, backoff=0.05)
        sent = fake.count
    assert out["summary"].complete, out["summary"]
    assert "llm_failed" not in _flags(out["verdicts"])
    assert sent == 4 * len(ASKED) + 10


def test_control_a_dead_endpoint_still_opens_the_breaker(traps: Path) -> None:
    with FakeLLM("error") as fake:
        out = run_llm(traps, fake, concurrency=8, max_retries=1, breaker_threshold=5)
        sent = fake.count
    assert "requests failed in a row (last: HTTP 500)" in (out["summary"].stopped or "")
    assert sent <= 8 * 2 + 8  # the requests in flight when it opened, and their retries


# --- a screen that flags everything is an endpoint fault ----------------------------------


def _canaries(fake: FakeLLM, repo: Path) -> list[str]:
    """The screened texts that are no logbook of ``repo``: the canaries."""
    real = [p.read_text() for p in (repo / "logbooks").glob("*/*.yaml")]
    return [t for t in fake.screened if not any(r.strip() in t for r in real)]


def test_a_screen_that_flags_everything_is_a_fault_not_an_accusation(traps: Path) -> None:
    with FakeLLM("correct", screen="always") as fake:
        first = run_llm(traps, fake, concurrency=4)
        canaries = _canaries(fake, traps)
    summary = first["summary"]
    assert "flagged 2 known-clean texts too (canaries" in (summary.stopped or "")
    assert len(canaries) == 2  # two flagged canaries from two sources settle it for the run
    got = first["verdicts"]
    # only the deterministic detector's finding may be stored as suspected_injection (the
    # run stopped at the fault, maybe before that logbook)
    assert {Path(p).stem for p in summary.suspected} <= {"injection"}
    for logbook, claims in got.items():
        if logbook != "injection":
            assert not any("suspected_injection" in c["flags"] for c in claims.values())
    flagged = [Path(p).stem for p in summary.failed]
    assert flagged
    for logbook in flagged:
        failed = [c for c in got[logbook].values() if "llm_failed" in c["flags"]]
        assert failed and all("known-clean texts too (canaries" in c["evidence"] for c in failed)
    assert not summary.complete
    # the flagged logbooks are not current: a run with an honest screen asks again
    with FakeLLM("correct") as fake:
        second = run_llm(traps, fake)
    assert sorted(Path(p).stem for p in second["summary"].judged) == sorted(
        {*flagged, *(Path(p).stem for p in summary.skipped)}
    )
    assert second["summary"].complete
    assert "llm_failed" not in _flags(read_verdicts(traps))


def test_a_screen_that_turns_faulty_mid_run_accuses_no_one(traps: Path) -> None:
    """Honest for the first 5 screens, then flagging everything: a canary asked once,
    at the start, would have passed; each flag is checked by a canary asked after it."""
    with FakeLLM("correct", screen="always", screen_from=5) as fake:
        out = run_llm(traps, fake, concurrency=2)
    summary = out["summary"]
    assert "known-clean texts too (canaries" in (summary.stopped or "")
    assert {Path(p).stem for p in summary.suspected} <= {"injection"}
    assert summary.failed and len(summary.judged) > len(summary.failed)


def test_a_screen_that_spares_a_template_but_flags_real_logbooks_is_caught(traps: Path) -> None:
    """The endpoint of issue 28: it flags every text that looks like a real logbook (it has
    ``claims_version``) and spares anything else, such as the fixed canary template that
    once passed 30 canaries while 31 of 32 honest logbooks were stored suspected_injection.
    The canaries are real logbooks of the corpus with numbers and names changed, in the
    shape of a real screening request: it flags them too, and no logbook is accused."""
    with FakeLLM("correct", screen="real") as fake:
        out = run_llm(traps, fake, concurrency=2)
        canaries = _canaries(fake, traps)
        requests = [b for b in fake.requests if "You screen" in b["messages"][0]["content"]]
    summary = out["summary"]
    assert "known-clean texts too (canaries" in (summary.stopped or "")
    assert {Path(p).stem for p in summary.suspected} <= {"injection"}
    assert len(canaries) == 2
    for text in canaries:  # every key of a real logbook, none of its names or numbers
        for key in ("logbook:", "claims_version:", "contributor:", "results:", "claim: C"):
            assert key in text, key
        assert "TrapPaper1" not in text
        ids = [p.stem for p in (traps / "logbooks" / "TrapPaper1").glob("*.yaml")]
        assert not any(f"id: {name}\n" in text for name in ids)
    # the same system prompt and user message shape as every real screening request
    nonce = re.compile(r"[0-9a-f]{16}")
    shapes = {
        (nonce.sub("N", b["messages"][0]["content"]), b["messages"][1]["content"][:7])
        for b in requests
    }
    assert len(shapes) == 1


def test_a_screen_that_tells_canaries_apart_stops_at_an_implausible_share(
    traps: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An endpoint that could tell the canaries apart (here they carry a marker it spares)
    and flags every logbook: the share rule stops the run after at most SHARE_MIN / 2
    accusations, however it answers the canaries."""
    from reproaudit.judge import canary

    real = canary.disguise
    monkeypatch.setattr(canary, "disguise", lambda s, rng: (real(s, rng)[0] + "\n# c", *s[1:]))
    with FakeLLM("correct", screen="always", spare=["\n# c"]) as fake:
        out = run_llm(traps, fake, concurrency=1)
    summary = out["summary"]
    assert "more than half is not plausible" in (summary.stopped or "")
    accused = {Path(p).stem for p in summary.suspected} - {"injection"}
    assert 0 < len(accused) <= canary.SHARE_MIN // 2
    assert summary.failed


def test_control_an_honest_screen_flag_is_stored(traps: Path) -> None:
    with FakeLLM("correct", screen_flags=["paging"]) as fake:
        out = run_llm(traps, fake)
    got = out["verdicts"]
    flagged = {Path(p).stem for p in out["summary"].suspected}
    assert "injection" in flagged and len(flagged) > 1
    for logbook in flagged - {"injection"}:
        assert "screening request" in got[logbook]["C1"]["evidence"], logbook
    assert out["summary"].stopped is None


# --- deadlines are deadlines ----------------------------------------------------------------


@pytest.mark.parametrize("headers", [False, True], ids=["body", "headers"])
def test_a_trickled_reply_is_cut_at_the_time_per_reply(traps: Path, headers: bool) -> None:
    """One byte every 0.2 s: httpx's per-read timeout never fires; the total does.

    Measured in bytes the endpoint sent (at most 5 a second, fewer under load), not
    in wall time: a reply waited out would be the whole of it, a minute at this pace.
    """
    with FakeLLM("trickle", trickle=0.2, trickle_headers=headers) as fake:
        out = run_llm(traps, fake, logbook="paging-growth", max_retries=0, timeout=2.0)
        trickled = fake.end_trickles()
    assert fake.count == 1
    evidence = out["verdicts"]["paging-growth"]["C1"]["evidence"]
    assert "no complete reply within 2 s" in evidence, evidence
    [(sent, whole)] = trickled
    assert sent <= (2.0 + 3) / 0.2 < whole, trickled  # cut at 2 s, plus a cut


def test_cli_deadline_against_a_trickling_endpoint_is_kept(traps: Path) -> None:
    """`--deadline 12` against replies trickled a byte a second: before, the run held them
    up to twice the deadline; now each is dropped at the deadline, and the run says so,
    and leaves no trace.

    Measured in bytes the endpoint sent, not in wall time: a byte leaves every second
    at most, so a load that slows the machine only lowers the count; a reply held to
    twice the deadline shows as ~24. The process is bounded by what a hang would take
    (each whole reply, at this pace, takes minutes).
    """
    deadline = 12
    with FakeLLM("trickle", trickle=1.0) as fake:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "reproaudit",
                "judge",
                "--repo",
                str(traps),
                "--deadline",
                str(deadline),
            ],
            env=_env(fake.url),
            capture_output=True,
            text=True,
            timeout=180,
        )
        trickled = fake.end_trickles()
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "stopped early: deadline reached" in proc.stdout
    assert "Traceback" not in proc.stderr
    assert trickled and len(trickled) == fake.count
    for sent, whole in trickled:
        assert sent < whole, trickled  # no reply was waited out: each was dropped
        assert sent <= deadline + 6, trickled  # held no longer than the deadline (+ a cut)
    written = int(proc.stdout.split()[0])
    left = sum(int(line.split()[0]) for line in proc.stdout.splitlines() if "not judged" in line)
    assert written + left == len(EXPECTED)


def test_answered_work_is_written_before_an_interruption_goes_up(traps: Path) -> None:
    """A Ctrl-C (here: raised by the last logbook's judging) never loses what was done."""
    with FakeLLM("correct") as fake:
        settings = LlmSettings(base_url=fake.url, model="m", api_key="k")
        judge = LlmJudge(settings, 3)
        real = judge.judge_case
        others_done = threading.Event()
        finished: list[str] = []

        def judge_case(case, halt):
            if case.logbook.logbook.id == "paging-growth":
                others_done.wait(60)
                time.sleep(0.3)  # the others' documents sit in the queue, not yet written
                raise KeyboardInterrupt
            result = real(case, halt)
            finished.append(case.logbook.logbook.id)
            if len(finished) == len(EXPECTED) - 1:
                others_done.set()
            return result

        judge.judge_case = judge_case  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            judge_repo(traps, judge, reruns=traps / "reruns", concurrency=4)
    written = {p.stem for p in (traps / "verdicts").rglob("*.yaml")}
    assert written == set(finished) == set(EXPECTED) - {"paging-growth"}


def test_work_stuck_past_the_deadline_is_abandoned(traps: Path) -> None:
    """Whatever holds a worker (here: judging that ignores the deadline), the run ends
    at the deadline plus a short grace and counts that logbook as not judged."""
    release = threading.Event()
    with FakeLLM("correct") as fake:
        settings = LlmSettings(base_url=fake.url, model="m", api_key="k")
        judge = LlmJudge(settings, 3)
        real = judge.judge_case

        def judge_case(case, halt):
            if case.logbook.logbook.id == "paging-growth":
                release.wait(120)
            return real(case, halt)

        judge.judge_case = judge_case  # type: ignore[method-assign]
        start = time.monotonic()
        summary = judge_repo(traps, judge, reruns=traps / "reruns", deadline=3.0)
        elapsed = time.monotonic() - start
        release.set()
    assert elapsed < 3.0 + 8, elapsed
    assert summary.stopped == "deadline reached"
    stuck = "verdicts/TrapPaper1/paging-growth.yaml"
    assert stuck in summary.skipped and stuck not in summary.judged
    assert not (traps / stuck).exists()
    assert len(set(summary.judged) | set(summary.skipped)) == len(EXPECTED)


# --- one lock per repository ------------------------------------------------------------------


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "plain"])
def test_two_judges_with_different_tmpdirs_do_not_both_run(
    traps: Path, tmp_path: Path, with_git: bool
) -> None:
    if with_git:
        git(traps, "init", "-q", "-b", "main")
        assert lock_path(traps) == traps / ".git" / "reproaudit-judge.lock"
    else:
        assert lock_path(traps) == traps / ".reproaudit" / "judge.lock"
    with FakeLLM("correct", latency=0.05) as fake:
        command = [sys.executable, "-m", "reproaudit", "judge", "--repo", str(traps)]
        procs = []
        for n in range(2):
            tmp = tmp_path / f"tmp{n}"
            tmp.mkdir()
            procs.append(
                subprocess.Popen(
                    command,
                    env=_env(fake.url, TMPDIR=str(tmp)),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        outs = [p.communicate(timeout=120) for p in procs]
        sent = fake.count
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sent == 4 * len(ASKED)  # one run's worth of requests, not two
    firsts = sorted(out.splitlines()[0] for out, _ in outs)
    assert firsts[0].startswith(f"0 verdict(s) written, {len(EXPECTED)} unchanged")
    assert firsts[1].startswith(f"{len(EXPECTED)} verdict(s) written, 0 unchanged")
    docs = [yaml.safe_load(p.read_text()) for p in (traps / "verdicts").rglob("*.yaml")]
    assert len(docs) == len(EXPECTED)


def test_a_judge_that_cannot_wait_refuses_in_one_line(traps: Path) -> None:
    import fcntl

    path = lock_path(traps)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = CliRunner().invoke(
            cli, ["judge", "--repo", str(traps), "--mode", "rules", "--deadline", "0.5"]
        )
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert "another `reproaudit judge` is working on" in line and str(path) in line
    assert not (traps / "verdicts").exists() or not list((traps / "verdicts").rglob("*.yaml"))
