"""The built site in headless Chromium, as readers use it: find a paper from any page,
browse every paper with JavaScript off, read it on a phone, in the dark, and nothing
leaves the machine. axe-core finds no serious or critical violation on any page type,
light and dark, at 1366 and 390 px."""

from __future__ import annotations

import contextlib
import functools
import re
import shutil
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from tests.localserver import LocalServer
from tests.site.axe import NO_FADES, SETTLED

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# one page of each type
PAGE_TYPES = {
    "home": "",
    "papers": "papers/",
    "list": "browse/outcome/contested/",
    "paper": "papers/Hq3VbX0tLs/",
    "logbook": "papers/Kp4rT9vQ2x/carol-paging-1/",
    "contributors": "contributors/",
    "contributor": "people/carol-lin/",
    "falsifications": "falsifications/",
    "meaning": "meaning/",
    "search": "search/?q=paging",
    "downloads": "downloads/",
    "handwritten": "verdicts-and-flags/",
    "authors": "authors/",
    "reference": "reference/data-files/",  # generated from the models: wide Markdown tables
    "a-z": "browse/a-z/",
    "ids": "ids/",
    "ids-letter": "ids/c/",
    "not-found": "404.html",
}
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


PREFIX = "/conf2026"  # the fixture's site_url path: served as a GitHub Pages project site


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        if not path.startswith(PREFIX + "/"):
            return str(Path(self.directory) / "no-such-file")
        return super().translate_path(path[len(PREFIX) :])


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serve a built site at ``http://127.0.0.1:PORT{PREFIX}/`` (its URL) until the block ends."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    with LocalServer(handler) as server:
        yield f"{server.base_url}{PREFIX}/"


