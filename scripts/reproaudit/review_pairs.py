"""Blind human judgements of image pairs, for perceptual claims.

``reproaudit review pairs DIR`` serves a small page on 127.0.0.1 that shows the
pairs side by side. ``DIR/a/`` and ``DIR/b/`` hold images with the same names
(say, the paper's method and the baseline). Keys: ← or 1 = left is better, → or
2 = right is better, ↓ or 0 = no difference, Backspace = back one. Every
judgement rewrites ``judgements.csv`` in ``DIR`` atomically (pair, which folder
showed on which side, the choice mapped back to a/b/tie), so a session can stop
and resume at any time; that file is the unblinded record for analysis, and the
server never serves it.

Blind means that nothing the page is served tells which side shows which folder:

- which folder shows on the left is drawn per pair from the operating system's
  random source each session (a pair judged before keeps the sides it was judged
  with) and kept on the server only; the pairs come in a fresh random order;
- pairs and images are named by random ids made for this session: no file
  name, folder or position appears in a URL, in ``state.json`` or in a reply;
- both images of a pair are decoded and re-encoded the same way before either is
  served (EXIF orientation applied, colour profile converted to sRGB, one colour
  mode for the two, PNG without any metadata: no text chunks, EXIF, timestamps
  or encoder names), and padded with a private PNG chunk to the same length, so
  their replies have the same headers, the same ``Content-Length`` and no
  ``ETag`` or ``Last-Modified``; the pair is prepared as one, so either request
  costs the same, and a failure answers both sides the same 404;
- a pair whose two images differ in size cannot be shown blind, so the session
  refuses to open and names those pairs.

What stays is the pixels themselves, which are what the person judges.

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
import struct
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from PIL import Image, ImageCms, ImageOps, ImageSequence, UnidentifiedImageError

from . import problems as P
from .errors import InputError
from .fsutil import atomic_write
from .problems import Problem

SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")
SIDES = ("a", "b")
CHOICES = ("left", "right", "tie")
COLUMNS = ["pair", "left", "right", "choice", "preferred", "judged_at"]
MAX_IMAGE_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 50_000_000  # width x height x frames of one image: a decompression bomb is refused
MAX_BODY_BYTES = 10_000
SEQ_WINDOW = 10_000  # a page numbers its requests 1, 2, 3...: it never jumps further ahead
CACHED_PAIRS = 8  # prepared pairs kept in memory (the page asks for one pair at a time)
TOKEN_HEADER = "X-Review-Token"
TOKEN_PLACEHOLDER = b"__REVIEW_TOKEN__"
PAD_CHUNK = b"paDd"  # ancillary, private, safe to copy: every PNG reader skips it
# A spreadsheet runs a cell starting with these as a formula (OWASP "CSV injection");
# "'" is escaped too so that reading the file back is exact.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")
_ORIENTATION = 0x0112  # EXIF tag: 5 to 8 swap width and height
_SRGB = ImageCms.createProfile("sRGB")


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


def _open_image_file(folder: Path, name: str) -> io.BufferedReader | None:
    """``name`` directly in ``folder``, opened for reading if it is a regular file of at most
    ``MAX_IMAGE_BYTES``: neither may be a symlink (``O_NOFOLLOW``), and opening never
    blocks on a FIFO (``O_NONBLOCK``)."""
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
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_IMAGE_BYTES:
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def read_image(folder: Path, name: str, limit: int = MAX_IMAGE_BYTES) -> tuple[bytes, str] | None:
    """The bytes (up to ``limit``) and media type of image ``name`` directly in ``folder``.

    None for anything else: only a regular file (no symlink, FIFO or device) of at most
    ``MAX_IMAGE_BYTES`` whose magic bytes are an image counts.
    """
    handle = _open_image_file(folder, name)
    if handle is None:
        return None
    with handle:
        data = handle.read(min(limit, MAX_IMAGE_BYTES + 1))
    kind = image_type(data[:16])
    if kind is None or len(data) > MAX_IMAGE_BYTES:
        return None
    return data, kind


def image_size(folder: Path, name: str) -> tuple[int, int] | None:
    """The size an image shows at (EXIF orientation applied), from its header alone."""
    handle = _open_image_file(folder, name)
    if handle is None:
        return None
    with handle:
        if image_type(handle.peek(16)[:16]) is None:
            return None
        try:
            with Image.open(handle) as im:
                width, height = im.size
                turned = im.getexif().get(_ORIENTATION) in (5, 6, 7, 8)
        except (OSError, ValueError, UnidentifiedImageError, Image.DecompressionBombError):
            return None
    return (height, width) if turned else (width, height)


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


# --- the two images of a pair, made alike in everything but their pixels ---------------


def _frames(data: bytes) -> tuple[list[Image.Image], list[int], bool] | None:
    """The frames of an image (one unless animated) as shown, their durations, and whether
    any pixel may be transparent; None when it does not decode or is too large."""
    try:
        im = Image.open(io.BytesIO(data))
        count = getattr(im, "n_frames", 1)
        if im.size[0] * im.size[1] * count > MAX_PIXELS:
            return None
        icc = im.info.get("icc_profile")
        frames, durations = [], []
        for frame in ImageSequence.Iterator(im):
            shown = ImageOps.exif_transpose(frame) if count == 1 else frame.copy()
            frames.append(_to_srgb(_eight_bit(shown), icc))
            durations.append(int(frame.info.get("duration") or 100))
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return None
    alpha = any(f.mode in ("RGBA", "LA", "PA") or "transparency" in f.info for f in frames)
    return frames, durations, alpha


def _eight_bit(im: Image.Image) -> Image.Image:
    """16- and 32-bit grey scaled to 8 bits (``convert`` would clip it to white)."""
    if im.mode.startswith("I"):
        return im.convert("I").point(lambda v: v * (1 / 256)).convert("L")
    return im


def _to_srgb(im: Image.Image, icc: bytes | None) -> Image.Image:
    """Colours as the browser would show them: an embedded profile converted to sRGB."""
    if not icc or im.mode not in ("RGB", "RGBA", "L", "CMYK"):
        return im
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        mode = "RGBA" if im.mode == "RGBA" else "RGB"
        converted = ImageCms.profileToProfile(im, source, _SRGB, outputMode=mode)
    except (ImageCms.PyCMSError, OSError, ValueError):
        return im  # a broken profile: the pixels as stored
    return converted if converted is not None else im


def _png(frames: list[Image.Image], durations: list[int], mode: str) -> bytes:
    """Frames as a PNG (APNG when animated) in ``mode`` with no metadata at all."""
    shown = [f.convert(mode) for f in frames]
    for frame in shown:
        frame.info = {}  # else the encoder writes the source's profile, EXIF, transparency
    out = io.BytesIO()
    if len(shown) == 1:
        shown[0].save(out, "PNG", compress_level=6)
    else:
        shown[0].save(
            out,
            "PNG",
            save_all=True,
            append_images=shown[1:],
            duration=durations,
            loop=0,
            compress_level=6,
        )
    return out.getvalue()


def _pad(png: bytes, length: int) -> bytes:
    """``png`` made exactly ``length`` bytes long by a ``paDd`` chunk before its IEND."""
    size = length - len(png) - 12
    if size < 0 or not png.endswith(b"IEND\xaeB`\x82"):
        raise ValueError("cannot pad")
    chunk = PAD_CHUNK + bytes(size)
    filler = struct.pack(">I", size) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return png[:-12] + filler + png[-12:]


def blind_pair(a: bytes, b: bytes) -> tuple[bytes, bytes] | None:
    """The two images re-encoded alike (one mode, PNG, no metadata) and of one length;
    None when either does not decode or their sizes differ."""
    first, second = _frames(a), _frames(b)
    if first is None or second is None or first[0][0].size != second[0][0].size:
        return None
    mode = "RGBA" if first[2] or second[2] else "RGB"
    pa, pb = _png(first[0], first[1], mode), _png(second[0], second[1], mode)
    length = max(len(pa), len(pb)) + 12  # both get a pad chunk: the same chunk layout
    return _pad(pa, length), _pad(pb, length)


# --- a session ------------------------------------------------------------------------


def csv_cell(text: str) -> str:
    """``text`` safe for a spreadsheet: a leading ``=``, ``+``, ``-``, ``@``... gets a ``'``."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_value(cell: str) -> str:
    """What ``csv_cell`` was given."""
    return cell[1:] if cell.startswith("'") else cell


