"""The site: a strict mkdocs-material build of real repositories, and what its pages say."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import shutil
import stat
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree as ET

import pandas as pd
import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.errors import ReproauditError
from reproaudit.site.build import build_site
from reproaudit.site.render import _el, relative
from tests.site.conftest import NOW, site_repo


def example_repo(tmp_path: Path) -> Path:
    """A copy of the site fixture repository (never the live claims/)."""
    return site_repo(tmp_path)


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
    wanted = {"index.html", "papers/index.html", "papers/Hq3VbX0tLs/index.html", "404.html"}
    assert wanted <= {p.relative_to(built).as_posix() for p in pages}
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
            if 'rel="canonical"' in match.group(0):
                continue  # the page's own address, not a request
            assert not url.startswith(("http://", "https://", "//")), f"{page}: {url}"
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html


def test_home_has_the_headline_table_charts_and_newest_verdicts(built: Path) -> None:
    text = text_of(built / "index.html")
    assert "6 papers with at least one verdict" in text
    assert "At least one claim verified 2 33.3%" in text  # kai-speedup-1 awaits a re-run
    assert "At least one claim falsified or contested 3 50.0%" in text
    assert "Newest verdicts" in text
    labels = {
        "buckets.svg": {"6 papers judged", "papers"},
        "verdicts-over-time.svg": {"claim verdicts", "verified"},
    }
    for chart, wanted in labels.items():
        svg = ET.fromstring((built / "assets/charts" / chart).read_text())  # well-formed
        texts = {"".join(t.itertext()) for t in svg.iter("{http://www.w3.org/2000/svg}text")}
        assert wanted <= texts, (chart, texts)


def test_charts_leave_matplotlib_settings_alone(site_build: tuple[Path, Path]) -> None:
    """Building leaves mkdocs' log level as it was; a chart changes no matplotlib setting
    and picks no backend."""
    import logging

    import matplotlib

    from reproaudit.repo import Corpus
    from reproaudit.site.charts import buckets_chart
    from reproaudit.site.data import load_site_data

    assert logging.getLogger("mkdocs").level == logging.NOTSET  # the build restored it
    before = dict(matplotlib.rcParams)
    backend = matplotlib.rcParams._get_backend_or_none()  # None until someone picks one
    buckets_chart(load_site_data(Corpus(site_build[0]), NOW))
    assert dict(matplotlib.rcParams) == before
    assert matplotlib.rcParams._get_backend_or_none() == backend


def test_paper_page_grid_contested_and_badge(built: Path) -> None:
    text = text_of(built / "papers/Hq3VbX0tLs/index.html")
    assert "outcome: Contested" in text
    assert "Contested claims" in text
    assert "Verified by ivan-tagger-1" in text and "Falsified by heidi-tagger-1" in text
    badge = ET.fromstring((built / "badges/Hq3VbX0tLs.svg").read_text())
    # heidi's falsification of C1 has no maintainer review yet
    assert badge.get("aria-label") == "reproaudit: contested, under review"


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
        "<title>Logbook carol-paging-1 - Audit of Example Conf 2026</title>"
        in (built / "papers/Kp4rT9vQ2x/carol-paging-1/index.html").read_text()
    )
    sitemap = (built / "sitemap.xml").read_text()
    assert "papers/Kp4rT9vQ2x/carol-paging-1/" in sitemap and "ra-shell" not in sitemap


def test_logbook_page(built: Path) -> None:
    text = text_of(built / "papers/Kp4rT9vQ2x/carol-paging-1/index.html")
    assert "Logbook carol-paging-1" in text
    assert "grows with scale" in text  # the flag growth_detected, in words (its code: a title)
    assert "Command python sweep.py" in text
    assert "Re-run passed on local" in text  # the stored re-run record
    assert "not re-run yet" in text_of(built / "papers/T5wPj8mRaK/kai-speedup-1/index.html")
    assert "Write-up" in text


def test_papers_list_is_sliced_compact_json(built: Path) -> None:
    from reproaudit.site.lists import FIELDS

    assert not (built / "assets/papers-index.json").exists()  # no file of every paper
    index = json.loads((built / "assets/papers/1.json").read_text())
    assert index["fields"] == list(FIELDS) and index["first"] == 0
    rows = {r[0]: r for r in index["rows"]}
    assert len(rows) == 7
    assert rows["Hq3VbX0tLs"][FIELDS.index("bucket")] == "contested"
    assert rows["Ue9sJ4kD7g"][FIELDS.index("bucket")] == "untested"
    assert rows["Ue9sJ4kD7g"][FIELDS.index("rerun")] == "none"
    assert rows["Hq3VbX0tLs"][FIELDS.index("authors")]  # the authors, searchable
    page = (built / "papers/index.html").read_text()
    assert 'data-slices="1"' in page and "<noscript><style>#ra-papers-form" in page


def test_feed_and_downloads(built: Path) -> None:
    feed = ET.fromstring((built / "feed.xml").read_bytes())
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = feed.findall("a:entry", ns)
    assert len(entries) == 11
    assert all(e.find("a:updated", ns).text.endswith("Z") for e in entries)
    text = gzip.decompress((built / "downloads/claims-verdicts.csv.gz").read_bytes()).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    claimed = [r for r in rows if r["logbook"]]
    assert len(claimed) == 35  # every verdict row of the 11 logbooks
    assert {r["claim_fold"] for r in rows} >= {"contested", "untested", "verified"}
    frame = pd.read_parquet(built / "downloads/claims-verdicts.parquet")
    assert len(frame) == len(rows)
    jsonl = gzip.decompress((built / "downloads/claims-verdicts.jsonl.gz").read_bytes())
    lines = jsonl.splitlines()
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


def test_a_writeup_quoting_the_shell_markers_is_shown_as_written(tmp_path: Path) -> None:
    """Markers and the shell's own URL in page text are not substituted (one pass)."""
    from reproaudit.site import plugin

    quoted = (
        f"{plugin.TITLE_MARK} {plugin.DESCRIPTION_MARK} {plugin.FEED_MARK} ra-shell-0b1c/s1/s2/"
    )
    repo = example_repo(tmp_path)
    (repo / "logbooks/T5wPj8mRaK/kai-speedup-1.md").write_text(f"# Notes\n\nQuoted: {quoted}\n")
    out = build_site(repo, tmp_path / "o", now=NOW).out
    html = (out / "papers/T5wPj8mRaK/kai-speedup-1/index.html").read_text()
    assert f"Quoted: {quoted}" in html
    assert "<title>" + plugin.TITLE_MARK not in html  # the shell's own markers are filled


