"""Units: pers compared singular and plural alike, and pers carried by a unit folded out."""

from __future__ import annotations

import pytest

from reproaudit.units import convert, normalise_per, parse_unit, singular, split_per


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("token", "tokens"),
        ("Token", "TOKENS"),
        ("trajectory", "trajectories"),
        ("query", "queries"),
        ("image", "images"),
        ("Batch of  50", "batch of 50"),
        ("batch of 50", "batches of 50"),
        ("forward pass", "forward passes"),
        ("second", "s"),  # pint knows both spellings of a unit
        ("GPU hour", "GPU hours"),
    ],
)
def test_equal_pers(a: str, b: str) -> None:
    assert normalise_per(a) == normalise_per(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("token", "image"),
        ("batch of 50", "batch of 5"),
        ("batch", "batch of 50"),
        ("trajectory", "step"),
        ("process", "proces"),  # a singular in -ss is not a plural
        ("analysis", "analysi"),
    ],
)
def test_different_pers(a: str, b: str) -> None:
    assert normalise_per(a) != normalise_per(b)


def test_no_per() -> None:
    assert normalise_per(None) is None
    assert normalise_per("   ") is None


@pytest.mark.parametrize(
    ("word", "one"),
    [
        ("tokens", "token"),
        ("queries", "query"),
        ("days", "day"),  # a vowel before -ys: just the s
        ("batches", "batch"),
        ("boxes", "box"),
        ("classes", "class"),
        ("responses", "response"),
        ("class", "class"),
        ("corpus", "corpus"),
        ("basis", "basis"),
        ("physics", "physics"),
        ("50", "50"),
        ("is", "is"),
    ],
)
def test_singular(word: str, one: str) -> None:
    assert singular(word) == one


@pytest.mark.parametrize(
    ("unit", "per", "folded"),
    [
        ("MB / token", None, ("megabyte", "token")),
        ("kB/tokens", None, ("kilobyte", "token")),
        ("ms / trajectory", None, ("millisecond", "trajectory")),
        ("MB", None, ("MB", None)),
        ("token / s", None, ("token / s", None)),  # a count in the numerator is a rate
        ("MB / token", "batch of 50", ("MB / token", "batch of 50")),  # a stated per wins
        ("MB / token / image", None, ("MB / token / image", None)),  # two counts: ambiguous
        (None, None, ("dimensionless", None)),
    ],
)
def test_split_per(unit: str | None, per: str | None, folded: tuple) -> None:
    assert split_per(unit, per) == folded


def test_folded_units_still_convert() -> None:
    unit, per = split_per("kB / token", None)
    assert convert(1500, unit, "MB") == pytest.approx(1.5)
    assert per == "token"


def test_irregular_plural_count_units_parse() -> None:
    assert parse_unit("trajectories / s") == parse_unit("trajectory / s")
    assert parse_unit("queries") == parse_unit("query")


@pytest.mark.parametrize(
    ("text", "sizes"),
    [
        ("91.2% accuracy on 20,000 test images", {"n_test": 20000.0}),
        ("on the 10k held-out samples", {"n_test": 10000.0}),
        ("a test set of 5000 sentences", {"n_test": 5000.0}),
        ("trained on 1.2M training examples for 100k steps", {"n_train": 1.2e6, "steps": 1e5}),
        ("4,096 tokens per batch with 64 experts", {}),  # no evaluation size
        ("8 times faster on one A100", {}),
    ],
)
def test_the_sizes_an_evaluations_words_name(text: str, sizes: dict[str, float]) -> None:
    from reproaudit.units import scale_of

    assert scale_of(text) == sizes
