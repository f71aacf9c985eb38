"""`review pairs` is blind: an attacker who reads everything the page serves learns no side.

The folders differ in every way a file can besides its pixels (names of the pairs,
metadata text naming the method, colour mode, compression, file size, modification
time); the attacker fetches the page, the state, every image and every reply to a
judgement, raw, headers included, and looks for anything that tells a/ from b/.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import random
import re
import struct
import threading
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

import reproaudit.review_pairs as review_pairs
from reproaudit.errors import InputError
from reproaudit.review_pairs import Session, blind_pair, make_server
from tests.test_review_pairs import image_bytes, pixels

ID = re.compile(r"[A-Za-z0-9_-]{22}")
SECRETS = ("giraffe", "method-A", "baseline", "ours")


def png(colour: tuple[int, ...], mode: str, text: dict[str, str], level: int) -> bytes:
    """A PNG of one colour with metadata text chunks, as an encoder of one method writes it."""
    info = PngImagePlugin.PngInfo()
    for key, value in text.items():
        info.add_text(key, value)
    out = io.BytesIO()
    Image.new(mode, (12, 9), colour).save(out, "PNG", pnginfo=info, compress_level=level)
    return out.getvalue()


def telling_folder(root: Path, n: int = 6, same_pixels: bool = True) -> Path:
    """a/ and b/ that differ in everything a file carries; their pixels too unless asked."""
    folder = root / "giraffe-study"
    for side in ("a", "b"):
        (folder / side).mkdir(parents=True)
    for i in range(n):
        name = f"giraffe-{i}.png"
        colour = (10 * i, 100, 200)
        a = png((*colour, 255), "RGBA", {"Software": "method-A v2", "Comment": "ours"}, 9)
        other = colour if same_pixels else (200, 10 * i, 30)
        b = png(other, "RGB", {"Software": "baseline v1", "Note": "baseline " * 300}, 1)
        (folder / "a" / name).write_bytes(a)
        (folder / "b" / name).write_bytes(b)
        os.utime(folder / "a" / name, (1_000_000_000, 1_000_000_000))
        os.utime(folder / "b" / name, (1_700_000_000, 1_700_000_000))
    return folder


class Attacker:
    """Reads everything the page serves, raw: status, headers, body."""

    def __init__(self, server) -> None:
        self.port = server.server_address[1]
        self.seen: list[bytes] = []

    def get(self, path: str, method: str = "GET", body: bytes | None = None, **headers):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        conn.close()
        kept = [(k, v) for k, v in response.getheaders() if k.lower() != "date"]
        self.seen.append(repr(kept).encode() + data)
        return response.status, dict(kept), data


@pytest.fixture
def serve():
    started = []

    def run(session: Session):
        server = make_server(session, 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    yield run
    for server in started:
        server.shutdown()
        server.server_close()


def read_all(session: Session, server) -> tuple[Attacker, dict, dict[str, tuple]]:
    """The page, the state, both images of every pair, and a judgement's reply."""
    spy = Attacker(server)
    token = {"X-Review-Token": session.token}
    assert spy.get("/")[0] == 200
    _, _, body = spy.get("/state.json", **token)
    state = json.loads(body)
    images = {}
    for pair in state["pairs"]:
        for side in ("left", "right"):
            images[pair[side]] = spy.get(f"/img/{pair[side]}?token={session.token}")
    judged = json.dumps({"pair": state["pairs"][0]["id"], "choice": "left", "seq": 1}).encode()
    headers = {**token, "Content-Type": "application/json"}
    assert spy.get("/judge", "POST", judged, **headers)[0] == 200
    return spy, state, images


def test_nothing_served_tells_the_sides_when_only_metadata_differs(tmp_path, serve) -> None:
    """Same pixels in a/ and b/: whatever the server adds would be all that differs."""
    session = Session.open(telling_folder(tmp_path))
    spy, state, images = read_all(session, serve(session))
    everything = b"".join(spy.seen)
    for secret in (*SECRETS, str(session.folder)):
        assert secret.encode() not in everything, secret
    for pair in state["pairs"]:
        assert set(pair) == {"id", "left", "right", "choice"}
        assert all(ID.fullmatch(pair[k]) for k in ("id", "left", "right"))
        left, right = images[pair["left"]], images[pair["right"]]
        assert left[0] == right[0] == 200
        assert left[1] == right[1]  # the same headers, Content-Length included
        assert "ETag" not in left[1] and "Last-Modified" not in left[1]
        assert left[2] == right[2]  # byte for byte: the server added nothing of a side
    served = next(iter(images.values()))[2]
    assert [c for c in chunks(served) if c not in (b"IDAT",)] == [b"IHDR", b"paDd", b"IEND"]


def test_different_pixels_still_come_in_replies_of_one_shape(tmp_path, serve) -> None:
    session = Session.open(telling_folder(tmp_path, same_pixels=False))
    spy, state, images = read_all(session, serve(session))
    everything = b"".join(spy.seen)
    assert not any(secret.encode() in everything for secret in SECRETS)
    for pair in state["pairs"]:
        name = next(n for n, i in session.pair_ids.items() if i == pair["id"])
        left, right = images[pair["left"]], images[pair["right"]]
        assert left[1] == right[1] and len(left[2]) == len(right[2])
        shown_left = "a" if session.left_is_a[name] else "b"
        source = (session.folder / shown_left / name).read_bytes()
        assert pixels(left[2]) == pixels(source)  # what stays is the pixels, as they were


