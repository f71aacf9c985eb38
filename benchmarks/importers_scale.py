"""Time the importers' parsers on hostile inputs at 1x, 2x and 4x, and on 10x real inputs.

Issue 15 found small files that made the parsers do unbounded work: trackio
pages that sent the old regular expressions quadratic (150 KB took over 30 s),
a PaperBench rubric whose leaves rescanned their ancestors (568 KB: 37 s), and
PDFs whose pages inflate to millions of text operations (28 KB: 60 s). For each
parser this prints the time at 1x, 2x and 4x a hostile input and the ratio of
the 4x time to the 2x time: linear work doubles (about 2), quadratic work
quadruples (about 4). It then times each importer on 10x the largest real input
in the shared fixtures (``../shared/fixtures``, or ``--fixtures DIR``), and
skips that part when they are absent. With ``--reference`` it also times
trackio's own cell pattern (the regex the one-pass reader replaced) at sizes
small enough to finish, for contrast.

    python benchmarks/importers_scale.py [--fixtures DIR] [--reference]

It prints figures and never asserts; tests check behaviour, not time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reproaudit.importers import import_paperbench, import_trackio
from reproaudit.importers.trackio import _page_verdict
from reproaudit.importers.trackio_format import parse_page

HERE = Path(__file__).resolve().parent
MARKER = "\n---\n<!-- trackio-cell\n"
NOTE = '{"type": "markdown", "id": "c1", "title": "Claim 1 verdict", "pinned": true}'
TRACKIO_CELL = re.compile(  # trackio's own pattern (logbook.js), the old reader's
    r"(?:^|\n)---\n<!-- trackio-cell\n([\s\S]*?)\n-->\n([\s\S]*?)"
    r"(?=\n---\n<!-- trackio-cell\n|\s*\Z)"
)
PAPER = """\
paper: {id: Bench01, title: Bench, venue: ICML 2026}
claims_version: 1
claims:
  - {id: C1, statement: One., anchor: Table 1, kind: empirical}
  - {id: C2, statement: Two., anchor: Table 2, kind: empirical}
"""


def timed(run: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


# --- hostile inputs, by scale ---------------------------------------------------------


def fence_storm(n: int) -> str:
    """A code cell with n fence openers that never close (the old fence regex rescanned)."""
    body = "````info\n" * n + "````output\nok\n````"
    return f'# Claim 1: fences{MARKER}{{"type": "code"}}\n-->\n{body}\n'


def unclosed_headers(n: int) -> str:
    """n cell markers whose header never closes (the old cell regex rescanned to the end)."""
    return "# Claim 1: markers\n" + (MARKER + '{"type": "markdown"}') * n


def space_title(n: int) -> str:
    """A 'Claim' title with n spaces (the old title regex backtracked over them)."""
    return "# Claim" + " " * n + "x\n"


def verdict_storm(n: int) -> str:
    """A pinned verdict note saying 'claim 1 holds' n times in one sentence."""
    return f"# Claim 1: holds{MARKER}{NOTE}\n-->\n" + "claim 1 holds " * n + "\n"


def deep_rubric(n: int) -> dict:
    """n levels of long requirements, a leaf at each (the old importer rescanned ancestors)."""
    node = {"requirements": "Table 4.", "sub_tasks": [], "task_category": "Result Analysis"}
    for depth in range(n):
        node = {
            "requirements": f"Level {depth} " + "words " * 5000,
            "task_category": None,
            "sub_tasks": [
                node,
                {
                    "requirements": f"Leaf {depth}.",
                    "sub_tasks": [],
                    "task_category": "Result Analysis",
                },
            ],
        }
    return node


def reference_storm(n: int) -> dict:
    """One leaf naming 'Figure 1.' n times in a row (a backtracking reference pattern)."""
    text = "Figure 1." * n
    return {"requirements": text, "sub_tasks": [], "task_category": "Result Analysis"}


def write_rubric(folder: Path, rubric: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rubric.json").write_text(json.dumps(rubric))
    return folder


def bomb_pdf(path: Path, pages: int, ops: int = 200_000) -> Path:
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = resources
        stream = DecodedStreamObject()
        stream.set_data(b"BT /F1 12 Tf 72 700 Td " + b"(word word word word ) Tj " * ops + b"ET\n")
        page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    with open(path, "wb") as handle:
        writer.write(handle)
    return path


def read_pdf(path: Path) -> None:
    from reproaudit.errors import ReproauditError
    from reproaudit.extract import read_paper_text

    # pages over the limits are skipped and said so: the time is what counts here
    with contextlib.suppress(ReproauditError):
        read_paper_text(path)


Build = Callable[[int], tuple[Callable[[], object], int]]  # scale -> (work, input bytes)


def page_case(make: Callable[[int], str]) -> Build:
    def build(n: int) -> tuple[Callable[[], object], int]:
        text = make(n)
        return (lambda: parse_page(text, Path("p/page.md"))), len(text.encode())

    return build


def verdict_case(n: int) -> tuple[Callable[[], object], int]:
    text = verdict_storm(n)
    page = parse_page(text, Path("p/page.md"))
    return (lambda: _page_verdict(page, 1)), len(text.encode())


def rubric_case(work: Path, make: Callable[[int], dict], tag: str) -> Build:
    def build(n: int) -> tuple[Callable[[], object], int]:
        folder = write_rubric(work / f"{tag}-{n}", make(n))
        size = (folder / "rubric.json").stat().st_size
        return (lambda: import_paperbench(folder, paper_id="Bench01", title="Bench")), size

    return build


def pdf_case(work: Path) -> Build:
    def build(n: int) -> tuple[Callable[[], object], int]:
        pdf = bomb_pdf(work / f"bomb-{n}.pdf", n)
        return (lambda: read_pdf(pdf)), pdf.stat().st_size

    return build


def scaling(work: Path) -> None:
    cases: list[tuple[str, str, int, Build]] = [
        ("trackio page", "unclosed fences", 40_000, page_case(fence_storm)),
        ("trackio page", "unclosed headers", 10_000, page_case(unclosed_headers)),
        ("trackio page", "space-run title", 150_000, page_case(space_title)),
        ("trackio verdict", "'claim 1 holds' x n", 12_000, verdict_case),
        ("paperbench", "deep chain of long nodes", 24, rubric_case(work, deep_rubric, "deep")),
        ("paperbench", "'Figure 1.' x n", 20_000, rubric_case(work, reference_storm, "refs")),
        ("extract (PDF)", "pages of 200k text ops", 4, pdf_case(work)),
    ]
    head = ["parser", "hostile input", "1x size", "1x", "2x", "4x", "4x/2x"]
    print(
        f"{head[0]:<16} {head[1]:<26} {head[2]:>10} {head[3]:>9} {head[4]:>9} {head[5]:>9} "
        f"{head[6]:>6}"
    )
    for parser, case, base, build in cases:
        times, sizes = [], []
        for factor in (1, 2, 4):
            run, size = build(base * factor)
            sizes.append(size)
            times.append(timed(run))
        ratio = times[2] / times[1] if times[1] > 0 else float("nan")
        cells = " ".join(f"{t * 1000:>7.1f}ms" for t in times)
        print(f"{parser:<16} {case:<26} {_human(sizes[0]):>10} {cells} {ratio:>6.2f}")


def _human(n: int) -> str:
    for unit, size in (("MB", 10**6), ("KB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def reference(work: Path) -> None:
    """trackio's own cell pattern on the 'unclosed headers' input: quadratic, for contrast."""
    print("\ntrackio's cell regex (what the one-pass reader replaced), unclosed headers:")
    for n in (500, 1000, 2000):
        text = unclosed_headers(n)
        seconds = timed(lambda text=text: list(TRACKIO_CELL.finditer(text)), repeat=1)
        one_pass = timed(lambda text=text: parse_page(text, Path("p/page.md")), repeat=3)
        print(
            f"  {_human(len(text)):>8}: regex {seconds * 1000:>8.1f}ms   "
            f"one pass {one_pass * 1000:>6.2f}ms"
        )


