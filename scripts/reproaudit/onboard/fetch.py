"""A paper's text: downloaded once, politely, and cached by content hash outside the repository.

The PDFs are the authors' work, so they are never written into the audit
repository: they live in a user cache folder (``default_cache()``, or
``--cache DIR``):

    <cache>/pdf/<sha256 of the PDF>.pdf     the file as downloaded
    <cache>/pdf/<sha256 of the PDF>.json    {"text_sha256": ...}: its text is known
    <cache>/text/<sha256 of the text>.txt   the text the bounded PDF reader got from it
    <cache>/urls/<sha256 of the URL>.json   {url, etag, last_modified, pdf_sha256}

arXiv comes first when the paper has an arXiv id (``<arxiv_url>/pdf/<id>``), the
venue's PDF otherwise or when arXiv has no file. A URL fetched before costs no
request; with ``refresh`` it costs one conditional request (``If-None-Match`` /
``If-Modified-Since``), and a 304 or a body with a known hash costs no
re-extraction. Every file is written whole (temp file, then rename).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx

from ..errors import InputError
from ..extract import TEXT_BUDGET, read_paper_text
from ..fsutil import current_umask
from ..models import PaperMeta
from .http import Polite, TooLarge
from .sources import PaperRecord

MAX_PDF_BYTES = 64 * 1024 * 1024
_HEX64 = re.compile(r"[0-9a-f]{64}")


def default_cache() -> Path:
    """$REPROAUDIT_CACHE, else $XDG_CACHE_HOME/reproaudit, else ~/.cache/reproaudit."""
    if os.environ.get("REPROAUDIT_CACHE"):
        return Path(os.environ["REPROAUDIT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reproaudit"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: str | bytes) -> None:
    """Temp file then rename, without fsync: a cache entry is whole or absent after a kill,
    and one lost to a power cut is fetched again (the paper files themselves are fsynced)."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class FetchError(Exception):
    """No source gave a readable PDF; the message says what each answered."""


@dataclass(frozen=True)
class PaperText:
    text: str
    text_sha256: str
    pdf_sha256: str
    url: str
    requests: int  # HTTP requests this fetch sent (0: all from the cache)
    extracted: bool  # True when the PDF reader ran (a PDF never seen before)


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

    def store_pdf(self, data: bytes) -> tuple[str, str, bool]:
        """(pdf hash, text hash, whether the reader ran) for a downloaded PDF."""
        pdf_sha = sha256(data)
        known = self.pdf_text_sha(pdf_sha)
        if known:
            return pdf_sha, known, False  # the same bytes as before: no re-extraction
        pdf_path = self.root / "pdf" / f"{pdf_sha}.pdf"
        atomic_write(pdf_path, data)
        text = read_paper_text(pdf_path, TEXT_BUDGET).replace("\x00", "")
        text_sha = sha256(text.encode("utf-8"))
        atomic_write(self.text_path(text_sha), text)
        atomic_write(pdf_path.with_suffix(".json"), json.dumps({"text_sha256": text_sha}))
        return pdf_sha, text_sha, True


def sources_of(record: PaperRecord, arxiv_url: str) -> list[str]:
    """The URLs to try, best first: arXiv (when its id is known), then the venue's PDF."""
    urls = []
    if record.arxiv:
        urls.append(f"{arxiv_url.rstrip('/')}/pdf/{quote(record.arxiv, safe='./')}")
    if record.pdf:
        urls.append(record.pdf)
    return urls


def fetch_text(
    record: PaperRecord, cache: TextCache, http: Polite, *, arxiv_url: str, refresh: bool = False
) -> PaperText:
    """The paper's text from the cache or its first source that gives a readable PDF."""
    failures = []
    requests = 0
    for url in sources_of(record, arxiv_url):
        info = cache.url_info(url) or {}
        known = cache.pdf_text_sha(str(info.get("pdf_sha256"))) if info else None
        if known and not refresh:
            return PaperText(
                cache.read_text(known) or "", known, info["pdf_sha256"], url, requests, False
            )
        headers = {"Accept": "application/pdf"}
        if known and info:
            if info.get("etag"):
                headers["If-None-Match"] = info["etag"]
            if info.get("last_modified"):
                headers["If-Modified-Since"] = info["last_modified"]
        try:
            status, reply_headers, body = http.download(url, headers, MAX_PDF_BYTES)
        except TooLarge as exc:
            requests += http.last_attempts
            failures.append(str(exc))
            continue
        except httpx.HTTPError as exc:  # refused, reset, timed out: try the next source
            requests += http.last_attempts
            failures.append(f"{url}: {type(exc).__name__}")
            continue
        requests += http.last_attempts
        if status == 304 and known and info:
            return PaperText(
                cache.read_text(known) or "", known, info["pdf_sha256"], url, requests, False
            )
        if status != 200:
            failures.append(f"{url}: HTTP {status}")
            continue
        if not body.startswith(b"%PDF-"):
            failures.append(f"{url}: not a PDF")
            continue
        try:
            pdf_sha, text_sha, extracted = cache.store_pdf(body)
        except InputError as exc:
            failures.append(f"{url}: {str(exc).splitlines()[0]}")
            continue
        cache.remember_url(
            url, pdf_sha, reply_headers.get("etag"), reply_headers.get("last-modified")
        )
        return PaperText(
            cache.read_text(text_sha) or "", text_sha, pdf_sha, url, requests, extracted
        )
    if not failures:
        failures.append("no arXiv id and no PDF URL")
    raise FetchError("; ".join(failures))


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
