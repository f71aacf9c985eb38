"""A site that fits several venues: the theme's chrome is small, shared, and does not grow
with the corpus (issue 21). Sizes here are bytes, never seconds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reproaudit.site.build import build_site
from reproaudit.site.slim import SPRITE, Shared, collapse_spaces, slim_page
from tests.site.conftest import NOW, site_repo

PAPER = "Kp4rT9vQ2x"  # a fixture paper with two logbooks
TEMPLATE = "Ue9sJ4kD7g"  # a fixture paper without logbooks, copied to grow the corpus
# bytes of a generated page's <body> outside its <article>: header, tabs, drawer, footer,
# scripts (the <head> is mostly the page's own: title, description, citation tags)
CHROME_BUDGET = 2_200  # 2,080 with the lean chrome; 7,530 with the slimmed theme; 17,700 before


def chrome_of(page: Path) -> str:
    """A built page without its own content: what the theme repeats on every page."""
    html = page.read_text(encoding="utf-8")
    return html[: html.index("<article")] + html[html.rindex("</article>") :]


def grow(repo: Path, total: int) -> None:
    """Copy the template paper until the corpus has ``total`` papers."""
    folder = repo / "claims" / "icml2026"
    template = (folder / f"{TEMPLATE}.yaml").read_text(encoding="utf-8")
    have = len(list(folder.glob("*.yaml")))
    for i in range(total - have):
        new = f"Gw{i:08d}"
        text = template.replace(TEMPLATE, new).replace("Look-Ahead Features", f"Copy {i}")
        (folder / f"{new}.yaml").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The fixture grown to 20 and to 80 papers, each built (no search: sizes only)."""
    out = {}
    for total in (20, 80):
        repo = site_repo(tmp_path_factory.mktemp(f"grown{total}"))
        grow(repo, total)
        out[total] = build_site(repo, repo / "_site", now=NOW, search=False).out
    return out


def test_a_paper_page_does_not_grow_with_the_corpus(sites: dict[int, Path]) -> None:
    small, large = (sites[n] / "papers" / PAPER / "index.html" for n in (20, 80))
    assert len(list((sites[80] / "papers").glob("Gw*/index.html"))) == 80 - 7
    # the chrome (header, tabs, drawer, footer) is the same bytes at 20 and at 80 papers...
    assert len(chrome_of(large).encode()) - len(chrome_of(small).encode()) <= 64
    # ...and so is the whole page: nothing on it lists the other papers
    assert large.stat().st_size - small.stat().st_size <= 256
    # the same for a logbook page and a hand-written page
    for rel in (f"papers/{PAPER}/bob-paging-1/index.html", "meaning/index.html"):
        grown = (sites[80] / rel).stat().st_size - (sites[20] / rel).stat().st_size
        assert grown <= 256, (rel, grown)


def test_the_chrome_of_a_page_stays_within_its_budget(sites: dict[int, Path]) -> None:
    for rel in (f"papers/{PAPER}/index.html", f"papers/{PAPER}/bob-paging-1/index.html"):
        chrome = chrome_of(sites[80] / rel)
        size = len(chrome[chrome.index("<body") :].encode())
        assert size <= CHROME_BUDGET, f"{rel}: {size} bytes of chrome"


def test_one_navigation_the_sections_once_and_a_drawer_only_within_a_section(
    sites: dict[int, Path],
) -> None:
    paper = chrome_of(sites[80] / "papers" / PAPER / "index.html")
    # a paper page lists the sections once, in the tab row, and has no drawer or sidebar nav
    tabs = re.search(r'<nav class="ra-tabs"[^>]*>(.*?)</nav>', paper, re.S)
    assert tabs, paper
    links = re.findall(r'<a href="([^"]+)"', tabs[1])
    assert links == [
        "../..",
        "../../papers/",
        "../../falsifications/",
        "../../contributors/",
        "../../downloads/",
        "../../contribute/",
        "../../reference/data-files/",
    ]
    assert 'data-md-type="navigation"' not in paper and 'for="__drawer"' not in paper
    assert paper.count('href="../../contribute/"') == 1
    # the drawer toggle the theme's script reads is still there (a missing one is an error)
    assert 'data-md-toggle="drawer"' in paper and 'data-md-toggle="search"' in paper
    # on a section's own pages, its pages are listed (so each is two clicks from home), and
    # the section is marked in the tab row
    contribute = chrome_of(sites[80] / "contribute" / "index.html")
    drawer = contribute[contribute.index('data-md-type="navigation"') :]
    assert "../agents/" in drawer and "../verdicts-and-flags/" in drawer
    assert 'for="__drawer"' in contribute  # the button that opens it on a phone
    assert re.search(r'<a href="\./"[^>]*aria-current="true">Contribute</a>', contribute)
    # the theme's credit on the home page, not on every page
    assert "Material for MkDocs" not in paper
    assert "Material for MkDocs" in (sites[80] / "index.html").read_text(encoding="utf-8")


