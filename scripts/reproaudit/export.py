"""The corpus as one table: every claim with each logbook's verdict.

One row per (paper, claim, logbook); a claim nobody has judged appears once,
with empty logbook fields. Written as gzipped CSV, Parquet or gzipped JSON Lines, the
same files for the site's downloads, ``reproaudit export`` and the Hub dataset.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pandas as pd

from .fold import WITHIN_COLUMN, fold_all
from .fsutil import TEMP_SUFFIX, atomic_write, output_folder
from .models import PaperFile
from .records import load_tables
from .repo import Corpus, as_corpus
from .scratch import sweep
from .site.words import tested_range

COLUMNS = [
    "paper",
    "venue",
    "title",
    "area",
    "claim",
    "kind",
    "anchor",
    "statement",
    "claim_fold",
    "claim_within_tested_range",
    "paper_bucket",
    "paper_within_tested_range",
    "logbook",
    "contributor",
    "verdict",
    "machine_verdict",
    "review",
    "decided_by",
    "second_opinion",
    "counts_as",
    "flags",
    "within_tested_range",
    "tested_range",
    "evidence",
    "mode",
    "judged_at",
    "counted",
]
FORMATS = ("csv", "parquet", "jsonl")
BASENAME = "claims-verdicts"
# The text formats are published gzipped: at conference scale they are 42 MB as text and
# 3.2 MB gzipped (the site's largest files), and pandas, DuckDB, HF datasets and the Hub's
# viewer read ``.csv.gz`` and ``.jsonl.gz`` as they are. Parquet compresses its own pages.
GZIPPED = ("csv", "jsonl")
# The licence the corpus (claims, results, verdicts) is published under: the site's downloads
# page and the Hub dataset card both say it (paper titles and abstracts stay under the venue's
# licence, ``paper.license``).
DATA_LICENSE = ("CC BY 4.0", "cc-by-4.0", "https://creativecommons.org/licenses/by/4.0/")


def export_frame(
    papers: dict[str, PaperFile],
    rows: pd.DataFrame,
    claim_folds: pd.DataFrame,
    paper_folds: pd.DataFrame,
) -> pd.DataFrame:
    """Claims joined with verdict rows (reviews applied, ``counted`` marked) and folds (pure)."""
    claims = pd.DataFrame(
        [
            {
                "paper": pid,
                "venue": p.paper.venue,
                "title": p.paper.title,
                "area": p.paper.tags.area or "",
                "claim": c.id,
                "kind": c.kind,
                "anchor": c.anchor,
                "statement": c.statement,
            }
            for pid, p in sorted(papers.items())
            for c in p.claims
        ],
        columns=["paper", "venue", "title", "area", "claim", "kind", "anchor", "statement"],
    )
    verdict_cols = ["paper", "claim", *COLUMNS[COLUMNS.index("logbook") :], "scope"]
    verdicts = rows.rename(columns={"second": "second_opinion"}).reindex(columns=verdict_cols)
    frame = claims.merge(verdicts, on=["paper", "claim"], how="left")
    fold_names = {"fold": "claim_fold", WITHIN_COLUMN: "claim_within_tested_range"}
    folds = (
        claim_folds[["paper", "claim", *fold_names]].rename(columns=fold_names)
        if not claim_folds.empty
        else pd.DataFrame(columns=["paper", "claim", *fold_names.values()])
    )
    frame = frame.merge(folds, on=["paper", "claim"], how="left")
    bucket_names = {"bucket": "paper_bucket", WITHIN_COLUMN: "paper_within_tested_range"}
    buckets = (
        paper_folds[["paper", *bucket_names]].rename(columns=bucket_names)
        if not paper_folds.empty
        else pd.DataFrame(columns=["paper", *bucket_names.values()])
    )
    frame = frame.merge(buckets, on="paper", how="left")
    frame["claim_fold"] = frame["claim_fold"].fillna("untested")
    frame["paper_bucket"] = frame["paper_bucket"].fillna("untested")
    frame["flags"] = frame["flags"].map(lambda f: ";".join(f) if isinstance(f, list) else "")
    # rules version 4: a verified that holds only within the range tested, and that range
    frame["within_tested_range"] = frame["within_tested_range"].eq(True) & frame["verdict"].eq(
        "verified"
    )
    frame["tested_range"] = [
        tested_range(scope) if within else ""
        for scope, within in zip(frame["scope"], frame["within_tested_range"], strict=True)
    ]
    frame["claim_within_tested_range"] = frame["claim_within_tested_range"].eq(True)
    frame["paper_within_tested_range"] = (
        frame["paper_within_tested_range"].fillna(0).astype(int) > 0
    )
    frame["counted"] = frame["counted"].astype("boolean")
    frame["judged_at"] = pd.to_datetime(frame["judged_at"], utc=True)
    for name in (
        "logbook",
        "contributor",
        "verdict",
        "machine_verdict",
        "review",
        "tested_range",
        "decided_by",
        "second_opinion",
        "counts_as",
        "evidence",
        "mode",
    ):
        frame[name] = frame[name].astype("string")
    return frame[COLUMNS].sort_values(
        ["paper", "claim", "logbook"], kind="stable", ignore_index=True
    )


def corpus_frame(source: Path | Corpus) -> pd.DataFrame:
    """The export table of a repository (its ``Corpus``, or its folder, loaded once)."""
    corpus = as_corpus(source)
    tables = load_tables(corpus)
    applied, claim_folds, paper_folds = fold_all(tables.verdicts, tables.reviews)
    papers = {p.paper.id: p for _, p in corpus.papers()}
    return export_frame(papers, applied, claim_folds, paper_folds)


def file_name(fmt: str) -> str:
    """The published name of the export in ``fmt``: ``claims-verdicts.csv.gz``..."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    return f"{BASENAME}.{fmt}.gz" if fmt in GZIPPED else f"{BASENAME}.{fmt}"