def test_fill_shell_does_not_rescan_what_it_put_in() -> None:
    from reproaudit.site.plugin import CONTENT_MARK, DESCRIPTION_MARK, TITLE_MARK, fill_shell
    from reproaudit.site.render import Page

    shell = (
        f"<title>{TITLE_MARK}</title><meta content={DESCRIPTION_MARK}>"
        f'<a href="/ra-shell-0b1c/s1/">me</a>{CONTENT_MARK}'
    )
    page = Page(
        "papers/P1/index.md",
        title=f"about {DESCRIPTION_MARK}",
        html=f"<p>{TITLE_MARK} {CONTENT_MARK} ra-shell-0b1c/s1/</p>",
        description="short",
        shell=True,
    )
    filled = fill_shell(shell, page, "papers/P1/")
    assert filled == (
        f"<title>about {DESCRIPTION_MARK}</title><meta content=short>"
        f'<a href="/papers/P1/">me</a><p>{TITLE_MARK} {CONTENT_MARK} ra-shell-0b1c/s1/</p>'
    )


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


# --- issue 12: the site for its readers -------------------------------------------------

SITE = "https://audit.example.org/conf2026/"


def links_of(html_path: Path) -> list[str]:
    parser = Links()
    parser.feed(html_path.read_text(encoding="utf-8"))
    return [link for tag, link in parser.links if tag == "a"]


def test_every_paper_is_reachable_from_the_papers_page_without_javascript(built: Path) -> None:
    """Follow plain <a href> links (no script) from papers/ through the static lists."""
    start = built / "papers/index.html"
    seen, queue, papers = {start}, [start], set()
    while queue:
        page = queue.pop()
        for link in links_of(page):
            if urlparse(link).scheme or link.startswith("#"):
                continue
            target = (page.parent / urlparse(link).path).resolve() / "index.html"
            rel = target.relative_to(built.resolve()).as_posix()
            if re.fullmatch(r"papers/[^/]+/index.html", rel):
                papers.add(rel.split("/")[1])
            elif rel.startswith("browse/") and target.is_file() and target not in seen:
                seen.add(target)
                queue.append(target)
    claims = {p.stem for p in (built.parents[0] / "claims").rglob("*.yaml")}
    assert papers == claims