def test_icons_and_the_palette_script_are_shared_files(sites: dict[int, Path]) -> None:
    site = sites[20]
    sprite = (site / SPRITE).read_text(encoding="utf-8")
    symbols = set(re.findall(r'<symbol id="([^"]+)"', sprite))
    assert len(symbols) >= 4  # logo, menu (on a section's pages), repository, top
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        chrome = html if "<article" not in html else chrome_of(page)
        if page.name == "404.html":
            continue  # the theme's static page, served at every depth: left as it is
        assert "<path" not in chrome, f"{page}: an inline icon in the chrome"
        for ref in re.findall(r'<use href="([^"#]+)#([^"]+)"', html):
            assert (page.parent / ref[0]).resolve() == (site / SPRITE).resolve(), page
            assert ref[1] in symbols, f"{page}: no symbol {ref[1]} in the sprite"
        for src in re.findall(r'<script src="([^"]+)"', html):
            assert (page.parent / src).resolve().is_file(), f"{page}: {src}"
    # the palette switch still runs where the theme put it: in the header, before the search
    paper = (site / "papers" / PAPER / "index.html").read_text(encoding="utf-8")
    header = paper[paper.index("<header") : paper.index("</header>")]
    shared = re.search(r'<script src="(\.\./\.\./assets/javascripts/ra-shared/\w+\.js)"', header)
    assert shared, header
    assert "__palette" in (site / "papers" / PAPER / shared[1]).read_text(encoding="utf-8")


# --- slim.py on its own -----------------------------------------------------------------


def test_whitespace_is_collapsed_but_never_inside_pre_textarea_script_or_style() -> None:
    text = (
        "<div>\n    <span>  a  </span>\n\n</div><pre>  keep\n\n  this </pre>"
        "<textarea>\n  x  </textarea><script>if (a  <  b) {\n  go() }</script>"
        "<STYLE>p  {  }</STYLE>"
    )
    assert collapse_spaces(text) == (
        "<div>\n<span> a </span>\n</div><pre>  keep\n\n  this </pre>"
        "<textarea>\n  x  </textarea><script>if (a  <  b) {\n  go() }</script>"
        "<STYLE>p  {  }</STYLE>"
    )


def test_a_page_keeps_its_article_byte_for_byte() -> None:
    article = (
        '<article class="md-content__inner">\n  <pre>  two  spaces </pre>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><path d="M0 0h4"/></svg>\n'
        "<script>" + "x();" * 200 + "</script>  </article>"
    )
    icon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M1 1"/></svg>'
    script = "<script>" + "palette();" * 50 + "</script>"
    page = f"<header>\n   {icon}\n  {script}\n</header>\n{article}\n  <footer>{icon}</footer>"
    shared = Shared()
    slim = slim_page(page, "../../", shared)
    assert article in slim  # the content (a chart, a script of its own) is untouched
    assert slim.count('<use href="../../assets/images/ra-icons.svg#') == 2
    assert len(shared.icons) == 1
    (path,) = shared.scripts
    assert f'<script src="../../{path}"></script>' in slim
    assert shared.scripts[path] == "palette();" * 50
    # the sprite holds the icon once, with its viewBox, in the same bytes every time
    assert '<symbol id="i' in shared.sprite() and 'viewBox="0 0 24 24"><path d="M1 1"/>' in (
        shared.sprite()
    )


def test_short_or_depth_bound_inline_scripts_stay_inline() -> None:
    short = "<script>var a=1</script>"
    bound = "<script>__md_scope=new URL('../..',location);" + "f();" * 200 + "</script>"
    shared = Shared()
    assert slim_page(short + bound, "../", shared) == short + bound
    assert shared.scripts == {}


def test_the_theme_search_settings_stay_when_its_search_box_is_on_the_page() -> None:
    config = (
        '<script id="__config" type="application/json">{"base": "..", "search": "w.js", '
        '"translations": {"clipboard.copy": "Copy", "search.result.none": "None"}, '
        '"tags": null}</script>'
    )
    button = '<label class="md-header__button md-icon" for="__search"><svg x></svg></label>'
    own = f'<header>{button}<div data-md-component="search"></div></header><article></article>'
    kept = slim_page(own + config, "../", Shared())
    assert kept.endswith(
        '<script id="__config" type="application/json">{"base":"..","search":"w.js",'
        '"translations":{"clipboard.copy":"Copy","search.result.none":"None"}}</script>'
    )  # its settings stay (the empty keys go), inline: they hold links from the page
    assert button in kept
    # without it, the button and what only the box reads go, and the empty keys
    plain = f"<header>{button}</header><article></article>{config}"
    shared = Shared()
    slim = slim_page(plain, "../", shared)
    assert button not in slim and "__config" not in slim
    (source,) = shared.scripts.values()  # the configuration, written by a shared script
    assert 'config = {"translations":{"clipboard.copy":"Copy"}}' in source


