"""The YAML reader: plain values, line numbers, and what it refuses."""

from __future__ import annotations

import datetime as dt

import pytest

from reproaudit.errors import ReproauditError
from reproaudit.loader import field_path, parse_yaml


def codes(text: str) -> list[str]:
    with pytest.raises(ReproauditError) as info:
        parse_yaml(text, "x.yaml")
    return [p.code for p in info.value.problems]


def test_values_follow_yaml_1_2_core_schema() -> None:
    doc = parse_yaml(
        "a: yes\nb: 1e-3\nc: 0x1F\nd: ~\ne: true\nf: '3'\ng: 2026-07-21T10:00:00Z\nh: -4\n", "x"
    )
    assert doc.data == {
        "a": "yes",
        "b": 0.001,
        "c": 31,
        "d": None,
        "e": True,
        "f": "3",
        "g": dt.datetime(2026, 7, 21, 10, tzinfo=dt.UTC),
        "h": -4,
    }


def test_line_of_follows_keys_and_items() -> None:
    text = "top: 1\nresults:\n  - claim: C1\n    setup: full\n  - claim: C2\n\n    setup: full\n"
    doc = parse_yaml(text, "x")
    assert doc.line_of(("results",)) == 2
    assert doc.line_of(("results", 1)) == 5
    assert doc.line_of(("results", 1, "setup")) == 7
    # a key that is not there: the deepest line that exists
    assert doc.line_of(("results", 1, "nope")) == 5
    assert doc.line_of(("results", 9, "claim")) == 2


def test_field_path() -> None:
    assert (
        field_path(("results", 0, "measurements", 2, "unit")) == "results[0].measurements[2].unit"
    )
    assert field_path(()) == ""


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a: &x 1\nb: *x\n", "alias_not_allowed"),
        ("a: !custom 1\n", "tag_not_allowed"),
        ("a: !!binary aGVsbG8=\n", "tag_not_allowed"),
        ("a: !!set {x}\n", "tag_not_allowed"),
        ("a: 1\na: 2\n", "duplicate_key"),
        ("a: 1\n---\nb: 2\n", "multiple_documents"),
        ("", "empty_file"),
        ("# only a comment\n", "empty_file"),
        ("a: [1, 2\n", "yaml_syntax"),
        ("? [1, 2]\n: x\n", "yaml_syntax"),
    ],
)
def test_refused(text: str, code: str) -> None:
    assert codes(text) == [code]


def test_alias_bomb_stops_at_the_first_anchor_without_expanding() -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 30):
        prev = chr(ord("a") + i - 1)
        name = chr(ord("a") + i)
        levels.append(f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]")
    with pytest.raises(ReproauditError) as info:
        parse_yaml("\n".join(levels), "bomb.yaml")
    (problem,) = info.value.problems
    assert (problem.code, problem.line) == ("alias_not_allowed", 1)


def test_explicit_standard_tags_are_fine() -> None:
    assert parse_yaml("a: !!str 12\nb: !!int '7'\n", "x").data == {"a": "12", "b": 7}
