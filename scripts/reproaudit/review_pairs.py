"""Blind human judgements of image pairs, for perceptual claims.

``reproaudit review pairs DIR`` serves a small page on 127.0.0.1 that shows the
pairs side by side. ``DIR/a/`` and ``DIR/b/`` hold images with the same names
(say, the paper's method and the baseline). Which one appears on the left is
shuffled per pair with a fixed seed, so the person judging does not know which
is which. Keys: ← or 1 = left is better, → or 2 = right is better, ↓ or 0 = no
difference, Backspace = back one. Every judgement rewrites ``judgements.csv``
in ``DIR`` atomically (pair, which side showed what, the choice mapped back to
a/b/tie), so a session can stop and resume at any time.
"""

from __future__ import annotations

import csv
import io
import json
import random
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import unquote, urlparse

from .fsutil import atomic_write
from .problems import Problem, ReproauditError

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}
CHOICES = ("left", "right", "tie")
COLUMNS = ["pair", "left", "right", "choice", "preferred", "judged_at"]


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

    @classmethod
    def open(cls, folder: Path, out: Path | None = None, seed: int = 0) -> Session:
        folder = Path(folder)
        a, b = folder / "a", folder / "b"
        if not a.is_dir() or not b.is_dir():
            raise ReproauditError(
                Problem(
                    "invalid_value",
                    str(folder),
                    None,
                    None,
                    "expected two folders, a/ and b/, of images",
                    "put each pair's two images in a/ and b/ under the same file name",
                )
            )
        names_a = {p.name for p in a.iterdir() if p.suffix.lower() in IMAGE_TYPES}
        names_b = {p.name for p in b.iterdir() if p.suffix.lower() in IMAGE_TYPES}
        pairs = sorted(names_a & names_b)
        if not pairs:
            raise ReproauditError(
                Problem(
                    "invalid_value",
                    str(folder),
                    None,
                    None,
                    "no image has the same name in a/ and b/",
                )
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
        if not self.out.is_file():
            return
        with open(self.out, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                if row.get("pair") in self.left_is_a and row.get("choice") in CHOICES:
                    self.judgements[row["pair"]] = row

    def image(self, side: str, name: str) -> Path | None:
        """The file for a pair's side ('a' or 'b'); None for anything not in the list."""
        if side not in ("a", "b") or name not in self.left_is_a:
            return None
        return self.folder / side / name

    def state(self) -> dict:
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
        }

    def judge(
        self, name: str, choice: str | None, now: datetime | None = None, seq: int | None = None
    ) -> None:
        """Record (or, with None, withdraw) a judgement and rewrite the CSV."""
        if name not in self.left_is_a or (choice is not None and choice not in CHOICES):
            raise ValueError("unknown pair or choice")
        with self.lock:
            if seq is not None:
                if seq <= self.last_seq.get(name, -1):
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
                    writer.writerow({k: self.judgements[pair].get(k, "") for k in COLUMNS})
            atomic_write(self.out, buffer.getvalue())


def make_server(session: Session, port: int = 0) -> ThreadingHTTPServer:
    page = resources.files("reproaudit").joinpath("templates", "review_pairs.html").read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header(
                "Content-Security-Policy",
                "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
            )
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlparse(self.path).path
            if path == "/":
                self._send(200, page, "text/html; charset=utf-8")
            elif path == "/state.json":
                self._send(200, json.dumps(session.state()).encode(), "application/json")
            elif path.startswith("/img/"):
                _, _, side, name = path.split("/", 3)
                file = session.image(side, unquote(name))
                if file is None or not file.is_file():
                    self._send(404, b"not found", "text/plain")
                    return
                self._send(200, file.read_bytes(), IMAGE_TYPES[file.suffix.lower()])
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:
            if urlparse(self.path).path != "/judge":
                self._send(404, b"not found", "text/plain")
                return
            length = min(int(self.headers.get("Content-Length") or 0), 10_000)
            try:
                body = json.loads(self.rfile.read(length))
                seq = body.get("seq")
                session.judge(
                    str(body["pair"]), body.get("choice"), seq=seq if isinstance(seq, int) else None
                )
            except (ValueError, KeyError, TypeError):
                self._send(400, b"bad judgement", "text/plain")
                return
            self._send(200, json.dumps(session.state()).encode(), "application/json")

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)