def test_static_lists_are_paginated_by_title_outcome_and_area(tmp_path: Path) -> None:
    from reproaudit.site import render

    repo = example_repo(tmp_path)
    old = render.PAGE_SIZE
    render.PAGE_SIZE = 3
    try:
        out = build_site(repo, tmp_path / "o", now=NOW, search=False).out
    finally:
        render.PAGE_SIZE = old
    first = text_of(out / "browse/a-z/index.html")
    assert "Showing 1–3 of 7 (page 1 of 3)." in first
    third = text_of(out / "browse/a-z/3/index.html")
    assert "All papers, A to Z (page 3 of 3)" in third
    assert "Showing 7–7 of 7 (page 3 of 3)." in third
    assert (out / "browse/outcome/contested/index.html").is_file()
    assert (out / "browse/area/theory/index.html").is_file()
    # the leaderboard pages too: page 2 exists, and is in the sitemap with an absolute URL
    assert (out / "contributors/2/index.html").is_file()
    assert f"{SITE}contributors/2/" in (out / "sitemap.xml").read_text()


def test_search_bundle_indexes_papers_contributors_and_pages(built: Path) -> None:
    from reproaudit.site.search import stand_in

    assert (built / "pagefind/pagefind.js").is_file()
    entry = json.loads((built / "pagefind/pagefind-entry.json").read_text())
    pages = sum(lang["page_count"] for lang in entry["languages"].values())
    # 7 papers, 11 contributors, the meaning page and the hand-written pages
    handwritten = len(list((built / "contribute").parents[0].glob("contribute/index.html")))
    assert pages >= 7 + 11 + 1 + handwritten
    paper = (built / "papers/Kp4rT9vQ2x/index.html").read_text()
    assert 'action="../../search/"' in paper  # the header form of every page
    # the theme's lunr index is never fetched: no form named "search" on any page
    assert 'name="search"' not in (built / "index.html").read_text()
    from reproaudit.site.search import Record

    page = stand_in(Record("papers/X/", "A <b>title</b>", "text & more", "paper"))
    assert "<b>" not in page and "A &lt;b&gt;title&lt;/b&gt;" in page


def test_every_file_is_world_readable(built: Path) -> None:
    unreadable = [
        p.relative_to(built).as_posix()
        for p in built.rglob("*")
        if not stat.S_IMODE(p.stat().st_mode) & stat.S_IROTH
    ]
    assert unreadable == []


def test_every_flag_verdict_and_outcome_is_explained_for_readers(built: Path) -> None:
    from reproaudit.fold import BUCKETS
    from reproaudit.models import FLAGS, VERDICTS
    from reproaudit.site import words

    html = (built / "meaning/index.html").read_text()
    for flag in FLAGS:
        assert flag in words.FLAGS, f"flag {flag} has no plain label in site/words.py"
        assert f'id="flag-{flag}"' in html
    for verdict in VERDICTS:
        assert f'id="verdict-{verdict}"' in html
    for bucket in BUCKETS:
        assert f'id="outcome-{bucket}"' in html
    for marker in ("stale", "superseded", "under_review", "typed", "rerun"):
        assert f'id="marker-{marker}"' in html


def test_flags_show_plain_labels_with_the_code_as_their_title(built: Path) -> None:
    html = (built / "papers/Kp4rT9vQ2x/index.html").read_text()
    assert (
        '<a class="ra-flag" href="../../meaning/#flag-growth_detected" '
        'title="flag growth_detected">grows with scale</a>' in html
    )
    assert ">growth_detected<" not in html
    assert "(flag growth_detected)" not in html  # the title is read as the description


def test_typed_and_rerun_numbers_look_different(built: Path) -> None:
    html = (built / "papers/Kp4rT9vQ2x/carol-paging-1/index.html").read_text()
    assert '<span class="ra-value--rerun">8→0.909</span>' in html
    typed = (built / "papers/T5wPj8mRaK/kai-speedup-1/index.html").read_text()
    assert "ra-value--typed" in typed and "ra-value--rerun" not in typed


