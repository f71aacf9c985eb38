"""The canary is a real logbook in disguise (issue 28): its shape kept, its names and numbers
changed consistently, so nothing in it tells it from real work."""

from __future__ import annotations

import random

import yaml

from reproaudit.judge.canary import Canary, disguise, synthetic

LOGBOOK = """\
logbook:
  id: alice-paging-1
  paper: 06Nk3dJDMq
  claims_version: 1
  contributor: {github: alice, hf: alice-hf}
  trace: https://huggingface.co/datasets/alice/repro-paging-traces
code:
  repo: https://github.com/alice/repro-paging
  commit: 0123456789abcdef0123456789abcdef01234567
reproduce: {command: python sweep.py --k-max 1024, hardware: cpu, outputs: results/metrics.json}
results:
  - claim: C1
    setup: full
    measurements:
      - {metric: additive_term, value: 2.61, unit: dimensionless, at: {k: 1024},
         source: "outputs:/C1/additive_term/1024"}
    notes: alice ran it twice.
"""
WRITEUP = "alice-paging-1 reproduces 06Nk3dJDMq: the term reaches 2.61 at k = 1024."
TAIL = "k=1024 additive_term=2.61\ndone in 812 s"


def test_disguise_changes_names_and_numbers_and_keeps_the_shape() -> None:
    logbook, writeup, tail = disguise((LOGBOOK, WRITEUP, TAIL), random.Random(7))
    for name in ("alice", "06Nk3dJDMq", "repro-paging", "0123456789abcdef", "2.61", "1024"):
        assert name not in logbook + (writeup or "") + (tail or ""), name
    doc = yaml.safe_load(logbook)  # still a logbook: every key, every structure
    assert list(doc) == ["logbook", "code", "reproduce", "results"]
    assert list(doc["logbook"]) == ["id", "paper", "claims_version", "contributor", "trace"]
    assert doc["results"][0]["claim"] == "C1" and doc["results"][0]["setup"] == "full"
    # one name, one replacement, in all three texts; one number, one new value
    new_id, new_paper = doc["logbook"]["id"], doc["logbook"]["paper"]
    assert writeup is not None and writeup.startswith(f"{new_id} reproduces {new_paper}")
    k = doc["results"][0]["measurements"][0]["at"]["k"]
    assert doc["results"][0]["measurements"][0]["source"].endswith(f"/{k}")
    assert tail is not None and tail.startswith(f"k={k} ")
    assert len(doc["code"]["commit"]) == 40
    assert (
        doc["code"]["repo"].startswith("https://github.com/") and "alice" not in doc["code"]["repo"]
    )


def test_a_synthetic_canary_has_every_field_a_real_logbook_has() -> None:
    logbook, _, _ = synthetic(random.Random(1))
    doc = yaml.safe_load(logbook)
    assert {"logbook", "code", "reproduce", "results"} <= set(doc)
    assert "claims_version" in doc["logbook"]


def test_the_share_rule_needs_more_than_half_and_more_than_a_few() -> None:
    canary = Canary()
    sample = ("x", None, None)
    for n in range(5):  # five flags of five: not yet implausible (a small run)
        assert canary.note(("P", f"b{n}"), sample, True) is None
    assert "flagged 6 of the 6" in (canary.note(("P", "b5"), sample, True) or "")
    control = Canary()  # three flags in twenty: honest work
    for n in range(20):
        assert control.note(("P", f"b{n}"), sample, n % 7 == 0) is None
