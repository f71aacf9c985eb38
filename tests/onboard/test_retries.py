"""A flaky host costs retries, not papers: resets, 5xx and cut replies from a real local server.

Each failure is played for real on 127.0.0.1 (a TCP reset, half a body and a
closed connection, a PDF cut before its ``%%EOF``, HTTP 500 and 503), once per
paper, and tried again inside the run; the control runs the same with
``--retries 0`` and loses exactly those papers, each reported by host and status.
A listing page gets the same, a back-off ends at the run's ``Halt``, and a full
cache disk names its folder.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.llm.halt import Halt
from reproaudit.onboard.http import Deferred, Polite, Unavailable
from tests.fake_llm import FakeLLM
from tests.localserver import LocalServer
from tests.onboard_stubs import (
    VENUE_ID,
    ArxivStub,
    OpenReviewStub,
    extract_reply,
    list_args,
    openreview_args,
    paper_lines,
    text_pdf,
)
from tests.test_storage_errors import fill, small_disk

FAULTS = ["reset", "cut", "eof", "500", "503"]
FAST = ("--backoff", "0.01", "--concurrency", "4")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    repo = tmp_path / "repo"
    (repo / "claims").mkdir(parents=True)
    monkeypatch.setenv("REPROAUDIT_JUDGE_MODEL", "fake-model")
    for name in ("OPENREVIEW_TOKEN", "OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    with FakeLLM("reply", replier=extract_reply) as fake:
        monkeypatch.setenv("REPROAUDIT_JUDGE_BASE_URL", fake.url)
        yield repo, tmp_path


def flaky_arxiv(arxiv: ArxivStub, listing: Path, papers: int = 10) -> dict[str, str]:
    """``papers`` on arXiv, every other one failing once in its own way: {paper id: fault}."""
    rows, faulty = [], {}
    for n in range(papers):
        arxiv_id = f"2601.{n:05d}"
        arxiv.papers[arxiv_id] = text_pdf(paper_lines(f"F{n}"))
        if n % 2:
            faulty[f"F{n}"] = fault = FAULTS[(n // 2) % len(FAULTS)]
            arxiv.faults[arxiv_id] = [fault]
        rows.append({"id": f"F{n}", "title": f"Paper {n}", "arxiv": arxiv_id})
    listing.write_text("\n".join(json.dumps(r) for r in rows))
    return faulty


def written(repo: Path) -> list[str]:
    return sorted(p.stem for p in (repo / "claims").rglob("*.yaml"))


def test_a_flaky_host_costs_retries_not_papers(env) -> None:
    repo, tmp = env
    with ArxivStub() as arxiv:
        faulty = flaky_arxiv(arxiv, tmp / "venue.jsonl")
        args = list_args(tmp / "venue.jsonl", repo, tmp / "cache", arxiv, *FAST)
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert written(repo) == sorted(f"F{n}" for n in range(10))
        assert arxiv.count("/pdf/") == 10 + len(faulty)  # one retry for each failure
        assert "10 written" in result.output and " 0 failed, 0 duplicate ids" in result.output
        assert "failed:" not in result.output
    assert sorted(faulty.values()) == sorted(FAULTS)


def test_without_retries_each_failure_costs_its_paper_and_says_what_failed(env) -> None:
    """The control: what the run lost before retries, each failure named by host and status."""
    repo, tmp = env
    with ArxivStub() as arxiv:
        faulty = flaky_arxiv(arxiv, tmp / "venue.jsonl")
        host = arxiv.url.removeprefix("http://")
        args = list_args(tmp / "venue.jsonl", repo, tmp / "cache", arxiv, *FAST, "--retries", "0")
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert written(repo) == sorted(f"F{n}" for n in range(10) if f"F{n}" not in faulty)
    assert f"{len(faulty)} failed" in result.output
    said = {
        "reset": "connection reset",
        "cut": "reply cut short",
        "eof": " bytes, no %%EOF at its end) on",
        "500": "answered HTTP 500",
        "503": "answered HTTP 503",
    }
    for paper, fault in faulty.items():
        number = int(paper[1:])
        line = next(x for x in result.output.splitlines() if x.startswith(f"failed: {paper}:"))
        assert line.startswith(f"failed: {paper}: no text: {host}"), line
        assert said[fault] in line, line
        assert f"GET /pdf/2601.{number:05d} (1 try)" in line, line


def test_a_listing_page_that_fails_is_tried_again(env) -> None:
    repo, tmp = env
    with OpenReviewStub(VENUE_ID, 3) as stub:
        stub.notes_faults = ["500", "reset"]
        result = CliRunner().invoke(cli, openreview_args(repo, tmp / "cache", stub, *FAST))
        assert result.exit_code == 0, result.output
        assert len(written(repo)) == 3 and stub.count("/notes") == 3


def test_a_listing_that_keeps_failing_blames_the_server_not_the_venue_id(env) -> None:
    repo, tmp = env
    with OpenReviewStub(VENUE_ID, 3) as stub:
        stub.notes_faults = ["500"] * 3
        args = openreview_args(repo, tmp / "cache", stub, *FAST, "--retries", "2")
        result = CliRunner().invoke(cli, args)
        host = stub.url.removeprefix("http://")
    assert result.exit_code == 1
    assert (
        f"cannot list the venue's papers: {host} answered HTTP 500 to GET /notes (3 tries) "
        f"(content.venueid={VENUE_ID}, offset 0)"
    ) in result.output
    assert "not the venue id" in result.output and "check the venue id" not in result.output
    assert written(repo) == []


class _AlwaysDown(BaseHTTPRequestHandler):
    arrived = threading.Event()
    retry_after: str | None = None

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).arrived.set()
        self.send_response(503)
        if self.retry_after:
            self.send_header("Retry-After", self.retry_after)
        self.send_header("Content-Length", "0")
        self.end_headers()


class _AskingAnHour(_AlwaysDown):
    retry_after = "3600"


def test_a_back_off_ends_when_the_run_is_stopped() -> None:
    """A minute's back-off and an interrupt: the wait ends at once, the paper is deferred."""
    halt = Halt()
    with LocalServer(_AlwaysDown) as server:
        http = Polite(halt=halt, retries=5, backoff=60.0, max_wait=600.0)

        def interrupt() -> None:
            _AlwaysDown.arrived.wait(30)
            halt.cancel("interrupted")

        stopper = threading.Thread(target=interrupt)
        stopper.start()
        with pytest.raises(Deferred, match="HTTP 503; the run stopped before the next try"):
            http.request("GET", server.base_url + "/pdf/x")
        stopper.join()
        assert http.sent == 1
        http.close()


