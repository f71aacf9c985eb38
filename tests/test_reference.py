"""Generated reference files are committed and up to date; every code is documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from reproaudit.problems import CODES
from reproaudit.reference import reference_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("rel", sorted(reference_files()))
def test_reference_file_is_up_to_date(rel: str) -> None:
    path = ROOT / rel
    assert path.is_file(), f"{rel} is missing: run `python -m reproaudit.reference`"
    assert path.read_text(encoding="utf-8") == reference_files()[rel], (
        f"{rel} is out of date: run `python -m reproaudit.reference` and commit it"
    )


def test_every_problem_code_is_documented() -> None:
    for code in CODES.values():
        assert len(code.doc) > 40, f"{code.name} needs a docstring that says what, why and how"


def test_every_problem_code_is_raised_somewhere() -> None:
    source = "".join(p.read_text() for p in (ROOT / "scripts/reproaudit").rglob("*.py"))
    for name in CODES:
        constant = name.upper()
        assert source.count(f"P.{constant}") >= 1, f"{name} is registered but never used"


def test_every_verdict_and_flag_is_explained_with_a_heading() -> None:
    from reproaudit.models import FLAGS, VERDICTS

    page = (ROOT / "scripts/reproaudit/site/docs/verdicts-and-flags.md").read_text(encoding="utf-8")
    for name in (*VERDICTS, *FLAGS):
        assert f"### `{name}`" in page, f"verdicts-and-flags.md does not explain {name}"
