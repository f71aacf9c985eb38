"""The lean chrome in headless Chromium (issue 21): one navigation that works on a phone and
without JavaScript, the drawer on a section's pages, the palette remembered from page to page,
the back-to-top button and the copy dialog that a shared script writes."""

# ruff: noqa: F811  (the browser fixtures come from test_browser.py, used as parameters)
from __future__ import annotations

from urllib.parse import urljoin

from tests.site.test_browser import (  # noqa: F401
    DESKTOP,
    PAGE_TYPES,
    PHONE,
    browser,
    page,
    site_url,
)

SECTIONS = ["Home", "Papers", "Falsifications", "Contributors", "Downloads", "Contribute"]


def test_the_sections_are_one_row_of_links_on_a_phone_without_javascript(
    browser: object, site_url: str
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    tab = context.new_page()
    tab.goto(urljoin(site_url, PAGE_TYPES["paper"]))
    links = tab.locator("nav.ra-tabs a")
    assert links.all_inner_texts()[: len(SECTIONS)] == SECTIONS
    for i in range(links.count()):
        box = links.nth(i).bounding_box()
        assert box["height"] >= 24 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert tab.locator("[for='__drawer']").count() == 0  # no second copy of them in a drawer
    links.filter(has_text="Contribute").click()
    tab.wait_for_url("**/contribute/")
    # the section's own pages, from the drawer, which opens without JavaScript too
    tab.locator("label.md-header__button[for='__drawer']").click()
    agents = tab.locator(".md-sidebar--primary a", has_text="For coding agents")
    agents.wait_for(state="visible")
    agents.click()
    tab.wait_for_url("**/agents/")
    context.close()


def test_the_palette_chosen_on_one_page_holds_on_the_next(page: object, site_url: str) -> None:
    page.goto(site_url)
    page.locator("label[for='__palette_1']").click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.goto(urljoin(site_url, PAGE_TYPES["logbook"]))  # another depth, the same site
    assert page.get_attribute("body", "data-md-color-scheme") == "slate"
    assert page.locator("label[for='__palette_0']").is_visible()  # the way back
    assert page.errors == []


def test_back_to_top_appears_on_the_way_up_and_goes_there(page: object, site_url: str) -> None:
    page.set_viewport_size({"width": DESKTOP["width"], "height": 500})
    page.goto(urljoin(site_url, PAGE_TYPES["handwritten"]))
    button = page.locator("main > [data-md-component=top]")
    assert button.get_attribute("hidden") is not None  # drawn transparent while hidden
    page.mouse.wheel(0, 3000)
    page.wait_for_function("scrollY > 1000")
    page.mouse.wheel(0, -300)  # the theme shows it while the reader scrolls up
    page.wait_for_function("!document.querySelector('[data-md-component=top]').hidden")
    button.click()
    page.wait_for_function("scrollY === 0")
    assert page.errors == []


def test_the_copy_button_says_so_in_the_dialog(browser: object, site_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.goto(urljoin(site_url, PAGE_TYPES["paper"]))
    tab.locator("pre button[data-md-type=copy]").first.click()
    tab.locator("[data-md-component=dialog]", has_text="Copied").wait_for(state="visible")
    context.close()
