"""Folding verdicts into claim and paper outcomes: pure pandas, no I/O, no clock.

The rules of DESIGN.md ("Folding verdicts"):

1. Maintainer reviews apply first: the latest ``review`` of a (logbook, claim)
   overrides its machine verdict (``confirm`` -> falsified, ``reject`` ->
   inconclusive). Author responses are shown, not counted.
2. Per claim, each contributor counts once (GitHub handles compared
   case-insensitively: ``Alice`` and ``alice`` are one person), with the verdict
   of their most recently judged logbook for that paper. Ties of ``judged_at``
   (one judge run judges many logbooks) break by the logbook's last change
   (``logbook_changed_at``, when the caller has it), then by natural order of
   the logbook ids (``alice-10`` after ``alice-9``).
3. Claim fold: contested = verified and falsified both present (necessarily
   from different contributors); verified = verified, no falsified; falsified =
   falsified, no verified; toy = only toy and inconclusive with at least one
   toy; inconclusive = the rest; untested = no verdict.
4. Paper bucket over the claims with at least one verdict, first match wins:
   contested > fully reproduced > mixed > partial > falsified > toy only >
   inconclusive.
5. Within the tested range (rules version 4): a claim folded ``verified`` whose
   counted verified verdicts all hold only within the range tested (the verdict
   rows' optional ``within_tested_range``) is ``within_tested_range``; a paper
   counts such claims, and a "fully reproduced" paper with one says so.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

VERDICT_COLUMNS = ["paper", "logbook", "contributor", "judged_at", "claim", "verdict"]
# Optional: when each row's logbook last changed (git or file time), to break judged_at ties.
CHANGED_COLUMN = "logbook_changed_at"
# Optional: a verified row that holds only within the range tested (rule 5).
WITHIN_COLUMN = "within_tested_range"
REVIEW_COLUMNS = ["paper", "logbook", "claim", "kind", "stance", "at"]
CLAIM_FOLDS = ["contested", "verified", "falsified", "toy", "inconclusive"]
BUCKETS = [
    "contested",
    "fully_reproduced",
    "mixed",
    "partial",
    "falsified",
    "toy_only",
    "inconclusive",
]
BUCKET_LABELS = {
    "contested": "Contested",
    "fully_reproduced": "Fully reproduced",
    "mixed": "Mixed",
    "partial": "Partially reproduced",
    "falsified": "Falsified",
    "toy_only": "Toy only",
    "inconclusive": "Inconclusive",
}
REVIEW_EFFECT = {"confirm": "falsified", "reject": "inconclusive"}


def apply_reviews(verdicts: pd.DataFrame, reviews: pd.DataFrame) -> pd.DataFrame:
    """Machine verdicts with the latest maintainer review of each (logbook, claim) applied.

    Adds ``machine_verdict`` (what the judge said) and ``review`` (the stance applied, or NA).
    """
    out = verdicts.copy()
    out["machine_verdict"] = out["verdict"]
    keys = ["paper", "logbook", "claim"]
    if reviews.empty:
        out["review"] = pd.Series(pd.NA, index=out.index, dtype="object")
        return out
    latest = (
        reviews[reviews["kind"] == "review"]
        .sort_values("at", kind="stable")
        .drop_duplicates(keys, keep="last")[[*keys, "stance"]]
        .rename(columns={"stance": "review"})
    )
    out = out.merge(latest, on=keys, how="left")
    reviewed = out["review"].notna()
    out.loc[reviewed, "verdict"] = out.loc[reviewed, "review"].map(REVIEW_EFFECT)
    return out


def natural_key(text: str) -> tuple:
    """Sort key that orders digit runs by value: ``alice-9`` < ``alice-10``."""
    return tuple(
        (0, int(part), part) if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", text)
        if part
    )


def latest_per_contributor(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Only the rows of each contributor's most recently judged logbook per paper.

    Contributors are GitHub handles, compared case-insensitively. Ties of
    ``judged_at`` break by ``logbook_changed_at`` (when present; unknown counts
    as oldest), then by the natural order of logbook ids.
    """
    if verdicts.empty:
        return verdicts
    columns = ["paper", "contributor", "logbook", "judged_at"]
    changed = CHANGED_COLUMN in verdicts.columns
    books = verdicts[[*columns, CHANGED_COLUMN] if changed else columns].drop_duplicates(
        ["paper", "logbook"]
    )
    books = books.assign(
        who=books["contributor"].astype(str).str.casefold(),
        natural=books["logbook"].map(_natural_rank(books["logbook"])),
    )
    order = ["judged_at", *([CHANGED_COLUMN] if changed else []), "natural"]
    latest = books.sort_values(order, kind="stable", na_position="first").drop_duplicates(
        ["paper", "who"], keep="last"
    )
    return verdicts.merge(latest[["paper", "logbook"]], on=["paper", "logbook"], how="inner")