def test_a_long_retry_after_defers_and_a_deadline_ends_a_back_off() -> None:
    with LocalServer(_AskingAnHour) as server:
        http = Polite(retries=5, backoff=0.0, max_wait=5.0)
        with pytest.raises(Deferred, match="HTTP 503, and asked to wait 3600 s"):
            http.request("GET", server.base_url + "/pdf/x")
        assert http.sent == 1
    with LocalServer(_AlwaysDown) as server:
        deadline = Polite(halt=Halt(0.2), retries=5, backoff=60.0, max_wait=600.0)
        with pytest.raises(Deferred, match="the run stopped before the next try"):
            deadline.request("GET", server.base_url + "/pdf/x")
        few = Polite(retries=2, backoff=0.0)
        with pytest.raises(Unavailable, match=r"answered HTTP 503 to GET /pdf/x \(3 tries\)"):
            few.request("GET", server.base_url + "/pdf/x")
        for client in (http, deadline, few):
            client.close()
        assert deadline.sent == 1 and few.sent == 3


def test_a_full_cache_disk_names_the_folder(env) -> None:
    repo, tmp = env
    with ArxivStub() as arxiv, small_disk(tmp / "cache", "1m") as cache:
        arxiv.papers["2601.00001"] = text_pdf(paper_lines("Z1"))
        (tmp / "venue.jsonl").write_text(
            json.dumps({"id": "Z1", "title": "Z", "arxiv": "2601.00001"})
        )
        fill(cache)
        result = CliRunner().invoke(cli, list_args(tmp / "venue.jsonl", repo, cache, arxiv))
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        assert f"cannot write {cache}/" in result.output
        assert "no space left on the device" in result.output
        assert f"hint: the disk that holds the cache folder {cache}" in result.output
        assert "or pass --cache DIR on another disk" in result.output
        (cache / "filler").unlink()  # the control: room again, and the run goes on
        again = CliRunner().invoke(cli, list_args(tmp / "venue.jsonl", repo, cache, arxiv))
        assert again.exit_code == 0, again.output
        assert written(repo) == ["Z1"]
