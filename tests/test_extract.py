"""Drafting claims from a paper through a local chat-completions server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.validate import validate_repo
from tests.fake_llm import FakeLLM

GOOD = json.dumps(
    {
        "title": "Fast Trajectories",
        "claims": [
            {
                "statement": "One-step sampling is at least 8x faster than the teacher.",
                "anchor": "Table 3",
                "kind": "efficiency",
                "target": {
                    "metric": "speedup",
                    "form": "at_least",
                    "value": 8,
                    "unit": "dimensionless",
                    "per": None,
                    "tolerance": {"rel": 0.1},
                },
            },
            {
                "statement": "The regret is bounded for all horizons.",
                "anchor": "Theorem 2",
                "kind": "theoretical",
                "regime": {"parameter": "T", "from": 1, "to": None},
            },
        ],
    }
)
BAD_KIND = json.dumps({"claims": [{"statement": "x", "anchor": "T1", "kind": "vibes"}]})


def pdf_with_text(path: Path, text: str | None) -> Path:
    """A real PDF made with matplotlib: with a text layer, or an image only (a 'scan')."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig = plt.figure(figsize=(8.5, 11))
    if text:
        fig.text(0.05, 0.95, text, va="top", wrap=True, fontsize=9)
    else:
        fig.figimage(np.random.default_rng(0).random((200, 200)))
    fig.savefig(path, format="pdf")
    plt.close(fig)
    return path


def run(tmp_path: Path, fake: FakeLLM, paper: Path, *extra: str):
    env = {"REPROAUDIT_JUDGE_BASE_URL": fake.url, "REPROAUDIT_JUDGE_API_KEY": "k"}
    return CliRunner(env=env).invoke(
        cli, ["extract", str(paper), "--paper-id", "Fst12Trj34", "--repo", str(tmp_path), *extra]
    )


def test_draft_from_a_pdf_validates(tmp_path: Path) -> None:
    words = " ".join(["We show one-step sampling is 8x faster than diffusion (Table 3)."] * 12)
    paper = pdf_with_text(tmp_path / "paper.pdf", words)
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        result = run(tmp_path, fake, paper)
        user = fake.requests[0]["messages"][1]["content"]
    assert result.exit_code == 0, result.output
    written = tmp_path / "claims/icml2026/Fst12Trj34.yaml"
    assert result.output == f"wrote {written}\n"
    assert "8x faster" in user and user.startswith("<<<PAPER ")
    assert validate_repo(tmp_path).problems == []
    text = written.read_text()
    assert text.startswith("# Drafted by `reproaudit extract`")
    assert "title: Fast Trajectories" in text and "id: C2" in text


def test_invalid_replies_are_retried_then_refused(tmp_path: Path) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text("# A paper\n\nWe claim things. " * 10)
    with FakeLLM("scripted", replies=["not json", BAD_KIND, GOOD]) as fake:
        result = run(tmp_path, fake, paper, "--stdout")
        assert fake.count == 3
    assert result.exit_code == 0 and "speedup" in result.output
    with FakeLLM("scripted", replies=["not json", BAD_KIND]) as fake:
        result = run(tmp_path, fake, paper)
    assert result.exit_code == 1
    assert "not valid claims after 3 tries" in result.output
    assert not (tmp_path / "claims").exists()


def test_a_pdf_without_text_layer_is_a_clear_error(tmp_path: Path) -> None:
    scan = pdf_with_text(tmp_path / "scan.pdf", None)
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        result = run(tmp_path, fake, scan)
        assert fake.count == 0
    assert result.exit_code == 1
    assert "the PDF has no text layer" in result.output


@pytest.mark.parametrize("name", ["paper.docx", "missing.pdf"])
def test_other_inputs_are_refused(tmp_path: Path, name: str) -> None:
    if name.endswith(".docx"):
        (tmp_path / name).write_text("x")
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        result = run(tmp_path, fake, tmp_path / name)
    assert result.exit_code == 1


# --- hostile arguments, files and replies (issue 15) --------------------------------


def bomb_pdf(path: Path, pages: int, ops: int) -> Path:
    """A PDF whose pages each draw ``ops`` text operations from one compressed stream."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = resources
        stream = DecodedStreamObject()
        stream.set_data(b"BT /F1 12 Tf 72 700 Td " + b"(word word word word ) Tj " * ops + b"ET\n")
        page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    with open(path, "wb") as handle:
        writer.write(handle)
    return path


@pytest.fixture
def counted_pages(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a page's text was extracted."""
    from pypdf import PageObject

    calls: list[int] = []
    original = PageObject.extract_text

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PageObject, "extract_text", counting)
    return calls


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--paper-id", "../../x"], "--paper-id: '../../x' is not a paper id"),
        (["--paper-id", "ok1", "--title", "two\nlines"], "--title: must be one line"),
        (["--paper-id", "ok1", "--title", "bidi \u202e"], "--title: must be one line"),
        (["--paper-id", "ok1", "--venue", "V\x1b[31m"], "--venue: must be one line"),
        (["--paper-id", "ok1", "--venue", "v" * 300], "--venue: is 300 characters long"),
    ],
)
def test_arguments_are_checked_before_the_model_is_called(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text("We claim things. " * 20)
    env = {"REPROAUDIT_JUDGE_BASE_URL": "", "REPROAUDIT_JUDGE_API_KEY": "k"}
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        env["REPROAUDIT_JUDGE_BASE_URL"] = fake.url
        result = CliRunner(env=env).invoke(
            cli, ["extract", str(paper), "--repo", str(tmp_path), *extra]
        )
        assert fake.count == 0
    assert result.exit_code == 1
    assert message in result.output
    assert not (tmp_path / "claims").exists()
    assert not (tmp_path.parent / "x.yaml").exists()


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "paper.pdf")
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        result = run(tmp_path, fake, tmp_path / "paper.pdf")
        assert fake.count == 0
    assert result.exit_code == 1
    assert "not a regular file" in result.output


