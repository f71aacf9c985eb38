"""Generated reference files are committed and up to date; every code is documented."""

from __future__ import annotations

import string
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
    """Each code has its own heading on the reference page, then its severity and a doc
    made of whole sentences that says more than the code's name."""
    page = (ROOT / "scripts/reproaudit/site/docs/reference/problem-codes.md").read_text("utf-8")
    for code in CODES.values():
        words = code.name.replace("_", " ")
        starts = code.doc[0] in "`" + string.ascii_uppercase
        assert starts and code.doc.endswith((".", ")")), f"{code.name}: not whole sentences"
        assert code.doc.lower().rstrip(".") != words, f"{code.name}: the doc only repeats it"
        assert f"## `{code.name}`\n\n*{code.severity}*. {code.doc}\n" in page, code.name


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


def _all_models():
    from reproaudit.datafiles import FILES, _submodels

    seen: list = []

    def walk(model) -> None:
        if model in seen:
            return
        seen.append(model)
        for info in model.model_fields.values():
            for sub, _ in _submodels(info.annotation):
                walk(sub)

    for kind in FILES:
        walk(kind.model)
    return seen


def test_every_field_of_every_data_file_has_a_description() -> None:
    missing = [
        f"{model.__name__}.{name}"
        for model in _all_models()
        for name, info in model.model_fields.items()
        if len((info.description or "").split()) < 2
    ]
    assert not missing, (
        "add a docstring line under each field in models.py (it is the field's description "
        f"in the data-file reference): {', '.join(missing)}"
    )


def test_every_field_has_an_example_and_the_examples_are_valid() -> None:
    from reproaudit.datafiles import FILES, example_document, field_rows

    for kind in FILES:
        kind.model.model_validate(example_document(kind))
        rows = field_rows(kind)
        assert rows
        without = [row.path for row in rows if row.example is None]
        assert not without, f"{kind.name}: no example for {without}; extend {kind.example}"


def test_run_json_has_one_model_for_writing_reading_and_the_reference() -> None:
    from reproaudit import datafiles, models, reproduce

    assert reproduce.RunRecord is models.RunRecord
    assert models.RunRecord in [kind.model for kind in datafiles.FILES]


def test_the_data_file_reference_names_every_field_and_is_on_the_site() -> None:
    page = (ROOT / "scripts/reproaudit/site/docs/reference/data-files.md").read_text()
    for needle in (
        "`results[].sweep.source`",
        "`results[].falsification.argument`",
        "`claims[].regime.to`",
        "`results[].measurements[].per`",
        "`status`",
        "`log_tail`",
        "`reviews[].stance`",
        "`input_sha256`",
    ):
        assert needle in page
    nav = (ROOT / "scripts/reproaudit/site/mkdocs.yml").read_text()
    assert "reference/data-files.md" in nav
