"""A failing endpoint never becomes a verdict: outages are re-asked, bounded and stoppable.

Every test talks to a real local server that fails in one way: 500s, 429 with a long
Retry-After, truncated bodies, closed connections, replies cut at the length limit, huge
replies, a hang; real processes for Ctrl-C and for two judges on one repository.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.judge.llm import LlmJudge
from reproaudit.judge.run import judge_repo
from reproaudit.llm.settings import LlmSettings
from tests.fake_llm import FakeLLM
from tests.judge.test_llm import ASKED, read_verdicts, run_llm
from tests.judge.test_rules import EXPECTED, TRAPS
from tests.records import write_current_rerun

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def traps(tmp_path: Path) -> Path:
    repo = tmp_path / "traps"
    shutil.copytree(TRAPS, repo)
    return repo


def rules_stand_with_llm_failed(got: dict, logbooks: list[str]) -> None:
    for logbook in logbooks:
        for claim, (verdict, _flags, *_) in EXPECTED[logbook].items():
            item = got[logbook][claim]
            assert item["verdict"] == verdict, (logbook, claim)
            assert "llm_failed" in item["flags"], (logbook, claim)


@pytest.mark.parametrize("behavior", ["truncated", "close", "cut", "huge"])
def test_broken_replies_are_llm_failed_and_bounded(traps: Path, behavior: str) -> None:
    with FakeLLM(behavior, huge_bytes=4 * 1024 * 1024) as fake:
        start = time.monotonic()
        out = run_llm(traps, fake, logbook="paging-growth", max_retries=1, max_bytes=64 * 1024)
        elapsed = time.monotonic() - start
        sent = fake.count
    rules_stand_with_llm_failed(out["verdicts"], ["paging-growth"])
    assert elapsed < 5
    # transport faults: 1 retry; bad content (cut, too large): 3 parse attempts
    assert sent == out["summary"].usage.requests == (3 if behavior in ("cut", "huge") else 2)
    evidence = out["verdicts"]["paging-growth"]["C1"]["evidence"]
    expected = {
        "truncated": "RemoteProtocolError",
        "close": "RemoteProtocolError",
        "cut": "cut at the length limit",
        "huge": "larger than 65536 bytes",
    }[behavior]
    assert expected in evidence


def test_a_long_retry_after_is_an_outage_not_a_wait(traps: Path) -> None:
    with FakeLLM("rate_limited", limit=10**6, retry_after="3600") as fake:
        start = time.monotonic()
        out = run_llm(traps, fake, logbook="paging-growth", max_retries=4)
        assert time.monotonic() - start < 10
        assert fake.count == 1  # no retry: an hour is longer than the run may wait
    rules_stand_with_llm_failed(out["verdicts"], ["paging-growth"])
    assert "Retry-After 3600 s" in out["verdicts"]["paging-growth"]["C1"]["evidence"]


def test_the_majority_is_over_answered_samples_and_a_quorum_is_needed(traps: Path) -> None:
    write_current_rerun(traps, "TrapPaper1", "qualitative")
    # judging requests answer, fail, answer (cyclic): 2 of 3 samples, a quorum
    with FakeLLM("correct", answers={"C7": "verified"}, statuses=[200, 500, 200]) as fake:
        out = run_llm(traps, fake, logbook="qualitative", max_retries=0)
    c7 = out["verdicts"]["qualitative"]["C7"]
    assert (c7["verdict"], c7["flags"]) == ("verified", [])
    assert c7["evidence"].startswith("LLM judge (2/2)")
    assert out["summary"].partial == ["verdicts/TrapPaper1/qualitative.yaml"]
    assert out["summary"].failed == []
    # 1 of 3: below the quorum, the rules verdict stands with llm_failed
    with FakeLLM("correct", answers={"C7": "verified"}, statuses=[200, 500, 500]) as fake:
        out = run_llm(traps, fake, logbook="paging-growth", max_retries=0)
    c1 = out["verdicts"]["paging-growth"]["C1"]
    assert c1["verdict"] == "inconclusive" and "llm_failed" in c1["flags"]
    assert c1["evidence"].startswith("typed numbers would falsify")
    assert "answered 1 of 3 samples (a quorum is 2; last error: HTTP 500)" in c1["evidence"]
    # a targeted claim whose two answering samples agree: no judge_conflict from a failure
    with FakeLLM("correct", statuses=[500, 200, 200]) as fake:
        out = run_llm(traps, fake, logbook="theorem-1000", max_retries=0)
    c4 = out["verdicts"]["theorem-1000"]["C4"]
    assert (c4["verdict"], c4["flags"]) == ("inconclusive", ["not_rerun"])
    assert c4["evidence"].startswith("typed numbers would falsify")
    assert "the LLM judge agrees (2/2)" in c4["evidence"]


def test_an_outage_verdict_is_not_current_and_is_asked_again(traps: Path) -> None:
    with FakeLLM("error") as fake:
        first = run_llm(traps, fake, max_retries=0, breaker_threshold=1000)
    assert len(first["summary"].failed) == len(ASKED)
    with FakeLLM("correct") as fake:
        second = run_llm(traps, fake)
        assert fake.count == 4 * len(ASKED)  # same inputs, asked again
    assert sorted(second["summary"].judged) == sorted(first["summary"].failed)
    got = second["verdicts"]
    assert all("llm_failed" not in c["flags"] for b in got.values() for c in b.values())
    with FakeLLM("correct") as fake:
        third = run_llm(traps, fake)
        assert fake.count == 0 and third["summary"].judged == []


def test_circuit_breaker_stops_a_run_against_a_dead_endpoint(traps: Path) -> None:
    with FakeLLM("error") as fake:
        settings = LlmSettings(base_url=fake.url, model="m", api_key="k")
        judge = LlmJudge(settings, 3, max_retries=4, backoff=0.01, breaker_threshold=3)
        summary = judge_repo(traps, judge, reruns=traps / "reruns", concurrency=1)
        sent = fake.count
    # three requests failed for good (each after its own 4 retries: retries never open the
    # breaker alone), then nothing more is sent
    assert sent == summary.usage.requests == 3 * 5
    assert "3 requests failed in a row (last: HTTP 500)" in summary.stopped
    # each of those requests was a logbook's screening request; before them, only logbooks
    # that need no request (text aimed at the judge, nothing addressed) were judged; the
    # rest wait for a run that can reach the endpoint
    assert len(summary.failed) == 3
    no_request = {"verdicts/TrapPaper1/injection.yaml", "verdicts/TrapPaper1/not-addressed.yaml"}
    assert set(summary.judged) - set(summary.failed) <= no_request
    assert len(summary.judged) + len(summary.skipped) == len(EXPECTED)
    assert not summary.complete


def test_connection_refused_with_a_deadline(traps: Path) -> None:
    settings = LlmSettings(base_url="http://127.0.0.1:9/v1", model="m", api_key="k")
    judge = LlmJudge(settings, 3, backoff=0.2)
    start = time.monotonic()
    summary = judge_repo(traps, judge, reruns=traps / "reruns", deadline=2.0)
    assert time.monotonic() - start < 4
    # at most each worker's request and its 4 retries: refused connections cost nothing,
    # and a request's own retries never open the breaker alone
    assert summary.usage.requests <= 8 * 5 and not summary.complete
    assert summary.failed or summary.skipped


def test_deadline_cuts_a_hanging_endpoint(traps: Path) -> None:
    with FakeLLM("hang") as fake:
        settings = LlmSettings(base_url=fake.url, model="m", api_key="k")
        judge = LlmJudge(settings, 3, timeout=120)
        start = time.monotonic()
        # 5 s: time enough for four workers to send on a loaded machine; a reply would take 120
        summary = judge_repo(traps, judge, reruns=traps / "reruns", deadline=5.0, concurrency=4)
        elapsed = time.monotonic() - start
        sent = fake.count
    assert elapsed < 5 + 20, elapsed  # the hanging replies would have held it 120 s
    assert sent == summary.usage.requests == 4  # one screening request per worker, then stop
    assert "deadline reached" in (summary.stopped or "")
    assert len(summary.failed) == 4  # the four logbooks in flight at the deadline
    assert len(summary.judged) + len(summary.skipped) == len(EXPECTED)
    got = read_verdicts(traps)
    for path in summary.failed:
        logbook = Path(path).stem
        for claim, item in got[logbook].items():
            assert item["verdict"] == EXPECTED[logbook].get(claim, ("inconclusive",))[0]


def test_cli_exit_status_and_summary_count_failures(traps: Path) -> None:
    with FakeLLM("garbage") as fake:
        env = {"REPROAUDIT_JUDGE_BASE_URL": fake.url}
        args = ["judge", "--repo", str(traps), "--logbook", "paging-growth", "--deadline", "30"]
        result = CliRunner(env=env).invoke(cli, args)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("1 verdict(s) written, 0 unchanged; 3 HTTP request(s)")
    assert lines[1] == (
        "1 llm_failed (asked again next run): verdicts/TrapPaper1/paging-growth.yaml"
    )


def _env(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPROAUDIT_")}
    return env | {"REPROAUDIT_JUDGE_BASE_URL": url, "PYTHONUNBUFFERED": "1"}


def test_ctrl_c_stops_at_once_against_a_hanging_endpoint(traps: Path) -> None:
    with FakeLLM("hang") as fake:
        proc = subprocess.Popen(
            [sys.executable, "-m", "reproaudit", "judge", "--repo", str(traps)],
            env=_env(fake.url),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 20
        while fake.count < 8 and time.monotonic() < deadline:  # all workers are stuck
            time.sleep(0.05)
        assert fake.count == 8
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        elapsed = time.monotonic() - start
    assert proc.returncode == 130, (out, err)
    assert elapsed < 4, elapsed  # a stuck request would hold it for 120 s
    assert "interrupted" in err and "Traceback" not in err
    written = {p.stem for p in (traps / "verdicts").rglob("*.yaml")}
    assert not written & set(ASKED)  # nothing judged by the hanging endpoint was written
    assert not list((traps / "verdicts").rglob("*.tmp"))


def test_two_judges_on_one_repository_do_not_duplicate_work(traps: Path) -> None:
    with FakeLLM("correct", latency=0.05) as fake:
        command = [sys.executable, "-m", "reproaudit", "judge", "--repo", str(traps)]
        procs = [
            subprocess.Popen(
                command,
                env=_env(fake.url),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=60) for p in procs]
        sent = fake.count
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sent == 4 * len(ASKED)  # one run's worth of requests
    firsts = sorted(out.splitlines()[0] for out, _ in outs)
    assert firsts[0].startswith(f"0 verdict(s) written, {len(EXPECTED)} unchanged")
    assert firsts[1].startswith(f"{len(EXPECTED)} verdict(s) written, 0 unchanged")
    docs = [yaml.safe_load(p.read_text()) for p in (traps / "verdicts").rglob("*.yaml")]
    assert len(docs) == len(EXPECTED) and all(d["judge"]["mode"] == "llm" for d in docs)


def test_cli_deadline_bounds_a_run_against_a_hanging_endpoint(traps: Path) -> None:
    with FakeLLM("hang") as fake:
        env = {"REPROAUDIT_JUDGE_BASE_URL": fake.url}
        start = time.monotonic()
        result = CliRunner(env=env).invoke(cli, ["judge", "--repo", str(traps), "--deadline", "1"])
        elapsed = time.monotonic() - start
    assert result.exit_code == 1, result.output
    assert elapsed < 1 + 20, elapsed  # the hanging replies would have held it 120 s
    assert result.output.splitlines()[-1] == "stopped early: deadline reached"
    written = int(result.output.split()[0])
    left = int(re.search(r"\n(\d+) not judged: the run stopped first", result.output).group(1))
    assert written + left == len(EXPECTED)
    # the logbooks in flight at the deadline (one request each: up to the 8 workers, fewer
    # on a loaded machine, none when reading the corpus took the whole second) are written
    # llm_failed; the rest are left for the next run
    sent = int(re.search(r"(\d+) HTTP request", result.output).group(1))
    assert 0 <= sent <= 8
    if sent:
        assert f"\n{sent} llm_failed (asked again next run)" in result.output
    else:
        assert written == 0 and left == len(EXPECTED)
