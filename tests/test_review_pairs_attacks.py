"""`review pairs` is a local tool only its own page can talk to: the attacks, played for real.

Another site open in the same browser, a rebinding host name, a symlinked or
fake "image", a FIFO, a huge ``seq`` and formula file names are each tried
against a running server; nothing is read, nothing is written.
"""

from __future__ import annotations

import csv
import http.client
import json
import os
import random
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from reproaudit.review_pairs import (
    SEQ_WINDOW,
    Session,
    csv_cell,
    csv_value,
    make_server,
    read_image,
)
from tests.importers.test_hostile import deadline
from tests.localserver import LocalServer
from tests.test_review_pairs import CHROMIUM, PNG, image_bytes, pairs_folder, pixels

JPEG = image_bytes((200, 30, 30), "JPEG")
GIF = image_bytes((200, 30, 30), "GIF")
WEBP = image_bytes((200, 30, 30), "WEBP")


@pytest.fixture
def served(tmp_path: Path):
    session = Session.open(pairs_folder(tmp_path), rng=random.Random(3))
    server = make_server(session, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield session, server
    server.shutdown()
    server.server_close()


def request(
    server, method: str, path: str, *, host: str | None = None, body: bytes | None = None, **headers
) -> tuple[int, bytes]:
    """One raw request, with exactly the Host and headers given (urllib would fix them)."""
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    conn.putheader("Host", host or f"127.0.0.1:{port}")
    for name, value in headers.items():
        conn.putheader(name.replace("_", "-"), value)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def judgement(pair: str = "an-id", choice: str = "left", seq: object = 1) -> bytes:
    return json.dumps({"pair": pair, "choice": choice, "seq": seq}).encode()


def test_a_foreign_host_header_gets_nothing(served) -> None:
    """DNS rebinding: evil.example resolves to 127.0.0.1 and its page reads ours."""
    session, server = served
    port = server.server_address[1]
    token = {"X_Review_Token": session.token}
    for host in (f"evil.example:{port}", f"localhost:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}"):
        assert request(server, "GET", "/", host=host)[0] == 403
        status, body = request(server, "GET", "/state.json", host=host, **token)
        assert status == 403 and b"pairs" not in body
        status, _ = request(
            server,
            "POST",
            "/judge",
            host=host,
            body=judgement(),
            Content_Type="application/json",
            **token,
        )
        assert status == 403
    assert not session.out.exists() and session.judgements == {}
    status, page = request(server, "GET", "/")
    assert status == 200 and session.token.encode() in page


def test_state_images_and_judgements_need_the_token(served) -> None:
    session, server = served
    for token in ({}, {"X_Review_Token": "guess"}, {"X_Review_Token": session.token[:-1]}):
        assert request(server, "GET", "/state.json", **token)[0] == 403
        status, _ = request(
            server,
            "POST",
            "/judge",
            body=judgement(),
            Content_Type="application/json",
            **token,
        )
        assert status == 403
    image = "/img/" + session.image_id("img0.png", "a")
    assert request(server, "GET", image)[0] == 403
    assert request(server, "GET", image + "?token=guess")[0] == 403
    assert not session.out.exists()
    status, body = request(server, "GET", "/state.json", X_Review_Token=session.token)
    assert status == 200 and len(json.loads(body)["pairs"]) == 4


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
)
def test_a_judgement_must_be_json(served, kind: str) -> None:
    """The content types a cross-origin `no-cors` request may use are all refused."""
    session, server = served
    headers = {"X_Review_Token": session.token}
    if kind:
        headers["Content_Type"] = kind
    status, _ = request(server, "POST", "/judge", body=judgement(), **headers)
    assert status == 415
    assert not session.out.exists()


def test_another_origin_is_refused_even_with_the_token(served) -> None:
    session, server = served
    headers = {"X_Review_Token": session.token, "Content_Type": "application/json"}
    for extra in ({"Origin": "http://localhost:1234"}, {"Sec_Fetch_Site": "cross-site"}):
        status, _ = request(server, "POST", "/judge", body=judgement(), **headers, **extra)
        assert status == 403
    assert not session.out.exists()


