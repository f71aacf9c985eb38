"""The mkdocs plugin that places generated pages and files into a build.

A handful of generated pages (home, papers index, contributors...) go through
mkdocs as virtual files (``File.generated``) with empty Markdown, their HTML
replacing the page content. The thousands of paper and logbook pages do not go
through mkdocs one by one: the theme renders one *shell* page per depth
(``papers/<id>/`` and ``papers/<id>/<logbook>/``) with markers for the title and
the content, and each page is that shell with its title, content and ids filled
in. Every page at one depth shares the theme's header, nav and footer, so this
is the same HTML mkdocs would write, at a fraction of the cost. All generated
pages stay out of the search index (papers are searched through the compact JSON
index) and are added to the sitemap.
"""

from __future__ import annotations

import gzip
import html
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkPage

from ..fsutil import atomic_write
from .render import Page, page_url

_UNNAMED_DIALOG = re.compile(r'(<div class="md-search"[^>]*role="dialog")(?![^>]*aria-label)')
SHELL_PAPER = "ra-shell-paper"
SHELL_LOGBOOK = "ra-shell-logbook"
TITLE_MARK = "RA-SHELL-TITLE-0b1c"
# "<h1" inside the marker: the theme adds its own <h1> title only to content without one,
# and every generated page brings its own.
CONTENT_MARK = "<!--RA-SHELL-CONTENT-0b1c <h1 -->"
SHELLS = {
    2: f"papers/{SHELL_PAPER}/index.md",
    3: f"papers/{SHELL_PAPER}/{SHELL_LOGBOOK}.md",
}
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _templated(src_uri: str) -> bool:
    """Paper pages (papers/<id>/index.md) and logbook pages (papers/<id>/<logbook>.md)."""
    parts = src_uri.split("/")
    return len(parts) == 3 and parts[0] == "papers" and parts[2].endswith(".md")


class ReproauditPlugin(BasePlugin):
    """Fed by ``reproaudit build`` before mkdocs runs; inert in a plain ``mkdocs build``."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: dict[str, Page] = {}
        self.outputs: dict[str, bytes] = {}

    def feed(self, pages: list[Page], outputs: dict[str, bytes]) -> None:
        self.pages = {p.src_uri: p for p in pages}
        self.outputs = outputs

    def _direct(self) -> dict[str, Page]:
        return {k: v for k, v in self.pages.items() if not _templated(k)}

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        wanted = list(self._direct())
        if any(_templated(k) for k in self.pages):
            wanted += list(SHELLS.values())
        for src_uri in wanted:
            if files.get_file_from_path(src_uri) is None:  # a hand-written page wins
                files.append(File.generated(config, src_uri, content=""))
        return files

    def on_page_markdown(
        self, markdown: str, *, page: MkPage, config: MkDocsConfig, files: Files
    ) -> str:
        if not page.file.generated_by:
            return markdown
        src = page.file.src_uri
        if src in SHELLS.values():
            page.meta["title"] = TITLE_MARK
            page.meta["search"] = {"exclude": True}
            page.meta["hide"] = ["navigation", "toc"]  # wide claims x logbooks grids
            return ""
        generated = self.pages.get(src)
        if generated is None:
            return markdown
        page.meta["title"] = generated.title
        if src == "papers/index.md":
            page.meta["hide"] = ["navigation", "toc"]
        if not generated.search:
            page.meta["search"] = {"exclude": True}
        return ""

    def on_page_content(
        self, html_text: str, *, page: MkPage, config: MkDocsConfig, files: Files
    ) -> str:
        if not page.file.generated_by:
            return html_text
        if page.file.src_uri in SHELLS.values():
            return CONTENT_MARK
        generated = self.pages.get(page.file.src_uri)
        return generated.html if generated is not None else html_text

    def on_post_page(self, output: str, *, page: MkPage, config: MkDocsConfig) -> str:
        # The theme's search dialog has no accessible name (axe: aria-dialog-name).
        return _UNNAMED_DIALOG.sub(r'\1 aria-label="Search"', output)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        site = Path(config.site_dir)
        shells = {}
        for depth, src in SHELLS.items():
            built = site / page_url(src) / "index.html"
            if built.is_file():
                shells[depth] = built.read_text(encoding="utf-8")
        shutil.rmtree(site / "papers" / SHELL_PAPER, ignore_errors=True)
        urls = []
        for src, page in self.pages.items():
            if not _templated(src):
                continue
            url = page_url(src)
            parts = url.strip("/").split("/")  # ["papers", id] or ["papers", id, logbook]
            shell = shells[len(parts)]
            text = shell.replace(TITLE_MARK, html.escape(page.title, quote=True))
            text = text.replace(CONTENT_MARK, page.html).replace(SHELL_PAPER, parts[1])
            if len(parts) == 3:
                text = text.replace(SHELL_LOGBOOK, parts[2])
            out = site / url / "index.html"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            urls.append(url)
        for rel, data in self.outputs.items():
            atomic_write(site / rel, data)
        _extend_sitemap(site, config.site_url, urls)


def _extend_sitemap(site: Path, site_url: str | None, urls: list[str]) -> None:
    """Drop the shells from sitemap.xml and add the filled-in pages."""
    path = site / "sitemap.xml"
    if not path.is_file():
        return
    ET.register_namespace("", SITEMAP_NS)
    tree = ET.parse(path)
    root = tree.getroot()
    for entry in list(root):
        loc = entry.find(f"{{{SITEMAP_NS}}}loc")
        if loc is not None and SHELL_PAPER in (loc.text or ""):
            root.remove(entry)
    base = (site_url or "").rstrip("/") + "/" if site_url else ""
    for url in sorted(urls):
        entry = ET.SubElement(root, f"{{{SITEMAP_NS}}}url")
        ET.SubElement(entry, f"{{{SITEMAP_NS}}}loc").text = base + url
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    atomic_write(path, data)
    atomic_write(site / "sitemap.xml.gz", gzip.compress(data, mtime=0))