def test_logbook_page_links_everything_needed_to_check_the_verdict(
    site_build: tuple[Path, Path],
) -> None:
    from tests.site.conftest import head_of

    repo, built = site_build
    commit = head_of(repo)
    page = built / "papers/Zm7Lw_3HqE/erin-asd-1/index.html"
    links = links_of(page)
    gh = "https://github.com/example/audit"
    assert f"{gh}/blob/{commit}/logbooks/Zm7Lw_3HqE/erin-asd-1.yaml" in links
    assert f"{gh}/blob/{commit}/verdicts/Zm7Lw_3HqE/erin-asd-1.yaml" in links
    assert f"{gh}/tree/{commit}/logbooks/Zm7Lw_3HqE/erin-asd-1" in links  # its code folder
    assert f"{gh}/pull/7" in links  # from the maintainer's review
    for name in ("run.json", "outputs.json"):
        assert f"../../../reruns/Zm7Lw_3HqE/erin-asd-1/{name}" in links
        published = built / "reruns/Zm7Lw_3HqE/erin-asd-1" / name
        assert published.read_bytes() == (repo / "reruns/Zm7Lw_3HqE/erin-asd-1" / name).read_bytes()
    verdict = (repo / "verdicts/Zm7Lw_3HqE/erin-asd-1.yaml").read_text()
    sha = re.search(r"input_sha256: (\w+)", verdict)[1]
    text = text_of(page)
    assert f"input_sha256 {sha}" in text
    assert "End of the re-run's log" in text
    assert "judge: rules" in text


def test_cite_this_verdict_has_bibtex_and_plain_text_with_hash_and_date(built: Path) -> None:
    html = (built / "papers/Zm7Lw_3HqE/erin-asd-1/index.html").read_text()
    cite = html[html.index('id="cite"') :]
    assert "@misc{reproaudit-Zm7Lw-3HqE-erin-asd-1," in cite
    assert "input sha256 " in cite and f"\\url{{{SITE}papers/Zm7Lw_3HqE/erin-asd-1/}}" in cite
    assert re.search(r"Judged 20\d\d-\d\d-\d\d by rules; input sha256 [0-9a-f]{64}\.", cite)


def test_site_url_makes_badges_feeds_and_sitemap_absolute(built: Path) -> None:
    paper = (built / "papers/Kp4rT9vQ2x/index.html").read_text()
    assert f"({SITE}badges/Kp4rT9vQ2x.svg)]({SITE}papers/Kp4rT9vQ2x/)" in paper
    assert f'<meta property="og:url" content="{SITE}papers/Kp4rT9vQ2x/">' in paper
    assert '<meta property="og:title" content="Trust, Then Mark' in paper
    description = re.search(r'<meta name="description" content="([^"]+)"', paper)[1]
    assert description.startswith("Trust, Then Mark") and "under review" in description
    home = (built / "index.html").read_text()
    assert re.search(r'<meta name="description" content="7 papers, \d+ claims', home)
    feed = ET.fromstring((built / "feed.xml").read_bytes())
    ns = {"a": "http://www.w3.org/2005/Atom"}
    hrefs = [link.get("href") for link in feed.iter("{http://www.w3.org/2005/Atom}link")]
    assert hrefs and all(h.startswith(SITE) for h in hrefs)
    assert feed.find("a:id", ns).text == f"{SITE}feed.xml"
    locs = re.findall(r"<loc>([^<]+)</loc>", (built / "sitemap.xml").read_text())
    assert locs and all(loc.startswith(SITE) for loc in locs)
    assert f"{SITE}papers/Kp4rT9vQ2x/carol-paging-1/" in locs


def test_mkdocs_yml_inherits_the_package_defaults_and_its_own_parent(tmp_path: Path) -> None:
    """The repository's file over the defaults (mappings merge, lists replace), its own
    INHERIT chain honoured; with no file at all, the defaults alone."""
    from reproaudit.site.build import merged_config

    (tmp_path / "base.yml").write_text("site_url: https://audit.example.org/x\nextra: {a: 1}\n")
    (tmp_path / "mkdocs.yml").write_text(
        "INHERIT: base.yml\nsite_name: Mine\ntheme: {palette: []}\nextra: {b: 2}\n"
    )
    config = merged_config(tmp_path)
    assert config["site_name"] == "Mine"
    assert config["site_url"] == "https://audit.example.org/x/"
    assert config["extra"] == {"a": 1, "b": 2, "page_scripts": config["extra"]["page_scripts"]}
    assert "papers/" in config["extra"]["page_scripts"]  # the package's, merged in
    assert config["theme"]["name"] == "material" and config["theme"]["palette"] == []
    assert config["theme"]["font"] is False  # a default kept under a partial override
    assert "INHERIT" not in config
    bare = merged_config(tmp_path / "nothing-here")
    assert bare["site_name"] == "reproaudit" and "reproaudit" in bare["plugins"]


