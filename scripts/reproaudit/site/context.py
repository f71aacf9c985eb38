"""Page contexts: pure functions from ``SiteData`` to what each template shows.

No files, no network, no clock: ``SiteData.generated_at`` is the only "now".
URLs here are site-relative directory URLs (``papers/<id>/``); the renderer
turns them into links relative to the page they appear on.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from ..fold import BUCKET_LABELS, BUCKETS, CLAIM_FOLDS, stats
from ..models import Claim, Target
from .data import Key, SiteData

FEED_SIZE = 50
NEWEST = 15


def paper_url(paper_id: str) -> str:
    return f"papers/{paper_id}/"


def logbook_url(paper_id: str, logbook_id: str) -> str:
    return f"papers/{paper_id}/{logbook_id}/"


def badge_path(paper_id: str) -> str:
    return f"badges/{paper_id}.svg"


def target_text(target: Target | None) -> str:
    if target is None:
        return ""
    unit = "" if target.unit == "dimensionless" else f" {target.unit}"
    per = f" per {target.per}" if target.per else ""
    tol = ""
    if target.tolerance is not None:
        tol = (
            f" ± {target.tolerance.abs:g}"
            if target.tolerance.abs is not None
            else f" ± {target.tolerance.rel:.0%}"
        )
    symbol = {"at_least": "≥", "at_most": "≤", "equal": "=", "bounded": "bounded"}[target.form]
    if target.form == "bounded":
        bound = f" by {target.value:g}{unit}" if target.value is not None else ""
        return f"{target.metric} bounded{bound}{per}{tol}"
    return f"{target.metric} {symbol} {target.value:g}{unit}{per}{tol}"


def regime_text(claim: Claim) -> str:
    r = claim.regime
    if r is None:
        return ""
    start = f"{r.from_:g}" if r.from_ is not None else "…"
    end = f"{r.to:g}" if r.to is not None else "∞"
    return f"{r.parameter} from {start} to {end}"


def _cell(row: Any) -> dict[str, Any]:
    return {
        "verdict": row.verdict,
        "machine_verdict": row.machine_verdict,
        "review": row.review if isinstance(row.review, str) else None,
        "flags": list(row.flags),
        "evidence": row.evidence,
        "counted": bool(row.counted),
    }


def paper_context(data: SiteData, paper_id: str) -> dict[str, Any]:
    paper = data.papers[paper_id]
    meta = paper.paper
    keys = data.logbooks_of(paper_id)
    cells: dict[tuple[str, str], dict] = {}
    for row in data.rows_of(paper_id):
        cells[(row.logbook, row.claim)] = _cell(row)
    folds = data.claim_folds_of(paper_id)
    reviews = data.reviews.get(paper_id, [])
    by_claim: dict[str, list] = defaultdict(list)
    for review in sorted(reviews, key=lambda r: r.at):
        by_claim[review.claim].append(review)
    logbooks = []
    for key in keys:
        book = data.logbooks[key]
        verdict = data.verdicts.get(key)
        logbooks.append(
            {
                "id": key[1],
                "url": logbook_url(*key),
                "contributor": book.logbook.contributor.github,
                "judged_at": verdict.judged_at if verdict else None,
                "mode": verdict.judge.mode if verdict else None,
                "stale": key in data.stale,
                "rerun": verdict.rerun.status if verdict and verdict.rerun else None,
            }
        )
    claims = []
    for claim in paper.claims:
        claims.append(
            {
                "id": claim.id,
                "statement": claim.statement,
                "anchor": claim.anchor,
                "kind": claim.kind,
                "target": target_text(claim.target),
                "regime": regime_text(claim),
                "fold": folds.get(claim.id, "untested"),
                "cells": [cells.get((lb["id"], claim.id)) for lb in logbooks],
                "responses": [r for r in by_claim.get(claim.id, []) if r.kind == "author_response"],
            }
        )
    contested = []
    for claim in claims:
        if claim["fold"] != "contested":
            continue
        sides: dict[str, list] = {"verified": [], "falsified": []}
        for lb, cell in zip(logbooks, claim["cells"], strict=True):
            if cell and cell["counted"] and cell["verdict"] in sides:
                sides[cell["verdict"]].append(
                    {**lb, "evidence": cell["evidence"], "flags": cell["flags"]}
                )
        contested.append({"claim": claim, **sides})
    return {
        "paper": meta,
        "url": paper_url(paper_id),
        "claims_version": paper.claims_version,
        "bucket": data.bucket_of.get(paper_id),
        "bucket_label": BUCKET_LABELS.get(data.bucket_of.get(paper_id, ""), "Not yet judged"),
        "links": {k: v for k, v in meta.links.model_dump().items() if v},
        "released": {k: v for k, v in meta.released.model_dump().items() if v},
        "logbooks": logbooks,
        "claims": claims,
        "contested": contested,
        "falsifications": falsifications_of(data, paper_id),
        "discrepancies": [
            {
                "logbook": key[1],
                "url": logbook_url(*key),
                "claim": result.claim,
                "paper_says": d.paper,
                "code_does": d.code,
            }
            for key in keys
            for result in data.logbooks[key].results
            for d in result.discrepancies
        ],
        "badge": badge_path(paper_id),
        "site_url": data.site_url,
    }


def falsifications_of(data: SiteData, paper_id: str) -> list[dict[str, Any]]:
    """Claimed falsifications and their review state: under review, confirmed or rejected."""
    reviews = data.reviews.get(paper_id, [])
    out = []
    for key in data.logbooks_of(paper_id):
        for result in data.logbooks[key].results:
            if result.falsification is None:
                continue
            mine = sorted(
                (r for r in reviews if r.logbook == key[1] and r.claim == result.claim),
                key=lambda r: r.at,
            )
            decided = [r for r in mine if r.kind == "review"]
            state = "under_review"
            if decided:
                state = "confirmed" if decided[-1].stance == "confirm" else "rejected"
            verdict = data.verdicts.get(key)
            machine = (
                next((c.verdict for c in verdict.claims if c.claim == result.claim), None)
                if verdict
                else None
            )
            out.append(
                {
                    "paper": paper_id,
                    "title": data.papers[paper_id].paper.title,
                    "paper_url": paper_url(paper_id),
                    "logbook": key[1],
                    "url": logbook_url(*key),
                    "contributor": data.logbooks[key].logbook.contributor.github,
                    "claim": result.claim,
                    "argument": result.falsification.argument,
                    "counterexample": result.falsification.counterexample,
                    "state": state,
                    "machine_verdict": machine,
                    "reviews": decided,
                    "responses": [r for r in mine if r.kind == "author_response"],
                }
            )
    return out


def logbook_context(data: SiteData, key: Key) -> dict[str, Any]:
    book = data.logbooks[key]
    paper = data.papers[key[0]]
    verdict = data.verdicts.get(key)
    judged = {c.claim: c for c in verdict.claims} if verdict else {}
    results = {r.claim: r for r in book.results}
    items = []
    for claim in paper.claims:
        result = results.get(claim.id)
        item = judged.get(claim.id)
        items.append(
            {
                "claim": claim,
                "target": target_text(claim.target),
                "regime": regime_text(claim),
                "result": result,
                "verdict": item.verdict if item else None,
                "evidence": item.evidence if item else None,
                "flags": list(item.flags) if item else [],
                "votes": item.votes if item else None,
            }
        )
    return {
        "paper": paper.paper,
        "paper_url": paper_url(key[0]),
        "logbook": book,
        "url": logbook_url(*key),
        "verdict": verdict,
        "stale": key in data.stale,
        "per_claim": items,
        "writeup": data.writeups.get(key),
    }


def home_context(data: SiteData) -> dict[str, Any]:
    table = stats(data.claim_folds, data.paper_folds)
    judged = table["papers_judged"]
    buckets = [
        {
            "key": key,
            "label": BUCKET_LABELS[key],
            "count": table["buckets"][key],
            "percent": round(100 * table["buckets"][key] / judged, 1) if judged else 0.0,
        }
        for key in BUCKETS
    ]
    return {
        "table": table,
        "buckets": buckets,
        "papers_total": len(data.papers),
        "logbooks_total": len(data.logbooks),
        "claims_total": sum(len(p.claims) for p in data.papers.values()),
        "newest": newest_verdicts(data, NEWEST),
        "claim_folds": CLAIM_FOLDS,
    }


def newest_verdicts(data: SiteData, limit: int) -> list[dict[str, Any]]:
    newest = sorted(data.verdicts.items(), key=lambda kv: (kv[1].judged_at, kv[0]), reverse=True)
    out = []
    for key, verdict in newest[:limit]:
        counts = Counter(c.verdict for c in verdict.claims)
        out.append(
            {
                "paper": key[0],
                "title": data.papers[key[0]].paper.title,
                "logbook": key[1],
                "url": logbook_url(*key),
                "paper_url": paper_url(key[0]),
                "contributor": data.logbooks[key].logbook.contributor.github,
                "judged_at": verdict.judged_at,
                "counts": {
                    v: counts.get(v, 0) for v in ("verified", "falsified", "toy", "inconclusive")
                },
                "stale": key in data.stale,
            }
        )
    return out


def papers_index(data: SiteData) -> dict[str, Any]:
    """The compact search index: one short array per paper, field names once."""
    logbook_count = Counter(k[0] for k in data.logbooks)
    rows = []
    for paper_id in sorted(data.papers):
        paper = data.papers[paper_id]
        meta = paper.paper
        claims = " | ".join(c.statement[:160] for c in paper.claims)
        rows.append(
            [
                paper_id,
                meta.title,
                data.bucket_of.get(paper_id, "untested"),
                meta.tags.area or "",
                1 if meta.tags.spotlight else 0,
                len(paper.claims),
                logbook_count.get(paper_id, 0),
                claims,
            ]
        )
    return {
        "fields": ["id", "title", "bucket", "area", "spotlight", "claims", "logbooks", "text"],
        "buckets": {**BUCKET_LABELS, "untested": "Not yet judged"},
        "papers": rows,
    }


def contributors_context(data: SiteData) -> list[dict[str, Any]]:
    """Credit per contributor: one scoring logbook per person per paper (their latest)."""
    rows = data.rows
    books = Counter(book.logbook.contributor.github for book in data.logbooks.values())
    papers: dict[str, set[str]] = defaultdict(set)
    for (paper_id, _), book in data.logbooks.items():
        papers[book.logbook.contributor.github].add(paper_id)
    credit: dict[str, Counter] = defaultdict(Counter)
    if not rows.empty:
        counted = rows[rows["counted"]]
        for row in counted.itertuples(index=False):
            credit[row.contributor][row.verdict] += 1
    out = [
        {
            "github": who,
            "logbooks": books[who],
            "papers": len(papers[who]),
            "verified": credit[who]["verified"],
            "falsified": credit[who]["falsified"],
            "toy": credit[who]["toy"],
        }
        for who in books
    ]
    return sorted(out, key=lambda c: (-c["verified"] - c["falsified"], -c["logbooks"], c["github"]))


def feed_entries(data: SiteData) -> list[dict[str, Any]]:
    return newest_verdicts(data, FEED_SIZE)


def all_falsifications(data: SiteData) -> list[dict[str, Any]]:
    out = []
    for paper_id in sorted({k[0] for k in data.logbooks}):
        out.extend(falsifications_of(data, paper_id))
    return out
