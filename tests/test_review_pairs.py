"""Blind image-pair review: the page in headless Chromium, keyboard only, CSV on disk.

What an attacker reading everything the page serves learns is in test_review_pairs_blind.py.
"""

from __future__ import annotations

import csv
import io
import random
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from PIL import Image

from reproaudit.errors import ReproauditError
from reproaudit.review_pairs import Session, make_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def image_bytes(colour: tuple[int, ...], fmt: str = "PNG", size: tuple[int, int] = (8, 8)) -> bytes:
    """A real image of one colour, as a file of ``fmt`` would hold it."""
    out = io.BytesIO()
    mode = "RGBA" if len(colour) == 4 else "RGB"
    Image.new(mode, size, colour).save(out, fmt)
    return out.getvalue()


PNG = image_bytes((200, 30, 30))


def pixels(data: bytes) -> tuple[tuple[int, int], list[int]]:
    """The size and RGBA pixels an image shows."""
    with Image.open(io.BytesIO(data)) as im:
        shown = im.convert("RGBA")
        return shown.size, list(shown.tobytes())


def pairs_folder(tmp_path: Path, n: int = 4) -> Path:
    folder = tmp_path / "logbook-code" / "pairs"
    for side, shade in (("a", 40), ("b", 220)):
        (folder / side).mkdir(parents=True)
        for i in range(n):
            (folder / side / f"img{i}.png").write_bytes(image_bytes((shade, 10 * i, 90)))
    (folder / "a" / "only-in-a.png").write_bytes(PNG)
    return folder


@pytest.fixture
def served(tmp_path: Path):
    session = Session.open(pairs_folder(tmp_path), rng=random.Random(3))
    server = make_server(session, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield session, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_pairs_are_matched_by_name_and_drawn_afresh_each_session(tmp_path: Path) -> None:
    session = Session.open(pairs_folder(tmp_path), rng=random.Random(3))
    assert session.pairs == ["img0.png", "img1.png", "img2.png", "img3.png"]
    assert sorted(session.order) == session.pairs
    again = Session.open(session.folder, rng=random.Random(3))  # a test's own draw repeats
    assert (again.left_is_a, again.order) == (session.left_is_a, session.order)
    assert set(again.pair_ids.values()).isdisjoint(session.pair_ids.values())  # ids do not


def test_bad_folders(tmp_path: Path) -> None:
    with pytest.raises(ReproauditError, match="a/ and b/"):
        Session.open(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(ReproauditError, match="no image has the same name"):
        Session.open(tmp_path)


def test_only_listed_images_are_served(served) -> None:
    session, url = served
    token = f"?token={session.token}"
    for path in (
        "img/a/img0.png",  # the old, unblinded address
        "img/..%2F..%2Fetc%2Fpasswd",
        "img/" + session.pair_ids["img0.png"],  # a pair's id is not an image's
        "img/only-in-a.png",
        "nope",
    ):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url + path + token)
        assert info.value.code == 404
    with urllib.request.urlopen(url + "img/" + session.image_id("img0.png", "b") + token) as r:
        assert pixels(r.read()) == pixels((session.folder / "b" / "img0.png").read_bytes())
        assert r.headers["Content-Type"] == "image/png"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")
def test_judging_with_the_keyboard_writes_the_csv(served) -> None:
    from playwright.sync_api import sync_playwright

    session, url = served
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page()
        page.goto(url)
        progress = page.locator("#progress")
        progress.filter(has_text="Pair 1 of 4; 0 judged. All saved.").wait_for()
        # both re-encoded, padded images decode in a real browser, at their own size
        page.wait_for_function(
            "['left', 'right'].every(id => document.getElementById(id).naturalWidth === 8)"
        )
        page.keyboard.press("ArrowLeft")
        progress.filter(has_text="Pair 2 of 4; 1 judged.").wait_for()
        page.keyboard.press("2")
        progress.filter(has_text="Pair 3 of 4; 2 judged.").wait_for()
        page.keyboard.press("Backspace")
        progress.filter(has_text="Pair 2 of 4; 2 judged.").wait_for()
        page.keyboard.press("ArrowDown")  # changes pair 2 to "no difference"
        progress.filter(has_text="Pair 3 of 4; 2 judged.").wait_for()
        page.keyboard.press("0")
        page.keyboard.press("1")
        progress.filter(has_text="All 4 pairs judged. All saved.").wait_for()
        browser.close()
    rows = {r["pair"]: r for r in csv.DictReader(session.out.open())}
    assert list(rows) == session.pairs  # the CSV in name order, whatever the page's order
    shown = [rows[name]["choice"] for name in session.order]
    assert shown == ["left", "tie", "tie", "left"]  # judged in the order the page showed
    for name, row in rows.items():  # the unblinded mapping, for analysis
        assert row["left"] == ("a" if session.left_is_a[name] else "b")
        want = {"left": row["left"], "right": row["right"], "tie": "tie"}[row["choice"]]
        assert row["preferred"] == want
    assert session.out.parent == session.folder
    # a new session resumes where this one stopped, each pair with the sides it was judged on
    again = Session.open(session.folder)
    assert len(again.judgements) == 4 and again.left_is_a == session.left_is_a


def test_a_late_older_judgement_does_not_overwrite_a_newer_one(tmp_path: Path) -> None:
    session = Session.open(pairs_folder(tmp_path), rng=random.Random(3))
    pair = session.pair_ids["img1.png"]
    session.judge(pair, "tie", seq=5)
    session.judge(pair, "right", seq=4)  # sent earlier, arrived later
    assert session.judgements["img1.png"]["choice"] == "tie"
