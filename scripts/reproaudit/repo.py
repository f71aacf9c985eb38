"""One loader for a whole audit repository: claims/, logbooks/, verdicts/.

``Corpus`` scans the layout once and loads files on demand, caching each
file's bytes, hash and model (``Loaded``), and the bytes of the files beside
them that a verdict depends on (write-ups, re-run records: ``Blob``). Every
consumer (validate, the judge's input hash, the site, export) asks the corpus,
so each file is read once per run. Loading is lazy: a pull-request check that
touches one logbook reads that logbook and its paper, not 20,000 files. Files
that fail to load are remembered with their problems; callers decide whether to
report them.
"""

from __future__ import annotations

import gc
import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from . import layout
from .beneath import read_capped
from .errors import InputError
from .layout import DataPath
from .listing import Listing
from .loader import Document, decode_text, parse_document, read_bytes, to_model
from .models import Logbook, MentionsFile, PaperFile, ReviewsFile, VerdictFile
from .problems import Problem

M = TypeVar("M", bound=BaseModel)
MODEL_OF: dict[str, type[BaseModel]] = {
    "paper": PaperFile,
    "logbook": Logbook,
    "verdict": VerdictFile,
    "reviews": ReviewsFile,
    "mentions": MentionsFile,
}


@dataclass
class Loaded(Generic[M]):
    """A data file after loading: its model, or the problems that stopped it."""

    path: DataPath
    model: M | None
    problems: list[Problem]
    doc: Document | None = None  # kept only when asked for (line numbers)
    raw: bytes | None = None  # the file's bytes; None when unreadable or judged in memory

    @cached_property
    def sha256(self) -> str | None:
        return hashlib.sha256(self.raw).hexdigest() if self.raw is not None else None


@dataclass
class Blob:
    """A file beside the data files (write-up, re-run record), read once.

    ``raw`` holds at most the limit it was read with plus one byte, so a caller
    sees an oversized file as ``not complete`` without reading all of it.
    """

    raw: bytes
    size: int
    complete: bool = field(init=False)

    def __post_init__(self) -> None:
        self.complete = len(self.raw) == self.size

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")


MAX_BLOB_BYTES = 16 * 1024 * 1024  # what any one file beside the data files may hold


def read_blob(path: Path, limit: int | None = None, root: Path | None = None) -> Blob | None:
    """The file at ``path`` (its first ``limit + 1`` bytes at most), or None when absent.

    Read through the one reader (``beneath``): when ``path`` lies under ``root``
    no folder between them may be a link; a link or special file raises
    ``InputError`` (``not_a_regular_file``) naming it, and is never opened.
    """
    path = Path(path)
    limit = MAX_BLOB_BYTES if limit is None else limit
    if root is not None and path.is_relative_to(root) and path != Path(root):
        base, rel = Path(root), path.relative_to(root).as_posix()
        shown = rel
    else:
        base, rel, shown = path.parent, path.name, path.as_posix()
    got = read_capped(base, rel, limit, shown)
    return None if got is None else Blob(got.raw, got.size)


