"""The mkdocs plugin that places generated pages and files into a build.

A handful of generated pages (home, papers index, contributors...) go through
mkdocs as virtual files (``File.generated``) with empty Markdown, their HTML
replacing the page content. The thousands of paper, logbook, list and
contributor pages do not go through mkdocs one by one: the theme renders one
*shell* page per URL depth (``ra-shell-0b1c/``, ``ra-shell-0b1c/s1/``...) with
markers for the title, description, feed, head tags and content, and each page is the shell
of its depth with those filled in and the shell's URL replaced by its own. Every
page at one depth shares the theme's header, nav and footer and the same relative
links, so this is the same HTML mkdocs would write, at a fraction of the cost.
All generated pages are added to the sitemap, with absolute URLs when the site
has a ``site_url``.
"""

from __future__ import annotations

import gzip
import html
import os
import re
import shutil
from functools import lru_cache
from pathlib import Path
from xml.etree import ElementTree as ET

from markupsafe import Markup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkPage

from .. import layout
from ..fsutil import Paths, TreeWriter, Writer, atomic_write
from .render import Page, page_url, relative
from .slim import SPRITE, Shared, slim_page

SHELL_ROOT = "ra-shell-0b1c"
TITLE_MARK = "RA-SHELL-TITLE-0b1c"
DESCRIPTION_MARK = "RA-SHELL-DESCRIPTION-0b1c"
FEED_MARK = "RA-SHELL-FEED-0b1c"
HEAD_MARK = "RA-SHELL-HEAD-0b1c"  # the page's own <head> markup: citation tags
# "<h1" inside the marker: the theme adds its own <h1> title only to content without one,
# and every generated page brings its own.
CONTENT_MARK = "<!--RA-SHELL-CONTENT-0b1c <h1 -->"
FEED_LINK = re.compile(
    r'<link rel="alternate feed" type="application/atom\+xml" title="([^"]*)" '
    r'href="RA-SHELL-FEED-0b1c[^"]*">\s*'
)
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def shell_src(depth: int) -> str:
    """The source of the shell page whose URL has ``depth`` parts."""
    return "/".join([SHELL_ROOT, *(f"s{i}" for i in range(1, depth))]) + "/index.md"


def depth_of(url: str) -> int:
    return len(url.strip("/").split("/"))


