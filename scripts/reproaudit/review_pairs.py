"""Blind human judgements of image pairs, for perceptual claims.

``reproaudit review pairs DIR`` serves a small page on 127.0.0.1 that shows the
pairs side by side. ``DIR/a/`` and ``DIR/b/`` hold images with the same names
(say, the paper's method and the baseline). Which one appears on the left is
shuffled per pair with a fixed seed, so the person judging does not know which
is which. Keys: ← or 1 = left is better, → or 2 = right is better, ↓ or 0 = no
difference, Backspace = back one. Every judgement rewrites ``judgements.csv``
in ``DIR`` atomically (pair, which side showed what, the choice mapped back to
a/b/tie), so a session can stop and resume at any time.

Only the page this server hands out can talk to it. Other sites the same
browser visits can send requests to 127.0.0.1 too (a ``no-cors`` POST, an
``<img>``, DNS rebinding), so every request must name ``127.0.0.1:<port>`` as
its Host and come from no other origin; reading state, images or writing a
judgement needs the random token embedded in the served page; a judgement
must be JSON. Only regular files (no symlinks, FIFOs or devices) directly in
``a/`` and ``b/`` whose first bytes are a PNG, JPEG, GIF or WebP are served,
and CSV cells that a spreadsheet would run as a formula are neutralised.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import secrets
import stat
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from . import problems as P
from .errors import InputError
from .fsutil import atomic_write
from .problems import Problem

SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")
CHOICES = ("left", "right", "tie")
COLUMNS = ["pair", "left", "right", "choice", "preferred", "judged_at"]
MAX_IMAGE_BYTES = 64 * 1024 * 1024
MAX_BODY_BYTES = 10_000
SEQ_WINDOW = 10_000  # a page numbers its requests 1, 2, 3...: it never jumps further ahead
TOKEN_HEADER = "X-Review-Token"
TOKEN_PLACEHOLDER = b"__REVIEW_TOKEN__"
# A spreadsheet runs a cell starting with these as a formula (OWASP "CSV injection");
# "'" is escaped too so that reading the file back is exact.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def image_type(head: bytes) -> str | None:
    """The media type that a file's first bytes prove, or None: the name proves nothing."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_image(folder: Path, name: str, limit: int = MAX_IMAGE_BYTES) -> tuple[bytes, str] | None:
    """The bytes (up to ``limit``) and media type of image ``name`` directly in ``folder``.

    None for anything else: neither the folder nor the file may be a symlink
    (``O_NOFOLLOW``), opening never blocks on a FIFO (``O_NONBLOCK``), and only a
    regular file (``fstat``) of at most ``MAX_IMAGE_BYTES`` whose magic bytes are
    an image counts.
    """
    if "/" in name or name in ("", ".", ".."):
        return None
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        dir_fd = os.open(folder, flags | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return None
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_IMAGE_BYTES:
            return None
        data = handle.read(min(limit, MAX_IMAGE_BYTES + 1))
    kind = image_type(data[:16])
    if kind is None or len(data) > MAX_IMAGE_BYTES:
        return None
    return data, kind


def _image_names(side: Path) -> set[str]:
    """Names of the regular image files directly in ``side`` (lstat: symlinks are not)."""
    names = set()
    with os.scandir(side) as entries:
        for entry in entries:
            if not entry.name.lower().endswith(SUFFIXES) or not entry.name.isprintable():
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            if read_image(side, entry.name, limit=16) is not None:  # the magic bytes only
                names.add(entry.name)
    return names


def csv_cell(text: str) -> str:
    """``text`` safe for a spreadsheet: a leading ``=``, ``+``, ``-``, ``@``... gets a ``'``."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_value(cell: str) -> str:
    """What ``csv_cell`` was given."""
    return cell[1:] if cell.startswith("'") else cell


@dataclass
class Session:
    """The pairs of one folder, their blinded order, and the judgements so far."""

    folder: Path
    out: Path
    seed: int = 0
    pairs: list[str] = field(default_factory=list)
    left_is_a: dict[str, bool] = field(default_factory=dict)
    judgements: dict[str, dict[str, str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # the page numbers its requests: a late, older request for a pair never wins
    last_seq: dict[str, int] = field(default_factory=dict)
    # only the served page knows it; every request that reads or writes state carries it
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @classmethod
    def open(cls, folder: Path, out: Path | None = None, seed: int = 0) -> Session:
        folder = Path(folder)
        a, b = folder / "a", folder / "b"
        if not _real_dir(a) or not _real_dir(b):
            raise _refused(
                folder,
                "expected two folders, a/ and b/, of images (not symlinks)",
                "put each pair's two images in a/ and b/ under the same file name",
            )
        pairs = sorted(_image_names(a) & _image_names(b))
        if not pairs:
            raise _refused(
                folder,
                "no image has the same name in a/ and b/",
                "only regular PNG, JPEG, GIF or WebP files count (not symlinks)",
            )
        rng = random.Random(seed)
        session = cls(
            folder,
            Path(out) if out else folder / "judgements.csv",
            seed,
            pairs,
            {name: rng.random() < 0.5 for name in pairs},
        )
        session._load()
        return session

    def _load(self) -> None:
        try:
            mode = os.lstat(self.out).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISREG(mode):  # a symlink or FIFO planted in the folder: never read
            raise InputError(
                Problem(
                    P.INVALID_VALUE,
                    str(self.out),
                    None,
                    None,
                    "the judgements file is not a regular file (a symlink or FIFO?)",
                    "remove it, or pass --out with another path",
                )
            )
        with open(self.out, newline="", encoding="utf-8") as handle:
            for raw in csv.DictReader(handle):
                row = {k: csv_value(v or "") for k, v in raw.items() if k in COLUMNS}
                if row.get("pair") in self.left_is_a and row.get("choice") in CHOICES:
                    self.judgements[row["pair"]] = row

    def image(self, side: str, name: str) -> tuple[bytes, str] | None:
        """A pair's image on side 'a' or 'b' and its media type; None for anything else."""
        if side not in ("a", "b") or name not in self.left_is_a:
            return None
        return read_image(self.folder / side, name)

    def state(self) -> dict:
        with self.lock:
            next_seq = max(self.last_seq.values(), default=0) + 1
        return {
            "pairs": [
                {
                    "name": n,
                    "left": "a" if self.left_is_a[n] else "b",
                    "right": "b" if self.left_is_a[n] else "a",
                    "choice": self.judgements.get(n, {}).get("choice"),
                }
                for n in self.pairs
            ],
            "next_seq": next_seq,
        }

    def judge(
        self, name: str, choice: str | None, now: datetime | None = None, seq: int | None = None
    ) -> None:
        """Record (or, with None, withdraw) a judgement and rewrite the CSV.

        ``seq`` numbers the page's requests: an older one arriving late is
        ignored, and one further ahead than ``SEQ_WINDOW`` is refused, so no
        request can freeze a pair against all later judgements.
        """
        if name not in self.left_is_a or (choice is not None and choice not in CHOICES):
            raise ValueError("unknown pair or choice")
        if seq is not None and (type(seq) is not int or seq < 1):
            raise ValueError("seq must be a positive integer")
        with self.lock:
            if seq is not None:
                top = max(self.last_seq.values(), default=0)
                if seq > top + SEQ_WINDOW:
                    raise ValueError(f"seq {seq} is more than {SEQ_WINDOW} ahead of {top}")
                if seq <= self.last_seq.get(name, 0):
                    return
                self.last_seq[name] = seq
            if choice is None:
                self.judgements.pop(name, None)
            else:
                left = "a" if self.left_is_a[name] else "b"
                right = "b" if left == "a" else "a"
                preferred = {"left": left, "right": right, "tie": "tie"}[choice]
                self.judgements[name] = {
                    "pair": name,
                    "left": left,
                    "right": right,
                    "choice": choice,
                    "preferred": preferred,
                    "judged_at": (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            buffer = io.StringIO()
            writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            for pair in self.pairs:
                if pair in self.judgements:
                    row = self.judgements[pair]
                    writer.writerow({k: csv_cell(row.get(k, "")) for k in COLUMNS})
            atomic_write(self.out, buffer.getvalue())


def _refused(folder: Path, why: str, hint: str) -> InputError:
    """The pairs folder cannot be reviewed: why, and how to lay it out."""
    return InputError(Problem(P.INVALID_VALUE, str(folder), None, None, why, hint))


def _real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


class ReviewServer(ThreadingHTTPServer):
    """The server of one session; ``refused`` records what it turned away, for the curious."""

    daemon_threads = True

    def __init__(self, session: Session, port: int) -> None:
        self.session = session
        self.refused: list[tuple[str, str, str]] = []  # (method, path, reason)
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            "frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
        )
        self.end_headers()
        self.wfile.write(body)

    def _refuse(self, status: int, reason: str) -> None:
        self.server.refused.append((self.command, self.path, reason))
        self._send(status, reason.encode(), "text/plain; charset=utf-8")

    def _foreign(self) -> str | None:
        """Why this request does not come from the served page's origin, or None."""
        origin = self.server.origin
        if self.headers.get("Host") != origin.removeprefix("http://"):
            return f"Host must be {origin.removeprefix('http://')}"
        sent_from = self.headers.get("Origin")
        if sent_from is not None and sent_from != origin:
            return "requests from other origins are refused"
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site not in ("same-origin", "none"):
            return "requests from other sites are refused"
        return None

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(
            given.encode(), self.server.session.token.encode()
        )

    def do_GET(self) -> None:
        reason = self._foreign()
        if reason:
            self._refuse(403, reason)
            return
        session = self.server.session
        url = urlparse(self.path)
        if url.path == "/":
            page = resources.files("reproaudit").joinpath("templates", "review_pairs.html")
            body = page.read_bytes().replace(TOKEN_PLACEHOLDER, session.token.encode())
            self._send(200, body, "text/html; charset=utf-8")
        elif url.path == "/state.json":
            if not self._token_ok(self.headers.get(TOKEN_HEADER)):
                self._refuse(403, "token missing or wrong")
                return
            self._send(200, json.dumps(session.state()).encode(), "application/json")
        elif url.path.startswith("/img/") and url.path.count("/") == 3:
            if not self._token_ok(parse_qs(url.query).get("token", [None])[0]):
                self._refuse(403, "token missing or wrong")
                return
            _, _, side, name = url.path.split("/", 3)
            found = session.image(side, unquote(name))
            if found is None:
                self._send(404, b"not found", "text/plain")
                return
            self._send(200, *found)
        else:
            self._send(404, b"not found", "text/plain")

    def do_POST(self) -> None:
        reason = self._foreign()
        if reason:
            self._refuse(403, reason)
            return
        if urlparse(self.path).path != "/judge":
            self._send(404, b"not found", "text/plain")
            return
        if not self._token_ok(self.headers.get(TOKEN_HEADER)):
            self._refuse(403, "token missing or wrong")
            return
        media = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            self._refuse(415, "a judgement must be sent as application/json")
            return
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            self._refuse(411, "Content-Length required")
            return
        if not 0 < length <= MAX_BODY_BYTES:
            self._refuse(413, f"a judgement is at most {MAX_BODY_BYTES} bytes")
            return
        try:
            body = json.loads(self.rfile.read(length))
            if not isinstance(body, dict):
                raise TypeError("not an object")
            pair, choice, seq = body["pair"], body.get("choice"), body.get("seq")
            if not isinstance(pair, str) or not (choice is None or isinstance(choice, str)):
                raise TypeError("pair and choice are strings")
            self.server.session.judge(pair, choice, seq=seq)
        except (ValueError, KeyError, TypeError) as exc:
            self._refuse(400, f"bad judgement: {exc}")
            return
        self._send(200, json.dumps(self.server.session.state()).encode(), "application/json")


def make_server(session: Session, port: int = 0) -> ReviewServer:
    """A server for ``session`` on 127.0.0.1:``port`` (0: any free port); not started."""
    return ReviewServer(session, port)
