"""The cache of papers' PDFs and texts, outside the repository, by content hash.

    <cache>/pdf/<sha256 of the PDF>.pdf     the file as downloaded
    <cache>/pdf/<sha256 of the PDF>.json    {"text_sha256": ...}: its text is known
    <cache>/text/<sha256 of the text>.txt   the text the bounded PDF reader got from it
    <cache>/urls/<sha256 of the URL>.json   {url, etag, last_modified, pdf_sha256}

Reading it needs no network and no PDF reader, so ``task`` finds a paper's text
here without importing either (``fetch`` fills it).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import quote

from .. import fsutil
from ..errors import StorageError, storage_error
from ..models import PaperMeta
from .sources import PaperRecord

_HEX64 = re.compile(r"[0-9a-f]{64}")


def default_cache() -> Path:
    """$REPROAUDIT_CACHE, else $XDG_CACHE_HOME/reproaudit, else ~/.cache/reproaudit."""
    if os.environ.get("REPROAUDIT_CACHE"):
        return Path(os.environ["REPROAUDIT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reproaudit"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def storage_failure(exc: BaseException, path: Path, folder: Path, kind: str) -> StorageError:
    """``exc`` (a full disk, a read-only folder...) as a message naming ``path`` and a hint
    naming the ``folder`` that cannot take it; any other error is re-raised as it is."""
    found = storage_error(exc)
    if found is None:
        raise exc
    if getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT):
        hint = f"the disk that holds the {kind} {folder} is full: free space there"
    else:
        hint = f"the {kind} {folder} cannot be written ({found.why})"
    if kind == "cache folder":
        hint += ", or pass --cache DIR on another disk"
    hint += "; what this run finished is kept, and the next run goes on from there"
    return StorageError(str(path), found.why, hint)


def atomic_write(path: Path, data: str | bytes) -> None:
    """The house writer without fsync: a cache entry is whole or absent after a kill,
    and one lost to a power cut is fetched again (the paper files themselves are fsynced).
    A full or read-only cache disk is a ``StorageError`` naming the cache's folder."""
    try:
        fsutil.atomic_write(path, data, fsync=False)
    except OSError as exc:
        raise storage_failure(exc, path, path.parent, "cache folder") from None


class TextCache:
    """The cache folder: text by hash, PDFs by hash, what each URL gave last time."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def text_path(self, text_sha256: str) -> Path:
        return self.root / "text" / f"{text_sha256}.txt"

    def read_text(self, text_sha256: str) -> str | None:
        try:
            return self.text_path(text_sha256).read_text(encoding="utf-8")
        except OSError:
            return None

    def _url_entry(self, url: str) -> Path:
        return self.root / "urls" / f"{sha256(url.encode())}.json"

    def url_info(self, url: str) -> dict | None:
        try:
            info = json.loads(self._url_entry(url).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(info, dict) or info.get("url") != url:
            return None
        return info if _HEX64.fullmatch(str(info.get("pdf_sha256"))) else None

    def pdf_text_sha(self, pdf_sha256: str) -> str | None:
        try:
            info = json.loads((self.root / "pdf" / f"{pdf_sha256}.json").read_text("utf-8"))
            text_sha = info.get("text_sha256")
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(text_sha, str) or not _HEX64.fullmatch(text_sha):
            return None
        return text_sha if self.text_path(text_sha).is_file() else None

    def remember_url(
        self, url: str, pdf_sha256: str, etag: str | None, modified: str | None
    ) -> None:
        entry = {"url": url, "pdf_sha256": pdf_sha256, "etag": etag, "last_modified": modified}
        atomic_write(self._url_entry(url), json.dumps(entry))


def sources_of(record: PaperRecord, arxiv_url: str) -> list[str]:
    """The URLs to try, best first: arXiv (when its id is known), then the venue's PDF."""
    urls = []
    if record.arxiv:
        urls.append(f"{arxiv_url.rstrip('/')}/pdf/{quote(record.arxiv, safe='./')}")
    if record.pdf:
        urls.append(record.pdf)
    return urls


def record_of(meta: PaperMeta) -> PaperRecord:
    """The fetchable part of a paper file's metadata (its arXiv id and PDF link)."""
    links = meta.links
    return PaperRecord(
        id=meta.id,
        title="",
        origin="paper file",
        arxiv=links.arxiv,
        pdf=links.pdf,
    )


def cached_text_path(
    cache: TextCache, record: PaperRecord, text_sha256: str | None, arxiv_url: str
) -> Path | None:
    """Where the paper's text is in the cache, without any request; None when it is not there."""
    if text_sha256 and cache.text_path(text_sha256).is_file():
        return cache.text_path(text_sha256)
    for url in sources_of(record, arxiv_url):
        info = cache.url_info(url)
        known = cache.pdf_text_sha(info["pdf_sha256"]) if info else None
        if known:
            return cache.text_path(known)
    return None
