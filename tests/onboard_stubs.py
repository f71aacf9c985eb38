"""Stand-ins for the services ``reproaudit onboard`` talks to, on 127.0.0.1, in their protocols.

- ``OpenReviewStub``: OpenReview API v2's ``GET /notes?content.venueid=...&limit=&offset=``
  (``{"notes": [...], "count": N}``, every content field as ``{"value": ...}``, ``license``
  at the top level; accepted, withdrawn and rejected notes under their venue ids),
  ``POST /login``, and the site's ``GET /pdf/<sha1>.pdf`` with an ETag. ``limit_every``
  answers every n-th PDF request 429 with OpenReview's ``RateLimitError`` body and
  ``details.resetTime`` ``reset`` seconds ahead.
- ``ArxivStub``: ``GET /pdf/<id>`` with ETag and ``If-None-Match``; keeps each request's time.
  ``faults[id]`` lists how the next requests for a paper fail, one each, before it is served:
  ``reset`` (the connection reset, TCP RST), ``cut`` (half the announced body, then the
  connection closes), ``eof`` (a PDF cut before its ``%%EOF``, sent as if whole), or an HTTP
  status (``"500"``, ``"503"``). ``OpenReviewStub.notes_faults`` does the same for listing
  pages.
- ``text_pdf``: a small real PDF (one page per paragraph, Helvetica text) pypdf reads.
- ``extract_reply``: what a model drafting claims answers, quoting the paper's own lines,
  plus one claim with an invented quote and one with a unit pint cannot read.
- ``openreview_args`` / ``list_args``: the `reproaudit onboard` arguments aimed at the
  stand-ins, the hosts' spacing set to 0 unless a test asks for more.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import struct
import threading
import time
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

try:
    from tests.localserver import LocalServer
except ImportError:  # pragma: no cover - run as a script by the benchmark
    from localserver import LocalServer  # type: ignore[no-redef]

VENUE_ID = "ICLR.cc/2026/Conference"


def openreview_args(repo: Path, cache: Path, stub: OpenReviewStub, *extra: str) -> list[str]:
    """`onboard openreview VENUE_ID` against ``stub`` (API and site), without spacing."""
    return [
        "onboard",
        "openreview",
        VENUE_ID,
        "--repo",
        str(repo),
        "--cache",
        str(cache),
        "--api-url",
        stub.url,
        "--site-url",
        stub.url,
        "--venue-interval",
        "0",
        *extra,
    ]


def list_args(
    listing: Path, repo: Path, cache: Path, arxiv: ArxivStub, *extra: str, interval: str = "0"
) -> list[str]:
    """`onboard list LISTING --venue "COLT 2026"` fetching from ``arxiv``."""
    return [
        "onboard",
        "list",
        str(listing),
        "--venue",
        "COLT 2026",
        "--repo",
        str(repo),
        "--cache",
        str(cache),
        "--arxiv-url",
        arxiv.url,
        "--arxiv-interval",
        interval,
        *extra,
    ]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose text layer holds ``lines``, one per line."""
    ops = ["BT", "/F1 10 Tf", "12 TL", "50 780 Td"]
    for line in lines:
        ops.append(f"({_escape(line)}) Tj T*")
    ops.append("ET")
    stream = "\n".join(ops).encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def paper_lines(paper_id: str, version: int = 1) -> list[str]:
    return [
        f"Paper {paper_id} (version {version}): a study of fast sampling.",
        "We study one-step sampling for diffusion models in this work.",
        f"Our sampler reaches an accuracy of {90 + version}.5 percent on 20,000 test images.",
        "Sampling is 8 times faster than the teacher model on one GPU.",
        f"The code is available at https://github.com/lab/{paper_id.lower()}",
        "We thank the reviewers for their comments and suggestions.",
    ]


