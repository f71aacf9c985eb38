"""Lighthouse mobile performance of the built site's home, papers list and a paper page.

Builds the site of a generated corpus (``benchmarks/corpus.py``; or takes a built one with
``--site``), serves it from 127.0.0.1 with gzip as GitHub Pages does, and runs Lighthouse
(mobile form factor, simulated slow 4G and a 4x slower CPU: its defaults) in Debian's
Chromium on each page. Prints the performance score with its metrics, each page's bytes as
served, and the bytes of the papers list's JSON slices. The bar: 90 or more on each page.

Lighthouse's 4x CPU slowdown is relative to the machine it runs on and meant for a desktop;
on a slower or busy machine (its ``benchmarkIndex`` below 1,500) the script also prints a run
calibrated as Lighthouse's throttling guide says, so the figure describes the same phone.

    python benchmarks/lighthouse.py [--papers N] [--logbooks N] [--site DIR] [--runs N]

Lighthouse comes from npm and is not a dependency of the package or its tests: install it in
a scratch folder (``npm install --prefix /tmp/lh lighthouse``) and point ``LIGHTHOUSE`` at its
``node_modules/.bin/lighthouse``, or under ``benchmarks/`` (git-ignored ``node_modules``).
Without it the script says so and exits 0. ``CHROME_PATH`` defaults to /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.localserver import LocalServer  # noqa: E402

CHROME_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync"
)
COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt"}
METRICS = {
    "first-contentful-paint": "FCP",
    "largest-contentful-paint": "LCP",
    "total-blocking-time": "TBT",
    "cumulative-layout-shift": "CLS",
    "speed-index": "SI",
}


def find_lighthouse() -> str | None:
    for candidate in (
        os.environ.get("LIGHTHOUSE"),
        str(HERE / "node_modules" / ".bin" / "lighthouse"),
        shutil.which("lighthouse"),
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


class GzipHandler(SimpleHTTPRequestHandler):
    """Static files, gzipped for clients that accept it (GitHub Pages does the same for
    text), with GitHub Pages' ten-minute cache lifetime."""

    def log_message(self, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the redirect to the folder
            path = path / "index.html"
        wants = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (wants and path.suffix in COMPRESSED and path.is_file()):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        import io

        return io.BytesIO(body)


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    handler = functools.partial(GzipHandler, directory=str(folder))
    with LocalServer(handler) as server:  # the tests' stand-in server, serving the site
        yield f"{server.base_url}/"


def calibrated(benchmark_index: float) -> float:
    """The CPU slowdown that emulates the device Lighthouse's default 4x emulates on a
    high-end desktop (benchmarkIndex 1,500 or more), from this machine's benchmarkIndex, as
    Lighthouse's throttling guide says to calibrate (docs/throttling.md): a machine already
    as slow as a mid-tier phone gets 1x, never less."""
    return round(min(4.0, max(1.0, 4.0 * benchmark_index / 1500)), 2)


def lighthouse(binary: str, url: str, cpu: float | None = None) -> dict:
    """One Lighthouse run (performance only, mobile defaults; ``cpu``: another CPU
    slowdown than the default 4x): its JSON report."""
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    extra = [f"--throttling.cpuSlowdownMultiplier={cpu}"] if cpu else []
    done = subprocess.run(
        [
            binary,
            url,
            "--only-categories=performance",
            "--output=json",
            "--output-path=stdout",
            "--quiet",
            f"--chrome-flags={CHROME_FLAGS}",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def served_bytes(site: Path, rel: str) -> tuple[int, int]:
    path = site / rel / "index.html" if not rel.endswith(".html") else site / rel
    raw = path.read_bytes()
    return len(raw), len(gzip.compress(raw, compresslevel=6, mtime=0))


def build(papers: int, logbooks: int, work: Path) -> Path:
    sys.path.insert(0, str(HERE))
    from corpus import generate_corpus

    from reproaudit.site.build import build_site

    root = work / "repo"
    counts = generate_corpus(
        root,
        papers=papers,
        logbooks=logbooks,
        verdicts=True,
        claims_total=round(papers * 36000 / 6352),
    )
    print(f"corpus: {counts['papers']} papers, {counts['logbooks']} logbooks")
    report = build_site(root, work / "site", now=datetime(2026, 12, 1, tzinfo=UTC))
    return report.out


def busiest_paper(site: Path) -> str:
    """The paper page with the most logbook links: the heaviest one a reader opens."""
    best, most = "", -1
    for page in sorted((site / "papers").glob("*/index.html")):
        links = sum(1 for child in page.parent.iterdir() if child.is_dir())
        if links > most:
            best, most = f"papers/{page.parent.name}/", links
    return best


def show(label: str, runs: list[dict]) -> None:
    """The median score and metrics of some runs, on one line."""
    score = statistics.median(r["categories"]["performance"]["score"] for r in runs)
    parts = []
    for audit, short in METRICS.items():
        value = statistics.median(r["audits"][audit]["numericValue"] for r in runs)
        parts.append(f"{short} {value:.3f}" if short == "CLS" else f"{short} {value / 1e3:.1f} s")
    weight = statistics.median(r["audits"]["total-byte-weight"]["numericValue"] for r in runs)
    print(
        f"  {label + ':':<40} performance {score * 100:.0f}  {', '.join(parts)}; "
        f"transferred {weight / 1e3:.0f} kB"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=400)
    parser.add_argument("--logbooks", type=int, default=None)
    parser.add_argument("--site", type=Path, help="a built site: measure it, build nothing")
    parser.add_argument("--runs", type=int, default=1, help="runs per page; the median is shown")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpus and site")
    parser.add_argument(
        "--no-calibrate",
        action="store_true",
        help="only the default 4x CPU slowdown, even on a machine slower than a desktop",
    )
    args = parser.parse_args()
    binary = find_lighthouse()
    if binary is None:
        print(
            "skipped: lighthouse is not installed (npm install --prefix /tmp/lh lighthouse, "
            "then LIGHTHOUSE=/tmp/lh/node_modules/.bin/lighthouse)"
        )
        return 0
    work = Path(tempfile.mkdtemp(prefix="reproaudit-lighthouse-"))
    try:
        if args.site:
            site = args.site.resolve()
        else:
            logbooks = args.logbooks or round(args.papers * 6816 / 6352)
            site = build(args.papers, logbooks, work)
        pages = {"home": "", "papers list": "papers/", "paper": busiest_paper(site)}
        slices = sorted((site / "assets" / "papers").glob("*.json"))
        if slices:
            sizes = [p.stat().st_size for p in slices]
            gz = [len(gzip.compress(p.read_bytes(), 6, mtime=0)) for p in slices]
            print(
                f"papers list slices: {len(slices)} files, largest {max(sizes) / 1e3:.0f} kB "
                f"({max(gz) / 1e3:.0f} kB gzipped), {sum(sizes) / 1e3:.0f} kB in all; "
                "none is fetched on a first visit"
            )
        with serving(site) as base:
            for name, rel in pages.items():
                raw, packed = served_bytes(site, rel)
                print(f"{name}: /{rel}, HTML {raw / 1e3:.1f} kB ({packed / 1e3:.1f} kB gzipped)")
                runs = [lighthouse(binary, base + rel) for _ in range(args.runs)]
                show("default 4x CPU", runs)
                if not args.no_calibrate:
                    index = statistics.median(r["environment"]["benchmarkIndex"] for r in runs)
                    cpu = calibrated(index)
                    if cpu != 4.0:
                        runs = [lighthouse(binary, base + rel, cpu) for _ in range(args.runs)]
                        show(f"calibrated {cpu:g}x (benchmarkIndex {index:.0f})", runs)
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
