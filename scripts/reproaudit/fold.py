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
3. What each verdict counts as (``counts_as``): a reviewed verdict is the
   person's; a verified, falsified or toy that the model alone decided
   (``decided_by: model``: a claim without a target) is ``model_judged`` until a
   second, independently configured endpoint gave the same verdict
   (``second``) or a maintainer reviewed it; an unreviewed ``judge_conflict`` is
   ``conflict``; the rest is the verdict.
4. Claim fold: contested = verified and falsified both present (necessarily
   from different contributors); held (``inconclusive``, ``held`` True) =
   verified or falsified present beside a conflict or a model-judged verdict
   for the other side: no claim is published from fewer logbooks than it has;
   verified = verified, no falsified; falsified = falsified, no verified; toy =
   only toy and inconclusive with at least one toy; model_judged = only
   model-judged and inconclusive with at least one model-judged; inconclusive =
   the rest; untested = no verdict.
5. Paper bucket over the claims with at least one verdict, first match wins:
   contested > fully reproduced > mixed > partial > falsified > toy only >
   inconclusive. A model-judged claim counts as neither verified nor falsified:
   no paper is fully reproduced on a model's word alone.
6. Within the tested range (rules version 4): a claim folded ``verified`` whose
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
# Optional: a verified row that holds only within the range tested (rule 6).
WITHIN_COLUMN = "within_tested_range"
# Optional (absent: the rules decided, nothing second): who decided each verdict (rules |
# model), the second endpoint's verdict on it, and its flags.
DECIDED_COLUMN, SECOND_COLUMN, FLAGS_COLUMN = "decided_by", "second", "flags"
REVIEW_COLUMNS = ["paper", "logbook", "claim", "kind", "stance", "at"]
CLAIM_FOLDS = ["contested", "verified", "falsified", "toy", "model_judged", "inconclusive"]
COUNTED = ["verified", "falsified", "toy", "model_judged", "inconclusive", "conflict"]
DECISIVE = ("verified", "falsified", "toy")
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
    Adds ``counts_as`` (what the folds count it as: module docstring, rule 3) and
    ``model_judged`` (a verdict only the model made, however it counts).
    """
    out = verdicts.copy()
    out["machine_verdict"] = out["verdict"]
    keys = ["paper", "logbook", "claim"]
    if reviews.empty:
        out["review"] = pd.Series(pd.NA, index=out.index, dtype="object")
    else:
        latest = (
            reviews[reviews["kind"] == "review"]
            .sort_values("at", kind="stable")
            .drop_duplicates(keys, keep="last")[[*keys, "stance"]]
            .rename(columns={"stance": "review"})
        )
        out = out.merge(latest, on=keys, how="left")
        reviewed = out["review"].notna()
        out.loc[reviewed, "verdict"] = out.loc[reviewed, "review"].map(REVIEW_EFFECT)
    return _counts_as(out)


def _counts_as(rows: pd.DataFrame) -> pd.DataFrame:
    """Rule 3 of the module docstring, on rows with reviews applied."""
    reviewed = rows["review"].notna()
    decided = _column(rows, DECIDED_COLUMN, "rules")
    second = _column(rows, SECOND_COLUMN, None)
    flags = rows[FLAGS_COLUMN] if FLAGS_COLUMN in rows.columns else pd.Series([[]] * len(rows))
    conflict = flags.map(lambda f: isinstance(f, list | tuple) and "judge_conflict" in f).to_numpy(
        dtype=bool
    )
    model = (decided == "model").to_numpy(dtype=bool) & rows["verdict"].isin(DECISIVE).to_numpy()
    rows["model_judged"] = model
    reviewed_ = reviewed.to_numpy(dtype=bool)
    confirmed = (second == rows["verdict"]).to_numpy(dtype=bool) | reviewed_
    rows["counts_as"] = np.select(
        [reviewed_, model & ~confirmed, conflict],
        [rows["verdict"].to_numpy(), "model_judged", "conflict"],
        default=rows["verdict"].to_numpy(),
    )
    return rows


def _column(rows: pd.DataFrame, name: str, default: Any) -> pd.Series:
    if name not in rows.columns:
        return pd.Series([default] * len(rows), index=rows.index, dtype="object")
    return rows[name].where(rows[name].notna(), default)


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
    """One row per (paper, claim) with a verdict: counts, the claim's fold and ``held``.

    ``verdicts`` are the counted rows; without ``counts_as`` (rows that did not come
    through ``apply_reviews``) each verdict counts as itself.
    """
    columns = ["paper", "claim", *COUNTED, "contributors", "fold", "held", WITHIN_COLUMN]
    if verdicts.empty:
        return pd.DataFrame(columns=columns)
    rows = verdicts if "counts_as" in verdicts.columns else _counts_as(_unreviewed(verdicts))
    counts = (
        rows.groupby(["paper", "claim", "counts_as"], sort=True)
        .size()
        .unstack("counts_as", fill_value=0)
        .reindex(columns=COUNTED, fill_value=0)
        .reset_index()
    )
    counts.columns.name = None
    counts["contributors"] = counts[COUNTED].sum(axis=1)
    model = rows["counts_as"] == "model_judged"
    sides = (
        rows.assign(
            model_verified=model & (rows["verdict"] == "verified"),
            model_falsified=model & (rows["verdict"] == "falsified"),
        )
        .groupby(["paper", "claim"], sort=True)[["model_verified", "model_falsified"]]
        .any()
        .reset_index()
    )
    counts = counts.merge(sides, on=["paper", "claim"], how="left")
    v, f, t = counts["verified"] > 0, counts["falsified"] > 0, counts["toy"] > 0
    m, c = counts["model_judged"] > 0, counts["conflict"] > 0
    against_v, against_f = counts["model_falsified"], counts["model_verified"]
    held = ~(v & f) & ((v | f) & c | v & against_v | f & against_f)
    counts["held"] = held
    counts["fold"] = np.select(
        [v & f, held, v, f, t, m],
        ["contested", "inconclusive", "verified", "falsified", "toy", "model_judged"],
        default="inconclusive",
    )
    counts[WITHIN_COLUMN] = _within(rows, counts)
    return counts[columns]


def _unreviewed(verdicts: pd.DataFrame) -> pd.DataFrame:
    out = verdicts.copy()
    out["review"] = pd.Series(pd.NA, index=out.index, dtype="object")
    return out


def _within(verdicts: pd.DataFrame, counts: pd.DataFrame) -> pd.Series:
    """Rule 6: per claim fold, whether it is verified only within the range tested."""
    if WITHIN_COLUMN not in verdicts.columns:
        return pd.Series(False, index=counts.index)
    # the rows the fold counts as verified (a model-judged one is not, until confirmed)
    said = verdicts["counts_as"] if "counts_as" in verdicts.columns else verdicts["verdict"]
    verified = verdicts[said == "verified"]
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
