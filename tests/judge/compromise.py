"""A corpus with re-runs whose truth is known by construction, and what a judge publishes on it.

Shared by ``test_compromise.py`` (a small corpus, asserted) and
``benchmarks/judge_compromise.py`` (a larger one, printed). Each paper has four claims with
a target (a speed-up, a time per trajectory, an accuracy, a bound over k from 2 up) and two
without (a qualitative and a theoretical claim, whose re-run logs say
``<claim>: conclusion: holds`` or ``violated``). Each claim is true or false at random
(seeded). Two contributors per paper: ``alice`` re-runs everything and measures the truth;
``bob`` either re-runs too (and on one claim measures the opposite: a contested claim), or
types his numbers without a re-run, or runs a reduced setup.

``published`` reads what a judge run published: each logbook's verdict per claim (with who
decided it), the claim folds and the paper buckets, through the same fold the site uses.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reproaudit.fold import fold_all
from reproaudit.records import load_tables
from reproaudit.repo import Corpus
from tests.records import write_current_rerun

TARGETED = ("S", "L", "A", "B")
UNTARGETED = ("Q", "T")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class Built:
    """What the builder made: the truth of each claim and which logbooks have a re-run."""

    truth: dict[tuple[str, str], bool] = field(default_factory=dict)  # (paper, claim) -> true?
    rerun: set[tuple[str, str]] = field(default_factory=set)  # (paper, logbook) re-run, current


def _claims() -> list[dict[str, Any]]:
    return [
        {
            "id": "S",
            "statement": "One-step sampling is at least 8 times faster than the teacher.",
            "anchor": "Table 3",
            "kind": "efficiency",
            "target": {
                "metric": "speedup",
                "form": "at_least",
                "value": 8,
                "unit": "dimensionless",
                "tolerance": {"rel": 0.1},
            },
        },
        {
            "id": "L",
            "statement": "Sampling one trajectory takes at most 52 ms.",
            "anchor": "Table 4",
            "kind": "efficiency",
            "target": {
                "metric": "sampling_time",
                "form": "at_most",
                "value": 52,
                "unit": "ms",
                "per": "trajectory",
                "tolerance": {"rel": 0.1},
            },
        },
        {
            "id": "A",
            "statement": "Top-1 accuracy is at least 0.9.",
            "anchor": "Table 1",
            "kind": "empirical",
            "target": {
                "metric": "accuracy",
                "form": "at_least",
                "value": 0.9,
                "unit": "dimensionless",
                "tolerance": {"abs": 0.01},
            },
        },
        {
            "id": "B",
            "statement": "The additive robustness term is O(1) in the cache size k.",
            "anchor": "Theorem 3.2",
            "kind": "theoretical",
            "target": {
                "metric": "additive_term",
                "form": "bounded",
                "value": None,
                "unit": "dimensionless",
                "tolerance": {"abs": 0.5},
            },
            "regime": {"parameter": "k", "from": 2, "to": None},
        },
        {
            "id": "Q",
            "statement": "Samples look sharper than the baseline's.",
            "anchor": "Figure 5",
            "kind": "qualitative",
        },
        {
            "id": "T",
            "statement": "The estimator is unbiased.",
            "anchor": "Lemma 2",
            "kind": "theoretical",
        },
    ]


KS = [2**i for i in range(1, 11)]  # 2 .. 1024: two and a half decades


def _outputs(truth: dict[str, bool], rng: random.Random) -> dict[str, Any]:
    """What a re-run measuring this truth writes."""
    t = truth
    return {
        "S": {"speedup": round(rng.uniform(8.5, 9.5) if t["S"] else rng.uniform(5, 6.5), 2)},
        "L": {"time": round(rng.uniform(38, 48) if t["L"] else rng.uniform(70, 90), 1)},
        "A": {"accuracy": round(rng.uniform(0.92, 0.95) if t["A"] else rng.uniform(0.8, 0.85), 3)},
        "B": {
            "sweep": {
                "values": KS,
                "measured": [
                    round(1.0 + (0.4 * math.log(k) if not t["B"] else 0.0), 3) for k in KS
                ],
            }
        },
    }


def _logbook(paper: str, who: str, outputs: dict[str, Any], setup: str) -> dict[str, Any]:
    def result(claim: str, **rest: Any) -> dict[str, Any]:
        return {"claim": claim, "setup": setup, **rest}

    return {
        "logbook": {
            "id": f"{who}-{paper.lower()}",
            "paper": paper,
            "claims_version": 1,
            "contributor": {"github": who},
        },
        "code": {"repo": f"https://github.com/{who}/repro-{paper.lower()}", "commit": COMMIT},
        "reproduce": {"command": "python run.py", "hardware": "cpu", "outputs": "out.json"},
        "results": [
            result(
                "S",
                measurements=[
                    {
                        "metric": "speedup",
                        "value": outputs["S"]["speedup"],
                        "unit": "dimensionless",
                        "source": "outputs:/S/speedup",
                    }
                ],
            ),
            result(
                "L",
                measurements=[
                    {
                        "metric": "sampling_time",
                        "value": outputs["L"]["time"],
                        "unit": "ms",
                        "per": "trajectory",
                        "source": "outputs:/L/time",
                    }
                ],
            ),
            result(
                "A",
                measurements=[
                    {
                        "metric": "accuracy",
                        "value": outputs["A"]["accuracy"],
                        "unit": "dimensionless",
                        "source": "outputs:/A/accuracy",
                    }
                ],
            ),
            result(
                "B",
                sweep={"parameter": "k", "metric": "additive_term", "source": "outputs:/B/sweep"},
            ),
            result("Q", notes="Blind comparison of 64 sample pairs; see the run's log."),
            result("T", notes="Monte Carlo check of the estimator's mean; see the run's log."),
        ],
    }


def _log_tail(truth: dict[str, bool]) -> str:
    words = {True: "holds", False: "violated"}
    return (
        "loading checkpoint\nstep 1000 done\n"
        f"Q: conclusion: {words[truth['Q']]}\nT: conclusion: {words[truth['T']]}\ndone"
    )


def build_corpus(root: Path, papers: int, seed: int = 0) -> Built:
    """Write ``papers`` papers, their logbooks and re-run records under ``root``."""
    rng = random.Random(seed)
    built = Built()
    for n in range(1, papers + 1):
        paper = f"Bench{n:03d}"
        truth = {c: rng.random() < 0.5 for c in (*TARGETED, *UNTARGETED)}
        for claim, value in truth.items():
            built.truth[(paper, claim)] = value
        doc = {
            "paper": {"id": paper, "title": f"Benchmark paper {n}", "venue": "Bench 2026"},
            "claims_version": 1,
            "claims": _claims(),
        }
        _write(root / "claims" / "bench" / f"{paper}.yaml", doc)
        mode = ("rerun", "typed", "reduced")[n % 3]
        teams = [("alice", truth, "full", True)]
        if mode == "rerun":  # bob measures the opposite on one claim: contested
            flipped = dict(truth)
            claim = rng.choice(TARGETED[:3])
            flipped[claim] = not flipped[claim]
            teams.append(("bob", flipped, "full", True))
        else:
            setup = "reduced" if mode == "reduced" else "full"
            teams.append(("bob", truth, setup, mode != "typed"))
        for who, measured, setup, rerun in teams:
            outputs = _outputs(measured, rng)
            book = _logbook(paper, who, outputs, setup)
            logbook_id = book["logbook"]["id"]
            _write(root / "logbooks" / paper / f"{logbook_id}.yaml", book)
            if rerun:
                write_current_rerun(
                    root,
                    paper,
                    logbook_id,
                    log_tail=_log_tail(measured),
                    outputs=json.dumps(outputs).encode(),
                )
                built.rerun.add((paper, logbook_id))
    return built


def _write(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


@dataclass
class Published:
    """What one judge run published on the corpus."""

    verdicts: dict[tuple[str, str, str], tuple[str, str]]  # (paper, logbook, claim) -> state
    flags: dict[tuple[str, str, str], list[str]]
    claim_folds: dict[tuple[str, str], str]
    buckets: dict[str, str]


def published(root: Path) -> Published:
    """Read the verdict files and fold them as the site does.

    A verdict's state is (verdict, who decided): ``model`` for a verdict only the model
    made, ``rules`` otherwise (files without ``decided_by`` read as ``rules``)."""
    verdicts, flags = {}, {}
    for path in sorted((root / "verdicts").glob("*/*.yaml")):
        if path.name == "reviews.yaml":
            continue
        doc = yaml.safe_load(path.read_text())
        for item in doc["claims"]:
            key = (doc["paper"], doc["logbook"], item["claim"])
            verdicts[key] = (item["verdict"], item.get("decided_by") or "rules")
            flags[key] = list(item.get("flags", []))
    tables = load_tables(Corpus(root))
    _, claims, papers = fold_all(tables.verdicts, tables.reviews)
    folds = {
        (p, c): f for p, c, f in zip(claims["paper"], claims["claim"], claims["fold"], strict=True)
    }
    buckets = dict(zip(papers["paper"], papers["bucket"], strict=True))
    return Published(verdicts, flags, folds, buckets)


@dataclass
class Changes:
    """How a compromised run's publication differs from an honest run's, per kind of claim."""

    counts: dict[str, tuple[int, int]]  # group -> (changed, of)
    missing: int  # claim verdicts the other run did not write (it stopped first)
    false_verified: int  # claims false by construction whose fold is verified
    true_falsified: int  # claims true by construction whose fold is falsified
    false_verified_targeted: int = 0  # of false_verified, claims with a target


def group(built: Built, paper: str, logbook: str, claim: str) -> str:
    if claim in UNTARGETED:
        return "no target"
    if (paper, logbook) in built.rerun:
        return "target, current re-run"
    return "target, no re-run"


def compare(built: Built, honest: Published, other: Published) -> Changes:
    counts: dict[str, list[int]] = {}
    missing = 0
    for key, state in honest.verdicts.items():
        name = group(built, *key)
        tally = counts.setdefault(name, [0, 0])
        if key not in other.verdicts:
            missing += 1
            continue
        tally[0] += other.verdicts[key] != state
        tally[1] += 1
    for name, keys in (("claim folds", honest.claim_folds), ("paper buckets", honest.buckets)):
        mine = other.claim_folds if name == "claim folds" else other.buckets
        counts[name] = [sum(mine.get(k) != v for k, v in keys.items()), len(keys)]  # type: ignore[call-overload]
    false_verified = sum(
        fold == "verified" and not built.truth[key] for key, fold in other.claim_folds.items()
    )
    true_falsified = sum(
        fold == "falsified" and built.truth[key] for key, fold in other.claim_folds.items()
    )
    targeted = sum(
        fold == "verified" and not built.truth[key] and key[1] in TARGETED
        for key, fold in other.claim_folds.items()
    )
    tallies = {k: (v[0], v[1]) for k, v in counts.items()}
    return Changes(tallies, missing, false_verified, true_falsified, targeted)
