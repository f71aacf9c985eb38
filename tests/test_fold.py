"""Folding verdicts: each rule of DESIGN.md, and the public challenge's headline table."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.fold import (
    apply_reviews,
    fold,
    fold_claims,
    latest_per_contributor,
    stats,
    stats_from_buckets,
)

T0 = datetime(2026, 7, 1, tzinfo=UTC)
# the public challenge's paper buckets
CHALLENGE = {
    "fully_reproduced": 266,
    "partial": 632,
    "mixed": 205,
    "falsified": 49,
    "contested": 242,
    "toy_only": 502,
    "inconclusive": 280,
}


def rows(*items: tuple) -> pd.DataFrame:
    """(paper, logbook, contributor, day, claim, verdict) tuples -> verdict rows."""
    frame = pd.DataFrame(
        items, columns=["paper", "logbook", "contributor", "day", "claim", "verdict"]
    )
    frame["judged_at"] = [T0.replace(day=d) for d in frame.pop("day")]
    return frame


def no_reviews() -> pd.DataFrame:
    return pd.DataFrame(columns=["paper", "logbook", "claim", "kind", "stance", "at"])


def test_challenge_counts_give_the_published_table() -> None:
    table = stats_from_buckets(CHALLENGE)
    assert table["papers_judged"] == 2176
    assert table["at_least_one_verified"] == {"count": 1103, "percent": 50.7}
    assert table["at_least_one_falsified_or_contested"] == {"count": 496, "percent": 22.8}


def test_claim_folds() -> None:
    v = rows(
        ("P", "a-1", "a", 1, "C1", "verified"),
        ("P", "b-1", "b", 1, "C1", "falsified"),
        ("P", "a-1", "a", 1, "C2", "verified"),
        ("P", "b-1", "b", 1, "C2", "inconclusive"),
        ("P", "a-1", "a", 1, "C3", "toy"),
        ("P", "b-1", "b", 1, "C3", "inconclusive"),
        ("P", "a-1", "a", 1, "C4", "inconclusive"),
        ("P", "b-1", "b", 1, "C4", "inconclusive"),
        ("P", "a-1", "a", 1, "C5", "falsified"),
        ("P", "b-1", "b", 1, "C5", "toy"),
    )
    folds = dict(zip(*fold_claims(v)[["claim", "fold"]].to_dict("list").values(), strict=True))
    assert folds == {
        "C1": "contested",
        "C2": "verified",
        "C3": "toy",
        "C4": "inconclusive",
        "C5": "falsified",
    }


def test_each_contributor_counts_once_with_their_latest_logbook() -> None:
    # alice first verified C1, then a later logbook of hers falsified it: not contested
    v = rows(
        ("P", "alice-1", "alice", 1, "C1", "verified"),
        ("P", "alice-2", "alice", 5, "C1", "falsified"),
    )
    counted = latest_per_contributor(v)
    assert counted["logbook"].tolist() == ["alice-2"]
    claims, papers = fold(v, no_reviews())
    assert claims["fold"].tolist() == ["falsified"]
    assert papers["bucket"].tolist() == ["falsified"]


def test_maintainer_reviews_apply_first_and_author_responses_do_not_count() -> None:
    v = rows(
        ("P", "a-1", "a", 1, "C1", "verified"),
        ("P", "b-1", "b", 1, "C1", "falsified"),
        ("P", "a-1", "a", 1, "C2", "inconclusive"),
    )
    reviews = pd.DataFrame(
        [
            ("P", "b-1", "C1", "review", "confirm", T0.replace(day=2)),
            ("P", "b-1", "C1", "review", "reject", T0.replace(day=3)),  # the latest review wins
            ("P", "a-1", "C2", "author_response", "agree", T0.replace(day=4)),
            ("P", "a-1", "C2", "review", "confirm", T0.replace(day=4)),
        ],
        columns=["paper", "logbook", "claim", "kind", "stance", "at"],
    )
    applied = apply_reviews(v, reviews)
    assert applied["verdict"].tolist() == ["verified", "inconclusive", "falsified"]
    assert applied["machine_verdict"].tolist() == ["verified", "falsified", "inconclusive"]
    claims, papers = fold(v, reviews)
    assert claims["fold"].tolist() == ["verified", "falsified"]
    assert papers["bucket"].tolist() == ["mixed"]


@pytest.mark.parametrize(
    ("verdicts", "bucket"),
    [
        (["verified", "verified"], "fully_reproduced"),
        (["verified", "falsified"], "mixed"),
        (["verified", "toy"], "partial"),
        (["falsified", "inconclusive"], "falsified"),
        (["toy", "inconclusive"], "toy_only"),
        (["inconclusive", "inconclusive"], "inconclusive"),
    ],
)
def test_paper_buckets(verdicts: list[str], bucket: str) -> None:
    v = rows(*[("P", "a-1", "a", 1, f"C{i}", x) for i, x in enumerate(verdicts, 1)])
    assert fold(v, no_reviews())[1]["bucket"].tolist() == [bucket]


def test_contested_wins_over_everything() -> None:
    v = rows(
        ("P", "a-1", "a", 1, "C1", "verified"),
        ("P", "b-1", "b", 1, "C1", "falsified"),
        ("P", "a-1", "a", 1, "C2", "verified"),
        ("P", "b-1", "b", 1, "C2", "verified"),
    )
    assert fold(v, no_reviews())[1]["bucket"].tolist() == ["contested"]


def test_empty_repository_folds_to_nothing() -> None:
    empty = rows()
    table = stats(*fold(empty, no_reviews()))
    assert table["papers_judged"] == 0
    assert table["at_least_one_verified"] == {"count": 0, "percent": 0.0}


# --- the challenge's counts, through real files and the CLI --------------------------------

# bucket -> logbooks, each a list of (C1, C2) verdicts from a different contributor
SHAPES = {
    "fully_reproduced": [("verified", "verified")],
    "partial": [("verified", "inconclusive")],
    "mixed": [("verified", "falsified")],
    "falsified": [("falsified", "toy")],
    "contested": [("verified", "inconclusive"), ("falsified", "verified")],
    "toy_only": [("toy", "inconclusive")],
    "inconclusive": [("inconclusive", "inconclusive")],
}
SHA = "a" * 64


def write_corpus(root: Path) -> None:
    n = 0
    for bucket, count in CHALLENGE.items():
        for _ in range(count):
            n += 1
            pid = f"P{n:05d}"
            (root / "claims/conf").mkdir(parents=True, exist_ok=True)
            (root / f"claims/conf/{pid}.yaml").write_text(
                f"paper: {{id: {pid}, title: Paper {n}, venue: Conf 2026}}\nclaims_version: 1\n"
                "claims:\n  - {id: C1, statement: s, anchor: T1, kind: empirical}\n"
                "  - {id: C2, statement: s, anchor: T2, kind: empirical}\n"
            )
            for i, (c1, c2) in enumerate(SHAPES[bucket]):
                lid = f"u{i}-1"
                (root / f"logbooks/{pid}").mkdir(parents=True, exist_ok=True)
                (root / f"verdicts/{pid}").mkdir(parents=True, exist_ok=True)
                (root / f"logbooks/{pid}/{lid}.yaml").write_text(
                    f"logbook: {{id: {lid}, paper: {pid}, claims_version: 1, "
                    f"contributor: {{github: u{i}}}}}\nresults: []\n"
                )
                (root / f"verdicts/{pid}/{lid}.yaml").write_text(
                    f"paper: {pid}\nlogbook: {lid}\ninput_sha256: {SHA}\njudge: {{mode: rules}}\n"
                    f"judged_at: 2026-07-0{i + 1}T00:00:00Z\nclaims:\n"
                    f"  - {{claim: C1, verdict: {c1}}}\n  - {{claim: C2, verdict: {c2}}}\n"
                )


def test_stats_on_a_generated_corpus_with_the_challenge_counts(tmp_path: Path) -> None:
    write_corpus(tmp_path)
    result = CliRunner().invoke(cli, ["stats", "--json", "--repo", str(tmp_path)])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    assert table["papers_judged"] == 2176
    assert table["buckets"] == {k: CHALLENGE[k] for k in table["buckets"]}
    assert table["at_least_one_verified"] == {"count": 1103, "percent": 50.7}
    assert table["at_least_one_falsified_or_contested"] == {"count": 496, "percent": 22.8}
    assert table["claims"]["contested"] == 242
    text = CliRunner().invoke(cli, ["stats", "--repo", str(tmp_path)]).output
    assert "Papers judged: 2,176" in text
    assert "At least one claim verified: 1,103 (50.7%)" in text
    assert "At least one claim falsified or contested: 496 (22.8%)" in text