def test_a_huge_seq_is_refused_and_cannot_freeze_a_pair(served) -> None:
    session, server = served
    headers = {"X_Review_Token": session.token, "Content_Type": "application/json"}
    pair = session.pair_ids["img0.png"]
    for seq in (10**30, SEQ_WINDOW + 1, 2**63, -1, 0, True, 1.5, "7"):
        status, body = request(server, "POST", "/judge", body=judgement(pair, seq=seq), **headers)
        assert status == 400, (seq, body)
    assert not session.out.exists()
    status, body = request(server, "POST", "/judge", body=judgement(pair, seq=1), **headers)
    assert status == 200
    assert json.loads(body)["next_seq"] == 2  # a reloaded page goes on from here
    again = judgement(pair, choice="tie", seq=2)
    assert request(server, "POST", "/judge", body=again, **headers)[0] == 200
    assert session.judgements["img0.png"]["choice"] == "tie"
    with pytest.raises(ValueError, match="ahead"):
        session.judge(session.pair_ids["img1.png"], "left", seq=2 + SEQ_WINDOW + 1)
    # a file name is not a pair's id: the page never knows names
    assert request(server, "POST", "/judge", body=judgement("img1.png", seq=3), **headers)[0] == 400


def test_oversized_and_malformed_bodies_are_refused(served) -> None:
    session, server = served
    headers = {"X_Review_Token": session.token, "Content_Type": "application/json"}
    pair = session.pair_ids["img0.png"]
    big = json.dumps({"pair": pair, "choice": "left", "pad": "x" * 20_000}).encode()
    assert request(server, "POST", "/judge", body=big, **headers)[0] == 413
    bad_choice = json.dumps({"pair": pair, "choice": 3}).encode()
    for body in (b"[1]", b"not json", b'{"pair": 5}', bad_choice):
        assert request(server, "POST", "/judge", body=body, **headers)[0] == 400
    assert not session.out.exists()


def test_only_regular_image_files_inside_the_folder_count(tmp_path: Path) -> None:
    folder = pairs_folder(tmp_path)
    secret = tmp_path / "secret.png"
    secret.write_bytes(PNG)  # a real PNG, but outside the folder
    for side in ("a", "b"):
        (folder / side / "link.png").symlink_to(secret)
        os.mkfifo(folder / side / "fifo.png")
        (folder / side / "text.png").write_text("not an image at all")
        (folder / side / "photo.jpg").write_bytes(JPEG)
        (folder / side / "anim.gif").write_bytes(GIF)
        (folder / side / "pic.webp").write_bytes(WEBP)
    started = time.monotonic()
    session = Session.open(folder)
    assert time.monotonic() - started < 5  # a FIFO is never waited on
    assert session.pairs == [
        "anim.gif",
        "img0.png",
        "img1.png",
        "img2.png",
        "img3.png",
        "photo.jpg",
        "pic.webp",
    ]
    for name in ("photo.jpg", "pic.webp", "anim.gif"):  # served as PNG, the same pixels
        served = session.image(session.image_id(name, "a"))
        assert served is not None and served.startswith(b"\x89PNG")
        assert pixels(served) == pixels((folder / "a" / name).read_bytes())
    # swapped for a symlink after the session opened: still refused, for both sides alike
    (folder / "b" / "img0.png").unlink()
    (folder / "b" / "img0.png").symlink_to(secret)
    assert session.image(session.image_id("img0.png", "b")) is None
    assert session.image(session.image_id("img0.png", "a")) is None
    assert read_image(folder / "a", "../../secret.png") is None
    assert read_image(folder / "a", "fifo.png") is None
    assert read_image(folder / "a", "link.png") is None