def real_inputs(fixtures: Path, work: Path) -> None:
    """Each importer on 10x the largest real input in the shared fixtures."""
    print(f"\n10x the largest real inputs ({fixtures}):")
    rubrics = sorted(
        (fixtures / "paperbench").glob("*/rubric.json"), key=lambda p: p.stat().st_size
    )
    if rubrics:
        largest = rubrics[-1]
        tree = json.loads(largest.read_text())
        big = {"requirements": "Ten copies", "task_category": None, "sub_tasks": [tree] * 10}
        folder = work / "paperbench-10x"
        folder.mkdir()
        (folder / "rubric.json").write_text(json.dumps(big, indent=2))  # the fixtures' layout
        size = (folder / "rubric.json").stat().st_size
        seconds = timed(lambda: import_paperbench(folder, paper_id="Bench01", title="Bench"), 1)
        print(f"  paperbench  {largest.parent.name} x10 ({_human(size)}): {seconds:.2f} s")
    pages = sorted((fixtures / "trackio").rglob("page.md"), key=lambda p: p.stat().st_size)
    if pages:
        largest = pages[-1]
        text = largest.read_text()
        head, _, cells = text.partition(MARKER)
        copy = work / "trackio-10x"
        shutil.copytree(largest.parents[3], copy / ".trackio", dirs_exist_ok=True)
        target = copy / ".trackio" / largest.relative_to(largest.parents[3])
        target.write_text(head + (MARKER + cells) * 10)
        repo = work / "repo"
        (repo / "claims" / "icml2026").mkdir(parents=True, exist_ok=True)
        (repo / "claims" / "icml2026" / "Bench01.yaml").write_text(PAPER)
        size = target.stat().st_size
        seconds = timed(lambda: parse_page(target.read_text(), target))
        total = timed(lambda: import_trackio(copy, repo, paper="Bench01", contributor="bench"))
        print(
            f"  trackio     {largest.parent.name} x10 ({_human(size)}): "
            f"page {seconds * 1000:.1f} ms, whole import {total * 1000:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=HERE.parents[1] / "shared" / "fixtures")
    parser.add_argument("--reference", action="store_true", help="also time trackio's regex")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="reproaudit-importers-"))
    try:
        scaling(work)
        if args.reference:
            reference(work)
        if args.fixtures.is_dir():
            real_inputs(args.fixtures, work)
        else:
            print(f"\n{args.fixtures} is absent: skipping 10x the real inputs")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