class Corpus:
    """The data files of one repository, loaded lazily and cached."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.listing = Listing()  # each folder listed once, for every walk of the run
        self.files, self.stray = layout.scan(self.root, self.listing)
        self.by_rel: dict[str, DataPath] = {f.rel: f for f in self.files}
        self.paper_rels: dict[str, list[str]] = defaultdict(list)
        self.logbook_keys: dict[str, list[str]] = defaultdict(list)
        for f in self.files:
            if f.kind == "paper":
                self.paper_rels[f.stem].append(f.rel)
            elif f.kind == "logbook":
                self.logbook_keys[f.key[0]].append(f.stem)
        self._cache: dict[str, Loaded] = {}
        self._blobs: dict[Path, Blob | None] = {}
        self._names: dict[Path, frozenset[str]] = {}  # folder -> names its listing shows
        self.refused: dict[Path, list[Problem]] = {}  # files not read: links, FIFOs...
        # a logbook's current input hashes (``rerun_inputs.current_inputs``), hashed once
        self.inputs: dict[tuple[str, str], Any] = {}

    def restrict(self, papers: set[str]) -> Corpus:
        """Only the files of these papers (for one-paper previews); loads nothing."""
        self.files = [
            f for f in self.files if (f.stem if f.kind == "paper" else f.key[0]) in papers
        ]
        self.by_rel = {f.rel: f for f in self.files}
        self.paper_rels = defaultdict(
            list, {k: v for k, v in self.paper_rels.items() if k in papers}
        )
        self.logbook_keys = defaultdict(
            list, {k: v for k, v in self.logbook_keys.items() if k in papers}
        )
        return self

    def add_verdicts(self, documents: dict[str, VerdictFile]) -> Corpus:
        """Verdicts judged in memory, seen as if their files existed (nothing is written)."""
        for rel, model in documents.items():
            path = layout.classify(rel)
            if path is None or path.kind != "verdict":
                raise ValueError(f"{rel} is not a verdict path")
            if rel not in self.by_rel:
                self.files.append(path)
                self.by_rel[rel] = path
            self._cache[rel] = Loaded(path, model, [])
        return self

    # --- single files -------------------------------------------------------

    def load(self, path: DataPath, keep_doc: bool = False) -> Loaded:
        cached = self._cache.get(path.rel)
        if cached is not None and (cached.doc is not None or not keep_doc or cached.model is None):
            return cached
        raw = cached.raw if cached is not None else None
        try:
            if raw is None:
                raw = read_bytes(self.root / path.rel, path.rel)
            doc = parse_document(decode_text(raw, path.rel), path.rel)
            model = to_model(doc, MODEL_OF[path.kind])
            loaded = Loaded(path, model, [], doc if keep_doc else None, raw)
        except InputError as exc:
            loaded = Loaded(path, None, exc.problems, None, raw)
        self._cache[path.rel] = loaded
        return loaded

    def forget_lines(self) -> None:
        """Drop the parsed documents kept for line numbers (models and bytes stay): after
        a check, the rest of a command needs no line, and a conference's fill memory."""
        for loaded in self._cache.values():
            loaded.doc = None

    def blob(self, path: Path, limit: int | None = None) -> Blob | None:
        """A non-data file (write-up, re-run record), read once and cached by path."""
        path = Path(path)
        if path in self._blobs:
            cached = self._blobs[path]
            if cached is None or cached.complete or (limit is not None and len(cached.raw) > limit):
                return cached
        try:
            blob = read_blob(path, limit, self.root)
        except InputError as exc:  # a link or special file: never read, remembered
            self.refused[path] = exc.problems
            blob = None
        self._blobs[path] = blob
        return blob

    def refusal(self, rel: str) -> list[Problem]:
        """Why the repository file ``rel`` was refused when read (a link...), or []."""
        self.blob(self.root / rel)
        return self.refused.get(self.root / rel, [])

    def writeup(self, paper_id: str, logbook_id: str) -> Blob | None:
        """A logbook's Markdown write-up, or None when it has none.

        A write-up the scan's listing of its folder does not show is not looked for on disk
        (most logbooks have none: 6,816 failed opens cost half a second); one it shows, of
        any kind, goes through the one reader, which refuses links and special files.
        """
        path = self.root / layout.writeup_rel(paper_id, logbook_id)
        if path not in self._blobs and not self._listed(path):
            self._blobs[path] = None  # every later ask (hash, refusal) answers from here
        return self.blob(path)

    def _listed(self, path: Path) -> bool:
        """Whether the run's listing of ``path``'s folder has an entry of its name; True
        when the folder cannot be listed, so that the reader decides and says why."""
        names = self._names.get(path.parent)
        if names is None:
            try:
                entries = self.listing.entries(path.parent)
            except OSError:
                return True
            names = self._names[path.parent] = frozenset(e.name for e in entries)
        return path.name in names

    def sha256(self, rel: str) -> str | None:
        """SHA-256 of a repository file's bytes (None when absent), from the one read."""
        path = self.by_rel.get(rel)
        if path is not None:
            loaded = self.load(path)
            if loaded.raw is not None:
                return loaded.sha256
        blob = self.blob(self.root / rel)
        return blob.sha256 if blob is not None else None

    def paper(self, paper_id: str) -> PaperFile | None:
        """The paper with this id, or None when it is missing, ambiguous or invalid."""
        rels = self.paper_rels.get(paper_id, [])
        if len(rels) != 1:
            return None
        return self.load(self.by_rel[rels[0]]).model

    def logbook_path(self, paper_id: str, logbook_id: str) -> DataPath | None:
        return self.by_rel.get(layout.logbook_rel(paper_id, logbook_id))

    def logbook(self, paper_id: str, logbook_id: str) -> Logbook | None:
        path = self.logbook_path(paper_id, logbook_id)
        return self.load(path).model if path else None

    def verdict(self, paper_id: str, logbook_id: str) -> VerdictFile | None:
        path = self.by_rel.get(layout.verdict_rel(paper_id, logbook_id))
        return self.load(path).model if path else None

    def reviews(self, paper_id: str) -> ReviewsFile | None:
        path = self.by_rel.get(layout.reviews_rel(paper_id))
        return self.load(path).model if path else None

    def mentions(self, paper_id: str) -> MentionsFile | None:
        path = self.by_rel.get(layout.mentions_rel(paper_id))
        return self.load(path).model if path else None

    # --- everything ---------------------------------------------------------

    def of_kind(self, kind: str) -> Iterator[DataPath]:
        return (f for f in self.files if f.kind == kind)

    def papers(self) -> Iterator[tuple[DataPath, PaperFile]]:
        for path in self.of_kind("paper"):
            model = self.load(path).model
            if model is not None:
                yield path, model

    def logbooks(self) -> Iterator[tuple[DataPath, Logbook]]:
        for path in self.of_kind("logbook"):
            model = self.load(path).model
            if model is not None:
                yield path, model

    def verdicts(self) -> Iterator[tuple[DataPath, VerdictFile]]:
        for path in self.of_kind("verdict"):
            model = self.load(path).model
            if model is not None:
                yield path, model


