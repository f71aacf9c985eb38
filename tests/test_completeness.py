"""Completeness is checked, not assumed: damage done to verdicts, logbooks and re-run
records on main shows in `validate`, in the stderr line of stats/build/export, and fails
`--strict`, naming the file; the published counts stay honest.

Each test damages a fresh copy of tests/data/repos/site whose verdicts were first judged
again by the judge itself (so the corpus is current whatever the rules version), beside a
control that stays clean.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.corpus_check import check_corpus
from reproaudit.judge.run import judge_repo
from reproaudit.validate import validate_repo
from tests.fake_llm import FakeLLM

DATA = Path(__file__).parent / "data" / "repos"
PAPER, BOB, CAROL = "Kp4rT9vQ2x", "bob-paging-1", "carol-paging-1"
CHECKS = {"verdict_incomplete", "verdict_stale", "verdict_differs", "rerun_missing"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(DATA / "site", repo)
    judge_repo(repo, reruns=repo / "reruns")
    assert check_corpus(repo).problems == []  # the control: a current corpus is clean
    return repo


def verdict_path(repo: Path, logbook: str = BOB, paper: str = PAPER) -> Path:
    return repo / "verdicts" / paper / f"{logbook}.yaml"


def stats(repo: Path, *args: str):
    return CliRunner().invoke(cli, ["stats", "--json", *args, "--repo", str(repo)])


def lines_of(repo: Path) -> list[str]:
    return check_corpus(repo).lines()


def claims_counted(repo: Path) -> int:
    table = json.loads(stats(repo).stdout)
    return sum(table["claims"].values())


def test_a_verdict_cut_at_a_line_boundary_is_a_problem(repo: Path) -> None:
    path = verdict_path(repo)
    text = path.read_text()
    second = [m.start() for m in re.finditer(r"^- claim:", text, re.M)][1]
    path.write_text(text[:second])  # still valid YAML: one claim of four
    yaml.safe_load(path.read_text())
    before = claims_counted(repo)
    report = validate_repo(repo)
    assert not report.ok
    [problem] = [p for p in report.problems if p.code == "verdict_incomplete"]
    assert problem.path == f"verdicts/{PAPER}/{BOB}.yaml"
    assert problem.line == text[:second].splitlines().index("claims:") + 1
    assert "judges 1 of the 4 claims" in problem.message and "C2, C3, C4" in problem.message
    plain = stats(repo)
    assert plain.exit_code == 0
    assert (
        "skipped 1 file(s) with problems, left out or read only in part (1 verdict_incomplete)"
        in plain.stderr
    )
    strict = stats(repo, "--strict")
    assert strict.exit_code == 1 and strict.stdout == ""
    assert f"verdicts/{PAPER}/{BOB}.yaml:{problem.line}: verdict_incomplete:" in strict.stderr
    assert before == claims_counted(repo)  # the same numbers each time: nothing random


def test_an_emptied_claims_list_is_a_problem(repo: Path) -> None:
    path = verdict_path(repo)
    text = path.read_text()
    path.write_text(text[: text.index("claims:")])  # `claims` defaults to empty
    assert any(line.startswith(f"verdicts/{PAPER}/{BOB}.yaml") for line in lines_of(repo))
    assert "verdict_incomplete" in lines_of(repo)[0]


def test_a_paper_that_gains_a_claim_makes_its_verdicts_stale_not_incomplete(repo: Path) -> None:
    paper = repo / "claims" / "icml2026" / f"{PAPER}.yaml"
    text = paper.read_text()
    paper.write_text(
        text
        + "  - id: C9\n    statement: A new claim.\n    anchor: Sec. 9\n    kind: qualitative\n"
    )
    assert validate_repo(repo).ok  # a maintainer's pull request stays green
    found = lines_of(repo)
    assert found and all("verdict_stale" in line for line in found), found
    assert {line.split(":")[0] for line in found} == {
        f"verdicts/{PAPER}/{BOB}.yaml",
        f"verdicts/{PAPER}/{CAROL}.yaml",
    }


def test_a_hand_edited_rules_verdict_differs_from_what_the_judge_writes(repo: Path) -> None:
    path = verdict_path(repo, CAROL)
    doc = yaml.safe_load(path.read_text())
    item = next(c for c in doc["claims"] if c["verdict"] != "verified")
    text = path.read_text()
    # change one verdict word in place, keeping every other byte
    at = text.index(f"- claim: {item['claim']}\n")
    end = text.index("verdict: ", at)
    path.write_text(
        text[:end] + text[end:].replace(f"verdict: {item['verdict']}", "verdict: verified", 1)
    )
    assert validate_repo(repo).ok  # the schema cannot see it
    [line] = lines_of(repo)
    assert line.startswith(f"verdicts/{PAPER}/{CAROL}.yaml:")
    assert f': verdict_differs: the rules write verdict "{item["verdict"]}"' in line
    assert 'the file has "verified"' in line
    plain = stats(repo)
    assert (
        "counted 1 verdict(s) the judge would not write for their inputs (1 verdict_differs)"
        in plain.stderr
    )
    assert stats(repo, "--strict").exit_code == 1


def test_an_edited_evidence_or_flag_differs_too(repo: Path) -> None:
    path = verdict_path(repo)
    text = path.read_text()
    said = "evidence: the logbook reports no result for this claim"
    path.write_text(text.replace(said, "evidence: the re-run proves it", 1))
    [line] = lines_of(repo)
    assert "verdict_differs: the rules write evidence" in line
    assert 'the file has "the re-run proves it"' in line


def test_a_deleted_rerun_record_a_verdict_rested_on(repo: Path) -> None:
    shutil.rmtree(repo / "reruns" / PAPER / BOB)
    [line] = lines_of(repo)
    assert line.startswith(f"verdicts/{PAPER}/{BOB}.yaml:")
    assert (
        f"rerun_missing: rests on a passed re-run whose record "
        f"reruns/{PAPER}/{BOB}/run.json is gone" in line
    )
    plain = stats(repo)
    assert plain.exit_code == 0
    assert "counted 1 stale verdict(s), shown marked stale (1 rerun_missing)" in plain.stderr
    assert stats(repo, "--strict").exit_code == 1


def test_a_changed_logbook_makes_its_verdict_stale(repo: Path) -> None:
    logbook = repo / "logbooks" / PAPER / f"{BOB}.yaml"
    logbook.write_text(logbook.read_text() + "# edited after judging\n")
    found = lines_of(repo)
    assert any(
        line.startswith(f"verdicts/{PAPER}/{BOB}.yaml:") and "verdict_stale" in line
        for line in found
    ), found
    assert "counted 1 stale verdict(s)" in stats(repo).stderr


def test_a_run_json_of_the_wrong_shape_is_a_problem(repo: Path) -> None:
    run = repo / "reruns" / PAPER / BOB / "run.json"
    data = json.loads(run.read_text())
    data["duration_s"] = "fast"
    data.pop("sandbox")
    run.write_text(json.dumps(data, indent=2))
    found = lines_of(repo)
    rel = f"reruns/{PAPER}/{BOB}/run.json"
    [line] = [line for line in found if line.startswith(rel)]
    duration_line = next(
        n for n, text in enumerate(run.read_text().splitlines(), 1) if '"duration_s"' in text
    )
    assert line.startswith(f"{rel}:{duration_line}: run_record_invalid: ")
    assert "(and 1 more)" in line
    # the verdict read the record when it was valid: its input is no longer that record
    assert any(f"verdicts/{PAPER}/{BOB}.yaml" in x and "verdict_stale" in x for x in found)


def test_a_verdict_with_no_logbook(repo: Path) -> None:
    (repo / "logbooks" / PAPER / f"{BOB}.yaml").unlink()
    shutil.rmtree(repo / "logbooks" / PAPER / BOB, ignore_errors=True)
    found = lines_of(repo)
    assert any(
        line.startswith(f"verdicts/{PAPER}/{BOB}.yaml") and "unknown_logbook" in line
        for line in found
    ), found


@pytest.mark.parametrize("command", ["build", "export"])
def test_build_and_export_say_what_they_count_as_stale(
    repo: Path, tmp_path: Path, command: str
) -> None:
    logbook = repo / "logbooks" / PAPER / f"{BOB}.yaml"
    logbook.write_text(logbook.read_text() + "# edited after judging\n")
    out = tmp_path / "out"
    args = [command, "--out", str(out), "--repo", str(repo)]
    strict = CliRunner().invoke(cli, [*args, "--strict"])
    assert strict.exit_code == 1, strict.output
    assert f"verdicts/{PAPER}/{BOB}.yaml:4: verdict_stale:" in strict.stderr
    assert not out.exists()
    plain = CliRunner().invoke(cli, args)
    assert plain.exit_code == 0, plain.output
    assert "counted 1 stale verdict(s), shown marked stale (1 verdict_stale)" in plain.stderr
    if command == "build":  # the site says how many verdicts are stale
        home = (out / "index.html").read_text()
        total = len([p for p in repo.glob("verdicts/*/*.yaml") if p.name != "reviews.yaml"])
        assert re.search(rf'id="stale-count">1 of {total} verdicts are <a class="ra-marker', home)


# --- LLM verdicts: what the rules fix ------------------------------------------------


def llm_judged(repo: Path, fake: FakeLLM) -> None:
    from reproaudit.judge.llm import LlmJudge
    from reproaudit.llm.settings import LlmSettings

    settings = LlmSettings(base_url=fake.url, model="test-model", api_key="k")
    judge_repo(repo, LlmJudge(settings, 3, backoff=0.01), reruns=repo / "reruns")


@pytest.mark.parametrize(
    "behavior, options",
    [
        ("correct", {"answers": {"C1": "verified", "C2": "falsified", "C3": "verified"}}),
        ("gullible", {}),
        ("cycle", {"cycle": ["verified", "falsified", "toy"]}),
        ("garbage", {}),
    ],
)
def test_real_llm_verdicts_pass_the_check(repo: Path, behavior: str, options: dict) -> None:
    """No false alarm: whatever an endpoint answers, what the judge wrote passes."""
    with FakeLLM(behavior, **options) as fake:
        llm_judged(repo, fake)
    files = [p for p in repo.glob("verdicts/*/*.yaml") if p.name != "reviews.yaml"]
    assert {yaml.safe_load(p.read_text())["judge"]["mode"] for p in files} == {"llm"}
    found = [p for p in check_corpus(repo).problems if p.code in CHECKS]
    assert found == []


def test_an_llm_verdict_cannot_differ_from_the_rules_on_a_claim_with_a_target(repo: Path) -> None:
    with FakeLLM("correct") as fake:
        llm_judged(repo, fake)
    from reproaudit.repo import Corpus

    paper = Corpus(repo).paper(PAPER)
    targeted = {c.id for c in paper.claims if c.target is not None}
    path = verdict_path(repo)
    doc = yaml.safe_load(path.read_text())
    i, item = next((i, c) for i, c in enumerate(doc["claims"]) if c["claim"] in targeted)
    wrong = "falsified" if item["verdict"] != "falsified" else "verified"
    # since prompt version 4 the rules decide: an LLM's veto (inconclusive + judge_conflict)
    # is not what the judge writes; a judge before it could write one
    vetoed = {
        **item,
        "verdict": "inconclusive",
        "flags": [*item.get("flags", []), "judge_conflict"],
    }
    doc["claims"][i] = vetoed
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    [problem] = [p for p in check_corpus(repo).problems if p.code in CHECKS]
    assert "the LLM may only disagree beside it (llm_disagrees)" in problem.message
    older = {**doc, "judge": {**doc["judge"], "prompt_version": 3}}
    path.write_text(yaml.safe_dump(older, sort_keys=False))
    stale = [p.code for p in check_corpus(repo).problems if p.code in CHECKS]
    assert "verdict_differs" not in stale  # (its input hash names prompt 3: stale, not edited)
    doc["claims"][i] = {**item, "verdict": wrong}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    [problem] = [p for p in check_corpus(repo).problems if p.code in CHECKS]
    assert problem.code == "verdict_differs" and problem.path == f"verdicts/{PAPER}/{BOB}.yaml"
    assert problem.field == f"claims.{i}.verdict"
    assert (
        f"{wrong} for a claim with a target whose rules verdict is {item['verdict']}"
        in problem.message
    )
