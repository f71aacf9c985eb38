"""What `check` tells a contributor beyond validation: each mistake, its exact message."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.hints import empty_claims, logbook_hints
from reproaudit.loader import parse_yaml, to_model
from reproaudit.models import Logbook, PaperFile
from reproaudit.report.terminal import live_line
from tests.conftest import needs_bwrap

PAPER = """\
paper: {id: P1, title: A paper, venue: ICML 2026}
claims_version: 1
claims:
  - id: C1
    statement: Rollouts take at most 2 ms per trajectory.
    anchor: Table 1
    kind: efficiency
    target: {metric: time, form: at_most, value: 2, unit: ms, per: trajectory,
             tolerance: {rel: 0.05}}
  - id: C2
    statement: The additive term stays bounded for every k.
    anchor: Theorem 1
    kind: theoretical
    target: {metric: additive_term, form: bounded, value: null, unit: dimensionless,
             tolerance: {abs: 0.5}}
    regime: {parameter: k, from: 2, to: null}
  - id: C3
    statement: Accuracy stays above 0.9 for n from 10 to 1000.
    anchor: Figure 2
    kind: empirical
    target: {metric: accuracy, form: at_least, value: 0.9, unit: dimensionless,
             tolerance: {abs: 0.01}}
    regime: {parameter: n, from: 10, to: 1000}
"""


def logbook(results: str, reproduce: str = "") -> str:
    return f"""\