def _natural_rank(logbooks: pd.Series) -> dict[str, int]:
    return {name: i for i, name in enumerate(sorted(set(logbooks), key=natural_key))}


def fold_claims(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One row per (paper, claim) with a verdict: vote counts and the claim's fold."""
    if verdicts.empty:
        columns = ["paper", "claim", *CLAIM_FOLDS[1:], "contributors", "fold", WITHIN_COLUMN]
        return pd.DataFrame(columns=columns)
    counts = (
        verdicts.groupby(["paper", "claim", "verdict"], sort=True)
        .size()
        .unstack("verdict", fill_value=0)
        .reindex(columns=CLAIM_FOLDS[1:], fill_value=0)
        .reset_index()
    )
    counts.columns.name = None
    counts["contributors"] = counts[CLAIM_FOLDS[1:]].sum(axis=1)
    v, f, t = counts["verified"] > 0, counts["falsified"] > 0, counts["toy"] > 0
    counts["fold"] = np.select(
        [v & f, v, f, t], ["contested", "verified", "falsified", "toy"], default="inconclusive"
    )
    counts[WITHIN_COLUMN] = _within(verdicts, counts)
    return counts


def _within(verdicts: pd.DataFrame, counts: pd.DataFrame) -> pd.Series:
    """Rule 5: per claim fold, whether it is verified only within the range tested."""
    if WITHIN_COLUMN not in verdicts.columns:
        return pd.Series(False, index=counts.index)
    verified = verdicts[verdicts["verdict"] == "verified"]
    limited = (
        verified[WITHIN_COLUMN]
        .eq(True)  # NA and None: not limited
        .groupby([verified["paper"], verified["claim"]])
        .all()
    )
    keys = pd.MultiIndex.from_frame(counts[["paper", "claim"]])
    found = limited.reindex(keys, fill_value=False).to_numpy(dtype=bool)
    return pd.Series(found & (counts["fold"] == "verified").to_numpy(), index=counts.index)


def fold_papers(claims: pd.DataFrame) -> pd.DataFrame:
    """One row per paper with at least one claim verdict: claim-fold counts and bucket."""
    if claims.empty:
        return pd.DataFrame(columns=["paper", *CLAIM_FOLDS, "claims", "bucket", WITHIN_COLUMN])
    per = (
        claims.groupby(["paper", "fold"], sort=True)
        .size()
        .unstack("fold", fill_value=0)
        .reindex(columns=CLAIM_FOLDS, fill_value=0)
        .reset_index()
    )
    per.columns.name = None
    per["claims"] = per[CLAIM_FOLDS].sum(axis=1)
    c, v, f, t = (per[k] > 0 for k in ("contested", "verified", "falsified", "toy"))
    every = per["verified"] == per["claims"]
    per["bucket"] = np.select(
        [c, every, v & f, v, f, t],
        ["contested", "fully_reproduced", "mixed", "partial", "falsified", "toy_only"],
        default="inconclusive",
    )
    within = (
        claims.groupby("paper", sort=True)[WITHIN_COLUMN].sum() if WITHIN_COLUMN in claims else None
    )
    per[WITHIN_COLUMN] = per["paper"].map(within).fillna(0).astype(int) if within is not None else 0
    return per


def fold_all(
    verdicts: pd.DataFrame, reviews: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(every verdict row with reviews applied and ``counted`` marked, claim folds, paper buckets).

    ``counted`` is True for rows of a contributor's latest logbook on a paper: the
    rows that the folds count. Pages show the others as superseded.
    """
    applied = apply_reviews(verdicts, reviews)
    counted = latest_per_contributor(applied)
    keys = ["paper", "logbook"]
    applied["counted"] = applied.set_index(keys).index.isin(counted.set_index(keys).index)
    claims = fold_claims(counted)
    return applied, claims, fold_papers(claims)


def fold(verdicts: pd.DataFrame, reviews: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Verdict rows and reviews -> (claim folds, paper buckets)."""
    counted = latest_per_contributor(apply_reviews(verdicts, reviews))
    claims = fold_claims(counted)
    return claims, fold_papers(claims)


def _share(count: int, total: int) -> dict[str, Any]:
    return {"count": int(count), "percent": round(100.0 * count / total, 1) if total else 0.0}


def stats_from_buckets(
    buckets: dict[str, int],
    claims: dict[str, int] | None = None,
    within: dict[str, int] | None = None,
) -> dict:
    """The headline table from bucket counts (the shape `reproaudit stats --json` prints).

    ``within`` (rule 5): ``claims`` verified only within the tested range, and
    ``fully_reproduced`` papers with at least one such claim."""
    counts = {b: int(buckets.get(b, 0)) for b in BUCKETS}
    judged = sum(counts.values())
    verified = counts["fully_reproduced"] + counts["mixed"] + counts["partial"]
    against = counts["contested"] + counts["mixed"] + counts["falsified"]
    return {
        "papers_judged": judged,
        "buckets": counts,
        "at_least_one_verified": _share(verified, judged),
        "at_least_one_falsified_or_contested": _share(against, judged),
        "claims": {k: int((claims or {}).get(k, 0)) for k in CLAIM_FOLDS},
        WITHIN_COLUMN: {k: int((within or {}).get(k, 0)) for k in ("claims", "fully_reproduced")},
    }


def stats(claims: pd.DataFrame, papers: pd.DataFrame) -> dict:
    within = {
        "claims": int(claims[WITHIN_COLUMN].sum()) if WITHIN_COLUMN in claims else 0,
        "fully_reproduced": int(
            ((papers["bucket"] == "fully_reproduced") & (papers[WITHIN_COLUMN] > 0)).sum()
        )
        if WITHIN_COLUMN in papers and not papers.empty
        else 0,
    }
    return stats_from_buckets(_counts(papers, "bucket"), _counts(claims, "fold"), within)


def _counts(table: pd.DataFrame, column: str) -> dict[str, int]:
    if table.empty:
        return {}
    return {str(k): int(n) for k, n in table[column].value_counts().items()}


def format_stats(table: dict) -> str:
    """The headline table as text."""
    judged = table["papers_judged"]
    lines = [f"Papers judged: {judged:,}", ""]
    width = max(len(label) for label in BUCKET_LABELS.values())
    for key in BUCKETS:
        share = _share(table["buckets"][key], judged)
        lines.append(
            f"  {BUCKET_LABELS[key]:<{width}}  {share['count']:>6,}  {share['percent']:5.1f}%"
        )
        limited = table.get(WITHIN_COLUMN, {}).get(key, 0)
        if limited:
            lines.append(f"    of which within the tested range only: {limited:,}")
    lines.append("")
    for key, label in (
        ("at_least_one_verified", "At least one claim verified"),
        ("at_least_one_falsified_or_contested", "At least one claim falsified or contested"),
    ):
        share = table[key]
        lines.append(f"{label}: {share['count']:,} ({share['percent']:.1f}%)")
    claims = table["claims"]
    limited = table.get(WITHIN_COLUMN, {}).get("claims", 0)
    shown = {k: f"{claims[k]:,} {k}" for k in CLAIM_FOLDS}
    if limited:
        shown["verified"] += f" ({limited:,} within the tested range only)"
    lines.append("Claims: " + ", ".join(shown[k] for k in CLAIM_FOLDS))
    return "\n".join(lines)