def extract_reply(user: str) -> str:
    """The model's JSON answer: claims quoting the fenced paper's lines, and two bad ones."""
    m = re.search(r"<<<PAPER [0-9a-f]+\n(.*)\nPAPER [0-9a-f]+>>>", user, re.S)
    text = m.group(1) if m else ""
    accuracy = re.search(r"accuracy of ([0-9.]+) percent", text)
    claims: list[dict[str, Any]] = []
    if accuracy:
        line = next(x for x in text.splitlines() if "accuracy of" in x)
        claims.append(
            {
                "quote": line.strip(),
                "statement": f"The sampler reaches {accuracy.group(1)}% accuracy on the benchmark.",
                "anchor": "Table 1",
                "kind": "empirical",
                "target": {
                    "metric": "accuracy",
                    "form": "at_least",
                    "value": float(accuracy.group(1)),
                    "unit": "percent",
                    "per": None,
                    "tolerance": {"abs": 0.5},
                },
            }
        )
    claims.append(
        {
            "quote": "Sampling is 8 times faster than the teacher model",
            "statement": "One-step sampling is 8x faster than the teacher.",
            "anchor": "Table 2",
            "kind": "efficiency",
        }
    )
    claims.append(
        {  # invented: not in the paper, must be dropped
            "quote": "We prove that our sampler is optimal for every dataset.",
            "statement": "The sampler is optimal.",
            "anchor": "Theorem 1",
            "kind": "theoretical",
        }
    )
    claims.append(
        {  # a unit pint cannot read: dropped as invalid
            "quote": "We study one-step sampling for diffusion models",
            "statement": "Sampling speed is 3 blorps.",
            "anchor": "Section 2",
            "kind": "efficiency",
            "target": {
                "metric": "speed",
                "form": "at_least",
                "value": 3,
                "unit": "blorps per zorp",
            },
        }
    )
    return json.dumps({"title": "ignored", "claims": claims})


def note(paper_id: str, venueid: str, venue: str, number: int, pdf_sha: str) -> dict[str, Any]:
    """One API v2 note as OpenReview serves it."""
    return {
        "id": paper_id,
        "forum": paper_id,
        "number": number,
        "cdate": 1700000000000,
        "mdate": 1700000000000,
        "license": "CC BY 4.0",
        "invitations": [f"{venueid.split('/Withdrawn')[0]}/-/Submission"],
        "content": {
            "title": {"value": f"Fast Sampling Study {number}"},
            "authors": {"value": ["Ada Lovelace", "Alan Turing"]},
            "authorids": {"value": ["~Ada_Lovelace1", "alan@example.org"]},
            "abstract": {"value": f"We study fast sampling.\nPaper number {number}."},
            "keywords": {"value": ["diffusion", "sampling"]},
            "venue": {"value": venue},
            "venueid": {"value": venueid},
            "pdf": {"value": f"/pdf/{pdf_sha}.pdf"},
        },
    }


RESET = -1  # a status ``answer`` returns to reset the connection instead of replying
CUT = "X-Stub-Cut"  # a header ``answer`` returns to send only this many bytes of the body


