"""`import_trackio` on the real trackio 0.43 logbook in the shared fixtures.

The fixture (`../shared/fixtures/trackio/logbook-basic`) was written by the
trackio CLI itself; it is read-only, so each test works on a copy. A user's
clone has no shared fixtures: those tests skip.
"""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.errors import ReproauditError
from reproaudit.importers import import_trackio, write_import
from reproaudit.importers.trackio import _page_verdict
from reproaudit.importers.trackio_format import Cell, Page
from reproaudit.loader import load_model, parse_yaml, to_model
from reproaudit.models import Logbook
from reproaudit.problems import format_problems

PAPER = """\
paper:
  id: FastTraj01
  title: "FastTraj: Trajectory-Parallel Training"
  venue: ICML 2026
  links: {{arxiv: "{arxiv}"}}
claims_version: 3
claims:
{claims}
"""
CLAIM = "  - {{id: {id}, statement: Claim {id} of FastTraj., anchor: Table 1, kind: empirical}}"
PAGES = ".trackio/logbook/pages"
C1_PAGE = f"{PAGES}/claim-1-accuracy-within-1-point-of-76-3/page.md"
C2_PAGE = f"{PAGES}/claim-2-training-is-8x-faster-per-trajectory/page.md"


def make_repo(root: Path, claims: tuple[str, ...] = ("C1", "C2", "C3"), arxiv="2406.99999"):
    paper = root / "claims" / "icml2026" / "FastTraj01.yaml"
    paper.parent.mkdir(parents=True)
    body = "\n".join(CLAIM.format(id=c) for c in claims)
    paper.write_text(PAPER.format(arxiv=arxiv, claims=body), encoding="utf-8")
    return root


