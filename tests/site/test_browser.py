"""The built site in headless Chromium: the papers index works, nothing leaves the
machine, and axe-core finds no serious or critical accessibility violation."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from reproaudit.site.build import build_site
from tests.site.test_build import example_repo

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


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = example_repo(tmp_path_factory.mktemp("browser"))
    out = build_site(repo, repo / "_site", now=datetime(2026, 12, 1, tzinfo=UTC)).out
    handler = functools.partial(QuietHandler, directory=str(out))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object, site_url: str) -> Iterator[object]:
    context = browser.new_context()
    page = context.new_page()
    page.requests_seen = []
    page.errors = []
    page.on("request", lambda request: page.requests_seen.append(request.url))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    context.close()


def test_papers_index_filters_sorts_and_searches(page: object, site_url: str) -> None:
    page.goto(site_url + "papers/")
    count = page.locator("#ra-count")
    count.filter(has_text="7 of 7 papers").wait_for()
    assert page.locator("#ra-papers tbody tr").count() == 7
    page.fill("#ra-q", "paging")
    count.filter(has_text="1 of 7 papers").wait_for()
    link = page.locator("#ra-papers tbody a").first
    assert link.inner_text().startswith("Trust, Then Mark")
    link.click()
    page.wait_for_url("**/papers/Kp4rT9vQ2x/")
    assert "claimed falsification, under review" in page.content()
    page.go_back()
    page.fill("#ra-q", "")
    page.select_option("#ra-bucket", "contested")
    count.filter(has_text="1 of 7 papers").wait_for()
    page.select_option("#ra-bucket", "")
    page.check("#ra-spotlight")
    spotlight = page.locator("#ra-papers tbody tr").count()
    assert 0 < spotlight < 7
    page.uncheck("#ra-spotlight")
    page.select_option("#ra-sort", "claims")
    first = page.locator("#ra-papers tbody tr").first.locator("td").nth(3).inner_text()
    last = page.locator("#ra-papers tbody tr").last.locator("td").nth(3).inner_text()
    assert int(first) >= int(last)


def test_query_string_preselects_filters(page: object, site_url: str) -> None:
    page.goto(site_url + "papers/?bucket=untested")
    page.locator("#ra-count").filter(has_text="1 of 7 papers").wait_for()


def test_no_request_leaves_the_machine_and_no_console_error(page: object, site_url: str) -> None:
    for path in (
        "",
        "papers/",
        "papers/Kp4rT9vQ2x/",
        "papers/Kp4rT9vQ2x/carol-paging-1/",
        "verdicts-and-flags/",
        "falsifications/",
        "downloads/",
    ):
        page.goto(site_url + path)
        page.wait_for_load_state("networkidle")
    outside = [u for u in page.requests_seen if not u.startswith(site_url)]
    assert outside == []
    assert page.errors == []


def test_a_paper_page_shows_its_grid_and_contested_claims(page: object, site_url: str) -> None:
    page.goto(site_url + "papers/Hq3VbX0tLs/")
    grid = page.locator("table.ra-grid")
    assert grid.locator("thead th").count() == 4  # claim, outcome, two logbooks
    assert grid.locator("tbody tr.ra-contested").count() == 1
    assert page.locator("#contested + h3").inner_text().startswith("C1:")
    assert page.get_by_role("heading", name="Verified by").is_visible()


@pytest.mark.parametrize(
    "path",
    [
        "",
        "papers/",
        "papers/Hq3VbX0tLs/",
        "papers/Kp4rT9vQ2x/carol-paging-1/",
        "verdicts-and-flags/",
        "falsifications/",
        "contributors/",
    ],
)
def test_no_serious_accessibility_violation(page: object, site_url: str, path: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    page.goto(site_url + path)
    page.wait_for_load_state("networkidle")
    results = Axe().run(page)
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == []
