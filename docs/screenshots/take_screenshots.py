"""Screenshots of each page type of the site (desktop, mobile, dark) for docs and review.

Builds the site fixture repository (tests/data/repos/site), serves it on 127.0.0.1 and
photographs each page type with headless Chromium, then shrinks the PNGs to a small
palette so they stay light in git.

    python docs/screenshots/take_screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import functools
import shutil
import tempfile
import threading
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from PIL import Image

from reproaudit.site.build import build_site

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "home": "",
    "papers": "papers/",
    "browse": "browse/outcome/contested/",
    "paper": "papers/Kp4rT9vQ2x/",
    "logbook": "papers/Zm7Lw_3HqE/erin-asd-1/",
    "contributors": "contributors/",
    "contributor": "people/carol-lin/",
    "falsifications": "falsifications/",
    "meaning": "meaning/",
    "search": "search/?q=Ferreyra",
    "not-found": "no-such-page/",
}
VIEWS = {
    "desktop": {"viewport": {"width": 1366, "height": 900}, "color_scheme": "light"},
    "mobile": {"viewport": {"width": 390, "height": 844}, "color_scheme": "light"},
    "dark": {"viewport": {"width": 1366, "height": 900}, "color_scheme": "dark"},
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(ROOT / "tests/data/repos/site", repo)
        site = build_site(repo, repo / "_site", now=datetime(2026, 12, 3, tzinfo=UTC)).out
        server = ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Quiet, directory=str(site))
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            for view, options in VIEWS.items():
                context = browser.new_context(**options)
                page = context.new_page()
                for name, path in PAGES.items():
                    page.goto(base + path)
                    page.wait_for_load_state("networkidle")
                    if name == "search":
                        page.locator("#ra-search-results li").first.wait_for()
                    target = args.out / f"{name}-{view}.png"
                    page.screenshot(path=str(target))
                    small = Image.open(target).convert("RGB").quantize(colors=64)
                    small.save(target, optimize=True)
                    print(f"{target.name}: {target.stat().st_size // 1024} kB")
                context.close()
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
