"""The importers on inputs the tests carry: a trackio workspace and a PaperBench rubric.

Both are small files under `tests/data/importers/`, written by hand from the formats'
documented shapes (see the README beside each). They make every importer behaviour
testable in a clone without `../shared/fixtures/`; the real examples there remain an
extra check (`test_trackio.py`, `test_paperbench.py`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.importers import import_paperbench, import_trackio, write_import
from reproaudit.loader import load_model, parse_yaml, to_model
from reproaudit.models import Logbook, PaperFile

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
PAPER = """\
paper:
  id: QuickMrg01
  title: "QuickMerge: Cache-Aware Merge Sort"
  venue: ICML 2026
  links: {arxiv: "2605.04321"}
claims_version: 2
claims:
  - {id: C1, statement: Sorts 1M keys in under 80 ms., anchor: Table 2, kind: efficiency}
  - {id: C2, statement: Peak memory stays under twice the input., anchor: Sec. 5, kind: efficiency}
  - {id: C3, statement: The sort is stable., anchor: Theorem 1, kind: theoretical}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    copy = tmp_path / "quickmerge"
    shutil.copytree(DATA / "trackio" / "quickmerge", copy)
    return copy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    paper = tmp_path / "repo" / "claims" / "icml2026" / "QuickMrg01.yaml"
    paper.parent.mkdir(parents=True)
    paper.write_text(PAPER, encoding="utf-8")
    return tmp_path / "repo"


def test_trackio_workspace_imports_and_validates(workspace: Path, repo: Path) -> None:
    result = CliRunner().invoke(
        cli, ["import", "trackio", str(workspace), "--contributor", "alice", "--repo", str(repo)]
    )
    assert result.exit_code == 0, result.output
    (path,) = (repo / "logbooks" / "QuickMrg01").glob("alice-trackio-*.yaml")
    assert result.output == f"wrote {path}\n"
    check = CliRunner().invoke(cli, ["validate", "--repo", str(repo)])
    assert check.output == "2 files checked: all valid\n"
    book = load_model(path, Logbook)
    assert book.logbook.paper == "QuickMrg01" and book.logbook.claims_version == 2
    assert [r.claim for r in book.results] == ["C1", "C2"]  # "Setup notes" is no claim page
    c1, c2 = book.results
    assert c1.self_assessment == "verified"  # "**claim 1 holds**" in the pinned verdict
    assert c2.self_assessment is None  # "approximately reproduced" is a hedge
    assert 'Run "Timing" (exit 0, 1.4 s): $ python3 bench.py --n 1000000' in (c1.notes or "")
    assert "  output: median_ms=71.5" in (c1.notes or "")
    notes = c2.notes or ""
    assert "Run failed (exit 2, 0.1 s): $ python3 mem.py" in notes
    assert "Artifact: peak.csv (dataset, 48 B)" in notes
    assert 'Figure "Peak memory by n", raw data:\n  n,peak_ratio' in notes


def test_trackio_reimport_is_byte_for_byte_and_keeps_the_id(workspace: Path, repo: Path) -> None:
    path, text = import_trackio(workspace, repo, contributor="alice")
    write_import(path, text)
    meta = workspace / ".trackio" / "metadata.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["last_page"] = "setup-notes"  # trackio rewrites this file on every command
    meta.write_text(json.dumps(data), encoding="utf-8")
    again_path, again = import_trackio(workspace, repo, contributor="alice")
    assert again_path == path and again.encode() == path.read_bytes()


def test_trackio_space_becomes_the_trace(workspace: Path, repo: Path) -> None:
    meta = workspace / ".trackio" / "metadata.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["space_id"] = "alice/quickmerge-logbook"
    meta.write_text(json.dumps(data), encoding="utf-8")
    _, text = import_trackio(workspace, repo, contributor="alice")
    book = to_model(parse_yaml(text, "x.yaml"), Logbook)
    assert book.logbook.trace == "https://huggingface.co/spaces/alice/quickmerge-logbook"


def test_paperbench_rubric_imports_one_claim_per_result_leaf(tmp_path: Path) -> None:
    rubric = DATA / "paperbench_rubrics" / "toy-flow" / "rubric.json"
    rel, text = import_paperbench(rubric, paper_id="ToyFlow01")
    assert rel == "claims/icml2024/ToyFlow01.yaml"
    paper = to_model(parse_yaml(text, rel), PaperFile)
    assert paper.paper.title == "Toy Flow: Straight Paths for Generative Models"  # config.yaml
    assert [(c.id, c.anchor) for c in paper.claims] == [
        ("C1", "Table 2"),
        ("C2", "Table 2"),  # a repeated node id still gives its own claim
        ("C3", "Section 5.1"),
    ]
    assert paper.claims[0].statement == "Toy Flow reaches FID below 3.5 on CIFAR-10 with 10 steps."
    write_import(tmp_path / "repo" / rel, text)
    result = CliRunner().invoke(cli, ["validate", "--repo", str(tmp_path / "repo")])
    assert result.output == "1 file checked: all valid\n"
