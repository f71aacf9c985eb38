"""The papers list a reader can use: what each row is filtered and sorted by, the list as
fixed-size JSON slices, and a compact pager.

The papers page paints its first rows from static HTML; its script fetches slices of
``SLICE_SIZE`` rows (A to Z, the order of the static lists) only when a reader filters,
sorts or asks for more, so no file the browser loads grows with the corpus. Pure: data in,
data out (``SiteData`` is read, never changed).
"""

from __future__ import annotations

import json
from typing import Any

from ..models import PaperMeta
from .data import Key, SiteData
from .pages import Facets, PaperRow

SLICE_SIZE = 400  # rows per slice: ~60 kB of JSON, ~15 kB gzipped, whatever the corpus
SLICE_DIR = "assets/papers"
WINDOW = 2  # page numbers shown on each side of the current one
# rows the papers page paints before any script runs: a few phone screens; a phone's first
# paint lays out every row it is given, and the rest is one click (or one slice) away
FIRST_ROWS = 30

# a row's fields in the slices, in order (the script reads the same list from the page)
FIELDS = (
    "id",
    "title",
    "authors",
    "bucket",
    "outcome",  # the outcome as the chip reads it, "" when it is the bucket's label
    "chip",  # "<classes>#<meaning anchor>" of its chip, "" when the bucket's own (not re-run)
    "area",
    "track",
    "rerun",  # the paper's re-run states, space-separated (see RERUN)
    "review",  # 1: a falsification that counts is under review
    "updated",  # the newest verdict on the paper, ISO 8601 UTC; "" when none
    "claims",
    "logbooks",
)
# how the venue presents a paper; "" when the paper file does not say
TRACKS = {"oral": "oral", "spotlight": "spotlight", "poster": "poster", "": "not given"}
# re-run states of a paper: a paper holds every state one of its logbooks is in
RERUN = {
    "passed": "re-run passed",
    "failed": "re-run failed",
    "awaiting": "awaiting re-run",
    "none": "no logbook yet",
}


def track_of(meta: PaperMeta) -> str:
    """The paper's track: ``track`` when given, else its ``oral``/``spotlight`` tags."""
    if meta.track:
        return meta.track
    if meta.tags.oral:
        return "oral"
    return "spotlight" if meta.tags.spotlight else ""


def logbook_rerun(data: SiteData, key: Key) -> str:
    """One logbook's re-run state. Under the evidence rule a verdict without a passed re-run
    of the current bytes flags its claims ``not_rerun``: that logbook is awaiting one. So is
    a logbook whose stored record ran other bytes, even under a verdict written before."""
    verdict = data.verdicts.get(key)
    if verdict is None or any("not_rerun" in c.flags for c in verdict.claims):
        return "awaiting"
    stored = data.reruns.get(key)
    if stored is not None and stored.ignored:
        return "awaiting"
    if verdict.rerun is None:
        return "awaiting"
    return "passed" if verdict.rerun.status == "passed" else "failed"


def rerun_states(data: SiteData, paper_id: str) -> list[str]:
    """Every re-run state the paper's logbooks are in, in ``RERUN`` order; ``none`` alone
    when it has no logbook."""
    keys = data.logbooks_of(paper_id)
    if not keys:
        return ["none"]
    found = {logbook_rerun(data, key) for key in keys}
    return [state for state in RERUN if state in found]


def updated(data: SiteData, paper_id: str) -> str:
    """When the newest verdict on the paper was judged (ISO 8601, UTC), or ""."""
    stamps = [
        data.verdicts[key].judged_at for key in data.logbooks_of(paper_id) if key in data.verdicts
    ]
    return max(stamps).strftime("%Y-%m-%dT%H:%M:%SZ") if stamps else ""


def facets(data: SiteData, paper_id: str) -> Facets:
    """What a paper's row is filtered and sorted by, besides its outcome and area."""
    return {
        "track": track_of(data.papers[paper_id].paper),
        "rerun": rerun_states(data, paper_id),
        "updated": updated(data, paper_id),
    }


def slices(rows: list[PaperRow], size: int | None = None) -> dict[str, bytes]:
    """The rows of the list (``context.paper_rows``, A to Z) as JSON files of ``size`` rows
    (``SLICE_SIZE``): ``assets/papers/1.json``, ``2.json``... each
    ``{"fields": [...], "first": <position of its first row>, "rows": [[...], ...]}``."""
    size = size or SLICE_SIZE
    out = {}
    for number, start in enumerate(range(0, len(rows), size), start=1):
        chunk = [_row(r) for r in rows[start : start + size]]
        body = {"fields": list(FIELDS), "first": start, "rows": chunk}
        out[slice_path(number)] = json.dumps(
            body, ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8")
    return out


def slice_path(number: int) -> str:
    return f"{SLICE_DIR}/{number}.json"


def slice_count(total: int, size: int | None = None) -> int:
    return -(-total // (size or SLICE_SIZE))


def _row(r: PaperRow) -> list[Any]:
    label, shown = r["outcome"], r["shown"]
    own = shown.css == f"ra-bucket--{r['bucket']}" and shown.anchor == f"outcome-{r['bucket']}"
    return [
        r["id"],
        r["title"],
        r["authors"],
        r["bucket"],
        "" if label == r["bucket_label"] else label,
        "" if own else f"{shown.css}#{shown.anchor}",
        r["area"],
        r["track"],
        " ".join(r["rerun"]),
        1 if r["under_review"] else 0,
        r["updated"],
        r["claims"],
        r["logbooks"],
    ]


def pager_window(number: int, count: int, width: int = WINDOW) -> list[int | None]:
    """The page numbers a compact pager shows: the first, the last and ``width`` on each side
    of the current one; ``None`` where numbers are left out. 6 of 66: 1 … 4 5 6 7 8 … 66."""
    shown = {1, count, *range(max(1, number - width), min(count, number + width) + 1)}
    shown |= {page + 1 for page in shown if page + 2 in shown}  # "…" never hides one number
    out: list[int | None] = []
    for page in sorted(shown):
        if out and page - (out[-1] or 0) > 1:
            out.append(None)
        out.append(page)
    return out
