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
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cbor2

from ..errors import ReproauditError, SettingError
from ..fsutil import TreeWriter
from . import ids, typos

BUNDLE = "pagefind"
TYPOS = "typos"  # the word lists of typos.py, one JSON file per shard
_MARKUP = re.compile(r"[#*_`>\[\]()|]+|\{[^}]*\}|<[^>]+>")


@dataclass(frozen=True)
class Record:
    """One search result: its site path (``papers/P/``), title and the text to match.

    ``kind`` and ``outcomes`` are what the search page filters by; ``names`` (a paper's
    authors, a logbook's contributor) weigh less than the title and more than the text;
    ``title_weight`` is the title's (Pagefind's, 0 to 10: 7 for a heading).
    """

    url: str
    title: str
    content: str
    kind: str  # paper, logbook, contributor or page
    outcomes: tuple[str, ...] = ()
    names: str = ""
    title_weight: int = 7


NAMES_WEIGHT = 5


def stand_in(record: Record) -> str:
    title = html.escape(record.title)
    names = (
        f'<p data-pagefind-weight="{NAMES_WEIGHT}">{html.escape(record.names)}</p>'
        if record.names
        else ""
    )
    # filters as attributes with their value: no filter word joins the text searched
    filters = "".join(
        f'<span data-pagefind-filter="{name}:{html.escape(value)}"></span>'
        for name, value in [("kind", record.kind)] + [("outcome", v) for v in record.outcomes]
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'</head><body><h1 data-pagefind-weight="{record.title_weight}">{title}</h1>{names}'
        f"<p>{html.escape(record.content)}</p>{filters}</body></html>"
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
        texts = []
        writer = TreeWriter(self.tree)
        for record in records:
            writer.write(Path(record.url, "index.html").as_posix(), stand_in(record))
            texts.append(f"{record.title} {record.names} {record.content}")
            self.count += 1
        self.typos = typos.tables(texts)  # shard -> words: written into the site by finish
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
        (site / TYPOS).mkdir()
        for name, table in self.typos.items():
            raw = json.dumps(table, ensure_ascii=False, separators=(",", ":"))
            (site / TYPOS / f"{name}.json").write_text(raw, encoding="utf-8")

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


# what the search page shows before "More results": one fragment per result
FIRST_RESULTS = 10


def query_bytes(site: Path, query: str, per_page: int = FIRST_RESULTS) -> int:
    """Bytes a reader's first query on the search page downloads, as GitHub Pages serves them
    (the sum of :func:`query_files`)."""
    return sum(query_files(site, query, per_page).values())


def query_files(site: Path, query: str, per_page: int = FIRST_RESULTS) -> dict[Path, int]:
    """The files a reader's first query on the search page downloads, and their bytes as
    GitHub Pages serves them.

    The files the search page fetches for ``query`` (not the page and its scripts): the id
    lookup shard and the typo word lists of its words (at most three), Pagefind's script,
    WebAssembly, entry and metadata, the index chunk of each word and one fragment per result
    shown. JSON and JavaScript count gzipped (GitHub Pages compresses them; Pagefind's own
    files are gzip already). A misspelt word counts its corrections' chunks and pages too.
    Pagefind's ranking is not replayed: the fragments counted are the largest ``per_page``
    among the pages holding every word, and each word counts the chunks its stems could fall
    in, so the figure errs high, never low.
    """
    files: set[Path] = set()
    key = ids.normalize(query)
    if key is not None and (site / "ids" / f"{ids.shard(key)}.json").is_file():
        files.add(site / "ids" / f"{ids.shard(key)}.json")
    query = " ".join(typos.query_words(query))  # what the page asks Pagefind for
    lists: dict[str, list[str | int]] = {}
    for word in typos.words_of(query):
        for name in typos.shards_of(word):
            if (path := site / TYPOS / f"{name}.json").is_file():
                files.add(path)
                lists[name] = json.loads(path.read_text(encoding="utf-8"))
    bundle = site / BUNDLE
    entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
    language = entry["languages"][sorted(entry["languages"])[0]]
    meta_path = bundle / f"pagefind.{language['hash']}.pf_meta"
    wasm = bundle / f"wasm.{language.get('wasm') or 'unknown'}.pagefind"
    files |= {bundle / "pagefind.js", bundle / "pagefind-entry.json", meta_path, wasm}
    meta = _read_cbor(meta_path)
    pages, chunks = meta[1], meta[2]
    found: set[int] | None = None
    for term in _terms(query):
        hits: set[int] = set()
        for word in [term, *(typos.corrections(term, lists) or [])]:  # and what it is fixed to
            for low, high, name in chunks:  # bounds are prefixes: "la" holds "label"
                if any(_may_hold(low, high, t) for t in _stems(word)):
                    files.add(bundle / "index" / f"{name}.pf_index")
                    hits |= _pages_with(bundle / "index" / f"{name}.pf_index", word)
        found = hits if found is None else found & hits
    fragments = sorted(
        (bundle / "fragment" / f"{pages[i][0]}.pf_fragment" for i in found or ()),
        key=lambda path: path.stat().st_size,
    )
    files.update(fragments[-per_page:] if per_page else [])
    return {path: served_bytes(path) for path in sorted(files)}


def _may_hold(low: str, high: str, prefix: str) -> bool:
    """Whether a chunk holding the words from ``low`` to ``high`` (and those beginning with
    ``high``) may hold a word beginning with ``prefix``."""
    return (low <= prefix or low.startswith(prefix)) and (high >= prefix or prefix.startswith(high))


def _terms(query: str) -> list[str]:
    """Pagefind's words of a query: lower-cased, punctuation dropped, accents stripped."""
    text = "".join(c for c in query if not unicodedata.category(c).startswith("P")).lower()
    plain = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return [t for t in plain.split() if t]


def _stems(term: str) -> list[str]:
    """The word and its shorter beginnings an English stemmer could leave (at most 4 letters
    off, never under 3): the chunks Pagefind might read for it are among theirs."""
    return [term[:n] for n in range(max(3, len(term) - 4), len(term))] + [term]


def _pages_with(chunk: Path, term: str) -> set[int]:
    """Pages of an index chunk holding a word that begins with ``term`` or one of its stems."""
    stems = _stems(term)
    out: set[int] = set()
    for entry in _read_cbor(chunk)[0]:  # [[word, [[page, locations, ...], ...], ...], ...]
        word = entry[0]
        if any(word.startswith(t) for t in stems) or term.startswith(word):
            number = 0
            for page in entry[1]:  # each page number as the step from the one before
                number += page[0]
                out.add(number)
    return out


def served_bytes(path: Path) -> int:
    """A file's bytes as GitHub Pages sends them: JSON and JavaScript gzipped."""
    raw = path.read_bytes()
    if path.suffix in (".js", ".json"):
        return len(gzip.compress(raw, compresslevel=6, mtime=0))
    return len(raw)


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
