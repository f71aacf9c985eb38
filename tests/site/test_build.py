"""The site: a strict mkdocs-material build of real repositories, and what its pages say."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree as ET

import pandas as pd
import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.problems import ReproauditError
from reproaudit.site.build import build_site
from reproaudit.site.render import relative

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def example_repo(tmp_path: Path) -> Path:
    """A copy of this repository's own data (claims, logbooks, verdicts)."""
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks", "verdicts"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    return repo


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = example_repo(tmp_path_factory.mktemp("site"))
    report = build_site(repo, repo / "_site", now=NOW)
    assert report.judged == 0  # the repository's verdicts are all there
    return report.out


def text_of(html_path: Path) -> str:
    html = html_path.read_text(encoding="utf-8")
    body = html[html.index("<article") : html.index("</article>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append((tag, value))


def test_every_internal_link_and_asset_resolves(built: Path) -> None:
    broken = []
    pages = list(built.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for tag, link in parser.links:
            parsed = urlparse(link)
            if parsed.scheme or link.startswith(("#", "mailto:")):
                continue
            if link.startswith("/"):
                continue  # root-relative badge snippets, shown as text to copy
            target = (page.parent / unquote(parsed.path)).resolve()
            if parsed.path.endswith("/") or parsed.path in ("", "."):
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(built)}: <{tag}> {link}")
    assert broken == []


def test_the_site_makes_no_third_party_request(built: Path) -> None:
    for page in built.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for match in re.finditer(
            r'<(?:script|link|img|iframe)\b[^>]*?(?:src|href)="([^"]+)"', html
        ):
            url = match.group(1)
            assert not url.startswith(("http://", "https://", "//")), f"{page}: {url}"
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html


def test_home_has_the_headline_table_charts_and_newest_verdicts(built: Path) -> None:
    text = text_of(built / "index.html")
    assert "6 papers with at least one verdict" in text
    assert "At least one claim verified 3 50.0%" in text
    assert "At least one claim falsified or contested 3 50.0%" in text
    assert "Newest verdicts" in text
    for chart in ("buckets.svg", "verdicts-over-time.svg"):
        svg = (built / "assets/charts" / chart).read_text()
        ET.fromstring(svg)  # well-formed
        assert "<text" in svg or "font" in svg


def test_paper_page_grid_contested_and_badge(built: Path) -> None:
    text = text_of(built / "papers/Hq3VbX0tLs/index.html")
    assert "outcome: Contested" in text
    assert "Contested claims" in text
    assert "Verified by ivan-tagger-1" in text and "Falsified by heidi-tagger-1" in text
    badge = ET.fromstring((built / "badges/Hq3VbX0tLs.svg").read_text())
    assert badge.get("aria-label") == "reproaudit: contested"


def test_discrepancies_and_a_claimed_falsification_under_review(built: Path) -> None:
    text = text_of(built / "papers/r8GdN2-yUc/index.html")
    assert "Where the code differs from the paper" in text
    paging = text_of(built / "papers/Kp4rT9vQ2x/index.html")
    assert "claimed falsification, under review" in paging
    listing = text_of(built / "falsifications/index.html")
    assert "under review" in listing


def test_generated_pages_have_one_title(built: Path) -> None:
    for page in (
        "index.html",
        "papers/Hq3VbX0tLs/index.html",
        "papers/Kp4rT9vQ2x/carol-paging-1/index.html",
    ):
        html = (built / page).read_text()
        assert html.count("<h1") == 1, page
        assert "RA-SHELL" not in html and "ra-shell" not in html
    assert (
        "<title>Logbook carol-paging-1 - reproaudit</title>"
        in (built / "papers/Kp4rT9vQ2x/carol-paging-1/index.html").read_text()
    )
    sitemap = (built / "sitemap.xml").read_text()
    assert "papers/Kp4rT9vQ2x/carol-paging-1/" in sitemap and "ra-shell" not in sitemap


def test_logbook_page(built: Path) -> None:
    text = text_of(built / "papers/Kp4rT9vQ2x/carol-paging-1/index.html")
    assert "Logbook carol-paging-1" in text
    assert "growth_detected" in text
    assert "Command python sweep.py" in text
    assert "Re-run passed on local" in text  # the stored re-run record
    assert "not re-run yet" in text_of(built / "papers/T5wPj8mRaK/kai-speedup-1/index.html")
    assert "Write-up" in text


def test_papers_index_is_compact_json(built: Path) -> None:
    index = json.loads((built / "assets/papers-index.json").read_text())
    assert index["fields"] == [
        "id",
        "title",
        "bucket",
        "area",
        "spotlight",
        "claims",
        "logbooks",
        "text",
    ]
    rows = {r[0]: r for r in index["papers"]}
    assert len(rows) == 7
    assert rows["Hq3VbX0tLs"][2] == "contested"
    assert rows["Ue9sJ4kD7g"][2] == "untested"
    # paper pages stay out of the search index; hand-written pages are in it
    search = json.loads((built / "search/search_index.json").read_text())
    locations = {d["location"].split("#")[0] for d in search["docs"]}
    assert "verdicts-and-flags/" in locations
    assert not any(loc.startswith("papers/Hq3VbX0tLs") for loc in locations)


def test_feed_and_downloads(built: Path) -> None:
    feed = ET.fromstring((built / "feed.xml").read_bytes())
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = feed.findall("a:entry", ns)
    assert len(entries) == 11
    assert all(e.find("a:updated", ns).text.endswith("Z") for e in entries)
    rows = list(csv.DictReader(io.StringIO((built / "downloads/claims-verdicts.csv").read_text())))
    claimed = [r for r in rows if r["logbook"]]
    assert len(claimed) == 35  # every verdict row of the 11 logbooks
    assert {r["claim_fold"] for r in rows} >= {"contested", "untested", "verified"}
    frame = pd.read_parquet(built / "downloads/claims-verdicts.parquet")
    assert len(frame) == len(rows)
    lines = (built / "downloads/claims-verdicts.jsonl").read_text().splitlines()
    assert len(lines) == len(rows) and json.loads(lines[0])["paper"]


def test_relative_links() -> None:
    assert relative("papers/P/", "papers/P/L/") == "L/"
    assert relative("papers/P/L/", "assets/x.json") == "../../../assets/x.json"
    assert relative("", "papers/") == "papers/"
    assert relative("papers/", "verdicts-and-flags/") == "../verdicts-and-flags/"


def test_paper_option_builds_only_that_paper(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    report = build_site(repo, tmp_path / "out", papers=["Kp4rT9vQ2x"], now=NOW)
    built = sorted(p.name for p in (report.out / "papers").iterdir() if p.is_dir())
    assert built == ["Kp4rT9vQ2x"]
    assert (report.out / "papers/Kp4rT9vQ2x/carol-paging-1/index.html").is_file()
    assert sorted(p.name for p in (report.out / "badges").iterdir()) == ["Kp4rT9vQ2x.svg"]
    with pytest.raises(ReproauditError, match="no paper Nope"):
        build_site(repo, tmp_path / "out2", papers=["Nope"], now=NOW)


def test_missing_verdicts_are_judged_offline_first(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    shutil.rmtree(repo / "verdicts")
    result = CliRunner().invoke(cli, ["build", "--repo", str(repo), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "(11 logbook(s) judged first, in memory;" in result.output
    # judged in memory: the site shows them, verdicts/ stays as it was (only `judge` writes)
    assert not (repo / "verdicts").exists()
    assert "falsified" in (tmp_path / "o/papers/Zm7Lw_3HqE/index.html").read_text()


def test_a_repository_customises_settings_and_pages(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    (repo / "mkdocs.yml").write_text(
        "site_name: Audit of Conf 2026\nsite_url: https://audit.example.org/\n"
    )
    (repo / "site").mkdir()
    (repo / "site/contribute.md").write_text("# Contribute here\n\nOur own rules.\n")
    out = build_site(repo, tmp_path / "o", now=NOW).out
    assert "Audit of Conf 2026" in (out / "index.html").read_text()
    assert "Our own rules." in text_of(out / "contribute/index.html")
    paper = (out / "papers/Kp4rT9vQ2x/index.html").read_text()
    assert "https://audit.example.org/badges/Kp4rT9vQ2x.svg" in paper


def test_untrusted_writeup_cannot_inject_markup(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    writeup = repo / "logbooks/T5wPj8mRaK/kai-speedup-1.md"
    writeup.write_text("# Notes\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n")
    notes = repo / "logbooks/T5wPj8mRaK/kai-speedup-1.yaml"
    notes.write_text(notes.read_text().replace("results:", "results:", 1))
    out = build_site(repo, tmp_path / "o", now=NOW).out
    html = (out / "papers/T5wPj8mRaK/kai-speedup-1/index.html").read_text()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript:' not in html


def test_a_failed_build_keeps_the_previous_site(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    out = build_site(repo, tmp_path / "o", now=NOW).out
    marker = out / "index.html"
    before = marker.read_bytes()
    (repo / "mkdocs.yml").write_text("theme: {name: no-such-theme}\n")
    with pytest.raises(ReproauditError):
        build_site(repo, out, now=NOW)
    assert marker.read_bytes() == before
    assert not any(p.name.startswith(".reproaudit-build-") for p in out.parent.iterdir())


def test_stale_verdicts_are_shown_and_marked(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    book = repo / "logbooks/T5wPj8mRaK/kai-speedup-1.yaml"
    book.write_text(book.read_text() + "\n")
    out = build_site(repo, tmp_path / "o", now=NOW, judge_missing=False).out
    assert "This verdict is stale" in text_of(out / "papers/T5wPj8mRaK/kai-speedup-1/index.html")
    assert "stale" in text_of(out / "papers/T5wPj8mRaK/index.html")