def test_stylesheets_in_a_row_become_one_joined_file_in_their_folder() -> None:
    links = (
        '<link rel="stylesheet" href="../a/main.css">\n'
        '<link rel="stylesheet" href="../a/extra.css">\n'
    )
    shared = Shared(
        css={
            "a/main.css": "p{color:red}\n/*# sourceMappingURL=main.css.map */",
            "a/extra.css": "p{color:blue}",
        }
    )
    slim = slim_page(f"<head>{links}</head><article></article>", "../", shared)
    (path,) = shared.styles
    assert path.startswith("a/ra-") and path.endswith(".css")  # beside its sources
    assert slim.count("<link") == 1 and f'href="../{path}"' in slim
    joined = shared.styles[path]
    assert joined.index("color:red") < joined.index("color:blue")  # in the page's order
    assert "sourceMappingURL" not in joined
    # control: a stylesheet the site does not have, one with an @import or one from another
    # folder, and the row stays as it was
    for css in (
        {"a/main.css": "p{}"},
        {"a/main.css": "p{}", "a/extra.css": "@import url(x.css);"},
    ):
        assert links in slim_page(
            f"<head>{links}</head><article></article>", "../", Shared(css=css)
        )
    other = links.replace("../a/extra.css", "../b/extra.css")
    both = Shared(css={"a/main.css": "p{}", "b/extra.css": "p{}"})
    assert other in slim_page(f"<head>{other}</head><article></article>", "../", both)


DIALOG = (
    '<div class="md-dialog" data-md-component="dialog">\n'
    '<div class="md-dialog__inner md-typeset"></div>\n</div>\n'
)
TOP = (
    '<button type="button" class="md-top md-icon" data-md-component="top" hidden>\n'
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M1 2"/></svg>\n'
    "Back to top\n</button>\n"
)


def test_what_only_the_theme_script_uses_is_written_by_one_shared_script() -> None:
    config = (
        '<script id="__config" type="application/json">{"base": "../..", '
        '"features": ["navigation.tabs", "content.code.copy"]}</script>'
    )
    page = f"<body><main><article>x</article>{TOP}</main>{DIALOG}{config}</body>"
    shared = Shared()
    slim = slim_page(page, "../../", shared)
    assert "md-dialog" not in slim and "md-top" not in slim and "__config" not in slim
    (path,) = shared.scripts
    assert f'<script src="../../{path}"></script></body>' in slim
    source = shared.scripts[path]
    assert '"features":["content.code.copy"]' in source  # only what the script reads
    assert "../.." not in source.split("\n", 3)[-1]  # nothing from the page's depth...
    assert 'href=\\"assets/images/ra-icons.svg#i' in source  # ...the icon from the root
    # the same file for a page at another depth
    slim_page(page.replace('"../.."', '".."'), "../", shared)
    assert len(shared.scripts) == 1
    # control: a configuration that holds a link from the page stays as it was
    linked = config.replace('"features"', '"tags": {"a": "../../tags/"}, "features"')
    assert "__config" in slim_page(f"<main></main><article></article>{linked}", "../../", Shared())


def test_the_script_only_parts_work_in_a_browser(tmp_path: Path) -> None:
    """The shared script writes the dialog, the button and the configuration where the
    theme's script finds them, with the site's root from its own address."""
    pytest.importorskip("playwright")
    from tests.site.test_browser import CHROMIUM, headless_chromium, serving

    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    config = '<script id="__config" type="application/json">{"base": "../..", "features": []}'
    page = (
        f"<!doctype html><body><main data-md-component=main><article>x</article>{TOP}</main>"
        f"{DIALOG}{config}</script></body>"
    )
    shared = Shared()
    slim = slim_page(page, "../../", shared)
    for rel, source in shared.scripts.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source, encoding="utf-8")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "index.html").write_text(slim, encoding="utf-8")
    with serving(tmp_path) as url, headless_chromium() as chromium:
        tab = chromium.new_page()
        tab.goto(url + "a/b/")
        base, icon, dialog = tab.evaluate(
            """() => [JSON.parse(document.getElementById('__config').textContent).base,
                      document.querySelector('main > [data-md-component=top] use')
                        .getAttribute('href'),
                      !!document.querySelector('[data-md-component=dialog] + #__config')]"""
        )
    assert base == url  # the site's root, as the theme's script reads "../.." from a/b/
    assert icon == url + SPRITE + "#" + next(iter(shared.icons))
    assert dialog


def test_a_top_level_hand_written_page_keeps_its_table_of_contents(tmp_path: Path) -> None:
    """A page of the repository's own at the top of the nav: no drawer (it would list the
    sections again), its tab marked, its table of contents beside it."""
    import yaml

    from reproaudit.site.build import merged_config

    repo = site_repo(tmp_path)
    (repo / "site").mkdir(exist_ok=True)
    (repo / "site" / "about.md").write_text("# About\n\n## One\n\nx\n\n## Two\n\ny\n")
    config = yaml.safe_load((repo / "mkdocs.yml").read_text())
    config["nav"] = [*merged_config(tmp_path / "none")["nav"], {"About": "about.md"}]
    (repo / "mkdocs.yml").write_text(yaml.safe_dump(config))
    site = build_site(repo, repo / "_site", now=NOW, search=False).out
    about = chrome_of(site / "about" / "index.html")
    assert '<a href="./" aria-current="page">About</a>' in about
    assert 'data-md-type="toc"' in about and 'href="#two"' in about
    assert 'data-md-type="navigation"' not in about and 'for="__drawer"' not in about
