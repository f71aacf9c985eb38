"""Who decided is data (issue 28): the rules own a re-run-backed number, a model's verdict is
labelled as the model's, and the fold never publishes a claim from fewer logbooks than it has.

The end-to-end tests re-run two logbooks for real in bubblewrap (one team measures a false
speed-up and its program prints ``Q: conclusion: violated``, the other measures a true one),
judge them with a compromised and an honest local endpoint (``tests/fake_llm.py``), fold
them as the site does, and build the site. The pure tests play the same cases on the merge,
``finalize`` and the fold alone, each beside a control.
"""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from reproaudit.fold import fold_all
from reproaudit.judge.finalize import ClaimFacts, failure_lines, finalize
from reproaudit.judge.llm import JudgeSetupError, LlmJudge, make_judge, merge_llm, second_opinion
from reproaudit.judge.run import is_stale, judge_repo
from reproaudit.llm.settings import LlmSettings
from reproaudit.models import Claim, ClaimVerdict, Result, Target
from reproaudit.records import load_tables
from reproaudit.repo import Corpus
from reproaudit.reproduce import reproduce_logbook
from reproaudit.site.build import build_site
from tests.conftest import needs_bwrap
from tests.fake_llm import FakeLLM

WHEN = datetime(2026, 7, 21, 10, tzinfo=UTC)
PAPER = """\
paper: {id: P1, title: A fast sampler, venue: ICML 2026}
claims_version: 1
claims:
  - id: S
    statement: One-step sampling is at least 8 times faster than the teacher.
    anchor: Table 3
    kind: efficiency
    target: {metric: speedup, form: at_least, value: 8, unit: dimensionless,
             tolerance: {rel: 0.1}}
  - id: Q
    statement: Samples look sharper than the baseline's.
    anchor: Figure 5
    kind: qualitative
"""
SCRIPT = """\
import json
print("comparing 64 sample pairs")
print("Q: conclusion: {q}")
json.dump({{"S": {{"speedup": {speedup}}}}}, open("out.json", "w"))
"""


def _logbook(who: str) -> str:
    return f"""\
logbook:
  id: {who}-1
  paper: P1
  claims_version: 1
  contributor: {{github: {who}}}
code: {{path: {who}-1/}}
reproduce: {{command: python reproduce.py, outputs: out.json, timeout: 60s}}
results:
  - claim: S
    setup: full
    measurements:
      - {{metric: speedup, unit: dimensionless, source: "outputs:/S/speedup"}}
  - claim: Q
    setup: full
    notes: Blind comparison of 64 sample pairs; the script prints its conclusion.
"""


