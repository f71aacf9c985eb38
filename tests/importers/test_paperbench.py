"""`import_paperbench` on the twenty real PaperBench rubrics and on broken ones.

The real rubrics live in `../shared/fixtures/paperbench/<id>/` (skipped when
absent). Each broken rubric is `tests/data/importers/paperbench/<case>.json`,
next to `<case>.txt`, the exact problems it must produce. Regenerate after a
deliberate wording change with `REPROAUDIT_REGEN=1 pytest tests/importers` and
review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.errors import ReproauditError
from reproaudit.importers import import_paperbench, write_import
from reproaudit.loader import parse_yaml, to_model
from reproaudit.models import PaperFile
from reproaudit.problems import format_problems

BROKEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "paperbench"
CASES = sorted(p.stem for p in BROKEN.glob("*.json"))
# Result Analysis leaves per rubric, as counted in the fixtures' README.
RESULT_LEAVES = {
    "adaptive-pruning": 27,
    "all-in-one": 20,
    "bam": 16,
    "bbox": 53,
    "bridging-data-gaps": 71,
    "fre": 7,
    "ftrl": 38,
    "lbcs": 21,
    "mechanistic-understanding": 16,
    "pinn": 22,
    "robust-clip": 28,
    "sample-specific-masks": 21,
    "self-composing-policies": 28,
    "self-expansion": 24,
    "semantic-self-consistency": 6,
    "sequential-neural-score-estimation": 20,
    "stay-on-topic-with-classifier-free-guidance": 16,
    "stochastic-interpolants": 4,
    "test-time-model-adaptation": 41,
    "what-will-my-model-forget": 21,
}


def node(requirements: str, *children: dict, category: str | None = None, id: str = "x"):
    leaf_category = category or ("Result Analysis" if not children else None)
    return {
        "id": id,
        "requirements": requirements,
        "weight": 1,
        "sub_tasks": list(children),
        "task_category": leaf_category,
        "finegrained_task_category": None,
    }


def write_rubric(folder: Path, root: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "rubric.json"
    path.write_text(json.dumps(root), encoding="utf-8")
    return path


def test_all_twenty_real_rubrics_import_and_validate(shared_fixtures: Path, tmp_path) -> None:
    folders = sorted(p for p in (shared_fixtures / "paperbench").iterdir() if p.is_dir())
    assert [p.name for p in folders] == sorted(RESULT_LEAVES)
    repo = tmp_path / "repo"
    for folder in folders:
        rel, text = import_paperbench(folder / "rubric.json", paper_id=folder.name)
        assert rel == f"claims/icml2024/{folder.name}.yaml"
        paper = to_model(parse_yaml(text, rel), PaperFile)
        assert len(paper.claims) == RESULT_LEAVES[folder.name] > 0
        assert [c.id for c in paper.claims] == [f"C{i}" for i in range(1, len(paper.claims) + 1)]
        assert all(c.kind == "empirical" and len(c.anchor) <= 80 for c in paper.claims)
        write_import(repo / rel, text)
    result = CliRunner().invoke(cli, ["validate", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert result.output == "20 files checked: all valid\n"


def test_claims_follow_the_rubric(shared_fixtures: Path) -> None:
    rel, text = import_paperbench(
        shared_fixtures / "paperbench" / "stochastic-interpolants", paper_id="si-2024"
    )
    paper = to_model(parse_yaml(text, rel), PaperFile)
    # config.yaml gives the title; its id ("stochastic-interpolant") is not used
    assert paper.paper.title == "Stochastic Interpolants with Data-Dependent Couplings"
    assert paper.paper.venue == "ICML 2024"
    first = paper.claims[0]
    assert first.statement == "The Uncoupled Interpolant model achieves FID-50k around 1.35"
    assert first.anchor == "Section 4.1"  # named by the leaf's parent
    assert "  # rubric node " in text and "at $.sub_tasks[" in text


def test_repeated_and_odd_node_ids_still_give_unique_claims(shared_fixtures: Path) -> None:
    rel, text = import_paperbench(shared_fixtures / "paperbench" / "bbox", paper_id="bbox")
    paper = to_model(parse_yaml(text, rel), PaperFile)
    assert len({c.id for c in paper.claims}) == len(paper.claims) == 53
    assert paper.claims[0].anchor == "Table 2"


def test_title_and_venue_options(tmp_path: Path) -> None:
    rubric = write_rubric(
        tmp_path / "p",
        node(
            "The paper has been reproduced.",
            node("The results in Figure E.3 and section 4.2 have been replicated", node("A > B.")),
            node("Ablations have been replicated: " + "long words " * 20, node("C > D.")),
        ),
    )
    rel, text = import_paperbench(rubric, paper_id="Xy12", venue="NeurIPS 2025", title='A "B": c')
    assert rel == "claims/neurips2025/Xy12.yaml"
    paper = to_model(parse_yaml(text, rel), PaperFile)
    assert paper.paper.title == 'A "B": c'
    assert [c.anchor for c in paper.claims] == [
        "Figure E.3, Section 4.2",
        "Ablations have been replicated: long words long words long words long words…",
    ]


def test_missing_title_is_asked_for(tmp_path: Path) -> None:
    rubric = write_rubric(tmp_path / "p", node("Root", node("A > B.")))
    with pytest.raises(ReproauditError) as exc:
        import_paperbench(rubric, paper_id="Xy12")
    assert format_problems(exc.value.problems, "text") == (
        f"{tmp_path.as_posix()}/p/config.yaml: no config.yaml beside the rubric to take the "
        "paper's title from [import_needs_input]\n"
        "  hint: pass the title: --title 'The Paper Title'"
    )


def test_every_broken_case_has_its_expected_message() -> None:
    assert CASES, "no broken rubrics found"
    for case in CASES:
        assert (BROKEN / f"{case}.txt").is_file(), f"{case}.json has no {case}.txt beside it"


@pytest.mark.parametrize("case", CASES)
def test_broken_rubric_is_reported_exactly(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(BROKEN / f"{case}.json", tmp_path / "rubric.json")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ReproauditError) as exc:
        import_paperbench(Path("rubric.json"), paper_id="broken", title="Broken")
    text = format_problems(exc.value.problems, "text") + "\n"
    expected = BROKEN / f"{case}.txt"
    if os.environ.get("REPROAUDIT_REGEN"):
        expected.write_text(text, encoding="utf-8")
    assert text == expected.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rubric.json"]  # nothing written


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    rubric = write_rubric(tmp_path / "p", ["not", "a", "tree"])
    with pytest.raises(ReproauditError) as exc:
        import_paperbench(rubric, paper_id="no spaces allowed")
    codes = sorted(p.code for p in exc.value.problems)
    assert codes == ["import_needs_input", "import_source_invalid", "invalid_value"]


def test_write_import_replaces_the_file_atomically(tmp_path: Path) -> None:
    target = tmp_path / "claims" / "icml2024" / "x.yaml"
    write_import(target, "first\n")
    write_import(target, "second\n")
    assert target.read_text(encoding="utf-8") == "second\n"
    assert [p.name for p in target.parent.iterdir()] == ["x.yaml"]  # no temporary left over
