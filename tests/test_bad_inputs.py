"""Each broken input in tests/data/bad/ gets exit 1 and exactly the message beside it.

A case is `<name>.yaml`, whose first line `# at: <path>` says where in the mini
repository it is placed, and `<name>.txt`, the exact output of
`reproaudit validate <path>`. Regenerate after a deliberate wording change with
`REPROAUDIT_REGEN=1 pytest tests/test_bad_inputs.py` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli

BAD = Path(__file__).parent / "data" / "bad"
CASES = sorted(p.stem for p in BAD.glob("*.yaml"))


def place(repo: Path, case: str) -> str:
    source = BAD / f"{case}.yaml"
    first = source.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# at: "), f"{source}: first line must be '# at: <path>'"
    rel = first.removeprefix("# at: ").strip()
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_bytes(source.read_bytes())
    return rel


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_reported_exactly(mini_repo: Path, case: str) -> None:
    rel = place(mini_repo, case)
    before = sorted(p.relative_to(mini_repo) for p in mini_repo.rglob("*"))
    result = CliRunner().invoke(cli, ["validate", rel, "--repo", str(mini_repo)])
    expected_file = BAD / f"{case}.txt"
    if os.environ.get("REPROAUDIT_REGEN"):
        expected_file.write_text(result.output, encoding="utf-8")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.output == expected_file.read_text(encoding="utf-8")
    after = sorted(p.relative_to(mini_repo) for p in mini_repo.rglob("*"))
    assert before == after, "validate must not write anything"


def test_every_case_has_its_expected_message() -> None:
    assert CASES, "no bad-input cases found"
    for case in CASES:
        assert (BAD / f"{case}.txt").is_file(), f"{case}.yaml has no {case}.txt beside it"


def test_oversized_file_is_refused_before_parsing(mini_repo: Path) -> None:
    rel = "logbooks/Tq7mV2pLx0/big-1.yaml"
    with open(mini_repo / rel, "w", encoding="utf-8") as handle:
        handle.write("logbook:\n  id: big-1\nresults:\n")
        handle.write(("  - {claim: C1, setup: full, notes: '" + "x" * 200 + "'}\n") * 27_000)
    assert (mini_repo / rel).stat().st_size > 6_000_000
    result = CliRunner().invoke(cli, ["validate", rel, "--repo", str(mini_repo)])
    assert result.exit_code == 1
    assert result.output.startswith(
        "logbooks/Tq7mV2pLx0/big-1.yaml: file is 6.5 MB, over the 1 MiB limit for data files"
    )


def test_a_unit_that_carries_its_per_gets_a_warning_with_the_fix(mini_repo: Path) -> None:
    rel = "logbooks/Tq7mV2pLx0/bob-1.yaml"
    (mini_repo / rel).write_text(
        "logbook: {id: bob-1, paper: Tq7mV2pLx0, claims_version: 2, contributor: {github: bob}}\n"
        "results:\n"
        "  - claim: C2\n"
        "    setup: full\n"
        "    measurements:\n"
        "      - {metric: step_time, value: 3.5, unit: ms / trajectory}\n"
        "      - {metric: step_time, value: 3.5, unit: image / s}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli, ["validate", rel, "--repo", str(mini_repo)])
    assert result.exit_code == 0  # a warning: valid, but probably not what was meant
    assert result.output == (
        "logbooks/Tq7mV2pLx0/bob-1.yaml:6: warning: results[0].measurements[0].unit: "
        "unit 'ms / trajectory' carries what the number is per [unit_carries_per]\n"
        "  hint: say what it is per in `per`, not in the unit: unit: ms, per: trajectory\n"
        "2 files checked: 0 error(s), 1 warning(s)\n"
    )


def test_every_pattern_of_the_models_is_explained_in_words() -> None:
    from reproaudit.datafiles import FILES, _submodels
    from reproaudit.loader import PATTERN_WORDS

    patterns: set[str] = set()
    seen: set[type] = set()

    def collect(meta) -> None:
        for item in meta:
            if getattr(item, "pattern", None):
                patterns.add(item.pattern)
            collect(getattr(item, "metadata", []) or [])

    def walk(model) -> None:
        if model in seen:
            return
        seen.add(model)
        for info in model.model_fields.values():
            collect(info.metadata)
            for arg in _flatten(info.annotation):
                collect(getattr(arg, "__metadata__", ()))
            for sub, _ in _submodels(info.annotation):
                walk(sub)

    for kind in FILES:
        walk(kind.model)
    assert patterns and patterns <= set(PATTERN_WORDS), patterns - set(PATTERN_WORDS)


def _flatten(annotation):
    from typing import get_args

    yield annotation
    for arg in get_args(annotation):
        yield from _flatten(arg)
