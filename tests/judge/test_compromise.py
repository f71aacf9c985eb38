"""What a fully compromised endpoint can change, on a small corpus with re-runs (issue 28).

``benchmarks/judge_compromise.py`` prints the same figures on a larger corpus. Here they
are asserted: against the honest endpoint, a compromised one changes no published verdict
of a claim with a target and a current re-run, no claim fold and no paper bucket, and it
never gets a claim false by construction published verified; what it does change is only
ever a model-judged verdict, labelled as such.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reproaudit.judge.llm import LlmJudge
from reproaudit.judge.run import judge_repo
from reproaudit.llm.settings import LlmSettings
from tests.fake_llm import FakeLLM
from tests.judge.compromise import Built, Published, build_corpus, compare, published


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built, Published]:
    base = tmp_path_factory.mktemp("compromise")
    built = build_corpus(base / "corpus", papers=6, seed=3)
    honest = _judged(base / "corpus", base / "honest", "correct")
    return base / "corpus", built, honest


def _judged(source: Path, repo: Path, behavior: str) -> Published:
    shutil.copytree(source, repo)
    with FakeLLM(behavior) as fake:
        judge = LlmJudge(LlmSettings(fake.url, "m", "k"), 3, backoff=0.01)
        summary = judge_repo(repo, judge, reruns=repo / "reruns")
    assert summary.complete
    return published(repo)


@pytest.mark.parametrize("behavior", ["contrary", "gullible"])
def test_a_compromised_endpoint_changes_no_rerun_backed_number(
    corpus: tuple[Path, Built, Published], tmp_path: Path, behavior: str
) -> None:
    source, built, honest = corpus
    got = _judged(source, tmp_path / "repo", behavior)
    changes = compare(built, honest, got)
    assert changes.counts["target, current re-run"][0] == 0
    assert changes.counts["target, current re-run"][1] > 20
    assert changes.counts["target, no re-run"][0] == 0
    assert changes.counts["claim folds"][0] == 0
    assert changes.counts["paper buckets"][0] == 0
    assert (changes.false_verified, changes.true_falsified, changes.missing) == (0, 0, 0)
    # what it changed: verdicts on claims without a target, each labelled model-judged
    moved = [k for k, state in honest.verdicts.items() if got.verdicts[k] != state]
    assert moved and all(k[2] in ("Q", "T") for k in moved)
    assert all(got.verdicts[k][1] == "model" for k in moved if got.verdicts[k][0] != "inconclusive")
    # and every disagreement it voiced on a rules verdict is counted beside it
    disagree = [k for k, flags in got.flags.items() if "llm_disagrees" in flags]
    assert disagree and all(k[2] not in ("Q", "T") for k in disagree)


def test_control_the_honest_endpoint_publishes_the_truth(
    corpus: tuple[Path, Built, Published],
) -> None:
    _, built, honest = corpus
    changes = compare(built, honest, honest)
    assert (changes.false_verified, changes.true_falsified) == (0, 0)
    assert "verified" in honest.claim_folds.values()
    assert "falsified" in honest.claim_folds.values()
