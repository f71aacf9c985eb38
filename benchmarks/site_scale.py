"""Build the site of a conference-scale corpus and print where the time goes.

Generates the corpus of ``benchmarks/corpus.py`` (6,352 papers, ~36,000 claims,
6,816 logbooks, a verdict file per logbook), then runs ``reproaudit build`` on it
and prints the phases, the page count, the output size, and the ratio to a
reference: reading every YAML file and writing one plain jinja2 page per paper and
per logbook (the floor any generator pays).

    python benchmarks/site_scale.py [--papers N] [--logbooks N] [--keep]

``TMPDIR=/dev/shm`` keeps the corpus and the site on tmpfs.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import jinja2
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import generate_corpus  # noqa: E402

from reproaudit.site.build import build_site  # noqa: E402

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


def size_of(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


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

    cpu = cpu_seconds()
    reference = plain_reference(root, work / "plain")
    reference_cpu = cpu_seconds() - cpu
    print(
        f"plain reference: {reference:.1f} s, {reference_cpu:.1f} s CPU (read every YAML file, "
        "one jinja2 page per paper and logbook)"
    )

    cpu, child = cpu_seconds(), cpu_seconds(children=True)
    start = time.perf_counter()
    report = build_site(root, work / "site", now=datetime(2026, 12, 1, tzinfo=UTC))
    total = time.perf_counter() - start
    total_cpu = cpu_seconds() - cpu
    pagefind_cpu = cpu_seconds(children=True) - child
    files, size = size_of(report.out)
    # the papers list's JSON slices (none is fetched on a first visit)
    index = max(
        (p.stat().st_size for p in (report.out / "assets/papers").glob("*.json")), default=0
    )
    bundle = [p for p in (report.out / "pagefind").rglob("*") if p.is_file()]
    search = sum(p.stat().st_size for p in bundle)
    chunks = [p.stat().st_size for p in bundle if p.parent.name in ("index", "fragment")]
    for phase, seconds in report.seconds.items():
        print(f"  {phase + ':':<26}{seconds:6.1f} s")
    print(
        f"site build:      {total:.1f} s for {report.pages} pages "
        f"({report.pages / total:.0f} pages/s), {total / reference:.1f}x the plain reference; "
        f"{total_cpu:.1f} s CPU, {total_cpu / reference_cpu:.1f}x its CPU; Pagefind, running "
        f"beside the build on the other core, {pagefind_cpu:.1f} s CPU "
        f"({(total_cpu + pagefind_cpu) / reference_cpu:.1f}x counting both)"
    )
    print(
        f"output:          {files} files, {size / 1e6:.0f} MB "
        f"({size / report.pages / 1e3:.1f} kB per page); "
        f"largest papers list slice {index / 1e3:.0f} kB"
    )
    print(
        f"search (pagefind): {len(bundle)} files, {search / 1e6:.1f} MB in all; a query loads "
        f"index chunks of at most {max(chunks, default=0) / 1e3:.0f} kB and one fragment per "
        "result shown"
    )
    lists = len(list((report.out / "browse").rglob("index.html")))
    people = len(list((report.out / "people").rglob("index.html")))
    print(f"static lists:    {lists} list pages (A-Z, outcome, area); {people} contributor pages")
    some_paper = sorted(p.name for p in (root / "logbooks").iterdir() if p.is_dir())[0]
    start = time.perf_counter()
    build_site(
        root,
        work / "preview",
        papers=[some_paper],
        now=datetime(2026, 12, 1, tzinfo=UTC),
        judge_missing=False,
    )
    preview = time.perf_counter() - start
    largest_json = max((p.stat().st_size for p in report.out.rglob("*.json")), default=0)
    peak = (
        max(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,  # pagefind runs as a child
        )
        / 1024
    )  # KiB -> MiB on Linux
    print(f"--paper preview: {preview:.1f} s (one paper and its logbooks, in-process)")
    checks = {
        f"build within 2.5x the plain reference in CPU time ({total_cpu / reference_cpu:.1f}x; "
        f"wall {total / reference:.1f}x)": total_cpu <= 2.5 * reference_cpu,
        f"peak memory under 1 GiB ({peak:.0f} MiB)": peak < 1024,
        f"no JSON over 15 MB (largest {largest_json / 1e6:.1f} MB)": largest_json < 15e6,
        f"--paper preview under 5 s ({preview:.1f} s)": preview < 5,
    }
    for label, ok in checks.items():
        print(f"  {'PASS' if ok else 'FAIL'}  {label}")
    if args.keep:
        print(f"kept:            {work}")
    else:
        shutil.rmtree(work)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