def fault_reply(fault: str, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """The reply that plays ``fault`` (see the module's docstring) for a body ``data``."""
    if fault == "reset":
        return RESET, {}, b""
    if fault == "cut":
        return 200, {"Content-Type": "application/pdf", CUT: str(len(data) // 2)}, data
    if fault == "eof":
        return 200, {"Content-Type": "application/pdf"}, data[: len(data) * 2 // 3]
    return int(fault), {"Content-Type": "text/html", "Retry-After": "0"}, b"<h1>oops</h1>"


class _Stub:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[tuple[float, str, str]] = []  # (time, method, path)
        self._http = LocalServer(self._handler())

    @property
    def url(self) -> str:
        return self._http.base_url

    def __enter__(self):
        self._http.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.__exit__(*exc)

    def count(self, prefix: str) -> int:
        with self.lock:
            return sum(1 for _, _, path in self.requests if path.startswith(prefix))

    def answer(self, method: str, path: str, query: dict, headers: Any, body: bytes):
        raise NotImplementedError

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _go(self, method: str) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with stub.lock:
                    stub.requests.append((time.monotonic(), method, parts.path))
                status, headers, data = stub.answer(
                    method, parts.path, parse_qs(parts.query), self.headers, body
                )
                if status == RESET:  # SO_LINGER 0: close() sends RST, the client sees a reset
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.connection.close()  # for real once the handler's files close
                    self.close_connection = True
                    return
                cut = headers.pop(CUT, None)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data if cut is None else data[: int(cut)])
                if cut is not None:
                    self.wfile.flush()
                    self.close_connection = True

            def do_GET(self) -> None:
                self._go("GET")

            def do_POST(self) -> None:
                self._go("POST")

        return Handler


class OpenReviewStub(_Stub):
    def __init__(
        self,
        venueid: str,
        accepted: int,
        *,
        withdrawn: int = 0,
        rejected: int = 0,
        limit_every: int = 0,
        reset: float = 0.3,
        password: str | None = None,
    ) -> None:
        super().__init__()
        self.venueid = venueid
        self.notes: list[dict[str, Any]] = []
        self.pdfs: dict[str, bytes] = {}
        self.limit_every = limit_every
        self.reset = reset
        self.password = password
        self.token = "tok-" + hashlib.sha1(b"x").hexdigest()[:8]
        self.pdf_served = 0
        self.notes_faults: list[str] = []
        tracks = ["ICLR 2026 Oral", "ICLR 2026 Spotlight", "ICLR 2026 Poster", "ICLR 2026 Poster"]
        kinds = (
            [(venueid, tracks[i % 4]) for i in range(accepted)]
            + [(f"{venueid}/Withdrawn_Submission", "Withdrawn Submission")] * withdrawn
            + [(f"{venueid}/Rejected_Submission", "Submitted to ICLR 2026")] * rejected
        )
        for number, (vid, venue) in enumerate(kinds, 1):
            paper_id = f"P{number:05d}x"
            self.set_pdf(paper_id, number, vid, venue)

    def set_pdf(self, paper_id: str, number: int, vid: str, venue: str, version: int = 1) -> None:
        data = text_pdf(paper_lines(paper_id, version))
        sha = hashlib.sha1(data).hexdigest()
        self.pdfs[sha] = data
        new = note(paper_id, vid, venue, number, sha)
        self.notes = [n for n in self.notes if n["id"] != paper_id] + [new]
        self.notes.sort(key=lambda n: n["number"])

    def answer(self, method, path, query, headers, body):
        if method == "POST" and path == "/login":
            doc = json.loads(body or b"{}")
            if self.password is not None and doc.get("password") == self.password:
                return (
                    200,
                    {"Content-Type": "application/json"},
                    json.dumps({"token": self.token}).encode(),
                )
            return 400, {}, b'{"name": "InvalidCredentials"}'
        if path == "/notes":
            with self.lock:
                fault = self.notes_faults.pop(0) if self.notes_faults else None
            if fault:
                return fault_reply(fault, b"{}")
            if self.password is not None and headers.get("Authorization") != f"Bearer {self.token}":
                return 403, {}, b'{"name": "ForbiddenError"}'
            venueid = (query.get("content.venueid") or [None])[0]
            limit = int((query.get("limit") or ["1000"])[0])
            offset = int((query.get("offset") or ["0"])[0])
            chosen = [n for n in self.notes if n["content"]["venueid"]["value"] == venueid]
            page = chosen[offset : offset + min(limit, 1000)]
            doc = {"notes": page, "count": len(chosen)}
            return 200, {"Content-Type": "application/json"}, json.dumps(doc).encode()
        m = re.fullmatch(r"/pdf/([0-9a-f]{40})\.pdf", path)
        if m and m.group(1) in self.pdfs:
            with self.lock:
                self.pdf_served += 1
                limited = self.limit_every and self.pdf_served % self.limit_every == 0
            if limited:
                when = datetime.now(UTC) + timedelta(seconds=self.reset)
                error = {
                    "name": "RateLimitError",
                    "message": "Too many requests",
                    "status": 429,
                    "details": {"resetTime": when.isoformat().replace("+00:00", "Z")},
                }
                return 429, {"Content-Type": "application/json"}, json.dumps(error).encode()
            data = self.pdfs[m.group(1)]
            etag = f'"{m.group(1)}"'
            if headers.get("If-None-Match") == etag:
                return 304, {"ETag": etag}, b""
            return 200, {"Content-Type": "application/pdf", "ETag": etag}, data
        return 404, {}, b'{"name": "NotFoundError"}'


class ArxivStub(_Stub):
    def __init__(self) -> None:
        super().__init__()
        self.papers: dict[str, bytes] = {}
        self.faults: dict[str, list[str]] = {}

    def answer(self, method, path, query, headers, body):
        m = re.fullmatch(r"/pdf/(.+)", path)
        if method == "GET" and m and m.group(1) in self.papers:
            data = self.papers[m.group(1)]
            with self.lock:
                waiting = self.faults.get(m.group(1)) or []
                fault = waiting.pop(0) if waiting else None
            if fault:
                return fault_reply(fault, data)
            etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
            if headers.get("If-None-Match") == etag:
                return 304, {"ETag": etag}, b""
            return 200, {"Content-Type": "application/pdf", "ETag": etag}, data
        return 404, {"Content-Type": "text/plain"}, b"not found"
