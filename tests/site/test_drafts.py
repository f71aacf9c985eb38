"""A draft paper (``review: {status: draft}``) is listed apart and its verdicts are not counted."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.repo import Corpus
from reproaudit.site.context import browse_lists, paper_context
from reproaudit.site.data import load_site_data

NOW = datetime(2026, 1, 1, tzinfo=UTC)
PAPER = "Tq7mV2pLx0"


def stats(repo: Path) -> dict:
    result = CliRunner().invoke(cli, ["stats", "--json", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # stderr counts stale verdicts


def test_a_draft_paper_has_no_verdict_counts_until_reviewed(mini_repo: Path) -> None:
    path = next((mini_repo / "claims").glob(f"*/{PAPER}.yaml"))
    reviewed = stats(mini_repo)
    assert reviewed["papers_judged"] == 1
    original = path.read_text()
    path.write_text(original + "review: {status: draft}\n")
    drafted = stats(mini_repo)
    assert drafted["papers_judged"] == 0 and sum(drafted["claims"].values()) == 0
    data = load_site_data(Corpus(mini_repo), NOW)
    lists = {entry["url"]: entry for entry in browse_lists(data)}
    assert [r["id"] for r in lists["browse/drafts/"]["rows"]] == [PAPER]
    assert lists["browse/a-z/"]["rows"] == []
    assert paper_context(data, PAPER).draft
    path.write_text(original + "review: {status: reviewed}\n")  # a maintainer marks it reviewed
    assert stats(mini_repo) == reviewed
