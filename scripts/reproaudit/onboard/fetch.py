"""A paper's text: downloaded once, politely, and cached by content hash outside the repository.

The PDFs are the authors' work, so they are never written into the audit
repository: they live in a user cache folder (``cache.default_cache()``, or
``--cache DIR``; its layout is in ``cache``).

arXiv comes first when the paper has an arXiv id (``<arxiv_url>/pdf/<id>``), the
venue's PDF otherwise or when arXiv has no file. A URL fetched before costs no
request; with ``refresh`` it costs one conditional request (``If-None-Match`` /
``If-Modified-Since``), and a 304 or a body with a known hash costs no
re-extraction. Every file is written whole (temp file, then rename).

A reset, a 5xx or a cut reply is tried again inside the run by the HTTP helper
(``http``), a PDF without its ``%%EOF`` marker too (a reply cut short that the
connection did not notice); what still fails is reported by host, status and
tries, and the next source is tried.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from ..errors import InputError
from ..extract import TEXT_BUDGET, read_paper_text
from .cache import TextCache, atomic_write, sha256, sources_of
from .http import Polite, TooLarge, Unavailable, describe
from .sources import PaperRecord

MAX_PDF_BYTES = 64 * 1024 * 1024
EOF_WINDOW = 2048  # a PDF ends with %%EOF within its last bytes (readers look there)


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


def pdf_cut_short(body: bytes) -> str | None:
    """How a downloaded PDF is incomplete (no ``%%EOF`` at its end), or None."""
    if body.startswith(b"%PDF-") and b"%%EOF" not in body[-EOF_WINDOW:]:
        return f"truncated PDF ({len(body):,} bytes, no %%EOF at its end)"
    return None


def _where(url: str) -> str:
    """A template that names the host and the request: "arxiv.org answered {} to GET /pdf/x"."""
    parts = urlsplit(url)
    return f"{parts.netloc} answered {{}} to GET {parts.path or '/'}"


def store_pdf(cache: TextCache, data: bytes) -> tuple[str, str, bool]:
    """(pdf hash, text hash, whether the reader ran) for a downloaded PDF."""
    pdf_sha = sha256(data)
    known = cache.pdf_text_sha(pdf_sha)
    if known:
        return pdf_sha, known, False  # the same bytes as before: no re-extraction
    pdf_path = cache.root / "pdf" / f"{pdf_sha}.pdf"
    atomic_write(pdf_path, data)
    text = read_paper_text(pdf_path, TEXT_BUDGET).replace("\x00", "")
    text_sha = sha256(text.encode("utf-8"))
    atomic_write(cache.text_path(text_sha), text)
    atomic_write(pdf_path.with_suffix(".json"), json.dumps({"text_sha256": text_sha}))
    return pdf_sha, text_sha, True


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
            status, reply_headers, body = http.download(
                url, headers, MAX_PDF_BYTES, complete=pdf_cut_short
            )
        except (TooLarge, Unavailable) as exc:  # every try failed: the next source
            requests += http.last_attempts
            failures.append(str(exc).splitlines()[0])
            continue
        except httpx.HTTPError as exc:  # a bad URL, too many redirects: the next source
            requests += http.last_attempts
            failures.append(f"{urlsplit(url).netloc}: {describe(exc)} on GET {url}")
            continue
        requests += http.last_attempts
        if status == 304 and known and info:
            return PaperText(
                cache.read_text(known) or "", known, info["pdf_sha256"], url, requests, False
            )
        if status != 200:
            failures.append(_where(url).format(f"HTTP {status}"))
            continue
        if not body.startswith(b"%PDF-"):
            failures.append(_where(url).format("something that is not a PDF"))
            continue
        try:
            pdf_sha, text_sha, extracted = store_pdf(cache, body)
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
