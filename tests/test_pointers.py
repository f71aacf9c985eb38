"""`outputs:` pointers: one RFC 6901 resolver (jsonpointer) behind validate, check and the judge.

A hand-written resolver beside the library once took ``²`` for a list index
(``str.isdigit``) and crashed ``check`` with exit 3 on a pointer ``validate``
had passed. Every reader now resolves through ``pointers.py``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonpointer import JsonPointer, JsonPointerException

from reproaudit.cli import cli
from reproaudit.judge.points import rerun_number
from reproaudit.judge.rules import Rerun, judge_claim
from reproaudit.models import Claim, Result
from reproaudit.pointers import MISSING, SOURCE_PATTERN, explain_missing, resolve_pointer
from tests.conftest import needs_bwrap

ROOT = Path(__file__).resolve().parents[1]
ERIN = "logbooks/Zm7Lw_3HqE/erin-asd-1.yaml"
OUTPUTS = {"C1": {"l": [10, 20, 30], "first_violation_step": 225}, "a~b": {"c/d": 225}}
# pointers RFC 6901 reads as "nothing here" in OUTPUTS, though each looks like an index
NOWHERE = ["/C1/l/²", "/C1/l/01", "/C1/l/-", "/C1/l/3", "/C1/l/-1", "/C1/l/1e0", "/C1/l/ 1"]


@pytest.mark.parametrize("pointer", NOWHERE)
def test_a_list_index_that_is_not_canonical_resolves_to_nothing(pointer: str) -> None:
    assert resolve_pointer(OUTPUTS, pointer) is MISSING
    message, hint = explain_missing(OUTPUTS, "outputs:" + pointer)  # no ValueError on "²"
    assert "points at nothing" in message
    assert "index it with 0 to 2" in hint or "did you mean outputs:/C1/l/" in hint


def test_escapes_and_canonical_indices_resolve() -> None:
    assert resolve_pointer(OUTPUTS, "/a~0b/c~1d") == 225
    assert resolve_pointer(OUTPUTS, "/C1/l/0") == 10
    assert resolve_pointer(OUTPUTS, "/C1/l/2") == 30
    assert explain_missing(OUTPUTS, "outputs:/a~0b/c~1d") is None
    # "~1" decodes after "~0": "~01" is the key "~1", never "/"
    assert resolve_pointer({"~1": 1, "/": 2}, "/~01") == 1


@pytest.mark.parametrize(
    "pointer",
    ["", "/", "/a", "/a~0b", "/a~1b", "/~01", "/l/01", "/l/²", "/l/-", "/a~2", "/a~", "a", "/~x"],
)
def test_the_models_pattern_is_the_librarys_syntax(pointer: str) -> None:
    """What `validate` refuses (the pattern) is exactly what jsonpointer refuses to parse."""
    try:
        JsonPointer(pointer)
        parses = True
    except JsonPointerException:
        parses = False
    assert bool(re.fullmatch(SOURCE_PATTERN, "outputs:" + pointer)) is parses


@pytest.mark.parametrize("pointer", NOWHERE)
def test_the_judge_flags_missing_outputs_for_such_an_index(pointer: str) -> None:
    claim = Claim.model_validate(
        {
            "id": "C1",
            "statement": "s",
            "anchor": "a",
            "kind": "empirical",
            "target": {"metric": "x", "form": "at_least", "value": 1, "unit": "dimensionless"},
        }
    )
    result = Result.model_validate(
        {
            "claim": "C1",
            "setup": "full",
            "measurements": [{"metric": "x", "source": "outputs:" + pointer}],
        }
    )
    judged = judge_claim(claim, result, Rerun("passed", OUTPUTS))
    assert "missing_outputs" in judged.flags
    assert rerun_number(OUTPUTS, "outputs:" + pointer) is None


def repo_with_sources(tmp_path: Path, sources: list[str]) -> Path:
    """Erin's logbook with one measurement per source, and a script that writes OUTPUTS."""
    repo = tmp_path / "repo"
    for name in ("claims", "logbooks"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    book = repo / ERIN
    lines = "".join(
        f"      - {{metric: first_violation_step, value: 225, unit: step, at: {{x0: 2.96}},\n"
        f'         source: "outputs:{s}"}}\n'
        for s in sources
    )
    text = book.read_text()
    anchor = "    measurements:\n"
    book.write_text(text.replace(anchor, anchor + lines, 1))
    script = repo / "logbooks/Zm7Lw_3HqE/erin-asd-1/find_violation.py"
    script.write_text(
        "import json, os\nos.makedirs('results', exist_ok=True)\n"
        f"json.dump({OUTPUTS!r}, open('results/metrics.json', 'w'))\n"
    )
    return repo


def test_validate_passes_such_pointers_and_refuses_a_bad_escape(tmp_path: Path) -> None:
    repo = repo_with_sources(tmp_path, ["/C1/l/²", "/C1/l/01", "/C1/l/-", "/a~0b/c~1d"])
    ok = CliRunner().invoke(cli, ["validate", ERIN, "--repo", str(repo)])
    assert ok.exit_code == 0, ok.output
    bad = repo_with_sources(tmp_path / "bad", ["/a~2b"])
    refused = CliRunner().invoke(cli, ["validate", ERIN, "--repo", str(bad)])
    assert refused.exit_code == 1, refused.output
    assert "'outputs:/a~2b' is not valid" in refused.output
    assert "write '~' as ~0 and a '/' inside a key as ~1" in refused.output
    checked = CliRunner().invoke(cli, ["check", ERIN, "--repo", str(bad), "--no-rerun"])
    assert checked.exit_code == 1, checked.output  # the same problem, never exit 3
    assert "'outputs:/a~2b' is not valid" in checked.output


@needs_bwrap
def test_check_names_each_pointer_that_leads_nowhere_instead_of_crashing(tmp_path: Path) -> None:
    sources = ["/C1/l/²", "/C1/l/01", "/C1/l/-", "/C1/l/3", "/a~0b/c~1d"]
    repo = repo_with_sources(tmp_path, sources)
    result = CliRunner().invoke(cli, ["check", ERIN, "--repo", str(repo)])
    assert result.exit_code == 1, result.output  # a named problem, not exit 3
    assert "Traceback" not in result.output
    out = " ".join(result.output.split())
    for source in sources[:-1]:
        assert f"'outputs:{source}' points at nothing in the outputs the re-run wrote" in out
        assert "[pointer_not_found]" in out
    assert "'outputs:/a~0b/c~1d' points" not in out