@pytest.fixture(scope="module")
def rerun(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus with both logbooks re-run for real in bubblewrap (once for the module)."""
    repo = tmp_path_factory.mktemp("decided") / "repo"
    (repo / "claims" / "icml").mkdir(parents=True)
    (repo / "claims" / "icml" / "P1.yaml").write_text(PAPER)
    for who, speedup, q in (("alice", 5.1, "violated"), ("bob", 9.0, "holds")):
        folder = repo / "logbooks" / "P1" / f"{who}-1"
        folder.mkdir(parents=True)
        (folder / "reproduce.py").write_text(SCRIPT.format(q=q, speedup=speedup))
        (repo / "logbooks" / "P1" / f"{who}-1.yaml").write_text(_logbook(who))
        record = reproduce_logbook(repo, f"logbooks/P1/{who}-1.yaml", out=repo / "reruns")
        assert record.status == "passed", record.log_tail
    return repo


def _judge(repo: Path, first: dict[str, Any], second: dict[str, Any] | None = None) -> dict:
    with FakeLLM(**first) as fake:
        kw: dict[str, Any] = {"backoff": 0.01}
        if second is None:
            judge = LlmJudge(LlmSettings(fake.url, "first-model", "k"), 3, **kw)
            judge_repo(repo, judge, reruns=repo / "reruns", judged_at=WHEN)
        else:
            with FakeLLM(**second) as other:
                kw["second"] = LlmSettings(other.url, "second-model", "k2")
                judge = LlmJudge(LlmSettings(fake.url, "first-model", "k"), 3, **kw)
                judge_repo(repo, judge, reruns=repo / "reruns", judged_at=WHEN)
    out = {}
    for path in sorted((repo / "verdicts" / "P1").glob("*-1.yaml")):
        doc = yaml.safe_load(path.read_text())
        out[doc["logbook"]] = {c["claim"]: c for c in doc["claims"]} | {"_judge": doc["judge"]}
    return out


def _folds(repo: Path) -> tuple[dict[str, tuple[str, bool]], dict[str, str]]:
    tables = load_tables(Corpus(repo))
    _, claims, papers = fold_all(tables.verdicts, tables.reviews)
    folds = {
        c: (f, bool(h))
        for c, f, h in zip(claims["claim"], claims["fold"], claims["held"], strict=True)
    }
    return folds, dict(zip(papers["paper"], papers["bucket"], strict=True))


def _copy(rerun: Path, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(rerun, repo)
    return repo


@needs_bwrap
def test_a_compromised_endpoint_moves_no_number_and_what_it_decides_is_labelled(
    rerun: Path, tmp_path: Path
) -> None:
    repo = _copy(rerun, tmp_path)
    got = _judge(repo, {"behavior": "gullible"})
    alice, bob = got["alice-1"], got["bob-1"]
    # the false speed-up stays falsified: the LLM's "verified" is a flag beside it
    assert (alice["S"]["verdict"], alice["S"]["decided_by"]) == ("falsified", "rules")
    assert alice["S"]["flags"] == ["llm_disagrees"]
    assert alice["S"]["llm_opinion"]["verdict"] == "verified"
    assert (bob["S"]["verdict"], bob["S"]["flags"]) == ("verified", [])
    # the qualitative claim: the model's verified is the model's, and the re-run's own log
    # line against it is quoted in the evidence and kept as data
    assert (alice["Q"]["verdict"], alice["Q"]["decided_by"]) == ("verified", "model")
    assert alice["Q"]["log_failures"] == ["Q: conclusion: violated"]
    assert "the re-run's log reports a failure: «Q: conclusion: violated»" in alice["Q"]["evidence"]
    assert "log_failures" not in bob["Q"]
    # the fold: the speed-up is contested (never verified from bob alone), the qualitative
    # claim model-judged: the paper is contested, never fully reproduced
    folds, buckets = _folds(repo)
    assert folds == {"S": ("contested", False), "Q": ("model_judged", False)}
    assert buckets == {"P1": "contested"}
    # the site says who decided, in words, on the paper page and the logbook page
    site = build_site(repo, tmp_path / "site", now=WHEN).out
    paper = (site / "papers" / "P1" / "index.html").read_text()
    assert paper.count(">model-judged, verified</a>") == 3  # two logbooks and the claim
    assert 'title="flag llm_disagrees">the model disagrees</a>' in paper
    book = (site / "papers" / "P1" / "alice-1" / "index.html").read_text()
    assert "The re-run&#39;s own log reports a failure:" in book
    assert "<code>Q: conclusion: violated\n</code>" in book
    assert "Only a language model judged this claim" in book
    assert "The language model disagrees with the rules" in book


@needs_bwrap
def test_control_an_honest_endpoint_on_the_same_reruns(rerun: Path, tmp_path: Path) -> None:
    repo = _copy(rerun, tmp_path)
    got = _judge(repo, {"behavior": "correct"})
    assert (got["alice-1"]["S"]["verdict"], got["alice-1"]["S"]["flags"]) == ("falsified", [])
    assert got["alice-1"]["Q"]["verdict"] == "falsified"  # it read the log's conclusion
    assert got["bob-1"]["Q"]["verdict"] == "verified"
    assert {got[b]["Q"]["decided_by"] for b in ("alice-1", "bob-1")} == {"model"}
    folds, _ = _folds(repo)
    assert folds["S"] == ("contested", False)
    assert folds["Q"] == ("model_judged", False)  # two models' verdicts, neither confirmed


@needs_bwrap
def test_a_second_endpoint_confirms_or_contradicts_a_model_judged_verdict(
    rerun: Path, tmp_path: Path
) -> None:
    """The compromised endpoint judges, an honest one configured apart answers second: where
    they agree (bob) the verdict counts, where they do not (alice) it is inconclusive +
    judge_conflict, and the claim is held: not published from bob's logbook alone."""
    repo = _copy(rerun, tmp_path)
    got = _judge(repo, {"behavior": "gullible"}, {"behavior": "correct"})
    alice, bob = got["alice-1"]["Q"], got["bob-1"]["Q"]
    assert (alice["verdict"], alice["flags"]) == ("inconclusive", ["judge_conflict"])
    assert alice["second_opinion"]["verdict"] == "falsified"
    assert "two models disagree" in alice["evidence"]
    assert (bob["verdict"], bob["decided_by"]) == ("verified", "model")
    assert bob["second_opinion"] == {
        "model": "second-model",
        "verdict": "verified",
        "reason": bob["second_opinion"]["reason"],
    }
    assert got["bob-1"]["_judge"]["second_model"] == "second-model"
    folds, _ = _folds(repo)
    assert folds["Q"] == ("inconclusive", True)
    # the verdict files record the second model, so they are current as written
    corpus = Corpus(repo)
    assert not any(is_stale(corpus, v, reruns=repo / "reruns") for _, v in corpus.verdicts())
    # control: two honest endpoints agree on bob's, disagree with nobody: it counts
    repo2 = tmp_path / "honest"
    shutil.copytree(rerun, repo2)
    _judge(repo2, {"behavior": "correct"}, {"behavior": "correct"})
    folds, _ = _folds(repo2)
    assert folds["Q"] == ("contested", False)  # a confirmed falsified and a confirmed verified


def test_a_second_endpoint_must_be_configured_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    first = LlmSettings("http://127.0.0.1:9/v1", "m", "k")
    with pytest.raises(JudgeSetupError, match="another host"):
        LlmJudge(first, 3, second=LlmSettings("http://127.0.0.1:9/other", "m2", "k2"))
    monkeypatch.setenv("REPROAUDIT_JUDGE_BASE_URL", first.base_url or "")
    monkeypatch.setenv("REPROAUDIT_JUDGE2_BASE_URL", "http://127.0.0.1:10/v1")
    monkeypatch.setenv("REPROAUDIT_JUDGE2_MODEL", "other-model")
    judge = make_judge("llm")
    assert isinstance(judge, LlmJudge) and judge.second is not None
    assert judge.config()["second_model"] == "other-model"
    monkeypatch.delenv("REPROAUDIT_JUDGE2_BASE_URL")
    judge = make_judge("llm")
    assert isinstance(judge, LlmJudge) and judge.second is None
    assert "second_model" not in judge.config()  # the input hash of a one-endpoint run


# --- the merge and finalize, pure ------------------------------------------------------------

TARGET = Target.model_validate(
    {"metric": "speedup", "form": "at_least", "value": 8, "tolerance": {"rel": 0.1}}
)
TARGETED = Claim(id="S", statement="fast", anchor="T3", kind="efficiency", target=TARGET)
OPEN = Claim(id="Q", statement="sharper", anchor="F5", kind="qualitative")
RESULT = Result(claim="S", setup="full")


def _proposal(claim: str, verdict: str) -> ClaimVerdict:
    return ClaimVerdict(claim=claim, verdict=verdict, evidence="rules say so")  # type: ignore[arg-type]


def _merge(claim: Claim, rules: str, votes: dict[str, int], current: bool = True) -> ClaimVerdict:
    proposal = _proposal(claim.id, rules)
    reasons = {v: f"it is {v}" for v in votes}
    merged, decided = merge_llm(claim, proposal, rules, Counter(votes), reasons, 3, model="m")  # type: ignore[arg-type]
    facts = ClaimFacts(Result(claim=claim.id, setup="full"), current)
    return finalize(merged, facts, rules=proposal, llm_decided=decided)


@pytest.mark.parametrize("rules", ["falsified", "toy", "inconclusive", "verified"])
@pytest.mark.parametrize("llm", ["verified", "falsified", "toy", "inconclusive"])
def test_no_llm_answer_moves_a_targeted_verdict(rules: str, llm: str) -> None:
    out = _merge(TARGETED, rules, {llm: 3})
    assert (out.verdict, out.decided_by) == (rules, "rules")
    assert ("llm_disagrees" in out.flags) == (llm != rules)
    assert (out.llm_opinion.verdict if out.llm_opinion else None) == (None if llm == rules else llm)
    assert "judge_conflict" not in out.flags


def test_a_split_llm_is_no_disagreement_and_no_rerun_decides_nothing() -> None:
    split = _merge(TARGETED, "falsified", {"verified": 1, "toy": 1, "inconclusive": 1})
    assert (split.verdict, split.flags) == ("falsified", [])
    # no current re-run: inconclusive + not_rerun whoever leaned which way, no disagreement
    waiting = _merge(TARGETED, "falsified", {"verified": 3}, current=False)
    assert (waiting.verdict, waiting.flags, waiting.llm_opinion) == (
        "inconclusive",
        ["not_rerun"],
        None,
    )
    assert "the LLM judge says verified" in (waiting.evidence or "")
    leaned = _merge(OPEN, "inconclusive", {"verified": 3}, current=False)
    assert (leaned.verdict, leaned.decided_by) == ("inconclusive", "rules")


def test_an_untargeted_verdict_is_the_models_and_says_so() -> None:
    out = _merge(OPEN, "inconclusive", {"falsified": 2, "verified": 1})
    assert (out.verdict, out.decided_by, out.flags) == ("falsified", "model", [])
    # capped by the rules all the same (a reduced setup)
    proposal = _proposal("Q", "inconclusive")
    merged, _ = merge_llm(OPEN, proposal, "inconclusive", Counter({"verified": 3}), {}, 3)
    capped = finalize(
        merged, ClaimFacts(Result(claim="Q", setup="reduced"), True), llm_decided=True
    )
    assert (capped.verdict, capped.decided_by) == ("toy", "model")


def test_the_reruns_log_line_is_quoted_as_data() -> None:
    facts = ClaimFacts(Result(claim="Q", setup="full"), True, log_failures=("Q: violated",))
    out = finalize(_proposal("Q", "inconclusive"), facts)
    assert out.log_failures == ["Q: violated"]
    assert out.evidence == "rules say so; the re-run's log reports a failure: «Q: violated»"


def test_failure_lines_are_the_claims_own_and_real_failures() -> None:
    log = (
        "step 1\nQ: conclusion: violated\nT: conclusion: holds\n0 tests failed\n"
        "AssertionError: mean off by 0.2\nfailed: 0\nT fails at n=3"
    )
    assert failure_lines(log, "Q", ["Q", "T"]) == [
        "Q: conclusion: violated",
        "AssertionError: mean off by 0.2",  # names no claim: every claim's
    ]
    assert failure_lines(log, "T", ["Q", "T"]) == [
        "AssertionError: mean off by 0.2",
        "T fails at n=3",
    ]
    assert failure_lines("all 12 checks passed\nno failures", "Q", ["Q"]) == []  # control


def test_second_opinion_confirms_contradicts_or_leaves_unconfirmed() -> None:
    first = ClaimVerdict(claim="Q", verdict="verified", evidence="m: yes", decided_by="model")

    def second(verdict: str, flags: list[str] | None = None, by: str = "model") -> ClaimVerdict:
        return ClaimVerdict(claim="Q", verdict=verdict, flags=flags or [], decided_by=by)  # type: ignore[arg-type]

    agreed = second_opinion(first, second("verified"), "m2")
    assert (agreed.verdict, agreed.flags, agreed.second_opinion.verdict) == (  # type: ignore[union-attr]
        "verified",
        [],
        "verified",
    )
    against = second_opinion(first, second("falsified"), "m2")
    assert (against.verdict, against.flags) == ("inconclusive", ["judge_conflict"])
    unsure = second_opinion(first, second("inconclusive"), "m2")
    assert (unsure.verdict, unsure.second_opinion.verdict) == ("verified", "inconclusive")  # type: ignore[union-attr]
    down = second_opinion(first, second("inconclusive", ["llm_failed"], "rules"), "m2")
    assert (down.verdict, down.flags, down.second_opinion.verdict) == (  # type: ignore[union-attr]
        "verified",
        ["llm_failed"],
        None,
    )
    # a rules verdict is never sent for a second opinion
    ruled = ClaimVerdict(claim="S", verdict="falsified", decided_by="rules")
    assert second_opinion(ruled, second("verified"), "m2") == ruled


# --- the fold, pure --------------------------------------------------------------------------


def _rows(*items: tuple[str, str, str, list[str], str | None, str | None]) -> pd.DataFrame:
    """(logbook, claim, verdict, flags, decided_by, second) rows, one contributor each."""
    return pd.DataFrame(
        [
            {
                "paper": "P",
                "logbook": logbook,
                "contributor": logbook.split("-")[0],
                "judged_at": pd.Timestamp("2026-07-01", tz="UTC"),
                "claim": claim,
                "verdict": verdict,
                "flags": flags,
                "decided_by": decided,
                "second": second,
            }
            for logbook, claim, verdict, flags, decided, second in items
        ]
    )


NO_REVIEWS = pd.DataFrame(columns=["paper", "logbook", "claim", "kind", "stance", "at"])


def _fold(rows: pd.DataFrame, reviews: pd.DataFrame = NO_REVIEWS) -> tuple[str, bool, str]:
    _, claims, papers = fold_all(rows, reviews)
    return claims["fold"][0], bool(claims["held"][0]), papers["bucket"][0]


def test_a_veto_on_one_logbook_never_leaves_the_other_side_alone() -> None:
    """The verdict files of a judge before prompt version 4: the one logbook that falsified
    the claim was vetoed (inconclusive + judge_conflict), the other team's verified stands."""
    vetoed = _rows(
        ("ann-1", "C1", "inconclusive", ["judge_conflict"], None, None),
        ("bo-1", "C1", "verified", [], None, None),
    )
    assert _fold(vetoed) == ("inconclusive", True, "inconclusive")
    control = _rows(
        ("ann-1", "C1", "inconclusive", ["unit_mismatch"], None, None),
        ("bo-1", "C1", "verified", [], None, None),
    )
    assert _fold(control) == ("verified", False, "fully_reproduced")


def test_a_model_judged_verdict_counts_only_once_confirmed() -> None:
    alone = _rows(("ann-1", "Q", "verified", [], "model", None))
    assert _fold(alone) == ("model_judged", False, "inconclusive")
    confirmed = _rows(("ann-1", "Q", "verified", [], "model", "verified"))
    assert _fold(confirmed) == ("verified", False, "fully_reproduced")
    # a maintainer's review confirms a model's falsification too
    falsified = _rows(("ann-1", "Q", "falsified", [], "model", None))
    assert _fold(falsified)[0] == "model_judged"
    review = pd.DataFrame(
        [
            {
                "paper": "P",
                "logbook": "ann-1",
                "claim": "Q",
                "kind": "review",
                "stance": "confirm",
                "at": pd.Timestamp("2026-07-02", tz="UTC"),
            }
        ]
    )
    assert _fold(falsified, review) == ("falsified", False, "falsified")
    # a model's verdict against another logbook's decisive one holds the claim
    against = _rows(
        ("ann-1", "Q", "falsified", [], "model", None),
        ("bo-1", "Q", "verified", [], "model", "verified"),
    )
    assert _fold(against) == ("inconclusive", True, "inconclusive")
