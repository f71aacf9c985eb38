"""Build the site of a conference-scale corpus and print where the time and the bytes go.

Generates the corpus of ``benchmarks/corpus.py`` (6,352 papers, ~36,000 claims,
6,816 logbooks, a verdict file per logbook), then runs ``reproaudit build`` on it in a
process of its own (so its peak memory is its own) and prints:

- the phases, the page count, and the ratio of wall and CPU time to a reference: reading
  every YAML file and writing one plain jinja2 page per paper and per logbook (the floor any
  generator pays), measured in the same run;
- the build's peak memory, and Pagefind's (it runs beside the build);
- the site's bytes and files, by folder, and how much of the pages is the theme's chrome
  (everything outside ``<article>``, repeated on every page); the largest file;
- the bytes a first search query fetches, for a common word and for an author's name: the
  search page is opened in headless Chromium (``search/?q=...``) and every file its script
  asks for (Pagefind's loader, index chunks and fragments, id lookup shards) is counted at
  its size on disk, whatever layout the index has. Skipped without Chromium and Playwright.

    python benchmarks/site_scale.py [--papers N] [--logbooks N] [--keep]

``TMPDIR=/dev/shm`` keeps the corpus and the site on tmpfs.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import re
import resource
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

import jinja2
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import generate_corpus  # noqa: E402

from reproaudit.site.build import build_site  # noqa: E402

NOW = datetime(2026, 12, 1, tzinfo=UTC)
SITE_BUDGET = 200e6  # bytes: several venues in GitHub Pages' 1 GB
PLAIN = jinja2.Template(
    "<html><head><title>{{ title }}</title></head><body><h1>{{ title }}</h1>"
    "<ul>{% for c in claims %}<li>{{ c }}</li>{% endfor %}</ul></body></html>",
    autoescape=True,
)


def cpu_seconds(children: bool = False) -> float:
    """CPU time of this process, or of its finished children (Pagefind): on a shared machine
    it moves much less with the other jobs' load than wall time does."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def plain_reference(root: Path, out: Path) -> float:
    """Read every YAML file (libyaml) and write one plain page per paper and logbook."""
    start = time.perf_counter()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in sorted(root.glob("*/*/*.yaml")):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        if path.parts[-3] == "verdicts":
            continue
        if path.parts[-3] == "claims":
            title = doc["paper"]["title"]
            claims = [c["statement"] for c in doc.get("claims", [])]
        else:
            title = doc["logbook"]["id"]
            claims = [r["claim"] for r in doc.get("results", [])]
        page = out / path.parts[-3] / path.parts[-2] / (path.stem + ".html")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(PLAIN.render(title=title, claims=claims), encoding="utf-8")
    return time.perf_counter() - start


def _build(root: str, out: str, queue: multiprocessing.Queue) -> None:
    """In a fresh process: build, and send back the report, times and peak memory."""
    start = time.perf_counter()
    report = build_site(Path(root), Path(out), now=NOW)
    wall = time.perf_counter() - start
    mine = resource.getrusage(resource.RUSAGE_SELF)
    pagefind = resource.getrusage(resource.RUSAGE_CHILDREN)
    queue.put(
        {
            "pages": report.pages,
            "seconds": report.seconds,
            "wall": wall,
            "cpu": mine.ru_utime + mine.ru_stime,
            "pagefind_cpu": pagefind.ru_utime + pagefind.ru_stime,
            "peak_mib": mine.ru_maxrss / 1024,  # KiB on Linux
            "pagefind_peak_mib": pagefind.ru_maxrss / 1024,
        }
    )


def build_in_child(root: Path, out: Path) -> dict:
    context = multiprocessing.get_context("spawn")  # nothing of this process's memory
    queue = context.Queue()
    child = context.Process(target=_build, args=(str(root), str(out), queue))
    child.start()
    result = queue.get()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"the build failed (exit {child.exitcode})")
    return result


def chrome_bytes(html: str) -> int:
    """Bytes of a page outside its ``<article>``: the theme's header, tabs, drawer, footer."""
    start, end = html.find("<article"), html.rfind("</article>")
    if start < 0 or end < start:
        return len(html.encode("utf-8"))
    return len(html[:start].encode("utf-8")) + len(html[end:].encode("utf-8"))


