"""The page contexts, tested directly: pure functions of a small folded ``SiteData``.

The corpus is a copy of the example repository (seven papers, eleven logbooks);
reviews are added to it to move a falsification from under review to confirmed.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reproaudit.repo import Corpus
from reproaudit.site.context import logbook_context, paper_context
from reproaudit.site.data import SiteData, load_site_data
from reproaudit.site.pages import Cell, ContestedEntry, LogbookPage, PaperPage

# the site fixture (a frozen copy of the examples), never the repository's live verdicts/
ROOT = Path(__file__).resolve().parents[1] / "data" / "repos" / "site"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
PAGING = "Kp4rT9vQ2x"  # carol falsifies C1 with an argument; bob does not
TAGGER = "Hq3VbX0tLs"  # heidi and ivan disagree on C1: contested


def load(root: Path) -> SiteData:
    return load_site_data(Corpus(root), NOW)


@pytest.fixture(scope="module")
def example() -> SiteData:
    return load(ROOT)


def test_a_paper_context_has_one_cell_per_logbook_and_claim(example: SiteData) -> None:
    page = paper_context(example, PAGING)
    assert isinstance(page, PaperPage)
    assert [lb.id for lb in page.logbooks] == [k[1] for k in example.logbooks_of(PAGING)]
    assert [c.id for c in page.claims] == [c.id for c in example.papers[PAGING].claims]
    for claim in page.claims:
        assert len(claim.cells) == len(page.logbooks)
    carol = [lb.id for lb in page.logbooks].index("carol-paging-1")
    cell = page.claims[0].cells[carol]
    assert isinstance(cell, Cell)
    assert (cell.verdict, cell.state, cell.counted) == ("falsified", "under_review", True)
    assert page.claims[0].fold == "falsified"
    assert page.bucket == "falsified" and page.bucket_label == "Falsified, under review"


def test_a_claimed_falsification_is_under_review_until_reviewed(tmp_path: Path) -> None:
    for name in ("claims", "logbooks", "verdicts"):
        shutil.copytree(ROOT / name, tmp_path / name)
    before = paper_context(load(tmp_path), PAGING)
    (f,) = before.falsifications
    assert (f.logbook, f.claim, f.state, f.machine_verdict) == (
        "carol-paging-1",
        "C1",
        "under_review",
        "falsified",
    )
    assert f.argument
    (tmp_path / "verdicts" / PAGING / "reviews.yaml").write_text(
        "reviews:\n"
        "  - {claim: C1, logbook: carol-paging-1, kind: review, stance: confirm,\n"
        "     by: maint, at: '2025-06-01T00:00:00Z'}\n",
        encoding="utf-8",
    )
    after = paper_context(load(tmp_path), PAGING)
    (f,) = after.falsifications
    assert f.state == "confirmed" and [r.by for r in f.reviews] == ["maint"]
    carol = [lb.id for lb in after.logbooks].index("carol-paging-1")
    assert after.claims[0].cells[carol].state == "confirmed"
    assert after.bucket_label == "Falsified, confirmed"  # no longer "under review"


def test_a_contested_claim_lists_both_sides(example: SiteData) -> None:
    page = paper_context(example, TAGGER)
    assert page.bucket == "contested"
    (item,) = page.contested
    assert item.claim.fold == "contested"
    assert item.verified and item.falsified
    for entry in [*item.verified, *item.falsified]:
        assert isinstance(entry, ContestedEntry) and entry.url.startswith(f"papers/{TAGGER}/")
    sides = {e.id for e in item.verified} | {e.id for e in item.falsified}
    assert sides == {lb.id for lb in page.logbooks}


def test_a_paper_with_no_logbooks_is_untested(example: SiteData) -> None:
    page = paper_context(example, "Ue9sJ4kD7g")
    assert page.logbooks == [] and page.contested == [] and page.falsifications == []
    assert {c.fold for c in page.claims} == {"untested"}
    assert page.bucket_label == "Not yet judged"


def test_a_logbook_context_shows_each_claim_and_its_rerun(example: SiteData) -> None:
    key = (PAGING, "carol-paging-1")
    page = logbook_context(example, key)
    assert isinstance(page, LogbookPage)
    assert [i.claim.id for i in page.per_claim] == [c.id for c in example.papers[PAGING].claims]
    assert page.per_claim[0].verdict == "falsified"
    assert page.writeup is not None and page.links.writeup is None  # no repo_url known
    assert page.url == "papers/Kp4rT9vQ2x/carol-paging-1/"
    assert page.cite is not None


def test_setting_rows_read_as_a_person_would() -> None:
    from reproaudit.site.context import setting_rows

    rows = setting_rows(
        {
            "sandbox": "bwrap",
            "image_used": False,
            "image_digest": None,
            "limits": {"memory_bytes": 8 << 30, "wall_s": 300, "processes": 256},
            "extra": [1, 2],
        }
    )
    assert rows == [
        ("sandbox", "bwrap"),
        ("image used", "no"),
        ("image digest", "—"),
        ("limits: memory", "8 GiB"),
        ("limits: wall", "300 s"),
        ("limits: processes", "256"),
        ("extra", "1, 2"),
    ]


def test_measured_numbers_read_as_written() -> None:
    from reproaudit.site.render import measured

    assert [measured(v) for v in (8, 8.0, 0.123456789, 2.61, 1e-7, 1e20, True, "x")] == [
        "8",
        "8",
        "0.123456789",
        "2.61",
        "1e-07",
        "1e+20",
        "True",
        "x",
    ]