def _new_id() -> str:
    return secrets.token_urlsafe(16)


@dataclass
class Session:
    """The pairs of one folder, their blinded sides and order, and the judgements so far.

    Everything that unblinds (``left_is_a``, the file names behind the ids) stays here;
    ``state`` and the images are all the page gets.
    """

    folder: Path
    out: Path
    pairs: list[str] = field(default_factory=list)  # file names, sorted: the CSV's order
    left_is_a: dict[str, bool] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # the order the page shows them in
    judgements: dict[str, dict[str, str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # the page numbers its requests: a late, older request for a pair never wins
    last_seq: dict[str, int] = field(default_factory=dict)
    # only the served page knows it; every request that reads or writes state carries it
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    pair_ids: dict[str, str] = field(default_factory=dict)  # file name -> id
    image_ids: dict[tuple[str, str], str] = field(default_factory=dict)  # (name, side) -> id
    _by_pair_id: dict[str, str] = field(default_factory=dict)
    _by_image_id: dict[str, tuple[str, str]] = field(default_factory=dict)
    _prepared: OrderedDict[str, dict[str, bytes] | None] = field(default_factory=OrderedDict)
    _pair_locks: dict[str, threading.Lock] = field(default_factory=dict)

    @classmethod
    def open(
        cls, folder: Path, out: Path | None = None, rng: random.Random | None = None
    ) -> Session:
        """The session of ``folder``; ``rng`` draws sides and order (default: the OS's
        random source, so that nobody can compute them: pass one only in tests)."""
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
        _check_sizes(folder, pairs)
        draw = rng or secrets.SystemRandom()
        session = cls(
            folder,
            Path(out) if out else folder / "judgements.csv",
            pairs,
            {name: draw.random() < 0.5 for name in pairs},
        )
        session.order = draw.sample(pairs, len(pairs))
        for name in pairs:
            session.pair_ids[name] = pair_id = _new_id()
            session._by_pair_id[pair_id] = name
            for side in SIDES:
                session.image_ids[name, side] = image_id = _new_id()
                session._by_image_id[image_id] = (name, side)
        session._load()
        return session

    def _load(self) -> None:
        """Judgements of an earlier session, each with the sides it was judged with."""
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
                name, left = row.get("pair", ""), row.get("left")
                if name in self.left_is_a and row.get("choice") in CHOICES and left in SIDES:
                    self.left_is_a[name] = left == "a"
                    self.judgements[name] = row | {
                        "right": "b" if left == "a" else "a",
                        "preferred": _preferred(row["choice"], left == "a"),
                    }

    def image_id(self, name: str, side: str) -> str:
        """The id the page knows the image of pair ``name`` in folder ``side`` by."""
        return self.image_ids[name, side]

    def image(self, image_id: str) -> bytes | None:
        """The PNG the page is served for ``image_id``; None for anything else."""
        found = self._by_image_id.get(image_id)
        if found is None:
            return None
        name, side = found
        prepared = self._prepare(name)
        return None if prepared is None else prepared[side]

    def _prepare(self, name: str) -> dict[str, bytes] | None:
        """Both images of a pair, made alike (``blind_pair``), read once for both sides."""
        with self.lock:
            if name in self._prepared:
                self._prepared.move_to_end(name)
                return self._prepared[name]
            pair_lock = self._pair_locks.setdefault(name, threading.Lock())
        with pair_lock:
            with self.lock:
                if name in self._prepared:
                    return self._prepared[name]
            files = [read_image(self.folder / side, name) for side in SIDES]
            made = None
            if files[0] is not None and files[1] is not None:
                made = blind_pair(files[0][0], files[1][0])
            prepared = None if made is None else dict(zip(SIDES, made, strict=True))
            with self.lock:
                self._prepared[name] = prepared
                while len(self._prepared) > CACHED_PAIRS:
                    self._prepared.popitem(last=False)
        return prepared

    def state(self) -> dict:
        """What the page is told: opaque ids, the choices so far, the next request number."""
        with self.lock:
            next_seq = max(self.last_seq.values(), default=0) + 1
            return {
                "pairs": [
                    {
                        "id": self.pair_ids[n],
                        "left": self.image_ids[n, "a" if self.left_is_a[n] else "b"],
                        "right": self.image_ids[n, "b" if self.left_is_a[n] else "a"],
                        "choice": self.judgements.get(n, {}).get("choice"),
                    }
                    for n in self.order
                ],
                "next_seq": next_seq,
            }

    def judge(
        self, pair_id: str, choice: str | None, now: datetime | None = None, seq: int | None = None
    ) -> None:
        """Record (or, with None, withdraw) a judgement of pair ``pair_id`` and rewrite the CSV.

        ``seq`` numbers the page's requests: an older one arriving late is
        ignored, and one further ahead than ``SEQ_WINDOW`` is refused, so no
        request can freeze a pair against all later judgements.
        """
        name = self._by_pair_id.get(pair_id)
        if name is None or (choice is not None and choice not in CHOICES):
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
                left_is_a = self.left_is_a[name]
                self.judgements[name] = {
                    "pair": name,
                    "left": "a" if left_is_a else "b",
                    "right": "b" if left_is_a else "a",
                    "choice": choice,
                    "preferred": _preferred(choice, left_is_a),
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


def _preferred(choice: str, left_is_a: bool) -> str:
    """The folder (a or b) a choice of left, right or tie prefers, or tie."""
    if choice == "tie":
        return "tie"
    return "a" if (choice == "left") == left_is_a else "b"


def _check_sizes(folder: Path, pairs: list[str]) -> None:
    """Refuse pairs whose two images differ in size: the page could not hide the sides."""
    unlike = []
    for name in pairs:
        sizes = [image_size(folder / side, name) for side in SIDES]
        if sizes[0] != sizes[1]:
            shown = [f"{s[0]}x{s[1]}" if s else "unreadable" for s in sizes]
            unlike.append(f"{name} (a/ {shown[0]}, b/ {shown[1]})")
    if unlike:
        listed = ", ".join(unlike[:5]) + (f" and {len(unlike) - 5} more" if len(unlike) > 5 else "")
        raise _refused(
            folder,
            f"{len(unlike)} of {len(pairs)} pairs differ in size or do not decode: {listed}; "
            "the page cannot show such a pair without telling which side is which",
            "give both images of a pair the same size (e.g. resize b/ to the size of a/), "
            "or move those pairs out of a/ and b/",
        )


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
        """Every reply has the same headers, in the same order; only the body differs."""
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
        elif url.path.startswith("/img/") and url.path.count("/") == 2:
            if not self._token_ok(parse_qs(url.query).get("token", [None])[0]):
                self._refuse(403, "token missing or wrong")
                return
            found = session.image(url.path.removeprefix("/img/"))
            if found is None:
                self._send(404, b"not found", "text/plain")
                return
            self._send(200, found, "image/png")
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