@contextlib.contextmanager
def headless_chromium() -> Iterator[object]:
    """Debian's Chromium under Playwright, headless, with nothing reaching out."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def site_url(built: Path) -> Iterator[str]:
    with serving(built) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium() as chromium:
        yield chromium


def _watch(page: object) -> object:
    page.requests_seen = []
    page.errors = []
    page.on("request", lambda request: page.requests_seen.append(request.url))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport=DESKTOP)
    yield _watch(context.new_page())
    context.close()


def test_papers_index_filters_sorts_and_searches(page: object, site_url: str) -> None:
    page.goto(site_url + "papers/")
    count = page.locator("#ra-count")
    count.filter(has_text="7 of 7 papers").wait_for()
    assert page.locator("#ra-papers tbody tr").count() == 7
    page.fill("#ra-q", "paging")
    count.filter(has_text="1 of 7 papers").wait_for()
    assert urlparse(page.url).query == "q=paging"  # filters live in the URL
    link = page.locator("#ra-papers tbody a").first
    assert link.inner_text().startswith("Trust, Then Mark")
    link.click()
    page.wait_for_url("**/papers/Kp4rT9vQ2x/")
    assert "claimed falsification, under review" in page.content()
    page.go_back()
    page.fill("#ra-q", "")
    page.select_option("#ra-bucket", "contested")
    count.filter(has_text="1 of 7 papers").wait_for()
    assert urlparse(page.url).query == "bucket=contested"
    page.select_option("#ra-bucket", "")
    page.select_option("#ra-track", "spotlight")  # the fixture's `tags: {spotlight: true}`
    spotlight = page.locator("#ra-papers tbody tr").count()
    assert 0 < spotlight < 7
    page.select_option("#ra-track", "")
    page.select_option("#ra-sort", "claims")
    assert urlparse(page.url).query == "sort=claims"
    first = page.locator("#ra-papers tbody tr").first.locator("td").nth(3).inner_text()
    last = page.locator("#ra-papers tbody tr").last.locator("td").nth(3).inner_text()
    assert int(first) >= int(last)
    assert page.locator("#ra-more").is_hidden()  # nothing hidden, no "Show more"


def test_the_papers_index_does_not_jump_while_it_loads(page: object, site_url: str) -> None:
    page.add_init_script(
        "window.__shift = 0; new PerformanceObserver(list => { for (const e of "
        "list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value; })"
        ".observe({type: 'layout-shift', buffered: true});"
    )
    page.goto(site_url + "papers/")
    page.locator("#ra-count").filter(has_text="7 of 7 papers").wait_for()
    page.wait_for_timeout(300)
    assert page.evaluate("window.__shift") < 0.1  # cumulative layout shift, "good" below 0.1


def test_query_string_preselects_filters(page: object, site_url: str) -> None:
    page.goto(site_url + "papers/?bucket=untested&sort=logbooks")
    page.locator("#ra-count").filter(has_text="1 of 7 papers").wait_for()
    assert page.locator("#ra-sort").input_value() == "logbooks"


def test_an_author_search_from_the_home_page_finds_their_papers(
    page: object, site_url: str
) -> None:
    page.goto(site_url)
    page.fill("#ra-find-q", "Ferreyra")  # Lucia Ferreyra, an author of Hq3VbX0tLs
    page.press("#ra-find-q", "Enter")
    page.wait_for_url("**/search/?q=Ferreyra")
    results = page.locator("#ra-search-results li a")
    results.first.wait_for()
    titles = results.all_inner_texts()
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    assert any(h.rstrip("/").endswith("papers/Hq3VbX0tLs") for h in hrefs), (titles, hrefs)
    assert "result" in page.locator("#ra-search-status").inner_text()
    # ids and claim text are found too, and only index fragments are fetched, never one file
    page.fill("#ra-search-q", "Kp4rT9vQ2x")
    page.locator("#ra-search-results li a", has_text="Trust, Then Mark").first.wait_for()
    fetched = [u for u in page.requests_seen if "/pagefind/" in u]
    assert any("/pagefind/index/" in u or "/pagefind/fragment/" in u for u in fetched)
    assert not any(u.endswith("search_index.json") for u in page.requests_seen)
    assert page.errors == []


def test_every_paper_is_reachable_with_javascript_off(browser: object, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    page.goto(site_url + "papers/")
    assert page.locator("#ra-papers tbody tr").count() == 7  # the list is there without JS
    assert "Loading" not in page.inner_text("article")
    seen, queue, papers = set(), [site_url + "papers/"], set()
    while queue:
        url = queue.pop()
        page.goto(url)
        for href in page.eval_on_selector_all("article a[href]", "els => els.map(a => a.href)"):
            if not href.startswith(site_url):
                continue
            path = "/" + href[len(site_url) :].split("#")[0]
            if re.fullmatch(r"/papers/[^/]+/", path):
                papers.add(path.split("/")[2])
            elif path.startswith("/browse/") and href.split("#")[0] not in seen:
                seen.add(href.split("#")[0])
                queue.append(href.split("#")[0])
    context.close()
    assert len(papers) == 7


@pytest.mark.parametrize("width", [390, 768, 1366])
def test_no_page_scrolls_sideways(browser: object, site_url: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    wide = []
    for name, path in PAGE_TYPES.items():
        page.goto(urljoin(site_url, path))
        page.wait_for_load_state("networkidle")
        shown = page.evaluate("document.documentElement.scrollWidth")
        if shown > width:
            wide.append(f"{name} is {shown} px wide at {width} px")
    context.close()
    assert wide == []


def test_the_claims_grid_becomes_a_list_per_claim_on_a_phone(
    browser: object, site_url: str
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(site_url + "papers/Hq3VbX0tLs/")
    cell = page.locator("table.ra-grid tbody td").nth(1)
    assert cell.evaluate("td => getComputedStyle(td).display") == "block"
    label = cell.evaluate("td => getComputedStyle(td, '::before').content")
    # a row is the claim (th), its outcome, then one cell per logbook column
    column = page.locator("table.ra-grid thead th").nth(2).text_content() or ""
    logbook = next(b for b in ("heidi-tagger-1", "ivan-tagger-1") if b in column)
    assert logbook in label, (label, column)  # the cell says which logbook it belongs to
    assert page.locator("table.ra-grid thead").bounding_box()["height"] <= 1
    context.close()
    wide = browser.new_context(viewport=DESKTOP)
    page = wide.new_page()
    page.goto(site_url + "papers/Hq3VbX0tLs/")
    grid = page.locator("table.ra-grid")
    assert grid.locator("thead th").count() == 4  # claim, outcome, two logbooks
    assert grid.locator("tbody tr.ra-contested").count() == 1
    assert page.locator("#contested + h3").inner_text().startswith("C1:")
    assert page.get_by_role("heading", name="Verified by").is_visible()
    wide.close()


@pytest.mark.parametrize(
    ("path", "table"),
    [
        ("browse/a-z/", "ra-cols-papers"),
        ("papers/", "ra-cols-papers"),  # rows drawn by the script, from the papers' slices
        ("papers/Kp4rT9vQ2x/carol-paging-1/", "ra-cols-metrics"),
        ("people/carol-lin/", "ra-cols-person"),
        ("contributors/", "ra-cols-contributors"),
    ],
)
def test_a_card_names_each_cell_by_its_column_on_a_phone(
    browser: object, site_url: str, path: str, table: str
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(site_url + path)
    page.wait_for_load_state("networkidle")
    first = page.locator(f"table.{table}").first
    heads = first.locator("thead th").all_text_contents()
    cells = first.locator("tbody tr").first.locator("td")
    assert cells.count() == len(heads) > 2
    labels = [
        cells.nth(i).evaluate("td => getComputedStyle(td, '::before').content")
        for i in range(cells.count())
    ]
    context.close()
    assert labels == [f'"{head}: "' for head in heads]


def test_flags_read_plainly_with_the_code_name_on_hover(page: object, site_url: str) -> None:
    page.goto(site_url + "papers/Kp4rT9vQ2x/")
    flag = page.locator("a.ra-flag", has_text="grows with scale").first
    assert flag.get_attribute("title") == "flag growth_detected"
    assert flag.text_content() == "grows with scale"
    # what a screen reader hears: the plain words, then the code name as the description
    from playwright.sync_api import expect

    expect(flag).to_have_accessible_name("grows with scale")
    expect(flag).to_have_accessible_description("flag growth_detected")
    flag.click()
    page.wait_for_url("**/meaning/#flag-growth_detected")
    assert page.locator("#flag-growth_detected").is_visible()


def test_typed_and_rerun_numbers_are_visibly_different(page: object, site_url: str) -> None:
    style = "e => ['fontWeight', 'fontStyle', 'backgroundColor'].map(k => getComputedStyle(e)[k])"
    page.goto(site_url + "papers/Kp4rT9vQ2x/carol-paging-1/")
    rerun = page.locator(".ra-value--rerun").first.evaluate(style)
    page.goto(site_url + "papers/T5wPj8mRaK/kai-speedup-1/")
    typed = page.locator(".ra-value--typed").first.evaluate(style)
    assert all(r != t for r, t in zip(rerun, typed, strict=True)), (rerun, typed)


def test_dark_mode_toggle_switches_the_palette(page: object, site_url: str) -> None:
    page.goto(site_url)
    before = page.get_attribute("body", "data-md-color-scheme")
    page.locator("label[for='__palette_1']").first.click()
    page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') !== {before!r}")
    assert page.get_attribute("body", "data-md-color-scheme") == "slate"


def test_chart_text_is_shown_at_12px_or_more(page: object, site_url: str) -> None:
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        page.goto(site_url)
        page.wait_for_load_state("networkidle")
        for img in page.locator(".ra-charts img").all():
            scale = img.evaluate("i => i.getBoundingClientRect().width / i.naturalWidth")
            assert 12 * scale >= 12 - 0.01, (viewport, scale)


def test_no_request_leaves_the_machine_and_no_console_error(page: object, site_url: str) -> None:
    for path in PAGE_TYPES.values():
        if path == "404.html":
            continue
        page.goto(site_url + path)
        page.wait_for_load_state("networkidle")
    outside = [u for u in page.requests_seen if not u.startswith(site_url)]
    assert outside == []
    assert page.errors == []


# The papers list's "Show more" appears only past 100 papers: shown here so axe checks it.
REVEAL = "document.querySelectorAll('#ra-more').forEach(e => { e.hidden = false; })"


@pytest.mark.parametrize("width", ["1366", "390"])
def test_no_serious_accessibility_violation(browser: object, site_url: str, width: str) -> None:
    """axe-core on every page type, light and dark: one page per width, the palette switched
    by the colour scheme the browser reports. The phone is a touch screen without hover,
    where the theme leaves scrolling code blocks out of the tab order."""
    from axe_playwright_python.sync_playwright import Axe

    phone = width == "390"
    axe = Axe()
    serious = []
    for scheme, palette in (("light", "default"), ("dark", "slate")):
        # a fresh context per palette: the theme stores the palette it last showed, and a
        # page still open when the reported scheme changes would store it again
        context = browser.new_context(
            viewport=PHONE if phone else DESKTOP,
            is_mobile=phone,
            has_touch=phone,
            color_scheme=scheme,
        )
        page = context.new_page()
        for name, path in PAGE_TYPES.items():
            page.goto(urljoin(site_url, path))
            page.wait_for_load_state("networkidle" if name == "search" else "load")
            # with nothing stored, the theme's script picks the palette from the media query
            # after the load event: wait for it (an event, not a time)
            try:
                page.wait_for_function(
                    "want => document.body.getAttribute('data-md-color-scheme') === want",
                    arg=palette,
                    timeout=20_000,
                )
            except Exception as exc:  # playwright's TimeoutError; imported only with playwright
                if type(exc).__name__ != "TimeoutError":
                    raise
                shown = page.get_attribute("body", "data-md-color-scheme")
                raise AssertionError((name, scheme, shown)) from None
            page.evaluate(REVEAL)
            page.add_style_tag(content=NO_FADES)
            page.wait_for_function(SETTLED)  # no colour still fading into the palette
            results = axe.run(page)
            serious += [
                f"{name} ({scheme}): {v['id']} ({v['impact']}): {v['help']} — "
                f"{[n['target'] for n in v['nodes']][:3]}"
                for v in results.response["violations"]
                if v["impact"] in ("serious", "critical")
            ]
        context.close()
    assert serious == []


UNREACHABLE = """name => [...document.querySelectorAll('body *')]
  .filter(e => e.scrollWidth > e.clientWidth + 1
    && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
    && e.tabIndex < 0 && !e.querySelector('a, button, input, select, [tabindex]'))
  .map(e => name + ': ' + e.tagName + '.' + e.className)"""


@pytest.mark.parametrize("width", ["1366", "390"])
def test_scrolling_blocks_can_be_reached_by_keyboard(
    browser: object, site_url: str, width: str
) -> None:
    """Every block that scrolls sideways, on every page type, is in the tab order, on a
    desktop and on a phone without hover; the code blocks of the rules page wrap instead."""
    phone = width == "390"
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    unreachable = []
    for name, path in PAGE_TYPES.items():
        page.goto(urljoin(site_url, path))
        page.wait_for_load_state("networkidle" if name == "search" else "load")
        unreachable += page.evaluate(UNREACHABLE, name)
    page.goto(urljoin(site_url, PAGE_TYPES["handwritten"]))
    assert page.evaluate("getComputedStyle(document.querySelector('pre > code')).whiteSpace") in (
        "pre-wrap",
        "break-spaces",
    )
    context.close()
    assert unreachable == []


def test_the_check_finds_a_scrolling_block_out_of_the_tab_order(
    browser: object, site_url: str
) -> None:
    """Control: the check above sees the grid's scroll box once it leaves the tab order."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(site_url + PAGE_TYPES["paper"])
    assert page.evaluate(UNREACHABLE, "paper") == []
    page.evaluate(
        """() => { const w = document.querySelector('.ra-grid-wrap');
          w.removeAttribute('tabindex'); w.querySelectorAll('a').forEach(a => a.remove());
          w.style.width = '200px'; }"""
    )
    assert page.evaluate(UNREACHABLE, "paper") == ["paper: DIV.ra-scroll ra-grid-wrap"]
    context.close()


