"""The papers list a reader can use, on a generated corpus whose answers are known: a compact
pager at 390, 768 and 1366 px, filters by outcome, track, re-run state and review, sort by
the date of the newest verdict, a list loaded in bounded slices (none on a first visit, never
one file with every paper), and every paper reachable with JavaScript off."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlparse

import pytest

from reproaudit.site import lists, render
from reproaudit.site.build import build_site
from tests.site.axe import serious_axe_findings
from tests.site.test_browser import CHROMIUM, headless_chromium, serving

N = 130  # papers
PAGE = 4  # rows per static page here: 33 pages A to Z, a pager that must stay compact
SLICE = 25  # rows per JSON slice here: 6 slices
NOW = datetime(2026, 12, 3, tzinfo=UTC)
TRACKS = ["oral", "spotlight", "poster", None]
# what each paper gets, by i % 6: (re-run state, claim verdict, flags, review)
KINDS = [
    ("none", None, [], None),
    ("passed", "verified", [], None),
    ("failed", "inconclusive", ["rerun_failed"], None),
    ("awaiting", "inconclusive", ["not_rerun"], None),
    ("passed", "falsified", [], None),  # under review: no maintainer has confirmed it
    ("passed", "falsified", [], "confirm"),
]
BUCKETS = {
    "none": "untested",
    "verified": "fully_reproduced",
    "inconclusive": "inconclusive",
    "falsified": "falsified",
}


def pid(i: int) -> str:
    return f"P{i:03d}list"


def title(i: int) -> str:
    return f"Study {(i * 37) % N:03d} of readable lists"  # A to Z is not the id order


def judged(i: int) -> datetime:
    return datetime(2026, 6, 1, tzinfo=UTC) + timedelta(hours=(i * 53) % N)  # all distinct


def expected(i: int) -> dict:
    rerun, verdict, _, review = KINDS[i % 6]
    return {
        "track": TRACKS[i % 4] or "",
        "rerun": rerun,
        "bucket": BUCKETS[verdict or "none"],
        "review": verdict == "falsified" and review is None,
        "updated": judged(i) if verdict else None,
    }


def write_corpus(root: Path) -> None:
    """N papers of one claim each; all but every sixth have one logbook and its verdict."""
    for sub in ("claims/conf2026", "logbooks", "verdicts"):
        (root / sub).mkdir(parents=True)
    for i in range(N):
        paper = pid(i)
        track = f"  track: {TRACKS[i % 4]}\n" if TRACKS[i % 4] else ""
        (root / "claims/conf2026" / f"{paper}.yaml").write_text(
            f"paper:\n  id: {paper}\n  title: {title(i)}\n  venue: Conf 2026\n"
            f"  authors: [{{name: Author Number{i}}}]\n  tags: {{area: theory}}\n{track}"
            "claims_version: 1\nclaims:\n"
            "  - {id: C1, statement: A checkable claim., anchor: Table 1, kind: empirical}\n",
            encoding="utf-8",
        )
        rerun, verdict, flags, review = KINDS[i % 6]
        if verdict is None:
            continue
        book = f"user{i}-1"
        (root / "logbooks" / paper).mkdir()
        (root / "logbooks" / paper / f"{book}.yaml").write_text(
            f"logbook:\n  id: {book}\n  paper: {paper}\n  claims_version: 1\n"
            f"  contributor: {{github: user{i}}}\nresults:\n  - {{claim: C1, setup: full}}\n",
            encoding="utf-8",
        )
        status = {"passed": "{status: passed}", "failed": "{status: failed}"}.get(rerun, "null")
        (root / "verdicts" / paper).mkdir()
        (root / "verdicts" / paper / f"{book}.yaml").write_text(
            f"paper: {paper}\nlogbook: {book}\ninput_sha256: '{'ab' * 32}'\n"
            f"judge: {{mode: rules, model: null}}\n"
            f"judged_at: '{judged(i):%Y-%m-%dT%H:%M:%SZ}'\nrerun: {status}\n"
            f"claims:\n  - {{claim: C1, verdict: {verdict}, evidence: known, flags: {flags}}}\n",
            encoding="utf-8",
        )
        if review:
            (root / "verdicts" / paper / "reviews.yaml").write_text(
                f"reviews:\n  - {{claim: C1, logbook: {book}, kind: review, stance: {review}, "
                "by: maintainer-mo, at: '2026-11-01T00:00:00Z'}\n",
                encoding="utf-8",
            )


@pytest.fixture(scope="module")
def built_lists(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lists") / "repo"
    write_corpus(root)
    old = render.PAGE_SIZE, lists.SLICE_SIZE
    render.PAGE_SIZE, lists.SLICE_SIZE = PAGE, SLICE
    try:
        report = build_site(root, root / "_site", now=NOW, search=False)
    finally:
        render.PAGE_SIZE, lists.SLICE_SIZE = old
    return report.out


def test_pager_window_keeps_first_last_and_neighbours() -> None:
    assert lists.pager_window(6, 66) == [1, None, 4, 5, 6, 7, 8, None, 66]
    assert lists.pager_window(1, 66) == [1, 2, 3, None, 66]
    assert lists.pager_window(66, 66) == [1, None, 64, 65, 66]
    assert lists.pager_window(4, 66) == [1, 2, 3, 4, 5, 6, None, 66]  # no "…" for one number
    assert lists.pager_window(2, 3) == [1, 2, 3]


def test_slices_hold_every_paper_once_with_its_facets(built_lists: Path) -> None:
    files = sorted((built_lists / "assets/papers").glob("*.json"), key=lambda p: int(p.stem))
    assert [p.stem for p in files] == [str(n) for n in range(1, 7)]
    assert not (built_lists / "assets/papers-index.json").exists()
    rows, seen = [], 0
    for path in files:
        body = json.loads(path.read_text())
        assert body["fields"] == list(lists.FIELDS)
        assert body["first"] == seen and 0 < len(body["rows"]) <= SLICE
        seen += len(body["rows"])
        rows += body["rows"]
    f = {name: i for i, name in enumerate(lists.FIELDS)}
    assert [r[f["id"]] for r in rows] == [pid(i) for i in sorted(range(N), key=title)]  # A to Z
    for r in rows:
        want = expected(int(r[f["id"]][1:4]))
        assert r[f["track"]] == want["track"]
        assert r[f["rerun"]] == want["rerun"]
        assert r[f["bucket"]] == want["bucket"]
        assert r[f["review"]] == (1 if want["review"] else 0)
        stamp = want["updated"]
        assert r[f["updated"]] == (f"{stamp:%Y-%m-%dT%H:%M:%SZ}" if stamp else "")
    # a paper under review reads so on its chip; one confirmed does not
    under = next(r for r in rows if r[f["review"]] == 1)
    assert under[f["outcome"]] == "Falsified, under review"


def test_a_paper_is_in_every_rerun_state_one_of_its_logbooks_is_in(tmp_path: Path) -> None:
    from reproaudit.repo import Corpus
    from reproaudit.site.data import load_site_data

    root = tmp_path / "repo"
    write_corpus(root)
    paper = pid(1)  # a passed re-run; a second logbook awaits one
    (root / "logbooks" / paper / "late-1.yaml").write_text(
        f"logbook:\n  id: late-1\n  paper: {paper}\n  claims_version: 1\n"
        "  contributor: {github: late}\nresults:\n  - {claim: C1, setup: full}\n",
        encoding="utf-8",
    )
    (root / "verdicts" / paper / "late-1.yaml").write_text(
        f"paper: {paper}\nlogbook: late-1\ninput_sha256: '{'ab' * 32}'\n"
        "judge: {mode: rules, model: null}\njudged_at: '2026-07-01T00:00:00Z'\nrerun: null\n"
        "claims:\n  - {claim: C1, verdict: inconclusive, evidence: e, flags: [not_rerun]}\n",
        encoding="utf-8",
    )
    data = load_site_data(Corpus(root), NOW)
    assert lists.rerun_states(data, paper) == ["passed", "awaiting"]
    assert lists.rerun_states(data, pid(0)) == ["none"]
    assert lists.updated(data, paper) == "2026-07-01T00:00:00Z"  # the newest of its verdicts


# --- in the browser ----------------------------------------------------------------------

browser_only = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def lists_url(built_lists: Path) -> Iterator[str]:
    with serving(built_lists) as url:  # served under /conf2026/, as a project site
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium() as chromium:
        yield chromium


@browser_only
@pytest.mark.parametrize("width", (390, 768, 1366))
def test_the_pager_stays_compact_and_nothing_scrolls_sideways(
    browser: object, lists_url: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(lists_url + "browse/a-z/16/")
    links = page.locator(".ra-pager__links")
    # previous, 1, …, 14-18, …, 33, next: not one link per page
    assert links.locator("a, [aria-current]").count() == 9
    assert links.locator("[aria-current=page]").inner_text() == "16"
    assert links.locator("a[rel=next]").get_attribute("href").endswith("17/")
    height = links.bounding_box()["height"]
    line = links.evaluate("p => parseFloat(getComputedStyle(p).lineHeight) || 20")
    assert height <= 3 * max(line, 24) + 16, f"the pager is {height} px tall at {width} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.evaluate("window.scrollTo(5000, 0)")
    assert page.evaluate("window.scrollX") == 0
    last = links.locator("a").filter(has_text=re.compile(r"^33$"))
    last.click()
    page.wait_for_url("**/browse/a-z/33/")
    assert page.locator(".ra-pager__links [aria-current=page]").inner_text() == "33"
    context.close()


def _open_list(browser: object, url: str) -> tuple[object, object, list]:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    fetched: list = []  # (url, bytes as served) of every JSON the page fetched

    def seen(response: object) -> None:
        if response.url.split("?")[0].endswith(".json"):
            fetched.append((response.url, int(response.headers.get("content-length", -1))))

    page.on("response", seen)
    page.goto(url)
    return context, page, fetched


def _show_all(page: object) -> None:
    while page.locator("#ra-more").is_visible():
        before = page.locator("#ra-papers tbody tr").count()
        page.click("#ra-more")
        page.wait_for_function(
            f"document.querySelectorAll('#ra-papers tbody tr').length > {before}"
        )


def _shown_ids(page: object) -> list[str]:
    hrefs = page.eval_on_selector_all(
        "#ra-papers tbody td:first-child > a", "a => a.map(x => x.href)"
    )
    return [h.rstrip("/").split("/")[-1] for h in hrefs]


FILTERS = [
    ("#ra-track", "oral", lambda e: e["track"] == "oral"),
    ("#ra-track", "none", lambda e: e["track"] == ""),
    ("#ra-bucket", "falsified", lambda e: e["bucket"] == "falsified"),
    ("#ra-rerun", "passed", lambda e: e["rerun"] == "passed"),
    ("#ra-rerun", "failed", lambda e: e["rerun"] == "failed"),
    ("#ra-rerun", "awaiting", lambda e: e["rerun"] == "awaiting"),
    ("#ra-rerun", "none", lambda e: e["rerun"] == "none"),
]


@browser_only
@pytest.mark.parametrize(("select", "value", "keep"), FILTERS)
def test_each_filter_lists_exactly_the_papers_it_names(
    browser: object, lists_url: str, select: str, value: str, keep: object
) -> None:
    context, page, _ = _open_list(browser, lists_url + "papers/")
    page.select_option(select, value)
    want = [pid(i) for i in sorted(range(N), key=title) if keep(expected(i))]
    assert 0 < len(want) < N
    page.locator("#ra-count").filter(has_text=f"{len(want)} of {N} papers").wait_for()
    assert len(_shown_ids(page)) == PAGE  # a page at a time, as the static lists
    _show_all(page)
    assert _shown_ids(page) == want  # A to Z, as the static lists
    assert f"{select[4:]}={value}" in urlparse(page.url).query  # a filtered list can be shared
    context.close()


@browser_only
def test_under_review_and_track_combine(browser: object, lists_url: str) -> None:
    context, page, _ = _open_list(browser, lists_url + "papers/?review=1")
    want = [pid(i) for i in sorted(range(N), key=title) if expected(i)["review"]]
    page.locator("#ra-count").filter(has_text=f"{len(want)} of {N} papers").wait_for()
    assert page.locator("#ra-review").is_checked()
    _show_all(page)
    assert _shown_ids(page) == want
    page.select_option("#ra-track", "poster")
    both = [p for p in want if expected(int(p[1:4]))["track"] == "poster"]
    page.locator("#ra-count").filter(has_text=f"{len(both)} of {N} papers").wait_for()
    _show_all(page)
    assert _shown_ids(page) == both and both
    context.close()


@browser_only
def test_sort_by_date_puts_the_newest_verdict_first_and_unjudged_last(
    browser: object, lists_url: str
) -> None:
    context, page, _ = _open_list(browser, lists_url + "papers/")
    page.select_option("#ra-sort", "newest")
    page.locator("#ra-count").filter(has_text=f"{N} of {N} papers").wait_for()
    _show_all(page)
    dated = sorted((i for i in range(N) if expected(i)["updated"]), key=judged, reverse=True)
    undated = [i for i in sorted(range(N), key=title) if not expected(i)["updated"]]
    assert _shown_ids(page) == [pid(i) for i in dated + undated]
    times = page.eval_on_selector_all(
        "#ra-papers tbody time", "t => t.map(x => x.getAttribute('datetime'))"
    )
    assert times == sorted(times, reverse=True) and len(times) == len(dated)
    page.select_option("#ra-sort", "oldest")
    page.locator("#ra-count").filter(has_text=f"{N} of {N} papers").wait_for()
    assert _shown_ids(page)[0] == pid(dated[-1])
    context.close()


@browser_only
def test_the_list_loads_in_bounded_slices_and_none_on_a_first_visit(
    browser: object, lists_url: str, built_lists: Path
) -> None:
    context, page, fetched = _open_list(browser, lists_url + "papers/")
    page.wait_for_load_state("networkidle")
    assert fetched == []  # the first paint is the static HTML; no JSON at all
    assert page.locator("#ra-papers tbody tr").count() == PAGE
    page.select_option("#ra-rerun", "awaiting")
    awaiting = sum(1 for i in range(N) if expected(i)["rerun"] == "awaiting")
    page.locator("#ra-count").filter(has_text=f"{awaiting} of {N} papers").wait_for()
    largest = max(p.stat().st_size for p in (built_lists / "assets/papers").glob("*.json"))
    assert len(fetched) == 6  # each slice once
    for url, size in fetched:
        assert "/assets/papers/" in url and 0 < size <= largest
    every = {pid(i) for i in range(N)}
    for url, _ in fetched:  # no file holds every paper
        body = (built_lists / url.split("/conf2026/", 1)[1]).read_text()
        assert not all(p in body for p in every)
    # "Show more" on the plain list A to Z fetches only the slice that holds the next rows
    context2, page2, fetched2 = _open_list(browser, lists_url + "papers/")
    page2.click("#ra-more")
    page2.locator("#ra-count").filter(has_text=f"The first {2 * PAGE} of {N} papers").wait_for()
    assert [u.rsplit("/", 1)[1] for u, _ in fetched2] == ["1.json"]
    assert page2.locator("#ra-papers tbody tr").count() == 2 * PAGE
    context.close()
    context2.close()


@browser_only
def test_every_paper_is_reachable_through_static_pages_with_javascript_off(
    browser: object, lists_url: str
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(lists_url + "papers/")
    assert page.locator("#ra-papers-form").is_hidden()  # no filters that cannot work
    papers: set[str] = set()
    url: str | None = lists_url + "papers/"
    visited = 0
    while url:
        page.goto(url)
        visited += 1
        for href in page.eval_on_selector_all("article a[href]", "a => a.map(x => x.href)"):
            match = re.search(r"/papers/([^/]+)/$", href.split("#")[0])
            if match and match[1] != "papers":
                papers.add(match[1])
        nxt = page.locator("article a[rel=next]")
        if url.endswith("/papers/"):
            nxt = page.locator("#ra-count a")
        url = nxt.first.get_attribute("href") if nxt.count() else None
        if url:
            url = page.evaluate("h => new URL(h, location.href).href", url)
        assert visited <= 40
    context.close()
    assert papers == {pid(i) for i in range(N)}


@browser_only
@pytest.mark.parametrize("width", (390, 1366))
def test_no_serious_axe_finding_on_the_pager_and_the_filtered_list(
    browser: object, lists_url: str, width: int
) -> None:
    """axe-core, light and dark, on a page of the compact pager and on the papers list with
    its filters (a phone also runs axe's 24 px target-size rule, off by default)."""
    paths = ("browse/a-z/16/", "papers/?review=1&track=poster", "papers/")

    def drawn(page: object, url: str) -> None:
        page.locator("#ra-count, .ra-pager__links").first.wait_for()

    assert serious_axe_findings(browser, width, [lists_url + p for p in paths], drawn) == []