def test_a_huge_reply_or_field_is_refused(tmp_path: Path) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text("We claim things. " * 20)
    reply = json.loads(GOOD)
    huge = json.dumps({**reply, "title": "T" * 20_000_000})
    long = json.dumps({**reply, "title": "T" * 10_000})
    with FakeLLM("scripted", replies=[huge, huge, huge]) as fake:
        result = run(tmp_path, fake, paper)
        assert fake.count == 3
    assert result.exit_code == 1
    assert "(at most 1000000)" in result.output
    with FakeLLM("scripted", replies=[long, long, long]) as fake:
        result = run(tmp_path, fake, paper)
    assert result.exit_code == 1
    assert "reply.title is 10000 characters (at most 4000)" in result.output
    assert not (tmp_path / "claims").exists()


def test_a_pdf_is_read_only_up_to_the_text_budget(tmp_path: Path, counted_pages) -> None:
    from reproaudit.extract import TEXT_BUDGET, read_paper_text

    pdf = bomb_pdf(tmp_path / "long.pdf", pages=40, ops=2000)  # 40,000 characters a page
    text = read_paper_text(pdf)
    assert len(counted_pages) == 2  # not 40
    assert TEXT_BUDGET <= len(text) <= TEXT_BUDGET + 10


def test_a_pdf_is_read_up_to_its_page_cap(tmp_path: Path, counted_pages) -> None:
    from reproaudit.extract import MAX_PDF_PAGES, read_paper_text

    pdf = bomb_pdf(tmp_path / "many.pdf", pages=MAX_PDF_PAGES + 50, ops=2)
    read_paper_text(pdf)
    assert len(counted_pages) == MAX_PDF_PAGES


def test_pages_over_the_stream_limits_are_skipped(tmp_path: Path) -> None:
    """A small PDF whose pages inflate to millions of operations: skipped, said plainly."""
    pdf = bomb_pdf(tmp_path / "bomb.pdf", pages=4, ops=200_000)
    assert pdf.stat().st_size < 100_000
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        result = run(tmp_path, fake, pdf)
        assert fake.count == 0
    assert result.exit_code == 1
    assert "4 page(s) were over the limits for one page" in result.output
    assert "content over 512 KiB" in result.output


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", 'x"""; __import__("os").system("id")\ndiscrepancies: []'),
        ("anchor", "Table 1\n# injected"),
        ("anchor", "Table \u202e1"),
    ],
)
def test_a_reply_with_multi_line_or_bidi_fields_is_refused(
    tmp_path: Path, field: str, value: str
) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text("We claim things. " * 20)
    reply = json.loads(GOOD)
    if field == "title":
        reply["title"] = value
    else:
        reply["claims"][0][field] = value
    bad = json.dumps(reply)
    with FakeLLM("scripted", replies=[bad, bad, bad]) as fake:
        result = run(tmp_path, fake, paper)
    assert result.exit_code == 1
    assert "not valid claims after 3 tries" in result.output
    assert "must be one line of plain text" in result.output
    assert not (tmp_path / "claims").exists()


def test_deeply_nested_replies_are_refused_not_a_crash(tmp_path: Path) -> None:
    """JSON nested 100,000 deep used to raise RecursionError (a bug, exit 3)."""
    paper = tmp_path / "paper.md"
    paper.write_text("We claim things. " * 20)
    deep = "[" * 100_000 + "]" * 100_000
    with FakeLLM("scripted", replies=[deep]) as fake:
        result = run(tmp_path, fake, paper)
        assert fake.count == 3
    assert result.exit_code == 1, result.output
    assert "JSON nested 100000 levels deep (at most 64)" in result.output
    with FakeLLM("nested") as fake:  # the HTTP body itself
        result = run(tmp_path, fake, paper)
    assert result.exit_code == 1, result.output
    assert "levels deep (at most 64)" in result.output
    assert not (tmp_path / "claims").exists()


def test_an_existing_paper_file_is_refused_before_the_model_is_called(tmp_path: Path) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text("We show one-step sampling is 8x faster than diffusion (Table 3). " * 5)
    existing = tmp_path / "claims" / "icml2026" / "Fst12Trj34.yaml"
    existing.parent.mkdir(parents=True)
    existing.write_text("mine\n")
    with FakeLLM("scripted", replies=[GOOD]) as fake:
        result = run(tmp_path, fake, paper)
        assert fake.count == 0
        assert result.exit_code == 1
        assert "already exists; not overwriting it" in result.output
        assert existing.read_text() == "mine\n"
        printed = run(tmp_path, fake, paper, "--stdout")  # printing overwrites nothing
        assert printed.exit_code == 0 and fake.count == 1
