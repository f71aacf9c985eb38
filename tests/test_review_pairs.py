"""Blind image-pair review: the page in headless Chromium, keyboard only, CSV on disk."""

from __future__ import annotations

import csv
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from reproaudit.errors import ReproauditError
from reproaudit.review_pairs import Session, make_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63f8cfc0f01f0005000201a5b1e1d80000000049454e44ae426082"
)


def pairs_folder(tmp_path: Path, n: int = 4) -> Path:
    folder = tmp_path / "logbook-code" / "pairs"
    for side in ("a", "b"):
        (folder / side).mkdir(parents=True)
        for i in range(n):
            (folder / side / f"img{i}.png").write_bytes(PNG)
    (folder / "a" / "only-in-a.png").write_bytes(PNG)
    return folder


@pytest.fixture
def served(tmp_path: Path):
    session = Session.open(pairs_folder(tmp_path), seed=3)
    server = make_server(session, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield session, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_pairs_are_matched_by_name_and_shuffled_with_a_seed(tmp_path: Path) -> None:
    session = Session.open(pairs_folder(tmp_path), seed=3)
    assert session.pairs == ["img0.png", "img1.png", "img2.png", "img3.png"]
    again = Session.open(session.folder, seed=3)
    assert again.left_is_a == session.left_is_a
    assert len(set(session.left_is_a.values())) == 2 or len(session.pairs) < 3


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
    for path in ("img/a/..%2F..%2Fetc%2Fpasswd", "img/a/only-in-a.png", "img/c/img0.png", "nope"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url + path + token)
        assert info.value.code == 404
    with urllib.request.urlopen(url + "img/b/img0.png" + token) as response:
        assert response.read() == PNG
        assert response.headers["Content-Type"] == "image/png"


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
    rows = list(csv.DictReader(session.out.open()))
    assert [r["pair"] for r in rows] == session.pairs
    assert [r["choice"] for r in rows] == ["left", "tie", "tie", "left"]
    first = rows[0]
    assert first["preferred"] == first["left"]  # the choice mapped back to a or b
    assert session.out.parent == session.folder
    # a new session resumes where this one stopped
    assert len(Session.open(session.folder, seed=3).judgements) == 4


def test_a_late_older_judgement_does_not_overwrite_a_newer_one(tmp_path: Path) -> None:
    session = Session.open(pairs_folder(tmp_path), seed=3)
    session.judge("img1.png", "tie", seq=5)
    session.judge("img1.png", "right", seq=4)  # sent earlier, arrived later
    assert session.judgements["img1.png"]["choice"] == "tie"
