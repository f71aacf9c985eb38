"""The mkdocs plugin that places generated pages and files into a build.

Generated pages are virtual files (``File.generated``): their Markdown is empty,
so mkdocs spends no time converting it, and their HTML (already rendered by
``render.pages``) replaces the page content. They carry ``search: exclude`` so
the search index holds the hand-written pages only; papers are searched through
the compact JSON index instead. Other outputs (index, charts, badges, feed,
downloads) are written after the build.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkPage

from ..fsutil import atomic_write
from .render import Page

_UNNAMED_DIALOG = re.compile(r'(<div class="md-search"[^>]*role="dialog")(?![^>]*aria-label)')


class ReproauditPlugin(BasePlugin):
    """Fed by ``reproaudit build`` before mkdocs runs; inert in a plain ``mkdocs build``."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: dict[str, Page] = {}
        self.outputs: dict[str, bytes] = {}

    def feed(self, pages: list[Page], outputs: dict[str, bytes]) -> None:
        self.pages = {p.src_uri: p for p in pages}
        self.outputs = outputs

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        for src_uri in self.pages:
            existing = files.get_file_from_path(src_uri)
            if existing is not None:  # a hand-written page of that name wins
                continue
            files.append(File.generated(config, src_uri, content=""))
        return files

    def on_page_markdown(
        self, markdown: str, *, page: MkPage, config: MkDocsConfig, files: Files
    ) -> str:
        generated = self.pages.get(page.file.src_uri)
        if generated is None or not page.file.generated_by:
            return markdown
        page.meta["title"] = generated.title
        if not generated.search:
            page.meta["search"] = {"exclude": True}
        return ""

    def on_page_content(
        self, html: str, *, page: MkPage, config: MkDocsConfig, files: Files
    ) -> str:
        generated = self.pages.get(page.file.src_uri)
        if generated is None or not page.file.generated_by:
            return html
        return generated.html

    def on_post_page(self, output: str, *, page: MkPage, config: MkDocsConfig) -> str:
        # The theme's search dialog has no accessible name (axe: aria-dialog-name).
        return _UNNAMED_DIALOG.sub(r'\1 aria-label="Search"', output)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        site = Path(config.site_dir)
        for rel, data in self.outputs.items():
            atomic_write(site / rel, data)