def test_sides_and_order_are_drawn_afresh_for_each_session(tmp_path: Path) -> None:
    folder = tmp_path / "pairs"
    for side in ("a", "b"):
        (folder / side).mkdir(parents=True)
        for i in range(40):
            (folder / side / f"p{i:02d}.png").write_bytes(image_bytes((i, 0, 0)))
    sessions = [Session.open(folder) for _ in range(8)]  # the OS's random source
    first, second = sessions[0], sessions[1]
    assert first.left_is_a != second.left_is_a  # equal with probability 2**-40
    assert first.order != second.order and first.order != first.pairs
    assert set(first.image_ids.values()).isdisjoint(second.image_ids.values())
    # an attacker who guesses from the ids or their positions does no better than chance
    trials = [(s, n) for s in sessions for n in s.pairs]
    by_id = sum((s.image_id(n, "a") < s.image_id(n, "b")) == s.left_is_a[n] for s, n in trials)
    by_position = sum(
        (s.order.index(n) % 2 == 0) == s.left_is_a[n] for s, n in trials
    )  # fmt: skip
    for hits in (by_id, by_position, sum(s.left_is_a[n] for s, n in trials)):
        assert 0.3 < hits / len(trials) < 0.7  # 320 draws: 7 standard deviations


def test_the_unblinded_record_is_never_served(tmp_path: Path, serve) -> None:
    session = Session.open(telling_folder(tmp_path), rng=random.Random(5))
    server = serve(session)
    spy, state, _ = read_all(session, server)
    assert session.out.exists()  # the judgement was saved at once, for analysis
    for path in ("/judgements.csv", "/a/giraffe-0.png", "/img/../judgements.csv", "/img/a"):
        status, _, body = spy.get(f"{path}?token={session.token}")
        assert status == 404 and body == b"not found"
    assert b"preferred" not in b"".join(spy.seen)
    # the mapping is on disk only: left and right name folders, preferred maps the choice
    row = session.out.read_text().splitlines()[1].split(",")
    name = next(n for n, i in session.pair_ids.items() if i == state["pairs"][0]["id"])
    left = "a" if session.left_is_a[name] else "b"
    assert row[:5] == [name, left, "b" if left == "a" else "a", "left", left]


def test_a_pair_whose_sizes_differ_is_refused_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "pairs"
    for side in ("a", "b"):
        (folder / side).mkdir(parents=True)
    (folder / "a" / "x.png").write_bytes(image_bytes((1, 2, 3), size=(8, 8)))
    (folder / "b" / "x.png").write_bytes(image_bytes((1, 2, 3), size=(8, 9)))
    (folder / "a" / "y.png").write_bytes(image_bytes((1, 2, 3)))
    (folder / "b" / "y.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)  # does not decode
    with pytest.raises(InputError) as info:
        Session.open(folder)
    assert "2 of 2 pairs differ in size or do not decode: x.png (a/ 8x8, b/ 8x9), y.png " in str(
        info.value
    )
    assert "(a/ 8x8, b/ unreadable)" in str(info.value)


def test_exif_orientation_is_applied_before_sizes_are_compared(tmp_path: Path) -> None:
    """A phone photo stored 8x6 and turned by its EXIF shows 6x8, as its PNG twin does."""
    folder = tmp_path / "pairs"
    for side in ("a", "b"):
        (folder / side).mkdir(parents=True)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to show
    turned = io.BytesIO()
    Image.new("RGB", (8, 6), (9, 9, 9)).save(turned, "JPEG", exif=exif.tobytes())
    (folder / "a" / "p.jpg").write_bytes(turned.getvalue())
    (folder / "b" / "p.jpg").write_bytes(image_bytes((9, 9, 9), size=(6, 8)))
    session = Session.open(folder)
    shown = [session.image(session.image_id("p.jpg", side)) for side in ("a", "b")]
    assert all(s is not None and pixels(s)[0] == (6, 8) for s in shown)
    assert b"Exif" not in shown[0]  # and the EXIF is not served


def test_a_pair_is_prepared_as_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Either side's request reads both files and costs the same; the other is then ready."""
    session = Session.open(telling_folder(tmp_path, n=1), rng=random.Random(1))
    reads: list[str] = []
    real = review_pairs.read_image
    monkeypatch.setattr(review_pairs, "read_image", lambda f, n: reads.append(f.name) or real(f, n))
    session.image(session.image_id("giraffe-0.png", "b"))
    assert sorted(reads) == ["a", "b"]
    session.image(session.image_id("giraffe-0.png", "a"))
    assert len(reads) == 2


def test_padding_makes_two_images_one_length_and_keeps_them_readable() -> None:
    small, large = png((0, 0, 0), "RGB", {}, 9), png((1, 2, 3), "RGB", {"Note": "x" * 5000}, 0)
    pa, pb = blind_pair(small, large) or (b"", b"")
    assert len(pa) == len(pb)
    assert pixels(pa) == pixels(small) and pixels(pb) == pixels(large)  # CRCs are checked
    animated = io.BytesIO()
    frames = [Image.new("RGB", (4, 4), c) for c in ((255, 0, 0), (0, 0, 255))]
    frames[0].save(animated, "GIF", save_all=True, append_images=frames[1:], duration=50)
    gif_a, gif_b = blind_pair(animated.getvalue(), animated.getvalue()) or (b"", b"")
    assert gif_a == gif_b and b"acTL" in gif_a  # an animation stays one (APNG)
    with Image.open(io.BytesIO(gif_a)) as im:
        assert im.n_frames == 2
    assert blind_pair(small, image_bytes((0, 0, 0), size=(12, 8))) is None


def chunks(data: bytes) -> list[bytes]:
    """The chunk types of a PNG, in order."""
    out, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        out.append(data[at + 4 : at + 8])
        at += 12 + length
    return out
