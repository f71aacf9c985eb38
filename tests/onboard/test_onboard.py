"""`reproaudit onboard` against stand-ins on 127.0.0.1: OpenReview API v2, arXiv, the model."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.validate import validate_repo
from tests.fake_llm import FakeLLM
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


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    repo = tmp_path / "repo"
    (repo / "claims").mkdir(parents=True)
    (repo / "logbooks").mkdir()
    cache = tmp_path / "cache"
    fake = FakeLLM("reply", replier=extract_reply)
    with fake:
        monkeypatch.setenv("REPROAUDIT_JUDGE_BASE_URL", fake.url)
        monkeypatch.setenv("REPROAUDIT_JUDGE_MODEL", "fake-model")
        for name in ("OPENREVIEW_TOKEN", "OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD"):
            monkeypatch.delenv(name, raising=False)
        yield repo, cache, fake


def run_openreview(repo: Path, cache: Path, stub: OpenReviewStub, *extra: str):
    return CliRunner().invoke(cli, openreview_args(repo, cache, stub, "--concurrency", "4", *extra))


def files(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted((repo / "claims").rglob("*"))
        if p.is_file()
    }


def test_a_venue_onboards_with_real_metadata_and_quoted_claims(env) -> None:
    repo, cache, fake = env
    with OpenReviewStub(VENUE_ID, 6, withdrawn=2, rejected=2) as stub:
        result = run_openreview(repo, cache, stub)
    assert result.exit_code == 0, result.output
    written = files(repo)
    assert sorted(written) == [f"claims/iclr2026/P{n:05d}x.yaml" for n in range(1, 7)]
    doc = yaml.safe_load(written["claims/iclr2026/P00001x.yaml"])
    meta = doc["paper"]
    assert meta["title"] == "Fast Sampling Study 1"
    assert meta["venue"] == "ICLR 2026"
    assert meta["track"] == "oral" and meta["tags"] == {"oral": True}
    assert meta["authors"] == [
        {"name": "Ada Lovelace", "openreview": "~Ada_Lovelace1"},
        {"name": "Alan Turing"},
    ]  # an e-mail is never copied
    assert meta["abstract"].startswith("We study fast sampling.")
    assert meta["keywords"] == ["diffusion", "sampling"]
    assert meta["license"] == "CC BY 4.0"
    assert meta["links"]["openreview"] == f"{stub.url}/forum?id=P00001x"
    assert meta["released"] == {"code": "https://github.com/lab/p00001x"}
    assert yaml.safe_load(written["claims/iclr2026/P00003x.yaml"])["paper"]["track"] == "poster"
    # two of four proposed claims survive: an invented quote and a unit pint refuses are dropped
    assert [c["quote"] for c in doc["claims"]] == [
        "Our sampler reaches an accuracy of 91.5 percent on 20,000 test images.",
        "Sampling is 8 times faster than the teacher model",
    ]
    # the scale the quote names is drafted into the target (rules version 4 compares it)
    assert doc["claims"][0]["target"]["scale"] == {"n_test": 20000}
    assert doc["review"]["status"] == "draft" and doc["review"]["dropped_claims"] == 2
    assert (
        "6 written" in result.output
        and "12 claims dropped (quote not in the text)" not in result.output
    )
    assert "6 claims dropped (quote not in the text), 6 invalid" in result.output
    assert "listing skipped" not in result.output  # the API filtered by venue id
    assert validate_repo(repo).ok
    assert fake.judging == 6
    assert not list(repo.rglob("*.pdf")) and not list(repo.rglob("*.txt"))  # texts stay outside


def test_a_second_run_sends_nothing_and_changes_nothing(env) -> None:
    repo, cache, fake = env
    with OpenReviewStub(VENUE_ID, 5) as stub:
        assert run_openreview(repo, cache, stub).exit_code == 0
        before, pdfs, model = files(repo), stub.count("/pdf/"), fake.count
        again = run_openreview(repo, cache, stub)
        assert again.exit_code == 0, again.output
        assert files(repo) == before
        assert stub.count("/pdf/") == pdfs and fake.count == model
        assert "5 unchanged" in again.output


def test_an_edited_file_survives_every_run(env) -> None:
    repo, cache, _ = env
    with OpenReviewStub(VENUE_ID, 3) as stub:
        assert run_openreview(repo, cache, stub).exit_code == 0
        path = repo / "claims/iclr2026/P00002x.yaml"
        edited = path.read_text().replace("status: draft", "status: reviewed")
        path.write_text(edited)
        stub.set_pdf("P00002x", 2, VENUE_ID, "ICLR 2026 Spotlight", version=2)  # upstream changed
        result = run_openreview(repo, cache, stub)
        assert result.exit_code == 0, result.output
        assert path.read_text() == edited
        assert "1 edited by hand (kept)" in result.output


def test_a_changed_pdf_is_redrafted_and_an_unchanged_one_reuses_its_claims(env) -> None:
    repo, cache, fake = env
    with OpenReviewStub(VENUE_ID, 3) as stub:
        assert run_openreview(repo, cache, stub).exit_code == 0
        model = fake.count
        stub.set_pdf("P00001x", 1, VENUE_ID, "ICLR 2026 Oral", version=2)
        result = run_openreview(repo, cache, stub)
        assert result.exit_code == 0, result.output
        assert fake.count == model + 1  # only the changed paper
        doc = yaml.safe_load((repo / "claims/iclr2026/P00001x.yaml").read_text())
        assert doc["claims"][0]["quote"].startswith("Our sampler reaches an accuracy of 92.5")


def test_budget_and_limit_leave_papers_for_the_next_run(env) -> None:
    repo, cache, fake = env
    with OpenReviewStub(VENUE_ID, 6) as stub:
        limited = run_openreview(repo, cache, stub, "--limit", "2")
        assert limited.exit_code == 0 and len(files(repo)) == 2
        broke = run_openreview(repo, cache, stub, "--budget", "100")
        assert broke.exit_code == 1 and "4 over budget" in broke.output
        assert len(files(repo)) == 2 and fake.count == 2  # nothing sent past the budget
        rest = run_openreview(repo, cache, stub)
        assert rest.exit_code == 0 and len(files(repo)) == 6


def test_429_with_a_reset_time_is_waited_for_or_deferred(env) -> None:
    repo, cache, _fake = env
    with OpenReviewStub(VENUE_ID, 6, limit_every=3, reset=0.2) as stub:
        result = run_openreview(repo, cache, stub)
        assert result.exit_code == 0, result.output
        assert len(files(repo)) == 6
    with OpenReviewStub(VENUE_ID, 4, limit_every=2, reset=3600) as stub:
        other = repo.parent / "repo2"
        (other / "claims").mkdir(parents=True)
        result = run_openreview(other, repo.parent / "cache2", stub, "--max-wait", "5")
        assert result.exit_code == 1
        assert "deferred" in result.output and "run the same command again" in result.output
        served = stub.count("/pdf/")
        assert served <= 2  # after the 429, no request until its reset time


def test_arxiv_first_and_spaced(env, tmp_path: Path) -> None:
    repo, cache, _fake = env
    with ArxivStub() as arxiv:
        rows = []
        for n in range(3):
            arxiv.papers[f"2601.0000{n}"] = text_pdf(paper_lines(f"A{n}"))
            rows.append(
                {
                    "id": f"A{n}",
                    "title": f"Paper {n}",
                    "authors": ["X Y"],
                    "abstract": "An abstract.",
                    "arxiv": f"2601.0000{n}",
                    "pdf": "http://127.0.0.1:9/never.pdf",
                }
            )
        listing = tmp_path / "venue.jsonl"
        listing.write_text("\n".join(json.dumps(r) for r in rows))
        result = CliRunner().invoke(cli, list_args(listing, repo, cache, arxiv, interval="0.3"))
        assert result.exit_code == 0, result.output
        times = sorted(t for t, _, path in arxiv.requests if path.startswith("/pdf/"))
        assert len(times) == 3
        assert all(b - a >= 0.29 for a, b in itertools.pairwise(times))
        doc = yaml.safe_load((repo / "claims/colt2026/A1.yaml").read_text())
        assert doc["paper"]["links"]["arxiv"] == "2601.00001"


def test_task_brief_has_the_abstract_and_the_text(env, tmp_path: Path) -> None:
    repo, cache, _fake = env
    with OpenReviewStub(VENUE_ID, 2) as stub:
        assert run_openreview(repo, cache, stub).exit_code == 0
    runner = CliRunner()
    brief = runner.invoke(cli, ["task", "P00001x", "--repo", str(repo), "--cache", str(cache)])
    assert brief.exit_code == 0, brief.output
    assert "## Abstract\n\nWe study fast sampling.\nPaper number 1." in brief.output
    assert "- Claims: a machine draft no maintainer has reviewed yet" in brief.output
    assert f"- The paper's text (cached): {cache}/text/" in brief.output
    assert (
        "> Our sampler reaches an accuracy of 91.5 percent on 20,000 test images." in brief.output
    )
    assert "- Evaluated at n_test = 20000: write it beside the number" in brief.output
    data = json.loads(
        runner.invoke(
            cli, ["task", "P00001x", "--json", "--repo", str(repo), "--cache", str(cache)]
        ).output
    )
    assert data["paper"]["abstract"].startswith("We study fast sampling.")
    assert data["text"]["cached"].startswith(f"{cache}/text/") and data["review"] == "draft"
    text = runner.invoke(
        cli, ["task", "P00001x", "--text", "--repo", str(repo), "--cache", str(cache)]
    )
    assert text.exit_code == 0 and "Paper P00001x (version 1)" in text.output


def test_task_text_fetches_once_then_reads_the_cache(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    paper = repo / "claims/colt2026/A1.yaml"
    paper.parent.mkdir(parents=True)
    with ArxivStub() as arxiv:
        arxiv.papers["2601.00001"] = text_pdf(paper_lines("A1"))
        paper.write_text(
            "paper:\n  id: A1\n  title: T\n  venue: COLT 2026\n"
            '  links: {arxiv: "2601.00001"}\nclaims_version: 1\nclaims: []\n'
        )
        args = [
            "task",
            "A1",
            "--text",
            "--repo",
            str(repo),
            "--cache",
            str(tmp_path / "c"),
            "--arxiv-url",
            arxiv.url,
        ]
        runner = CliRunner()
        brief = runner.invoke(cli, args[:2] + args[3:])
        assert "not cached; `reproaudit task A1 --text` fetches and prints it" in brief.output
        for _ in range(2):
            result = runner.invoke(cli, args)
            assert result.exit_code == 0, result.output
            assert "Paper A1 (version 1)" in result.output
        assert arxiv.count("/pdf/") == 1


def test_refresh_asks_conditionally_and_redrafts_only_a_changed_pdf(env, tmp_path: Path) -> None:
    repo, cache, fake = env
    with ArxivStub() as arxiv:
        rows = []
        for n in range(2):
            arxiv.papers[f"2601.0000{n}"] = text_pdf(paper_lines(f"R{n}"))
            rows.append({"id": f"R{n}", "title": f"Paper {n}", "arxiv": f"2601.0000{n}"})
        listing = tmp_path / "venue.jsonl"
        listing.write_text("\n".join(json.dumps(r) for r in rows))
        args = list_args(listing, repo, cache, arxiv)
        assert CliRunner().invoke(cli, args).exit_code == 0
        before, model = files(repo), fake.count
        same = CliRunner().invoke(cli, [*args, "--refresh"])
        assert same.exit_code == 0, same.output
        assert "2 unchanged" in same.output and files(repo) == before and fake.count == model
        assert arxiv.count("/pdf/") == 4  # one conditional request each, answered 304
        arxiv.papers["2601.00001"] = text_pdf(paper_lines("R1", version=2))  # a new version
        changed = CliRunner().invoke(cli, [*args, "--refresh"])
        assert changed.exit_code == 0, changed.output
        assert "1 written, 1 unchanged" in changed.output and fake.count == model + 1
        assert "92.5 percent" in (repo / "claims/colt2026/R1.yaml").read_text()