def test_site_url_option_wins_over_mkdocs_yml(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            "build",
            "--repo",
            str(repo),
            "--out",
            str(tmp_path / "o"),
            "--paper",
            "Kp4rT9vQ2x",
            "--site-url",
            "https://fork.example.net/preview",
        ],
    )
    assert result.exit_code == 0, result.output
    paper = (tmp_path / "o/papers/Kp4rT9vQ2x/index.html").read_text()
    assert "https://fork.example.net/preview/badges/Kp4rT9vQ2x.svg" in paper
    assert "they work on this site but not in a README" not in paper


def test_without_site_url_the_badge_snippet_says_how_to_fix_it(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    (repo / "mkdocs.yml").write_text("site_name: No address yet\n")
    out = build_site(repo, tmp_path / "o", papers=["Kp4rT9vQ2x"], now=NOW, search=False).out
    text = text_of(out / "papers/Kp4rT9vQ2x/index.html")
    assert "[![reproaudit: Falsified, under review](/badges/Kp4rT9vQ2x.svg)]" in text
    assert "they work on this site but not in a README: set site_url in mkdocs.yml" in text
    # no sitemap of bare paths: the protocol wants absolute URLs
    assert not (out / "sitemap.xml").exists() and not (out / "sitemap.xml.gz").exists()


def test_feeds_linked_in_head_and_one_feed_per_paper(built: Path) -> None:
    paper = (built / "papers/Kp4rT9vQ2x/index.html").read_text()
    head = paper[: paper.index("</head>")]
    assert (
        '<link rel="alternate feed" type="application/atom+xml" '
        'title="Audit of Example Conf 2026: new verdicts" href="../../feed.xml">' in head
    )
    assert (
        'title="Verdicts on Trust, Then Mark: Near-Harmonic Robustness for '
        'Learning-Augmented Paging" href="feed.xml">' in head
    )
    home = (built / "index.html").read_text()
    assert 'href="feed.xml"' in home[: home.index("</head>")]
    assert "RA-SHELL" not in paper and "RA-SHELL" not in home
    feed = ET.fromstring((built / "papers/Kp4rT9vQ2x/feed.xml").read_bytes())
    ns = {"a": "http://www.w3.org/2005/Atom"}
    titles = [e.find("a:title", ns).text for e in feed.findall("a:entry", ns)]
    assert len(titles) == 2
    assert any("1 falsified, under review" in t for t in titles)  # carol's C1, not confirmed


def test_claim_anchors_are_visible_links(built: Path) -> None:
    html = (built / "papers/Kp4rT9vQ2x/index.html").read_text()
    assert '<th scope="row" id="C1"><a class="ra-anchor" href="#C1">C1</a>' in html


def test_falsified_under_review_shows_everywhere_until_confirmed(built: Path) -> None:
    # carol's falsification of Kp4rT9vQ2x C1: no review yet
    assert "falsified, under review" in text_of(built / "papers/Kp4rT9vQ2x/index.html")
    badge = ET.fromstring((built / "badges/Kp4rT9vQ2x.svg").read_text())
    assert badge.get("aria-label") == "reproaudit: falsified, under review"
    assert "falsified, under review" in text_of(built / "people/carol-lin/index.html")
    # erin's falsification of Zm7Lw_3HqE C1 was confirmed by a maintainer
    erin = text_of(built / "people/erin-ost/index.html")
    assert "1 falsifications confirmed, 0 falsified, under review" in erin
    assert "under review" not in ET.fromstring((built / "badges/Zm7Lw_3HqE.svg").read_text()).get(
        "aria-label"
    )


def test_falsifications_page_lists_every_falsified_claim_and_matches_home(built: Path) -> None:
    from reproaudit.fold import fold
    from reproaudit.records import load_tables
    from reproaudit.repo import Corpus

    text = text_of(built / "falsifications/index.html")
    # with a written argument (carol, erin) and without one (heidi): all three listed
    for who, state in (
        ("carol", "falsified, under review"),
        ("erin", "confirmed"),
        ("heidi", "falsified, under review"),
    ):
        assert re.search(rf"by @{who}[^|]*? {re.escape(state)}", text), who
    assert "numbers only" in text and "written" in text
    repo = built.parent
    tables = load_tables(Corpus(repo))
    claims, _ = fold(tables.verdicts, tables.reviews)
    falsified = int((claims["fold"] == "falsified").sum())
    contested = int((claims["fold"] == "contested").sum())
    assert f"{falsified} claims are falsified and {contested} contested" in text
    home = text_of(built / "index.html")
    assert f"{falsified} falsified" in home and f"{contested} contested" in home


def test_contributors_leaderboard_ranks_by_a_documented_score(built: Path) -> None:
    html = (built / "contributors/index.html").read_text()
    assert (
        "Score = 2 points per claim verified + 3 per falsification a maintainer confirmed" in html
    )
    rows = re.findall(
        r'<td class="ra-num">(\d+)</td><td>'
        r'<a href="../people/([^/]+)/">@[^<]+</a></td>'
        r'<td class="ra-num">(\d+)</td>',
        html,
    )
    assert len(rows) == 11
    scores = [int(r[2]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    ranks = [int(r[0]) for r in rows]
    assert ranks[0] == 1 and all(
        (ranks[i] == ranks[i - 1]) == (scores[i] == scores[i - 1]) for i in range(1, len(rows))
    )
    person = text_of(built / "people/carol-lin/index.html")
    assert "carol-paging-1" in person and "Trust, Then Mark" in person


def test_one_number_format_and_readable_chart_text(built: Path) -> None:
    from reproaudit.site.render import number

    assert number(1788) == "1,788" and number(6000) == "6,000"
    for chart in ("buckets.svg", "verdicts-over-time.svg"):
        svg = (built / "assets/charts" / chart).read_text()
        sizes = [float(s) for s in re.findall(r"font-size: ([\d.]+)px", svg)]
        assert sizes and min(sizes) >= 12, (chart, sizes)


def test_judge_is_named_on_paper_pages_and_feeds(built: Path) -> None:
    assert "judge: rules" in text_of(built / "papers/Kp4rT9vQ2x/index.html")
    assert "by rules." in (built / "feed.xml").read_text()


def test_a_logbook_page_shows_its_environment_as_a_table_and_numbers_as_written(
    built: Path,
) -> None:
    page = (built / "papers" / "Kp4rT9vQ2x" / "carol-paging-1" / "index.html").read_text()
    assert '<th scope="row">limit: memory</th><td><code>8 GiB</code></td>' in page
    assert '<th scope="row">image used</th><td><code>no</code></td>' in page
    assert "&#34;image_used&#34;" not in page and '"image_used"' not in page  # no raw JSON
    assert "8→0.909" in page  # a sweep point k = 8 with its value, not 8.0
    assert "8.0→" not in page


def test_the_paper_page_cites_each_logbook_and_shows_the_abstract(tmp_path: Path) -> None:
    repo = site_repo(tmp_path)
    paper = next((repo / "claims").glob("*/Hq3VbX0tLs.yaml"))
    text = paper.read_text(encoding="utf-8")
    text = text.replace(
        "paper:\n", 'paper:\n  abstract: "We tag <b>bytes</b>.\\n\\nSecond part."\n', 1
    )
    paper.write_text(text, encoding="utf-8")
    out = build_site(repo, tmp_path / "out", papers=["Hq3VbX0tLs"], now=NOW).out
    page = (out / "papers" / "Hq3VbX0tLs" / "index.html").read_text(encoding="utf-8")
    abstract = page[page.index('<h2 id="abstract">') : page.index("</section>")]
    assert (
        "<p>We tag &lt;b&gt;bytes&lt;/b&gt;.</p>" in abstract and "<p>Second part.</p>" in abstract
    )
    for logbook in ("heidi-tagger-1", "ivan-tagger-1"):
        assert f"<summary>BibTeX of logbook {logbook}</summary>" in page
        assert f"@misc{{reproaudit-Hq3VbX0tLs-{logbook}," in page
    assert '<meta name="citation_abstract" content="We tag &lt;b&gt;bytes&lt;/b&gt;.' in page


def test_the_downloads_page_gives_each_file_size_and_the_licence(built: Path) -> None:
    from reproaudit.export import DATA_LICENSE
    from reproaudit.problems import human_size

    page = (built / "downloads" / "index.html").read_text(encoding="utf-8")
    for name in ("claims-verdicts.csv.gz", "claims-verdicts.parquet", "claims-verdicts.jsonl.gz"):
        raw = (built / "downloads" / name).read_bytes()
        size = human_size(len(raw))
        if name.endswith(".gz"):
            size += f", {human_size(len(gzip.decompress(raw)))} unpacked"
        assert f">{name}</a> ({size}):" in page, name
    assert 'pd.read_csv("claims-verdicts.csv.gz")' in page
    files = sorted(p.name for p in (built / "downloads").iterdir() if p.suffix != ".html")
    assert files == [f"claims-verdicts.{ext}" for ext in ("csv.gz", "jsonl.gz", "parquet")]
    assert f'rel="license">{DATA_LICENSE[0]}</a>' in page and DATA_LICENSE[2] in page


def test_llm_votes_name_only_the_answers_that_got_votes(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    verdict = repo / "verdicts/Kp4rT9vQ2x/carol-paging-1.yaml"
    text = verdict.read_text(encoding="utf-8")
    first = "  flags:\n  - growth_detected\n"
    assert text.count(first) == 1
    votes = "  votes:\n    verified: 0\n    falsified: 3\n    toy: 0\n    inconclusive: 2\n"
    verdict.write_text(text.replace(first, first + votes), encoding="utf-8")
    out = build_site(repo, tmp_path / "o", papers=["Kp4rT9vQ2x"], now=NOW, search=False).out
    html = (out / "papers/Kp4rT9vQ2x/carol-paging-1/index.html").read_text(encoding="utf-8")
    assert '<p class="ra-note">LLM votes: 3 falsified, 2 inconclusive</p>' in html
    assert html.count("LLM votes:") == 1  # the claims without votes say nothing


def test_a_logbook_names_the_claims_it_has_no_result_for_once(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    claims = repo / "claims/icml2026/Kp4rT9vQ2x.yaml"
    extra = (
        "  - id: C5\n"
        "    statement: >-\n"
        "      The marking phase never evicts a page that the predictor trusts.\n"
        "    anchor: Lemma 3\n"
        "    kind: theoretical\n"
    )
    claims.write_text(claims.read_text(encoding="utf-8") + extra, encoding="utf-8")
    out = build_site(repo, tmp_path / "o", papers=["Kp4rT9vQ2x"], now=NOW, search=False).out
    html = (out / "papers/Kp4rT9vQ2x/carol-paging-1/index.html").read_text(encoding="utf-8")
    assert (
        '<p id="untried">No result in this logbook for <a href="../#C5">C5</a> '
        '(the paper\'s other claim, on <a href="../#claims">its page</a>).</p>'
    ) in html
    assert "never evicts a page" not in html and 'id="C5"' not in html
    assert html.count("<section>") == 4  # C1 to C4, each with its result
    paper = (out / "papers/Kp4rT9vQ2x/index.html").read_text(encoding="utf-8")
    assert 'id="C5"' in paper and "never evicts a page" in paper  # the statement lives here


def test_feeds_are_what_elementtree_writes(built: Path) -> None:
    """Feeds are written as text: each is a fixed point of ElementTree's parse and write,
    so a reader sees the XML a tree would have given, escapes included."""
    ET.register_namespace("", "http://www.w3.org/2005/Atom")
    feeds = [built / "feed.xml", *sorted(built.glob("papers/*/feed.xml"))]
    assert len(feeds) > 3
    for path in feeds:
        raw = path.read_bytes()
        assert ET.tostring(ET.fromstring(raw), encoding="utf-8", xml_declaration=True) == raw


@pytest.mark.parametrize("text", ['<b>"Q" & A</b>', "tab\there\nline", "", "é ]]> '"])
def test_a_feed_element_escapes_as_elementtree_does(text: str) -> None:
    node = ET.Element("title", {"href": text, "rel": "self"})
    node.text = text
    assert _el("title", text, href=text, rel="self") == ET.tostring(node, encoding="unicode")
