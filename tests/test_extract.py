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