@pytest.fixture
def workspace(shared_fixtures: Path, tmp_path: Path) -> Path:
    """A writable copy of the trackio workspace the real CLI made."""
    copy = tmp_path / "trkbook"
    shutil.copytree(shared_fixtures / "trackio" / "logbook-basic", copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return copy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def problems_text(exc: pytest.ExceptionInfo[ReproauditError], tmp_path: Path) -> str:
    return format_problems(exc.value.problems, "text").replace(tmp_path.as_posix(), "TMP")


def test_fixture_imports_and_validates(workspace: Path, repo: Path) -> None:
    path, text = import_trackio(workspace, repo, contributor="alice")
    assert path == repo / "logbooks" / "FastTraj01" / "alice-trackio-e7c547e4.yaml"
    write_import(path, text)
    result = CliRunner().invoke(cli, ["validate", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert result.output == "2 files checked: all valid\n"
    book = load_model(path, Logbook)
    assert book.logbook.paper == "FastTraj01"
    assert book.logbook.claims_version == 3  # the paper's, at import time
    assert book.logbook.contributor.github == "alice"
    assert book.code is None and book.reproduce is None  # nothing to re-run
    assert [r.claim for r in book.results] == ["C1", "C2"]
    assert all(r.setup == "full" and r.measurements == [] for r in book.results)


def test_notes_keep_runs_and_notes_readable(workspace: Path, repo: Path) -> None:
    _, text = import_trackio(workspace, repo, contributor="alice")
    c1, c2 = load_model_from(text).results
    assert c1.notes == (
        'From trackio page "Claim 1: accuracy within 1 point of 76.3".\n'
        "\n"
        "Note: **Claim 1.** The paper reports 76.3% top-1 accuracy. We accept the reproduction "
        "if our top-1 is within 1 point (75.3 to 77.3).\n"
        "\n"
        "  Plan: evaluate the released checkpoint on the validation split.\n"
        "\n"
        "Run (exit 0, 0.2 s): $ python3 -c 'print('\"'\"'top1=75.9'\"'\"')'\n"
        "  output: top1=75.9\n"
        "\n"
        'Note "Claim 1 verdict" (pinned): Result: top1 = 75.9, which is 0.4 below 76.3, so '
        "**claim 1 holds** (within 1 point)."
    )
    assert 'Run "Time baseline vs ours" (exit 0, 0.1 s): $ python3 speed.py\n' in c2.notes
    assert "  attached: speed.py\n  output: baseline=4.00s ours=0.52s speedup=7.7x" in c2.notes
    assert "Artifact: timings.csv (dataset, 54 B)" in c2.notes
    assert 'Figure "Seconds per trajectory", raw data:\n  method,seconds_per_trajectory' in c2.notes
    # notes are a literal block a reviewer can read, not one line of \n escapes
    assert "    notes: |-\n      From trackio page" in text


def test_self_assessment_only_when_the_page_says_so_plainly(workspace: Path, repo: Path) -> None:
    _, text = import_trackio(workspace, repo, contributor="alice")
    c1, c2 = load_model_from(text).results
    assert c1.self_assessment == "verified"  # "**claim 1 holds**" in the pinned verdict
    assert c2.self_assessment is None  # "claim 2 is approximately reproduced": a hedge


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("So **claim 1 holds**.", "verified"),
        ("Claim 1 is reproduced.", "verified"),
        ("Claim 1 does not hold: 71.2 < 75.3.", "falsified"),
        ("Verdict: **toy**", "toy"),
        ("Claim 1 holds only on the small split.", None),
        ("Claim 1 is approximately reproduced.", None),
        ("Claim 1 holds. Claim 1 does not hold on ImageNet.", None),
        ("Claim 2 holds.", None),  # another claim's verdict
        ("We will see whether the claim holds.", None),
    ],
)
def test_verdict_reading_is_conservative(body: str, expected: str | None) -> None:
    cell = Cell({"type": "markdown", "title": "Verdict"}, body, 1)
    assert _page_verdict(Page("Claim 1: x", Path("page.md"), [cell]), 1) == expected


def test_reimport_updates_the_same_file_byte_for_byte(workspace: Path, repo: Path) -> None:
    path, text = import_trackio(workspace, repo, contributor="alice")
    write_import(path, text)
    # trackio rewrites metadata.json on every command; the logbook id must not move
    meta = workspace / ".trackio" / "metadata.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["last_page"] = "index"
    meta.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    again_path, again = import_trackio(workspace, repo, contributor="alice")
    assert again_path == path
    assert again.encode() == path.read_bytes()
    write_import(again_path, again)
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_a_failed_run_is_visible_in_the_notes(workspace: Path, repo: Path) -> None:
    page = workspace / C1_PAGE
    page.write_text(
        page.read_text(encoding="utf-8").replace('"exit_code": 0', '"exit_code": 1'),
        encoding="utf-8",
    )
    _, text = import_trackio(workspace, repo, contributor="alice")
    c1 = load_model_from(text).results[0]
    assert "Run failed (exit 1, 0.2 s): $ python3 -c" in (c1.notes or "")


def test_published_space_is_linked_as_the_trace(workspace: Path, repo: Path) -> None:
    meta = workspace / ".trackio" / "metadata.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["space_id"] = "alice-hf/fasttraj-logbook"
    meta.write_text(json.dumps(data), encoding="utf-8")
    _, text = import_trackio(workspace, repo, contributor="alice")
    head = load_model_from(text).logbook
    assert head.contributor.hf is None  # the Space's owner may be an organisation
    assert head.trace == "https://huggingface.co/spaces/alice-hf/fasttraj-logbook"


def test_paper_option_overrides_the_metadata(workspace: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "other", arxiv="2501.00001")
    path, _ = import_trackio(workspace, repo, paper="FastTraj01", contributor="alice")
    assert path.parent == repo / "logbooks" / "FastTraj01"


def test_missing_contributor_is_a_clear_error(workspace: Path, repo: Path, tmp_path) -> None:
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo)
    assert problems_text(exc, tmp_path) == (
        "TMP/trkbook: a trackio logbook does not say who wrote it [import_needs_input]\n"
        "  hint: pass your GitHub handle: --contributor <github>"
    )
    assert not (repo / "logbooks").exists()


