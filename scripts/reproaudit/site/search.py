"""Site search: Pagefind, fed with one small stand-in page per result.

Pagefind splits its index into small chunks and fragments, so a query loads only
the chunks it needs and one fragment per result shown: search scales to tens of
thousands of pages without one big download (a lunr index of every paper would
be tens of megabytes). Rather than parse 13,000 built pages with the theme around
them, Pagefind reads a stand-in tree: at each result's URL, a tiny page holding
only what search should match (for a paper: title, authors, id, venue, area,
outcome, claim text). The tree comes from the data, so indexing runs in the
background while the site renders, and its bundle is moved into the site at the end.
"""

from __future__ import annotations

import ctypes
import gzip
import hashlib
import html
import json
import re
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cbor2

from ..errors import ReproauditError, SettingError

BUNDLE = "pagefind"
_MARKUP = re.compile(r"[#*_`>\[\]()|]+|\{[^}]*\}|<[^>]+>")


@dataclass(frozen=True)
class Record:
    """One search result: its site path (``papers/P/``), title and the text to match."""

    url: str
    title: str
    content: str
    kind: str  # "paper", "contributor" or "page", a Pagefind filter


def stand_in(record: Record) -> str:
    title = html.escape(record.title)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"</head><body><h1>{title}</h1><p>{html.escape(record.content)}</p>"
        f'<span data-pagefind-filter="kind" hidden>{record.kind}</span></body></html>'
    )


def markdown_records(docs: Path, url_of: Callable[[str], str]) -> list[Record]:
    """Stand-ins for the hand-written pages: their Markdown with the markup stripped."""
    out = []
    for path in sorted(docs.rglob("*.md")):
        rel = path.relative_to(docs).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        heading = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
        title = heading[1].strip() if heading else path.stem.replace("-", " ").capitalize()
        plain = re.sub(r"\s+", " ", _MARKUP.sub(" ", text)).strip()
        out.append(Record(url_of(rel), title, plain, "page"))
    return out


class SearchIndex:
    """Pagefind running in the background over a stand-in tree written into ``work``."""

    def __init__(self, work: Path, records: Iterable[Record]) -> None:
        self.tree = work / "search-src"
        self.bundle = work / "search-bundle"
        self.count = 0
        for record in records:
            page = self.tree / record.url / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(stand_in(record), encoding="utf-8")
            self.count += 1
        argv = [_binary(), "--site", str(self.tree), "--output-path", str(self.bundle)]
        self.process = subprocess.Popen(
            [*argv, "--silent"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_die_with_parent,  # a killed build leaves no indexer writing on
        )

    def finish(self, site: Path) -> None:
        """Wait for Pagefind and move its bundle to ``site/pagefind/``."""
        stdout, stderr = self.process.communicate()
        if self.process.returncode != 0:
            raise ReproauditError(
                f"Pagefind failed to index the site (exit {self.process.returncode}): "
                + (stderr or stdout).strip()[-500:]
            )
        fix_order(self.bundle)
        shutil.move(str(self.bundle), str(site / BUNDLE))

    def cancel(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# Pagefind's binary files: gzip of this signature then CBOR.
_SIGNATURE = b"pagefind_dcd"


def fix_order(bundle: Path) -> None:
    """Make Pagefind's bundle a function of its input alone: two builds, the same bytes.

    Pagefind writes each filter's values in a hash map's order, random per run, and
    names the filter file and the metadata file after their content: two builds of
    the same site differ in three files. This rewrites the filter files with their
    values in sorted order (and the metadata's list of filters sorted by name),
    names them after the new content, and points the metadata and
    ``pagefind-entry.json`` at the new names. The search client reads the same data.
    """
    entry_path = bundle / "pagefind-entry.json"
    entry = json.loads(entry_path.read_text(encoding="utf-8"))
    for language in entry["languages"].values():
        meta_path = bundle / f"pagefind.{language['hash']}.pf_meta"
        meta = _read_cbor(meta_path)
        prefix = language["hash"].rsplit("_", 1)[0]  # the language: en_<hash>
        filters = []
        for name, old in meta[3]:
            path = bundle / "filter" / f"{old}.pf_filter"
            key, values = _read_cbor(path)
            raw = _pagefind_bytes([key, sorted(values, key=lambda v: v[0])])
            new = f"{prefix}_{hashlib.sha256(raw).hexdigest()[:7]}"
            path.unlink()
            (bundle / "filter" / f"{new}.pf_filter").write_bytes(raw)
            filters.append([name, new])
        meta[3] = sorted(filters)
        raw = _pagefind_bytes(meta)
        meta_path.unlink()
        language["hash"] = f"{prefix}_{hashlib.sha256(raw).hexdigest()[:10]}"
        (bundle / f"pagefind.{language['hash']}.pf_meta").write_bytes(raw)
    entry_path.write_text(
        json.dumps(entry, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )


def _read_cbor(path: Path) -> Any:
    raw = gzip.decompress(path.read_bytes())
    if not raw.startswith(_SIGNATURE):
        raise ReproauditError(f"{path}: not a Pagefind file this version of reproaudit reads")
    return cbor2.loads(raw[len(_SIGNATURE) :])


def _pagefind_bytes(value: Any) -> bytes:
    return gzip.compress(_SIGNATURE + cbor2.dumps(value), mtime=0)


def _die_with_parent() -> None:
    """In the child: SIGKILL when the build's process dies, however it dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the build's own clean-up still cancels it
        pass


def _binary() -> str:
    try:
        from pagefind.service import _must_get_executable

        return str(_must_get_executable())
    except (ImportError, FileNotFoundError) as exc:
        raise SettingError(
            f"the search index needs Pagefind's binary, which is not installed ({exc})",
            hint='pip install "pagefind[bin]" (a dependency of reproaudit)',
        ) from None
