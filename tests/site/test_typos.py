"""One typo in a word still finds the page: the word lists the build writes, and the
corrections a query word gets from the few lists it reads."""

from __future__ import annotations

import itertools
import random
import string

import pytest

from reproaudit.site.typos import (
    corrections,
    query_words,
    shards_of,
    tables,
    within_one,
    words_of,
)

PAGES = [
    "Lucia Ferreyra, Near-Harmonic Robustness for Learning-Augmented Paging",
    "Ferreyra and Smith: robust paging with predictions, method MARKOV",
    "A method for sparse attention; Smith's kernels",
    "Transformers at scale",
]
# (typed, what it is searched as); shared with the browser test of the JavaScript mirror
CASES = [
    ("ferreyar", ["ferreyra"]),  # two letters swapped
    ("fereyra", ["ferreyra"]),  # one dropped
    ("ferreyyra", ["ferreyra"]),  # one added
    ("ferrayra", ["ferreyra"]),  # one substituted
    ("erreyra", ["ferreyra"]),  # the first letter dropped
    ("eferreyra", ["ferreyra"]),  # one added in front
    ("rfereyra", []),  # two typos: nothing guessed
    ("smtih", ["smith"]),
    ("mthod", ["method"]),
    ("ferreyra", None),  # indexed as it is
    ("ferr", None),  # the beginning of an indexed word: Pagefind finds it
    ("smi", None),  # too short to guess
    ("1234", None),
    ("kernals", ["kernels"]),
    ("pagign", ["paging"]),
]


@pytest.mark.parametrize(("typed", "fixed"), CASES)
def test_a_word_one_typo_away_is_corrected_from_the_lists_it_reads(
    typed: str, fixed: list[str] | None
) -> None:
    files = tables(PAGES)
    assert corrections(typed, {n: files[n] for n in shards_of(typed) if n in files}) == fixed


def test_the_most_frequent_correction_comes_first() -> None:
    files = tables(["paging", "paging again", "pacing"])
    assert corrections("paxing", files) == ["paging", "pacing"]
    assert files["pa"] == ["paging", 2, "pacing", 1]


def test_every_word_one_edit_away_shares_a_list_with_the_typed_word() -> None:
    """The guarantee the three lists per word rest on, over random words and every edit."""
    rng = random.Random(7)
    letters = string.ascii_lowercase[:6]  # a small alphabet: many near-collisions
    for _ in range(300):
        word = "".join(rng.choices(letters, k=rng.randint(4, 8)))
        for typed in _one_edit(word, letters):
            if len(typed) >= 4:
                assert set(shards_of(word)) & set(shards_of(typed)), (word, typed)
                assert within_one(typed, word) and within_one(word, typed)


def test_within_one_is_exactly_one_edit() -> None:
    assert within_one("paging", "paging")
    assert not within_one("paging", "pagnig!")
    assert not within_one("paging", "gaping")  # two substitutions
    assert not within_one("abcd", "badc")
    assert not within_one("abcdef", "abcd")
    for a, b in itertools.product(["ab", "ba", "abc", "acb", "a", "bca", "abcd"], repeat=2):
        assert within_one(a, b) == (_osa(a, b) <= 1), (a, b)
    rng = random.Random(3)
    for _ in range(3000):
        a = "".join(rng.choices("abc", k=rng.randint(1, 6)))
        b = "".join(rng.choices("abc", k=rng.randint(1, 6)))
        assert within_one(a, b) == (_osa(a, b) <= 1), (a, b)


def test_words_are_lowercase_and_four_characters_or_more() -> None:
    assert words_of("The Near-Harmonic k=8 bound, 2026 Ferreyra's") == {
        "near",
        "harmonic",
        "bound",
        "ferreyra",
    }
    assert words_of("Müller Ñandú") == {"müller", "ñandú"}


# (query, the words searched); shared with the browser test of the JavaScript mirror
LONG = [
    ("Ferreyra", ["Ferreyra"]),
    ("robust  learning paging", ["robust", "learning", "paging"]),
    (
        "Trust, Then Mark: Near-Harmonic Robustness for Learning-Augmented Paging",
        ["Near-Harmonic", "Robustness", "Learning-Augmented"],
    ),
    ("a bb cc dd", ["bb", "cc", "dd"]),  # ties: the first ones
]


@pytest.mark.parametrize(("query", "words"), LONG)
def test_a_long_query_is_searched_by_its_three_longest_words(query: str, words: list[str]) -> None:
    assert query_words(query) == words


def _one_edit(word: str, letters: str) -> set[str]:
    out = set()
    for i in range(len(word) + 1):
        for c in letters:
            out.add(word[:i] + c + word[i:])  # added
            if i < len(word):
                out.add(word[:i] + c + word[i + 1 :])  # substituted
        if i < len(word):
            out.add(word[:i] + word[i + 1 :])  # dropped
        if i < len(word) - 1:
            out.add(word[:i] + word[i + 1] + word[i] + word[i + 2 :])  # swapped
    return out


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance, the textbook table."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]
