"""Folding verdicts: each rule of DESIGN.md, and the public challenge's headline table."""

from __future__ import annotations

import json
import os
import subprocess
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
    natural_key,
    stats,
    stats_from_buckets,
)
from tests.gitutil import git

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


def test_github_handles_are_compared_case_insensitively() -> None:
    # Alice and alice are one contributor: her later logbook replaces the earlier one
    v = rows(
        ("P", "alice-1", "Alice", 1, "C1", "verified"),
        ("P", "alice-2", "alice", 5, "C1", "falsified"),
        ("P", "bob-1", "BOB", 1, "C1", "falsified"),
    )
    counted = latest_per_contributor(v)
    assert sorted(counted["logbook"]) == ["alice-2", "bob-1"]
    claims, _ = fold(v, no_reviews())
    assert claims[["fold", "contributors"]].values.tolist() == [["falsified", 2]]
    assert counted["contributor"].tolist() == ["alice", "BOB"]  # handles shown as written


def test_judged_at_ties_break_by_the_logbooks_last_change() -> None:
    # one judge run gives both logbooks the same judged_at; alice-2 changed before alice-1
    v = rows(
        ("P", "alice-1", "alice", 3, "C1", "verified"),
        ("P", "alice-2", "alice", 3, "C1", "falsified"),
    )
    v["logbook_changed_at"] = [T0.replace(day=2), T0.replace(day=1)]
    assert latest_per_contributor(v)["logbook"].tolist() == ["alice-1"]
    v["logbook_changed_at"] = [T0.replace(day=1), T0.replace(day=2)]
    assert latest_per_contributor(v)["logbook"].tolist() == ["alice-2"]
    # a later judged_at still wins over a later change
    v["judged_at"] = [T0.replace(day=4), T0.replace(day=3)]
    assert latest_per_contributor(v)["logbook"].tolist() == ["alice-1"]


@pytest.mark.parametrize("changed", [None, "same", "unknown"])
def test_remaining_ties_break_by_natural_order(changed: str | None) -> None:
    # alice-10 comes after alice-9 (not before, as plain string order would have it)
    v = rows(
        ("P", "alice-10", "alice", 3, "C1", "verified"),
        ("P", "alice-9", "Alice", 3, "C1", "falsified"),
        ("P", "alice-2b", "alice", 3, "C1", "toy"),
    )
    if changed == "same":
        v["logbook_changed_at"] = [T0] * 3
    elif changed == "unknown":
        v["logbook_changed_at"] = pd.Series([pd.NaT] * 3, dtype="datetime64[ns, UTC]")
    assert latest_per_contributor(v)["logbook"].tolist() == ["alice-10"]
    assert sorted(["alice-10", "alice-9", "alice-2b", "alice-2"], key=natural_key) == [
        "alice-2",
        "alice-2b",
        "alice-9",
        "alice-10",
    ]


def test_an_unknown_change_time_counts_as_oldest() -> None:
    v = rows(
        ("P", "alice-2", "alice", 3, "C1", "verified"),
        ("P", "alice-1", "alice", 3, "C1", "falsified"),
    )
    v["logbook_changed_at"] = pd.Series([pd.NaT, T0], dtype="datetime64[ns, UTC]")
    assert latest_per_contributor(v)["logbook"].tolist() == ["alice-1"]


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
    table = json.loads(result.stdout)  # stderr counts the stale (synthetic) verdicts
    assert table["papers_judged"] == 2176
    assert table["buckets"] == {k: CHALLENGE[k] for k in table["buckets"]}
    assert table["at_least_one_verified"] == {"count": 1103, "percent": 50.7}
    assert table["at_least_one_falsified_or_contested"] == {"count": 496, "percent": 22.8}
    assert table["claims"]["contested"] == 242
    text = CliRunner().invoke(cli, ["stats", "--repo", str(tmp_path)]).output
    assert "Papers judged: 2,176" in text
    assert "At least one claim verified: 1,103 (50.7%)" in text
    assert "At least one claim falsified or contested: 496 (22.8%)" in text


# --- the tie-break's clock, from a real git repository --------------------------------------