class ReproauditPlugin(BasePlugin):
    """Fed by ``reproaudit build`` before mkdocs runs; inert in a plain ``mkdocs build``."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: dict[str, Page] = {}
        self.outputs: dict[str, bytes] = {}
        self.shared = Shared()  # icons and scripts the slimmed pages share
        self.paper_files: dict[str, str] = {}  # paper id -> its paper file
        self.own_files: frozenset[str] = frozenset()  # the repository's site/ files
        self._sources: dict[str, str] = {}  # what mkdocs writes -> its source

    def feed(
        self,
        pages: list[Page],
        outputs: dict[str, bytes],
        paper_files: dict[str, str] | None = None,
        own_files: frozenset[str] = frozenset(),
    ) -> None:
        """What the build generates, and where its inputs are, to name them in an error:
        ``paper_files`` (paper id -> file), ``own_files`` (the repository's ``site/``
        files, relative to that folder)."""
        self.paper_files = paper_files or {}
        self.own_files = own_files
        self.pages = {}
        sources = Paths(self._describe_source, "among the site's page sources")
        for page in pages:  # one page per source
            sources.take(page.src_uri)
            self.pages[page.src_uri] = page
        self.outputs = outputs

    def _shells(self) -> dict[str, int]:
        depths = {depth_of(page_url(p.src_uri)) for p in self.pages.values() if p.shell}
        return {shell_src(d): d for d in sorted(depths)}

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        wanted = [k for k, p in self.pages.items() if not p.shell] + list(self._shells())
        for src_uri in wanted:
            if files.get_file_from_path(src_uri) is None:  # a hand-written page wins
                files.append(File.generated(config, src_uri, content=""))
        self._sources = {f.dest_uri: f.src_uri for f in files}
        # the stylesheets, which slimmed pages link as one joined file
        self.shared.css = {
            f.dest_uri: f.content_string for f in files if f.dest_uri.endswith(".css")
        }
        return files

    def on_page_markdown(
        self, markdown: str, *, page: MkPage, config: MkDocsConfig, files: Files
    ) -> str:
        if not page.file.generated_by:
            return markdown
        src = page.file.src_uri
        if src.startswith(SHELL_ROOT + "/"):
            page.meta.update(
                title=TITLE_MARK,
                description=DESCRIPTION_MARK,
                ra_feed=FEED_MARK,
                ra_head=HEAD_MARK,
                search={"exclude": True},
                hide=["navigation", "toc"],  # wide claims x logbooks grids
            )
            return ""
        generated = self.pages.get(src)
        if generated is None:
            return markdown
        page.meta["title"] = generated.title
        if generated.description:
            page.meta["description"] = generated.description
        if generated.feed:
            page.meta["ra_feed"] = relative(page_url(src), generated.feed)
            page.meta["ra_feed_title"] = generated.feed_title
        if generated.wide:
            page.meta["hide"] = ["navigation", "toc"]
        if generated.head:  # escaped by its maker
            page.meta["ra_head"] = Markup(generated.head)
        page.meta["search"] = {"exclude": True}  # pagefind indexes the site, not lunr
        return ""

    def on_page_content(
        self, html_text: str, *, page: MkPage, config: MkDocsConfig, files: Files
    ) -> str:
        if not page.file.generated_by:
            return html_text
        if page.file.src_uri.startswith(SHELL_ROOT + "/"):
            return CONTENT_MARK
        generated = self.pages.get(page.file.src_uri)
        return generated.content() if generated is not None else html_text

    def on_post_page(self, output: str, *, page: MkPage, config: MkDocsConfig) -> str:
        """The theme's chrome, repeated on every page, slimmed (``slim.py``); the shells
        are slimmed here too, so every page filled into them shares the savings."""
        return slim_page(output, "../" * len([p for p in page.url.split("/") if p]), self.shared)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        site = Path(config.site_dir)
        _write_shared(site, self.shared)
        shells: dict[int, str] = {}
        for src, depth in self._shells().items():
            built = site / page_url(src) / "index.html"
            if built.is_file():
                shells[depth] = built.read_text(encoding="utf-8")
        shutil.rmtree(site / SHELL_ROOT, ignore_errors=True)
        urls = []
        # plain writes: the whole build folder replaces the site in one rename at the end;
        # one writer per path, what mkdocs wrote included
        writer = TreeWriter(site, self.describe)
        for folder, _, names in os.walk(site):
            rel = os.path.relpath(folder, site).replace(os.sep, "/")
            for name in sorted(names):
                path = name if rel == "." else f"{rel}/{name}"
                writer.claim(path, self._written_by_mkdocs(path))
        for page in self.pages.values():
            url = page_url(page.src_uri)
            urls.append(url)
            if page.shell:
                writer.write(url + "index.html", fill_shell(shells[depth_of(url)], page, url))
        for rel, data in self.outputs.items():
            writer.write(rel, data)
        _extend_sitemap(site, config.site_url, urls)

    def _written_by_mkdocs(self, rel: str) -> Writer:
        """Who had mkdocs write ``rel``: a page or file of the site's sources, or a page
        the build generates (the home page, the papers list...), or mkdocs itself."""
        source = self._sources.get(rel)
        if source is None:
            return Writer(f"mkdocs' own {rel}")
        if source in self.own_files:
            return Writer(f"the repository's own site/{source}", f"site/{source}")
        page = self.pages.get(source)
        if page is None:
            return Writer(f"the site's page or file {source}")
        return self.describe(rel, rel)

    def describe(self, rel: str, at: str) -> Writer:
        """Who writes the generated site path ``rel``, and the input that names ``at`` (a
        prefix of ``rel``, where another writer's path meets it), when an id does."""
        found = layout.match_written("site", rel)
        if found is None:
            page = self.pages.get(self._sources.get(rel, ""))
            return Writer(f"the page {page.title!r}" if page else f"the generated file {rel}")
        return self._id_writer(*found, at)

    def _describe_source(self, src: str, at: str) -> Writer:
        found = layout.match_written("pages", src)
        if found is None:
            page = self.pages.get(src)
            return Writer(f"the page {page.title!r} ({src})" if page else f"the page {src}")
        return self._id_writer(*found, at)

    def _id_writer(self, written: layout.Written, ids: dict[str, str], at: str) -> Writer:
        what = written.what.format(**ids)
        named = written.path.split("/")[at.count("/")]  # the part of the path at ``at``
        if named.startswith("{logbook}"):
            file = layout.logbook_rel(ids["paper"], ids["logbook"])
            return Writer(what, file, layout.id_field("logbook"))
        if named.startswith("{paper}"):
            return Writer(what, self.paper_files.get(ids["paper"]), layout.id_field("paper"))
        return Writer(what)


def _write_shared(site: Path, shared: Shared) -> None:
    """The sprite, the scripts and the joined stylesheets that slimmed pages refer to."""
    (site / SPRITE).parent.mkdir(parents=True, exist_ok=True)
    (site / SPRITE).write_text(shared.sprite(), encoding="utf-8")
    for rel, source in (shared.scripts | shared.styles).items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(source + "\n", encoding="utf-8")


def fill_shell(shell: str, page: Page, url: str) -> str:
    """The shell of the page's depth with its title, description, feed, content and URL.

    One pass over the shell: text put in (a write-up quoting a marker or a shell URL) is
    never scanned again, so it stays as written.
    """
    if page.feed:
        feed = html.escape(relative(url, page.feed), quote=True)
        title = html.escape(page.feed_title or page.title, quote=True)
        feed_link = (
            f'<link rel="alternate feed" type="application/atom+xml" title="{title}" '
            f'href="{feed}">\n'
        )
    else:
        feed_link = ""
    shell_url = page_url(shell_src(depth_of(url)))
    values = {
        TITLE_MARK: html.escape(page.title, quote=True),
        DESCRIPTION_MARK: html.escape(page.description or page.title, quote=True),
        HEAD_MARK: page.head,
        CONTENT_MARK: page.content(),
        shell_url: url,
    }
    texts, marks = _split(shell, shell_url)
    out = [texts[0]]
    for mark, text in zip(marks, texts[1:], strict=True):
        out += (values.get(mark, feed_link), text)
    return "".join(out)


@lru_cache(maxsize=16)
def _split(shell: str, shell_url: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The shell cut at its markers, its feed link and its own URL, once per shell:
    (the texts around them, what stood at each cut)."""
    plain = (TITLE_MARK, DESCRIPTION_MARK, HEAD_MARK, CONTENT_MARK, shell_url)
    pattern = re.compile("|".join([FEED_LINK.pattern, *map(re.escape, plain)]))
    texts, marks, at = [], [], 0
    for match in pattern.finditer(shell):
        texts.append(shell[at : match.start()])
        marks.append(match[0])
        at = match.end()
    texts.append(shell[at:])
    return tuple(texts), tuple(marks)


def _extend_sitemap(site: Path, site_url: str | None, urls: list[str]) -> None:
    """Rewrite sitemap.xml: no shells, every generated page, absolute URLs.

    Without a ``site_url`` there is no sitemap: the protocol wants absolute URLs, and one
    of bare paths is refused by the search engines it is for.
    """
    path = site / "sitemap.xml"
    if not site_url:
        path.unlink(missing_ok=True)
        (site / "sitemap.xml.gz").unlink(missing_ok=True)
        return
    if not path.is_file():
        return
    ET.register_namespace("", SITEMAP_NS)
    tree = ET.parse(path)
    root = tree.getroot()
    base = site_url.rstrip("/") + "/"
    known = set()
    for entry in list(root):
        loc = entry.find(f"{{{SITEMAP_NS}}}loc")
        text = (loc.text or "") if loc is not None else ""
        if SHELL_ROOT in text:
            root.remove(entry)
        else:
            known.add(text)
    for url in sorted(urls):
        if base + url in known:
            continue
        entry = ET.SubElement(root, f"{{{SITEMAP_NS}}}url")
        ET.SubElement(entry, f"{{{SITEMAP_NS}}}loc").text = base + url
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    atomic_write(path, data)
    atomic_write(site / "sitemap.xml.gz", gzip.compress(data, mtime=0))
