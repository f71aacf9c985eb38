"""Flat tables of a repository's verdicts and reviews, for folding and export.

This is the I/O side of ``fold``: it reads verdict files as they are (it
never judges) and joins each to its logbook's contributor. Verdicts whose
logbook or paper is gone, and claims the paper no longer has, are left out;
``reproaudit validate`` reports them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from . import layout
from .changes import logbook_change_times
from .fold import (
    CHANGED_COLUMN,
    DECIDED_COLUMN,
    DECISIVE,
    REVIEW_COLUMNS,
    SECOND_COLUMN,
    VERDICT_COLUMNS,
    WITHIN_COLUMN,
)
from .models import ClaimVerdict, VerdictFile
from .repo import Corpus, paused_gc


@dataclass
class Tables:
    # VERDICT_COLUMNS + evidence, flags, mode, input_sha256, within_tested_range, scope,
    # decided_by, second, CHANGED_COLUMN
    verdicts: pd.DataFrame
    reviews: pd.DataFrame  # REVIEW_COLUMNS + by, link, text


def load_tables(corpus: Corpus) -> Tables:
    rows: list[dict] = []
    reviews: list[dict] = []
    with paused_gc():
        # a draft paper's verdicts are not counted until a maintainer reviews its claims
        claim_ids = {
            paper.paper.id: {c.id for c in paper.claims}
            for _, paper in corpus.papers()
            if not paper.is_draft
        }
        untargeted = {
            (paper.paper.id, c.id)
            for _, paper in corpus.papers()
            for c in paper.claims
            if c.target is None
        }
        for path, verdict in corpus.verdicts():
            paper_id, logbook_id = path.key
            known = claim_ids.get(paper_id)
            book = corpus.logbook(paper_id, logbook_id)
            if known is None or book is None:
                continue
            for item in verdict.claims:
                if item.claim not in known:
                    continue
                rows.append(
                    {
                        "paper": paper_id,
                        "logbook": logbook_id,
                        "contributor": book.logbook.contributor.github,
                        "judged_at": verdict.judged_at,
                        "claim": item.claim,
                        "verdict": item.verdict,
                        "evidence": item.evidence or "",
                        "flags": list(item.flags),
                        "mode": verdict.judge.mode,
                        "input_sha256": verdict.input_sha256,
                        WITHIN_COLUMN: bool(item.within_tested_range),
                        "scope": item.scope,
                        DECIDED_COLUMN: decided_by(
                            verdict, item, (paper_id, item.claim) in untargeted
                        ),
                        SECOND_COLUMN: item.second_opinion.verdict if item.second_opinion else None,
                    }
                )
        for path in corpus.of_kind("reviews"):
            model = corpus.load(path).model
            if model is None:
                continue
            for review in model.reviews:
                reviews.append({"paper": path.key[0], **review.model_dump()})
    verdicts = pd.DataFrame(
        rows,
        columns=[
            *VERDICT_COLUMNS,
            "evidence",
            "flags",
            "mode",
            "input_sha256",
            WITHIN_COLUMN,
            "scope",
            DECIDED_COLUMN,
            SECOND_COLUMN,
        ],
    )
    if not verdicts.empty:
        verdicts["judged_at"] = pd.to_datetime(verdicts["judged_at"], utc=True)
    rels = [
        layout.logbook_rel(p, b)
        for p, b in zip(verdicts["paper"], verdicts["logbook"], strict=True)
    ]
    changed = logbook_change_times(corpus.root, sorted(set(rels)))
    verdicts[CHANGED_COLUMN] = pd.to_datetime(
        pd.Series([changed[r] for r in rels], index=verdicts.index, dtype=object), utc=True
    )
    review_frame = pd.DataFrame(reviews, columns=[*REVIEW_COLUMNS, "by", "link", "text"])
    if not review_frame.empty:
        review_frame["at"] = pd.to_datetime(review_frame["at"], utc=True)
    return Tables(verdicts, review_frame)


def decided_by(verdict: VerdictFile, item: ClaimVerdict, untargeted: bool) -> str:
    """Who decided a claim's verdict: as the file says, else (a judge before prompt
    version 4) ``model`` for an llm-mode decisive verdict on a claim without a target,
    which only the LLM could have given, else ``rules``."""
    if item.decided_by is not None:
        return item.decided_by
    llm_alone = verdict.judge.mode == "llm" and untargeted and item.verdict in DECISIVE
    return "model" if llm_alone else "rules"
