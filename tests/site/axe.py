"""axe-core in Chromium, run the same way by every browser test that wants no serious finding.

Each palette gets a fresh browser context (a page open while the scheme changes would store
the palette again: a race), each page is checked once the theme has applied the palette, and a
phone also runs axe's 24 px ``target-size`` rule, which is off by default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

PALETTES = (("light", "default"), ("dark", "slate"))
# The theme fades colours when the palette is applied after the load event: axe measuring a
# link mid-fade reads a contrast neither palette has. A fade may not have started yet when the
# palette attribute is set (styles are recomputed later), so waiting for running transitions
# alone races on a loaded machine: transitions are switched off (each colour jumps to the value
# it fades to, which is what a reader sees once it ends), styles are recomputed at once, and
# only then is "no transition running" awaited.
NO_FADES = "*, *::before, *::after { transition: none !important; animation: none !important; }"
SETTLED = (
    "() => { void getComputedStyle(document.body).color; void document.body.offsetHeight;"
    " return document.getAnimations().every(a => !(a instanceof CSSTransition)"
    " || a.playState !== 'running'); }"
)


def serious_axe_findings(
    browser: object,
    width: int,
    urls: Iterable[str],
    ready: Callable[[object, str], None] | None = None,
) -> list[str]:
    """Every serious or critical axe finding on ``urls`` in both palettes at ``width`` px,
    as "url (scheme): rule: [targets]". ``ready(page, url)`` waits for what a script draws."""
    from axe_playwright_python.sync_playwright import Axe

    phone = width < 500
    rules = {"rules": {"target-size": {"enabled": True}}} if phone else {}
    urls = list(urls)
    serious: list[str] = []
    for scheme, palette in PALETTES:
        context = browser.new_context(
            viewport={"width": width, "height": 900},
            color_scheme=scheme,
            is_mobile=phone,
            has_touch=phone,
        )
        page = context.new_page()
        for url in urls:
            page.goto(url)
            page.wait_for_function(
                "want => document.body.getAttribute('data-md-color-scheme') === want",
                arg=palette,
            )
            if ready is not None:
                ready(page, url)
            page.add_style_tag(content=NO_FADES)
            page.wait_for_function(SETTLED)
            found = Axe().run(page, options=rules)
            serious += [
                f"{url} ({scheme}): {v['id']}: {[n['target'] for n in v['nodes']][:3]}"
                for v in found.response["violations"]
                if v["impact"] in ("serious", "critical")
            ]
        context.close()
    return serious