def test_a_symlinked_side_folder_is_refused(tmp_path: Path) -> None:
    folder = pairs_folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (folder / "b").rename(elsewhere)
    (folder / "b").symlink_to(elsewhere)
    with pytest.raises(Exception, match="not symlinks"):
        Session.open(folder)


def test_csv_cells_cannot_become_formulas(tmp_path: Path) -> None:
    folder = tmp_path / "pairs"
    names = ['=HYPERLINK("evil","y").png', "+1.png", "-2.png", "@SUM(A1).png", "'q.png"]
    for side in ("a", "b"):
        (folder / side).mkdir(parents=True)
        for name in names:
            (folder / side / name).write_bytes(PNG)
    session = Session.open(folder)
    for i, name in enumerate(session.pairs):
        session.judge(session.pair_ids[name], "left", seq=i + 1)
    with session.out.open(newline="") as handle:
        cells = [row["pair"] for row in csv.DictReader(handle)]
    assert sorted(cells) == sorted("'" + n for n in names)
    assert all(c.startswith("'") for c in cells)
    assert set(Session.open(folder).judgements) == set(names)  # read back exactly
    for text in ("=1+1", "+1", "-1", "@x", "\tx", "\rx", "'x", "plain", ""):
        assert csv_value(csv_cell(text)) == text
        assert not csv_cell(text).startswith(("=", "+", "-", "@", "\t", "\r"))


ATTACK_PAGE = """<!doctype html><meta charset="utf-8"><title>attacker</title><script>
async function attack(targets) {
  const results = [];
  for (const target of targets) {
    const body = JSON.stringify({pair: "guessed", choice: "left", seq: 1});
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      try {
        await fetch(target + "/judge", {method: "POST", mode: "no-cors", body: body,
                                        headers: {"Content-Type": type}});
        results.push("posted");
      } catch (error) { results.push("post failed"); }
    }
    try {
      const r = await fetch(target + "/state.json");
      results.push("read: " + await r.text());
    } catch (error) { results.push("read blocked"); }
    try {
      const r = await fetch(target + "/state.json", {mode: "no-cors"});
      results.push("opaque: " + (await r.text()).length);
    } catch (error) { results.push("opaque blocked"); }
    try {
      const r = await fetch(target + "/");
      results.push("page: " + await r.text());
    } catch (error) { results.push("page blocked"); }
  }
  return results;
}
</script>"""


class _AttackPage(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = ATTACK_PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")
def test_a_page_of_another_origin_reads_and_writes_nothing(served) -> None:
    """A second origin in headless Chromium tries no-cors POSTs and reads of state."""
    from playwright.sync_api import sync_playwright

    session, server = served
    port = server.server_address[1]
    targets = [f"http://127.0.0.1:{port}", f"http://localhost:{port}"]
    with LocalServer(_AttackPage) as attacker, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page()
        attacker_port = attacker.base_url.rsplit(":", 1)[1]
        results = []
        for origin in (attacker.base_url, f"http://localhost:{attacker_port}"):
            page.goto(origin + "/")
            results += page.evaluate("targets => attack(targets)", targets)
        browser.close()
    assert not session.out.exists() and session.judgements == {}
    assert not any(r.startswith(("read: ", "page: ")) for r in results), results
    assert all(r in ("opaque: 0", "opaque blocked") for r in results if r.startswith("opaque"))
    # the requests did arrive, and the server itself turned them away
    refused = {(method, path) for method, path, _ in server.refused}
    assert ("POST", "/judge") in refused and ("GET", "/state.json") in refused


def test_a_planted_judgements_file_is_never_read(tmp_path: Path) -> None:
    folder = pairs_folder(tmp_path)
    os.mkfifo(folder / "judgements.csv")
    with deadline(), pytest.raises(Exception, match="not a regular file"):
        Session.open(folder)
    (folder / "judgements.csv").unlink()
    (folder / "judgements.csv").symlink_to("/etc/passwd")
    with pytest.raises(Exception, match="not a regular file"):
        Session.open(folder)
