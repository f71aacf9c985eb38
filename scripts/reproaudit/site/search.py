"""Site search: Pagefind, fed with one small page per paper and contributor.

Pagefind splits its index into small chunks and fragments, so a query loads only
the chunks it needs and one fragment per result shown: search scales to tens of
thousands of pages without one big download (a lunr index of every paper would
be tens of megabytes). Rather than parse 13,000 built pages with the theme around
them, Pagefind reads a stand-in tree: for each paper and contributor, a tiny page
at the same URL holding only what search should match (title, authors, id,
venue, area, claim text), plus the few hand-written pages as built. The bundle
it writes goes into the site's ``pagefind/`` folder.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..problems import Problem, ReproauditError

BUNDLE = "pagefind"


@dataclass(frozen=True)
class Record:
    """One search result: its site path (``papers/P/``), title and the text to match."""

    url: str
    title: str
    content: str
    kind: str  # "paper" or "contributor", a Pagefind filter


def stand_in(record: Record) -> str:
    title = html.escape(record.title)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"</head><body data-pagefind-body><h1>{title}</h1><p>{html.escape(record.content)}</p>"
        f'<span data-pagefind-filter="kind" hidden>{record.kind}</span></body></html>'
    )


def index_site(site: Path, records: Iterable[Record], html_pages: Iterable[str]) -> int:
    """Write the Pagefind bundle into ``site/pagefind/``; returns the number of entries."""
    try:
        from pagefind.service import _must_get_executable

        binary = str(_must_get_executable())
    except (ImportError, FileNotFoundError) as exc:
        raise ReproauditError(
            Problem(
                "invalid_value",
                "pyproject.toml",
                None,
                None,
                f"the search index needs Pagefind's binary, which is not installed ({exc})",
                hint='pip install "pagefind[bin]" (a dependency of reproaudit)',
            )
        ) from None
    count = 0
    with tempfile.TemporaryDirectory(prefix=".reproaudit-search-", dir=site.parent) as tmp:
        tree = Path(tmp)
        for record in records:
            page = tree / record.url / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(stand_in(record), encoding="utf-8")
            count += 1
        for rel in html_pages:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(site / rel, tree / rel)
            count += 1
        argv = [binary, "--site", str(tree), "--output-path", str(site / BUNDLE), "--silent"]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ReproauditError(
            Problem(
                "invalid_value",
                "site",
                None,
                None,
                f"Pagefind failed to index the site (exit {done.returncode}): "
                + (done.stderr or done.stdout).strip()[-500:],
            )
        )
    return count