def write_two_logbooks(root: Path) -> None:
    """One paper, two logbooks of one contributor (spelt two ways), judged in one run."""
    (root / "claims/conf").mkdir(parents=True)
    (root / "claims/conf/P1.yaml").write_text(
        "paper: {id: P1, title: Paper, venue: Conf 2026}\nclaims_version: 1\n"
        "claims:\n  - {id: C1, statement: s, anchor: T1, kind: empirical}\n"
    )
    for lid, who, verdict in (("alice-9", "Alice", "verified"), ("alice-10", "alice", "falsified")):
        (root / "logbooks/P1").mkdir(parents=True, exist_ok=True)
        (root / "verdicts/P1").mkdir(parents=True, exist_ok=True)
        (root / f"logbooks/P1/{lid}.yaml").write_text(
            f"logbook: {{id: {lid}, paper: P1, claims_version: 1, "
            f"contributor: {{github: {who}}}}}\nresults: []\n"
        )
        (root / f"verdicts/P1/{lid}.yaml").write_text(
            f"paper: P1\nlogbook: {lid}\ninput_sha256: {SHA}\njudge: {{mode: rules}}\n"
            f"judged_at: 2026-07-01T00:00:00Z\nclaims:\n  - {{claim: C1, verdict: {verdict}}}\n"
        )


def claim_fold_of(root: Path) -> str:
    result = CliRunner().invoke(cli, ["stats", "--json", "--repo", str(root)])
    assert result.exit_code == 0, result.output
    claims = json.loads(result.stdout)["claims"]
    assert sum(claims.values()) == 1  # Alice and alice are one contributor: never contested
    return next(k for k, v in claims.items() if v)


def commit(repo: Path, message: str, date: str) -> None:
    env = os.environ | {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-C",
            str(repo),
            "commit",
            "-qm",
            message,
        ],
        check=True,
        capture_output=True,
        env=env,
    )


def test_the_logbook_committed_last_counts_when_judged_together(tmp_path: Path) -> None:
    write_two_logbooks(tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "claims", "verdicts", "logbooks/P1/alice-10.yaml")
    commit(tmp_path, "alice-10", "2026-07-01T00:00:00Z")
    # file times say the opposite (a fresh clone writes files in any order): git wins
    stamp = T0.timestamp()
    os.utime(tmp_path / "logbooks/P1/alice-9.yaml", (stamp, stamp))
    git(tmp_path, "add", "-A")
    commit(tmp_path, "alice-9", "2026-07-02T00:00:00Z")
    # alice-9 changed last: it counts, although alice-10 sorts after it
    assert claim_fold_of(tmp_path) == "verified"


def test_without_git_or_change_times_natural_order_decides(tmp_path: Path) -> None:
    write_two_logbooks(tmp_path)
    stamp = T0.timestamp()
    for lid in ("alice-9", "alice-10"):
        os.utime(tmp_path / f"logbooks/P1/{lid}.yaml", (stamp, stamp))
    # same judged_at, same file time: alice-10 comes after alice-9
    assert claim_fold_of(tmp_path) == "falsified"
    later = stamp + 60
    os.utime(tmp_path / "logbooks/P1/alice-9.yaml", (later, later))
    # no git here: a working copy's file time is its last change
    assert claim_fold_of(tmp_path) == "verified"


def test_a_claim_verified_only_within_the_tested_range_says_so_in_the_folds() -> None:
    """Rule 5 (rules version 4): every counted verified of the claim holds within the range
    tested; one that held over the whole range makes the fold plain verified."""
    verdicts = rows(
        ("P1", "a-1", "alice", 1, "C1", "verified"),
        ("P1", "b-1", "bob", 1, "C1", "verified"),
        ("P1", "a-1", "alice", 1, "C2", "verified"),
        ("P2", "c-1", "carol", 1, "C1", "verified"),
        ("P2", "d-1", "dan", 1, "C1", "falsified"),
    )
    verdicts["within_tested_range"] = [True, True, False, True, False]
    claims, papers = fold(verdicts, no_reviews())
    within = {
        (p, c): bool(w) for p, c, w in claims[["paper", "claim", "within_tested_range"]].values
    }
    assert within == {("P1", "C1"): True, ("P1", "C2"): False, ("P2", "C1"): False}  # contested
    assert dict(zip(papers["paper"], papers["within_tested_range"], strict=True)) == {
        "P1": 1,
        "P2": 0,
    }
    table = stats(claims, papers)
    assert table["within_tested_range"] == {"claims": 1, "fully_reproduced": 1}
    from reproaudit.fold import format_stats

    text = format_stats(table)
    assert "    of which within the tested range only: 1" in text
    assert "Claims: 0 contested, 2 verified (1 within the tested range only)" in format_stats(
        stats(*fold(verdicts[verdicts["paper"] == "P1"], no_reviews()))
    )
    verdicts.loc[1, "within_tested_range"] = False  # bob's held over the whole range
    claims, _ = fold(verdicts, no_reviews())
    assert not claims["within_tested_range"].any()
    # without the column (older callers) nothing is within the tested range
    claims, papers = fold(verdicts.drop(columns="within_tested_range"), no_reviews())
    assert not claims["within_tested_range"].any() and stats(claims, papers)[
        "within_tested_range"
    ] == {"claims": 0, "fully_reproduced": 0}