logbook: {{id: ann-1, paper: P1, claims_version: 1, contributor: {{github: ann}}}}
{reproduce}results:
{results}"""


def hints(results: str) -> list[tuple[str, int | None, str, str]]:
    paper = to_model(parse_yaml(PAPER, "claims/icml2026/P1.yaml"), PaperFile)
    rel = "logbooks/P1/ann-1.yaml"
    doc = parse_yaml(logbook(results), rel)
    book = to_model(doc, Logbook)
    return [
        (p.code, p.line, p.message, p.hint or "")
        for p in logbook_hints(paper, book, rel, lambda loc: doc.line_of(loc))
    ]


def test_a_measurement_without_the_claims_per_is_named() -> None:
    (found,) = hints(
        "  - claim: C1\n    setup: full\n    measurements: [{metric: time, value: 1.8, unit: ms}]\n"
    )
    assert found[:3] == (
        "per_missing",
        5,
        "C1 is claimed per 'trajectory' and this time measurement says nothing about what it "
        "is per",
    )
    assert found[3].startswith("add `per: trajectory` if that is what it was measured for")
    assert (
        hints(
            "  - claim: C1\n    setup: full\n"
            "    measurements: [{metric: time, value: 1.8, unit: ms, per: trajectory}]\n"
        )
        == []
    )  # the control


def test_a_sweep_over_another_parameter_gets_a_did_you_mean() -> None:
    (found,) = hints(
        "  - claim: C2\n    setup: full\n"
        "    sweep: {parameter: K, values: [8, 80, 800, 8000], metric: additive_term,\n"
        "            measured: [1, 1, 1, 1]}\n"
    )
    assert found == (
        "sweep_parameter_differs",
        5,
        "the sweep varies 'K', but C2's regime is over 'k'",
        "did you mean 'k'? the judge checks the range covered against 'k'",
    )


def test_a_short_sweep_gets_one_message_with_its_points_and_range() -> None:
    (found,) = hints(
        "  - claim: C3\n    setup: full\n"
        "    sweep: {parameter: n, values: [10, 50, 100, 200], metric: accuracy,\n"
        "            measured: [0.95, 0.94, 0.93, 0.93]}\n"
    )
    assert found[:3] == (
        "sweep_short",
        5,
        "the sweep of C3 has 4 points, n from 10 to 200; the regime is n from 10 to 1000: it "
        "stops at 200, short of 1000",
    )
    (asymptotic,) = hints(
        "  - claim: C2\n    setup: full\n"
        "    sweep: {parameter: k, values: [8, 16, 32, 64, 128], metric: additive_term,\n"
        "            measured: [1, 1, 1, 1, 1]}\n"
    )
    assert asymptotic[2] == (
        "the sweep of C2 has 5 points, k from 8 to 128; the regime is k from 2 to infinity "
        "(every value): it spans 1.2 decades where a claim for every value needs 2"
    )
    assert (
        hints(
            "  - claim: C2\n    setup: full\n"
            "    sweep: {parameter: k, values: [2, 20, 200, 2000], metric: additive_term,\n"
            "            measured: [1, 1, 1, 1]}\n"
        )
        == []
    )  # the control: three decades from the regime's start


def test_empty_claims_are_those_with_nothing_in_them() -> None:
    paper = to_model(parse_yaml(PAPER, "claims/icml2026/P1.yaml"), PaperFile)
    text = logbook(
        "  - {claim: C1, setup: full, measurements: [], notes: null}\n"
        "  - {claim: C2, setup: full, notes: 'tried, gave up'}\n"
    )
    book = to_model(parse_yaml(text, "logbooks/P1/ann-1.yaml"), Logbook)
    assert empty_claims(paper, book) == ["C1", "C3"]


def test_the_live_line_is_redrawn_and_erased() -> None:
    stream = io.StringIO()
    with live_line(stream, "P1/ann-1\x1b[31m", 3600, every=0.01) as drawn:
        assert drawn.wait(30)
    text = stream.getvalue()
    assert "\rre-running" not in text  # each draw clears the line first
    assert re.search(
        r"re-running P1/ann-1\[31m: 0:0\d of at most 1:00:00 \(Ctrl-C stops it\)", text
    )
    assert "\x1b[31m" not in text  # the label is untrusted: no escape reaches the terminal
    assert text.endswith("\r\x1b[2K")


# --- with a local re-run (real bwrap) ---------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "claims" / "icml2026").mkdir(parents=True)
    (tmp_path / "claims" / "icml2026" / "P1.yaml").write_text(PAPER)
    (tmp_path / "logbooks" / "P1" / "ann-1").mkdir(parents=True)
    return tmp_path


def write(repo: Path, script: str) -> str:
    (repo / "logbooks" / "P1" / "ann-1" / "run.py").write_text(script)
    rel = "logbooks/P1/ann-1.yaml"
    (repo / rel).write_text(
        logbook(
            "  - claim: C1\n    setup: full\n    measurements:\n"
            "      - {metric: time, value: 1.8, unit: ms, per: trajectory,"
            ' source: "outputs:/C1/time"}\n',
            "code: {path: ann-1/}\nreproduce:\n  command: python run.py\n  hardware: cpu\n"
            "  timeout: 2m\n  outputs: results/metrics.json\n",
        )
    )
    return rel


@needs_bwrap
def test_check_says_when_the_command_did_not_write_its_outputs(repo: Path) -> None:
    rel = write(repo, "print('computed, but saved nothing')\n")
    result = CliRunner().invoke(cli, ["check", rel, "--repo", str(repo)])
    assert result.exit_code == 1
    assert result.output.startswith("status=fail 1 problem to fix")
    assert (
        "line 7 reproduce.outputs: the command exited 0 but did not write "
        "'results/metrics.json': every outputs: pointer resolves to nothing and each claim is "
        "inconclusive [outputs_not_written]" in " ".join(result.output.split())
    )
    assert "re-running" not in result.output  # no live line when stderr is not a terminal


@needs_bwrap
def test_check_points_a_missing_module_to_requirements(repo: Path) -> None:
    rel = write(repo, "import reproaudit_no_such_module_xyz\n")
    result = CliRunner().invoke(cli, ["check", rel, "--repo", str(repo)])
    assert result.exit_code == 1
    flat = " ".join(result.output.split())
    assert (
        "reproduce.requirements: the re-run stopped on ModuleNotFoundError: the image has no "
        "module 'reproaudit_no_such_module_xyz' [missing_module]" in flat
    )
    assert (
        "hint: list it, pinned (e.g. reproaudit_no_such_module_xyz==<version>), in a "
        "requirements file in the logbook's folder and name that file in "
        "reproduce.requirements; it is installed before the run, which has no network" in flat
    )


def test_flags_a_contributor_can_fix_fail_the_report_and_are_named() -> None:
    """Rules version 4: `check` and the report end status=ok only without them; a declared
    reduced setup expects a short sweep, a small evaluation and other hardware, not units."""
    from reproaudit.hints import fixable
    from reproaudit.report.artifact import ArtifactVerdict
    from reproaudit.report.model import build_report, outcome_sentence

    assert fixable(["short_horizon", "self_assessment_disagrees"]) == ["short_horizon"]
    assert fixable(["toy_setup", "short_horizon", "scale_short", "hardware_mismatch"]) == []
    assert fixable(["toy_setup", "unit_mismatch", "scale_suspect"]) == [
        "unit_mismatch",
        "scale_suspect",
    ]
    assert fixable(["not_rerun", "rerun_mismatch", "growth_detected", "not_addressed"]) == []
    verdict = ArtifactVerdict.model_validate(
        {
            "paper": "P",
            "logbook": "a-1",
            "claims": [
                {"claim": "C1", "verdict": "inconclusive", "flags": ["unit_mismatch"]},
                {"claim": "C2", "verdict": "toy", "flags": ["toy_setup", "short_horizon"]},
                {"claim": "C3", "verdict": "verified"},
            ],
        }
    )
    report = build_report(pr=None, head_sha="0" * 40, files=[], problems=[], verdicts=[verdict])
    assert (report.ok, report.status) == (False, "fail")
    assert outcome_sentence(report).startswith(
        "Valid, but 1 claim carries a flag you can fix (C1: unit_mismatch) at `000000000000`"
    )
    calm = verdict.model_copy(update={"claims": verdict.claims[1:]})
    assert build_report(pr=None, head_sha="0" * 40, files=[], problems=[], verdicts=[calm]).ok