def test_folder_without_trackio_is_refused(tmp_path: Path, repo: Path) -> None:
    folder = tmp_path / "not-a-logbook"
    folder.mkdir()
    with pytest.raises(ReproauditError) as exc:
        import_trackio(folder, repo, contributor="alice")
    assert problems_text(exc, tmp_path) == (
        "TMP/not-a-logbook: not a trackio logbook: TMP/not-a-logbook has no .trackio/logbook/ "
        "[import_source_invalid]\n"
        "  hint: give the folder where `trackio logbook open` ran (the one holding .trackio/)"
    )
    assert not (repo / "logbooks").exists()


def test_no_claim_pages_is_refused(workspace: Path, repo: Path, tmp_path: Path) -> None:
    for page in (C1_PAGE, C2_PAGE):
        path = workspace / page
        text = path.read_text(encoding="utf-8").replace("# Claim ", "# Step ", 1)
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert problems_text(exc, tmp_path) == (
        'TMP/trkbook/.trackio/logbook/pages: no page is titled "Claim <k>: ..." (pages: '
        "'Step 1: accuracy within 1 point of 76.3', "
        "'Step 2: training is 8x faster per trajectory') [import_nothing_found]\n"
        '  hint: give each claim its own page: trackio logbook page "Claim 1: <what it says>"'
    )
    assert not (repo / "logbooks").exists()


def test_a_page_for_a_claim_the_paper_lacks_is_an_error(workspace: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "one-claim", claims=("C1",))
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    text = problems_text(exc, tmp_path)
    assert text.startswith(f"TMP/trkbook/{C2_PAGE}:1: page 'Claim 2: training is 8x faster")
    assert "which paper FastTraj01 does not have (it has C1) [unknown_claim]" in text


def test_an_arxiv_id_no_paper_has_is_an_error(workspace: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "elsewhere", arxiv="2501.00001")
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert problems_text(exc, tmp_path) == (
        "TMP/trkbook/.trackio/metadata.json: paper.arxiv_id: no paper under claims/ has "
        "links.arxiv '2406.99999' [unknown_paper]\n"
        '  hint: add `arxiv: "2406.99999"` to the paper\'s links, or pass --paper <paper id>'
    )


def load_model_from(text: str) -> Logbook:
    return to_model(parse_yaml(text, "logbook.yaml"), Logbook)


def test_the_trackio_folder_itself_is_accepted(workspace: Path, repo: Path) -> None:
    assert import_trackio(workspace / ".trackio", repo, contributor="alice") == import_trackio(
        workspace, repo, contributor="alice"
    )


def test_a_logbook_naming_no_paper_needs_the_paper_option(
    workspace: Path, repo: Path, tmp_path: Path
) -> None:
    for name in ("metadata.json", "logbook/logbook.json"):
        path = workspace / ".trackio" / name
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("paper")
        path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert problems_text(exc, tmp_path) == (
        "TMP/trkbook/.trackio/metadata.json: paper: the logbook does not name the paper it "
        "reproduces [import_needs_input]\n"
        '  hint: pass --paper <paper id>, or add "paper": {"arxiv_id": "..."} to metadata.json'
    )
    path, _ = import_trackio(workspace, repo, paper="FastTraj01", contributor="alice")
    assert path.parent.name == "FastTraj01"


def test_awkward_text_survives_the_trip_into_yaml(workspace: Path, repo: Path) -> None:
    page = workspace / C1_PAGE
    awkward = 'key: "value" # not a comment\n---\n\tindented\u2028line\x85end \\ {a: [b]}'
    text = page.read_text(encoding="utf-8").replace("Plan: evaluate", awkward + "\nPlan: evaluate")
    page.write_text(text, encoding="utf-8")
    _, text = import_trackio(workspace, repo, contributor="alice")
    notes = load_model_from(text).results[0].notes or ""
    assert (
        '  key: "value" # not a comment\n  ---\n    indented\u2028line\x85end \\ {a: [b]}' in notes
    )
    # a line separator cannot sit in a literal block: that result's notes are quoted instead
    assert '    notes: "From trackio page' in text and "    notes: |-\n" in text