def site_figures(site: Path) -> dict:
    """Bytes and files by top folder, pages and their chrome, the largest file."""
    by_folder: Counter[str] = Counter()
    files_in: Counter[str] = Counter()
    pages = page_bytes = chrome = 0
    largest = (0, "")
    for folder, _dirs, names in os.walk(site):
        for name in names:
            path = Path(folder, name)
            size = path.stat().st_size
            rel = path.relative_to(site)
            top = rel.parts[0] if len(rel.parts) > 1 else "(top level)"
            by_folder[top] += size
            files_in[top] += 1
            largest = max(largest, (size, rel.as_posix()))
            if name.endswith(".html"):
                pages += 1
                page_bytes += size
                chrome += chrome_bytes(path.read_text(encoding="utf-8"))
    return {
        "bytes": sum(by_folder.values()),
        "files": sum(files_in.values()),
        "by_folder": by_folder,
        "files_in": files_in,
        "pages": pages,
        "page_bytes": page_bytes,
        "chrome": chrome,
        "largest": largest,
    }


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def first_query_bytes(site: Path, queries: list[str]) -> dict[str, tuple[int, int]] | str:
    """Per query: (files, bytes) that the search page fetches for it in a fresh browser, at
    their size on disk (GitHub Pages would gzip the text ones on the wire). The page itself
    and the theme's assets are not counted: every page loads those."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "skipped: Playwright is not installed"
    if not Path(chromium).exists():
        return "skipped: Chromium is not installed"
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    out: dict[str, tuple[int, int]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            for query in queries:
                context = browser.new_context()  # an empty cache: a reader's first query
                page = context.new_page()
                seen: list[str] = []
                page.on("requestfinished", lambda r, seen=seen: seen.append(r.url))
                page.goto(f"{base}search/?q={query}")
                page.wait_for_function(
                    "/result/i.test(document.getElementById('ra-search-status').textContent)"
                    " || /failed/i.test(document.getElementById('ra-search-status').textContent)",
                    timeout=120_000,
                )
                page.wait_for_load_state("networkidle")
                fetched = set()
                for url in seen:
                    rel = unquote(urlparse(url).path).lstrip("/")
                    if rel.startswith(("pagefind/", "ids/")) and (site / rel).is_file():
                        fetched.add(rel)
                out[query] = (len(fetched), sum((site / r).stat().st_size for r in fetched))
                context.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return out


def queries_of(root: Path) -> list[str]:
    """A common word of the titles, and the surname of the first paper's first author."""
    first = sorted((root / "claims").rglob("*.yaml"))[0]
    paper = yaml.safe_load(first.read_text(encoding="utf-8"))["paper"]
    surname = paper["authors"][0]["name"].split()[-1]
    words: Counter[str] = Counter()
    for path in sorted((root / "claims").rglob("*.yaml"))[:500]:
        title = yaml.safe_load(path.read_text(encoding="utf-8"))["paper"]["title"]
        words.update(w.lower() for w in re.findall(r"[A-Za-z]{6,}", title))
    return [words.most_common(1)[0][0], surname]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=6352)
    parser.add_argument("--logbooks", type=int, default=6816)
    parser.add_argument("--claims", type=int, default=36000)
    parser.add_argument("--keep", action="store_true", help="keep the corpus and the site")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="reproaudit-site-"))
    root = work / "repo"
    start = time.perf_counter()
    counts = generate_corpus(
        root, papers=args.papers, logbooks=args.logbooks, claims_total=args.claims, verdicts=True
    )
    print(
        f"corpus:          {counts['papers']} papers, {counts['claims']} claims, "
        f"{counts['logbooks']} logbooks, {counts['verdicts']} verdicts "
        f"({time.perf_counter() - start:.1f} s to generate)"
    )
    print(f"load average:    {' '.join(f'{x:.1f}' for x in os.getloadavg())} (before the build)")

    cpu = cpu_seconds()
    reference = plain_reference(root, work / "plain")
    reference_cpu = cpu_seconds() - cpu
    print(
        f"plain reference: {reference:.1f} s, {reference_cpu:.1f} s CPU (read every YAML file, "
        "one jinja2 page per paper and logbook)"
    )

    built = build_in_child(root, work / "site")
    out = work / "site"
    for phase, seconds in built["seconds"].items():
        print(f"  {phase + ':':<32}{seconds:6.1f} s")
    total, total_cpu, pf_cpu = built["wall"], built["cpu"], built["pagefind_cpu"]
    print(
        f"site build:      {total:.1f} s for {built['pages']} pages "
        f"({built['pages'] / total:.0f} pages/s), {total / reference:.1f}x the plain reference; "
        f"{total_cpu:.1f} s CPU, {total_cpu / reference_cpu:.1f}x its CPU; Pagefind, running "
        f"beside the build, {pf_cpu:.1f} s CPU "
        f"({(total_cpu + pf_cpu) / reference_cpu:.1f}x counting both)"
    )
    peak, pf_peak = built["peak_mib"], built["pagefind_peak_mib"]
    print(f"peak memory:     build {peak:.0f} MiB; Pagefind {pf_peak:.0f} MiB beside it")
    print(f"load average:    {' '.join(f'{x:.1f}' for x in os.getloadavg())} (after the build)")

    figures = site_figures(out)
    size, files = figures["bytes"], figures["files"]
    per_page = figures["page_bytes"] / figures["pages"] / 1e3
    print(
        f"output:          {files} files, {size / 1e6:.1f} MB; {figures['pages']} HTML pages, "
        f"{figures['page_bytes'] / 1e6:.1f} MB ({per_page:.1f} kB a page), "
        f"of which the theme's chrome {figures['chrome'] / 1e6:.1f} MB "
        f"({figures['chrome'] / figures['pages'] / 1e3:.1f} kB a page, "
        f"{100 * figures['chrome'] / figures['page_bytes']:.0f}%)"
    )
    for folder, bytes_ in figures["by_folder"].most_common(8):
        print(f"  {folder + '/':<24}{bytes_ / 1e6:8.1f} MB in {figures['files_in'][folder]} files")
    largest_size, largest_path = figures["largest"]
    print(f"largest file:    {largest_path}, {largest_size / 1e6:.2f} MB")
    largest_json = max((p.stat().st_size for p in out.rglob("*.json")), default=0)
    # the papers list's JSON slices (none is fetched on a first visit)
    slice_ = max((p.stat().st_size for p in (out / "assets/papers").glob("*.json")), default=0)
    print(f"papers list:     largest JSON slice {slice_ / 1e3:.0f} kB, none on a first visit")

    queries = queries_of(root)
    fetched = first_query_bytes(out, queries)
    if isinstance(fetched, str):
        print(f"first query:     {fetched}")
    else:
        for query, (n, bytes_) in fetched.items():
            print(f"first query:     {query!r}: {n} files, {bytes_ / 1e3:.0f} kB")

    some_paper = sorted(p.name for p in (root / "logbooks").iterdir() if p.is_dir())[0]
    start = time.perf_counter()
    build_site(root, work / "preview", papers=[some_paper], now=NOW, judge_missing=False)
    preview = time.perf_counter() - start
    print(f"--paper preview: {preview:.1f} s (one paper and its logbooks, in-process)")
    checks = {
        f"site at most 200 MB ({size / 1e6:.1f} MB)": size <= SITE_BUDGET,
        f"build within 2.5x the plain reference in CPU time ({total_cpu / reference_cpu:.1f}x; "
        f"wall {total / reference:.1f}x)": total_cpu <= 2.5 * reference_cpu,
        f"peak memory of the build under 1 GiB ({peak:.0f} MiB; Pagefind's own process "
        f"{pf_peak:.0f} MiB, {peak + pf_peak:.0f} MiB if both peaked at once)": peak < 1024,
        f"no JSON over 15 MB (largest {largest_json / 1e6:.1f} MB)": largest_json < 15e6,
        f"--paper preview under 5 s ({preview:.1f} s)": preview < 5,
    }
    if not isinstance(fetched, str):
        worst = max(b for _n, b in fetched.values())
        checks[f"a first query under 300 kB (at most {worst / 1e3:.0f} kB)"] = worst < 300e3
    for label, ok in checks.items():
        print(f"  {'PASS' if ok else 'FAIL'}  {label}")
    if args.keep:
        print(f"kept:            {work}")
    else:
        shutil.rmtree(work)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
