"""A 300-paper venue, its onboarding killed (SIGKILL) at a random moment, then finished.

The CLI runs in a real subprocess against stand-ins in this process; the test waits
on the run's own progress (paper files appearing), never on a sleep, then kills it.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

from reproaudit.loader import parse_yaml, to_model
from reproaudit.models import PaperFile
from reproaudit.validate import validate_repo
from tests.fake_llm import FakeLLM
from tests.onboard_stubs import VENUE_ID, OpenReviewStub, extract_reply, openreview_args

PAPERS = 300
_PAPER = re.compile(r"Paper (P\d{5}x) \(version")


def drafted(fake: FakeLLM) -> Counter:
    """Model requests per paper id (read from the fenced text each request carries)."""
    ids = []
    for body in list(fake.requests):
        m = _PAPER.search(body["messages"][1]["content"])
        ids.append(m.group(1) if m else "?")
    return Counter(ids)


def start(repo: Path, cache: Path, stub: OpenReviewStub, fake: FakeLLM) -> subprocess.Popen:
    env = {**os.environ, "REPROAUDIT_JUDGE_BASE_URL": fake.url, "REPROAUDIT_JUDGE_MODEL": "fake"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reproaudit",
            *openreview_args(repo, cache, stub, "--concurrency", "6"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def whole_files(folder: Path) -> dict[str, str]:
    """Every paper file, each parsed and validated (a half-written one fails here)."""
    out = {}
    for path in sorted(folder.glob("*.yaml")):
        text = path.read_text()
        to_model(parse_yaml(text, str(path)), PaperFile)
        out[path.stem] = text
    return out


def test_killed_at_a_random_moment_it_finishes_without_repeating_work(tmp_path: Path) -> None:
    repo, cache = tmp_path / "repo", tmp_path / "cache"
    (repo / "claims").mkdir(parents=True)
    folder = repo / "claims" / "iclr2026"
    kill_after = random.Random().randint(5, PAPERS - 20)
    with (
        OpenReviewStub(VENUE_ID, PAPERS, withdrawn=7, rejected=11) as stub,
        FakeLLM("reply", replier=extract_reply, latency=0.01) as fake,
    ):
        run = start(repo, cache, stub, fake)
        deadline = time.monotonic() + 600  # a bound for a broken run, not a timing assumption
        while run.poll() is None and time.monotonic() < deadline:
            if folder.is_dir() and sum(1 for _ in folder.glob("*.yaml")) >= kill_after:
                break
            time.sleep(0.02)
        assert run.poll() is None, f"the run ended before the kill: {run.communicate()}"
        run.send_signal(signal.SIGKILL)
        run.wait()
        finished = whole_files(folder)  # every file there is whole
        assert len(finished) >= kill_after
        asked_before = drafted(fake)

        again = start(repo, cache, stub, fake)
        out, err = again.communicate(timeout=900)
        assert again.returncode == 0, err[-2000:]
        assert not list(folder.glob(".*.tmp")), "a killed run's temp file was left behind"
        final = whole_files(folder)
        assert len(final) == PAPERS
        for paper, text in finished.items():
            assert final[paper] == text  # a finished paper is not rewritten
        asked = drafted(fake) - asked_before
        assert not set(asked) & set(finished), "a finished paper was drafted again"
        assert set(asked) | set(finished) == set(final)
        assert f"{len(finished)} unchanged" in out

        model, pdfs = fake.count, stub.count("/pdf/")
        third = start(repo, cache, stub, fake)
        out, err = third.communicate(timeout=900)
        assert third.returncode == 0 and f"{PAPERS} unchanged" in out
        assert fake.count == model and stub.count("/pdf/") == pdfs
        assert {p: t for p, t in whole_files(folder).items()} == final
    assert validate_repo(repo).ok
    statuses = {yaml.safe_load(t)["review"]["status"] for t in final.values()}
    assert statuses == {"draft"}