def as_corpus(source: Path | Corpus) -> Corpus:
    """A command's ``Corpus`` as it is, or a repository's folder loaded (for thin wrappers)."""
    return source if isinstance(source, Corpus) else Corpus(Path(source))


def corpus_of(root: Path, corpus: Corpus | None) -> Corpus:
    """The caller's corpus of ``root`` (one per command), or a new one when it has none.

    A corpus of another folder is a programming error, never silently read again.
    """
    if corpus is None:
        return Corpus(root)
    if corpus.root.resolve() != Path(root).resolve():
        raise ValueError(f"a corpus of {corpus.root} was given for {root}")
    return corpus


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while loading thousands of files.

    Loading builds millions of small acyclic objects; each one counts toward a
    collection, and full collections rescan everything already loaded. Pausing
    cuts validation of a conference from ~12 s to ~6 s. Reference counting
    still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def frozen_gc() -> Iterator[None]:
    """Keep the collector on but stop it rescanning everything loaded so far.

    For long phases that create short-lived garbage of their own (LLM requests
    over many threads): what exists now moves to the permanent generation.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def loaded_then_frozen_gc() -> Iterator[Callable[[], None]]:
    """Pause the collector while a command loads, then keep what it loaded out of every
    later collection until the block ends.

    Call the yielded function once loading is done. Objects made while the collector was
    paused all sit in its youngest generation: re-enabling it alone would scan each of the
    millions loaded three times over (young, middle, then a full collection, ~3 s for a
    conference's build). Freezing them first (``gc.freeze``) skips that; reference
    counting still frees them as usual, and the block's end returns them to the collector.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    frozen = False

    def loaded() -> None:
        nonlocal frozen
        if not frozen:
            gc.freeze()  # before enabling: the first allocation after would scan them all
            frozen = True
        if was_enabled:
            gc.enable()

    try:
        yield loaded
    finally:
        if frozen:
            gc.unfreeze()
        if was_enabled:
            gc.enable()
