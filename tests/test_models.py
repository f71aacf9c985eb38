"""Models: strict types, unknown fields refused, cross-field rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reproaudit.models import (
    Code,
    Logbook,
    Measurement,
    Review,
    Sweep,
    Target,
    field_names,
    json_schemas,
    parse_duration,
)
from reproaudit.units import convert, normalise_per, parse_unit


def test_string_is_not_a_number_and_bool_is_not_either() -> None:
    for bad in ("2.5", True):
        with pytest.raises(ValidationError):
            Measurement.model_validate({"metric": "m", "value": bad})
    assert Measurement.model_validate({"metric": "m", "value": 2}).value == 2.0


def test_measurement_needs_a_value_or_a_source() -> None:
    with pytest.raises(ValidationError, match="give a 'value', a 'source'"):
        Measurement.model_validate({"metric": "m"})
    assert Measurement.model_validate({"metric": "m", "source": "outputs:/C1/m"}).value is None
    with pytest.raises(ValidationError):
        Measurement.model_validate({"metric": "m", "source": "file:/etc/passwd"})


def test_code_is_a_repo_at_a_full_commit_or_a_path() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert Code.model_validate({"repo": "https://github.com/a/b", "commit": sha}).commit == sha
    assert Code.model_validate({"path": "x-1/"}).path == "x-1/"
    with pytest.raises(ValidationError, match="40-character"):
        Code.model_validate({"repo": "https://github.com/a/b", "commit": sha[:12]})
    with pytest.raises(ValidationError, match="40-character"):
        Code.model_validate({"repo": "https://github.com/a/b", "commit": sha.upper()})
    with pytest.raises(ValidationError, match="not both"):
        Code.model_validate({"repo": "https://github.com/a/b", "commit": sha, "path": "x/"})
    with pytest.raises(ValidationError, match="give 'repo' and 'commit'"):
        Code.model_validate({"repo": "https://github.com/a/b"})


def test_targets_need_values_except_bounded() -> None:
    assert Target.model_validate({"metric": "m", "form": "bounded"}).value is None
    with pytest.raises(ValidationError, match="needs a numeric 'value'"):
        Target.model_validate({"metric": "m", "form": "equal"})


def test_units_are_checked_with_pint() -> None:
    Target.model_validate({"metric": "t", "form": "at_most", "value": 1, "unit": "image / s"})
    with pytest.raises(ValidationError, match="not a unit pint understands"):
        Target.model_validate({"metric": "t", "form": "at_most", "value": 1, "unit": "parsecz"})
    assert convert(410, "ms", "s") == pytest.approx(0.41)
    assert str(parse_unit("percent")) == "percent"
    assert normalise_per("Batch  of 50") == "batch of 50"


def test_sweep_lists_must_pair_up() -> None:
    assert Sweep.model_validate({"parameter": "k", "source": "outputs:/C1/sweep"}).values is None
    with pytest.raises(ValidationError, match="'values' has 2 entries"):
        Sweep.model_validate({"parameter": "k", "values": [1, 2], "measured": [1]})


def test_review_stance_must_fit_its_kind() -> None:
    base = {"claim": "C1", "logbook": "a-1", "by": "m", "at": "2026-07-01T00:00:00Z"}
    Review.model_validate({**base, "kind": "review", "stance": "confirm"})
    Review.model_validate({**base, "kind": "author_response", "stance": "fixed"})
    with pytest.raises(ValidationError, match="takes stance confirm or reject"):
        Review.model_validate({**base, "kind": "review", "stance": "agree"})


def test_unknown_fields_are_errors() -> None:
    with pytest.raises(ValidationError, match="self_asessment"):
        Logbook.model_validate(
            {
                "logbook": {
                    "id": "a-1",
                    "paper": "P1",
                    "claims_version": 1,
                    "contributor": {"github": "a"},
                },
                "results": [{"claim": "C1", "setup": "full", "self_asessment": "verified"}],
            }
        )


def test_durations() -> None:
    assert parse_duration("2h") == 7200
    assert parse_duration("1h30m") == 5400
    assert parse_duration("90s") == 90
    for bad in ("", "2 hours", "h"):
        with pytest.raises(ValueError, match="not a duration"):
            parse_duration(bad)


def test_json_schemas_forbid_extra_fields_and_list_enums() -> None:
    schemas = json_schemas()
    assert set(schemas) == {"paper", "logbook", "verdict", "reviews", "mentions"}
    logbook = schemas["logbook"]
    assert logbook["additionalProperties"] is False
    result = logbook["$defs"]["Result"]
    assert result["additionalProperties"] is False
    assert "toy" in str(result["properties"]["self_assessment"])
    assert "regime" in str(schemas["paper"]) and '"from"' in str(schemas["paper"]).replace("'", '"')
    assert {"self_assessment", "claims_version", "from", "human_in_loop"} <= field_names()


def test_one_line_refuses_exactly_control_bidi_and_line_break_characters() -> None:
    """The one-pass check against its definition, over every code point: Unicode's control
    characters (category Cc), bidirectional overrides and isolates, line separators."""
    import sys
    import unicodedata

    from reproaudit.models import _BIDI, _LINE_BREAKS, check_one_line

    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        bad = ch in _BIDI or ch in _LINE_BREAKS or unicodedata.category(ch) == "Cc"
        if not bad:
            assert check_one_line(f"a{ch}b") == f"a{ch}b"
        else:
            with pytest.raises(ValueError, match="position 1;"):
                check_one_line(f"a{ch}b{ch}")