def test_show_more_reads_at_4_5_to_1_in_the_dark(browser: object, site_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP, color_scheme="dark")
    page = context.new_page()
    page.goto(site_url + "papers/")
    page.evaluate(REVEAL)
    colours = page.locator("#ra-more").evaluate(
        """b => { let bg = 'rgba(0, 0, 0, 0)', e = b;
          while (e && ['rgba(0, 0, 0, 0)', 'transparent'].includes(bg)) {
            bg = getComputedStyle(e).backgroundColor; e = e.parentElement; }
          return [getComputedStyle(b).color, bg]; }"""
    )
    context.close()
    assert contrast(*colours) >= 4.5, colours


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of two CSS rgb() colours."""

    def luminance(colour: str) -> float:
        rgb = [int(x) / 255 for x in re.findall(r"\d+", colour)[:3]]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_first_tab_offers_a_skip_link_to_the_content(page: object, site_url: str) -> None:
    """On every page type, the first Tab stops on "Skip to content", and the next one after
    following it is inside the page's own content (a paper's took 14 presses)."""
    missed = []
    for name, path in PAGE_TYPES.items():
        page.goto(site_url + path)
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.textContent.trim()")
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")  # the next stop is inside the page's own content
        inside = page.evaluate(
            "document.querySelector('.md-content').contains(document.activeElement)"
        )
        if focused != "Skip to content" or not inside:
            missed.append((name, focused, inside))
    assert missed == []


def test_the_paper_bibtex_has_a_copy_button_that_copies_it(browser: object, site_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_url + PAGE_TYPES["paper"])
    block = page.locator("pre", has_text="@inproceedings{Hq3VbX0tLs")
    button = block.locator("button[data-md-type=copy]")
    button.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@inproceedings{Hq3VbX0tLs,") and copied.rstrip().endswith("}")
    # each logbook's verdict too, cited under the author's name the paper file gives
    books = page.locator("details.ra-cite")
    assert books.count() == 2  # heidi-tagger-1, ivan-tagger-1
    for i in range(books.count()):
        book = books.nth(i)
        logbook = book.locator("summary").inner_text().rsplit(" ", 1)[1]
        book.locator("summary").click()
        book.locator("pre button[data-md-type=copy]").click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.startswith(f"@misc{{reproaudit-Hq3VbX0tLs-{logbook},"), copied
        assert copied.rstrip().endswith("}") and "  author = {" in copied
    context.close()


SMALLEST_TEXT = """() => {
  const out = new Set();
  for (const e of document.querySelectorAll('body *')) {
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !e.getBoundingClientRect().width || e.closest('.ra-sr')) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < 12) out.add(`${e.tagName}.${e.className} ${size}px`);
  }
  return [...out];
}"""
TAP_TARGETS = """() => [...document.querySelectorAll(
    '.md-content a.ra-flag, .md-content a.ra-chip, .md-content a.ra-bucket, '
    + '.md-content .ra-anchor')]
  .filter(e => e.getBoundingClientRect().width)
  .map(e => [e.textContent.trim(), e.getBoundingClientRect().height])
  .filter(([, h]) => h < 24)"""


def test_phone_text_is_12px_or_more_and_every_target_24px_or_spaced(
    browser: object, site_url: str
) -> None:
    """On a phone, on every page type (the theme's header, tabs and footer included): no text
    under 12 px; chips, flags and claim links 24 px tall; and axe's target-size rule (WCAG
    2.5.8, off by default) passes: every other control is 24 px or has 24 px of room."""
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    small, short, crowded = {}, {}, {}
    for name, path in PAGE_TYPES.items():
        page.goto(urljoin(site_url, path))
        page.wait_for_load_state("networkidle" if name == "search" else "load")
        small[name] = page.evaluate(SMALLEST_TEXT)
        short[name] = page.evaluate(TAP_TARGETS)
        found = Axe().run(page, options={"runOnly": {"type": "rule", "values": ["target-size"]}})
        crowded[name] = [n["target"] for v in found.response["violations"] for n in v["nodes"]]
    context.close()
    assert {k: v for k, v in small.items() if v} == {}
    assert {k: v for k, v in short.items() if v} == {}
    assert {k: v for k, v in crowded.items() if v} == {}


# what readers paste, one of each id kind, and the page it names
PASTED = [
    ("Kp4rT9vQ2x", "papers/Kp4rT9vQ2x/"),  # a paper id (OpenReview's forum id)
    ("https://openreview.net/forum?id=Kp4rT9vQ2x", "papers/Kp4rT9vQ2x/"),
    ("openreview.net/pdf?id=Zm7Lw_3HqE", "papers/Zm7Lw_3HqE/"),
    ("arXiv:2602.11873v2", "papers/Kp4rT9vQ2x/"),
    ("https://arxiv.org/abs/2602.11873v3", "papers/Kp4rT9vQ2x/"),
    ("carol-paging-1", "papers/Kp4rT9vQ2x/carol-paging-1/"),
    ("@carol-lin", "people/carol-lin/"),
]


def test_the_phone_checks_see_small_text_and_a_small_crowded_target(
    browser: object, site_url: str
) -> None:
    """Control: the checks above report a chip drawn at 10 px and a link 12 px tall beside
    another."""
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(site_url + PAGE_TYPES["paper"])
    page.evaluate(
        """() => { document.querySelector('a.ra-chip').style.fontSize = '10px';
          const p = document.createElement('p');
          p.innerHTML = '<a id="tiny" href="#" style="display:inline-block;height:12px;'
            + 'font-size:12px;line-height:12px">x</a>'
            + '<a href="#" style="display:inline-block">y</a>';
          document.querySelector('article').append(p); }"""
    )
    assert any("10px" in s for s in page.evaluate(SMALLEST_TEXT))
    found = Axe().run(page, options={"runOnly": {"type": "rule", "values": ["target-size"]}})
    assert ["#tiny"] in [n["target"] for v in found.response["violations"] for n in v["nodes"]]
    context.close()


@pytest.mark.parametrize(("pasted", "lands_on"), PASTED)
def test_an_id_pasted_into_the_header_search_opens_its_page(
    page: object, site_url: str, pasted: str, lands_on: str
) -> None:
    page.goto(site_url)
    page.fill("#ra-find-q", pasted)
    page.press("#ra-find-q", "Enter")
    page.wait_for_url(site_url + lands_on)


@pytest.mark.parametrize(("pasted", "lands_on"), PASTED)
def test_with_javascript_off_a_pasted_id_leads_to_its_page_through_the_lookup(
    browser: object, site_url: str, pasted: str, lands_on: str
) -> None:
    """The header box sends the text to the search page, which without JavaScript points to
    the static lookup: its index says what to look up in a URL, the page of the id's first
    character lists it with a link to its page. Each step is a link a reader follows."""
    from reproaudit.site.ids import normalize

    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    page.goto(site_url + "papers/")
    page.fill("#ra-find-q", pasted)
    page.press("#ra-find-q", "Enter")
    page.wait_for_url(re.compile(re.escape(site_url + "search/?q=")))
    page.locator("article a", has_text="look up an id").click()
    page.wait_for_url(site_url + "ids/")
    index = page.inner_text("article")
    assert "id=" in index and "2602.11873" in index  # what to look up in a URL
    key = normalize(pasted)  # what the reader reads off the text, as the index says
    assert key
    pager = page.locator("article nav[aria-label='Ids by first character']")
    pager.get_by_role("link", name=key[0].upper(), exact=True).click()
    while page.locator("article nav[aria-label$='by the characters that follow']").count():
        narrower = page.locator("article nav[aria-label$='by the characters that follow'] a")
        texts = [x.rstrip("…") for x in narrower.all_inner_texts()]
        step = max((x for x in texts if key.startswith(x)), key=len)  # a page too long splits
        narrower.nth(texts.index(step)).click()
    code = page.locator("code", has_text=re.compile(f"^{re.escape(key)}$"))
    row = page.locator("article tr", has=code)
    assert row.count() >= 1, key
    row.first.locator("a").click()
    page.wait_for_url(site_url + lands_on)
    context.close()


def test_the_search_script_reads_ids_as_the_build_does(page: object, site_url: str) -> None:
    from tests.site.test_ids import CASES

    page.goto(site_url + "search/")
    page.wait_for_function("window.reproauditIds !== undefined")
    for text, key in CASES:
        assert page.evaluate("t => window.reproauditIds.normalize(t)", text) == key, text
        if key:
            from reproaudit.site.ids import shard

            assert page.evaluate("k => window.reproauditIds.shard(k)", key) == shard(key)


def test_an_id_typed_on_the_search_page_is_listed_first(page: object, site_url: str) -> None:
    page.goto(site_url + "search/")
    page.fill("#ra-search-q", "Kp4rT9vQ2x")
    first = page.locator("#ra-search-results li a").first
    first.filter(has_text="Trust, Then Mark").wait_for()
    assert page.url.endswith("search/?q=Kp4rT9vQ2x")  # typing here stays here
