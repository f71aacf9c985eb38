"""A contested paper with twelve logbooks, read in headless Chromium at 390, 768 and 1366 px:
the claims x logbooks grid scrolls inside its own container with the claim column fixed, and
the page itself never scrolls sideways (the header spans the screen)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from reproaudit.site.build import build_site
from tests.site.axe import serious_axe_findings
from tests.site.conftest import NOW, site_repo
from tests.site.test_browser import CHROMIUM, headless_chromium, serving

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"
)
PAPER = "Kp4rT9vQ2x"
WIDTHS = (390, 768, 1366)


def crowd(repo: Path, extra: int) -> None:
    """Give the paging paper ``extra`` more logbooks, each from its own contributor."""
    folder = repo / "logbooks" / PAPER
    template = (folder / "bob-paging-1.yaml").read_text(encoding="utf-8")
    for i in range(extra):
        name = f"crowd{i:02d}-paging-1"
        text = template.replace("bob-paging-1", name)
        text = re.sub(r"github: bnakamura", f"github: crowd{i:02d}", text)
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
        shutil.copytree(folder / "bob-paging-1", folder / name)


@pytest.fixture(scope="module")
def crowded_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = site_repo(tmp_path_factory.mktemp("crowded"))
    crowd(repo, 10)  # with bob's and carol's: 12 logbooks
    report = build_site(repo, repo / "_site", papers=[PAPER], now=NOW)
    with serving(report.out) as url:
        yield f"{url}papers/{PAPER}/"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium() as chromium:
        yield chromium


@pytest.mark.parametrize("width", WIDTHS)
def test_twelve_logbooks_never_scroll_the_page_sideways(
    browser: object, crowded_url: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(crowded_url)
    assert page.locator(".ra-grid thead th").count() == 2 + 12  # claim, outcome, 12 logbooks
    # a reader's sideways scroll moves nothing, and the header spans the whole screen
    page.evaluate("window.scrollTo(5000, 0)")
    assert page.evaluate("window.scrollX") == 0
    assert page.evaluate("document.documentElement.scrollWidth") == width
    assert page.evaluate("document.querySelector('.md-header').getBoundingClientRect().width") == (
        width
    )
    context.close()


@pytest.mark.parametrize("width", (768, 1366))
def test_the_grid_scrolls_in_its_own_box_with_the_claim_column_fixed(
    browser: object, crowded_url: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(crowded_url)
    wrap = page.locator(".ra-grid-wrap")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")  # twelve columns do not fit
    claim = page.locator(".ra-grid tbody th").first
    before = claim.bounding_box()
    last_head = page.locator(".ra-grid thead th").last
    assert last_head.bounding_box()["x"] > width  # off to the right, inside the box
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    page.wait_for_function("document.querySelector('.ra-grid-wrap').scrollLeft > 0")
    after = claim.bounding_box()
    assert after["x"] == pytest.approx(before["x"], abs=1)  # the claim column stays put
    assert last_head.bounding_box()["x"] + last_head.bounding_box()["width"] <= width
    # the box is a keyboard stop with a name, so its content can be scrolled without a mouse
    assert wrap.get_attribute("tabindex") == "0" and wrap.get_attribute("aria-label")
    context.close()


def test_the_keyboard_reaches_the_grid_and_scrolls_it(browser: object, crowded_url: str) -> None:
    """Tab by Tab from the top of the page, the grid's box takes the focus, and the arrow
    keys then scroll it sideways."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(crowded_url)
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('ra-grid-wrap')"):
            break
    else:
        raise AssertionError("the grid's box never takes the focus")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('.ra-grid-wrap').scrollLeft > 0")
    assert page.evaluate("window.scrollX") == 0  # the box scrolled, not the page
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_no_serious_axe_finding_on_the_crowded_paper(
    browser: object, crowded_url: str, width: int
) -> None:
    """axe-core on the paper with twelve logbooks, light and dark (a phone with target-size)."""
    assert serious_axe_findings(browser, width, [crowded_url]) == []