def encode_file(frame: pd.DataFrame, fmt: str) -> bytes:
    """The bytes of ``file_name(fmt)``: the same table gives the same bytes (the gzip
    header's time is 0 and it names no file), so a rebuild changes no download."""
    raw = encode(frame, fmt)
    # gzip's own default level: 9 made the conference's files 5% smaller (1.85 -> 1.77 MB of
    # JSON Lines) for twice the CPU, 0.4 s of every site build
    return gzip.compress(raw, compresslevel=6, mtime=0) if fmt in GZIPPED else raw


def encode(frame: pd.DataFrame, fmt: str) -> bytes:
    """The table in ``fmt``, uncompressed."""
    if fmt == "csv":
        return frame.to_csv(index=False, date_format="%Y-%m-%dT%H:%M:%SZ").encode("utf-8")
    if fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True, date_format="iso", force_ascii=False)
        return text.encode("utf-8")
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return buffer.getvalue()
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def write_export(frame: pd.DataFrame, out: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write the table into the folder ``out`` (made when missing; anything else there is
    refused), one file per format, each whole (``fsutil.atomic_write``)."""
    output_folder(out)
    written = []
    for fmt in formats:
        # what a killed export left half-written beside this file (held files are kept)
        name = file_name(fmt)
        sweep(Path(out), f".{name}.", TEMP_SUFFIX)
        path = Path(out) / name
        atomic_write(path, encode_file(frame, fmt))
        written.append(path)
    return written


def headline_stats(source: Path | Corpus) -> dict:
    """The headline table of ``reproaudit stats`` (papers per bucket, claims per fold),
    from the command's ``Corpus`` or a repository's folder (loaded once)."""
    from .fold import fold, stats

    corpus = as_corpus(source)
    tables = load_tables(corpus)
    return stats(*fold(tables.verdicts, tables.reviews))
