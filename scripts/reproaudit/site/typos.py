"""One typo in a word still finds the page: the site's word list, split so a query loads little.

Pagefind matches words exactly (and as prefixes), so ``Ferreyar`` finds nothing. The build
also writes every indexed word of 4 or more characters into small lookup files; the search
page fetches the files a query word could be one typo away from, corrects the word to the
indexed words within one edit (a letter substituted, added, dropped, or two neighbours
swapped) and asks Pagefind again with the correction, listing those results after the exact
ones.

Which files: two words one edit apart share a string each reaches by dropping at most one
letter (``smith`` and ``smtih`` both give ``smih``). A word is filed under the first two
characters of every such string of its own: its first two, its second and third (first
letter dropped), its first and third (second letter dropped) -- at most three files. A query
word reads the same three of its own, so every word one edit from it is in a file it reads.
Each file lists its words by how many pages hold them, most first, with that count.

:func:`query_words`, :func:`words_of`, :func:`shards_of`, :func:`within_one` and
:func:`corrections` are mirrored in
``reproaudit-search.js``; the tests run both on the same inputs. Pure: text in, tables out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from .ids import shard

MIN_LENGTH = 4  # a shorter word has too many neighbours one edit away to guess from
MAX_LENGTH = 40
PER_WORD = 3  # corrections tried per query word, the most frequent first
MAX_WORDS = 3  # words of a query searched: each costs Pagefind an index chunk (~20 kB)
WORD = re.compile(r"[^\W_]+")


def query_words(query: str) -> list[str]:
    """The words the search page asks for: all of a short query, the three longest of a longer
    one (a pasted title's long words find it; "of" and "the" would cost a chunk each)."""
    words = query.split()
    if len(words) <= MAX_WORDS:
        return words
    keep = sorted(range(len(words)), key=lambda i: (-len(words[i]), i))[:MAX_WORDS]
    return [words[i] for i in sorted(keep)]


def words_of(text: str) -> set[str]:
    """The words of ``text`` worth correcting to: lower-cased, 4 to 40 characters, with a letter."""
    return {
        w
        for w in WORD.findall(text.lower())
        if MIN_LENGTH <= len(w) <= MAX_LENGTH and not w.isdigit()
    }


def shards_of(word: str) -> list[str]:
    """The lookup files a word is filed under and a query word reads (one to three)."""
    keys = [word[:2], word[1:3], word[0] + word[2:3]]
    return sorted({shard(k) for k in keys})


def within_one(a: str, b: str) -> bool:
    """True when ``b`` is ``a`` with at most one letter substituted, added or dropped, or two
    neighbouring letters swapped (optimal string alignment distance <= 1)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if a[i + 1 :] == b[i + 1 :]:
            return True  # one substituted
        return a[i : i + 2] == b[i : i + 2][::-1] and a[i + 2 :] == b[i + 2 :]  # swapped
    if len(a) > len(b):
        return a[i + 1 :] == b[i:]  # one dropped from a
    return a[i:] == b[i + 1 :]  # one added to a


def tables(texts: Iterable[str]) -> dict[str, list[str | int]]:
    """The lookup files: shard -> ``[word, pages, word, pages, ...]``, most pages first.

    ``texts``: the searchable text of each page, one string per page.
    """
    pages: Counter[str] = Counter()
    for text in texts:
        pages.update(words_of(text))
    out: dict[str, list[tuple[int, str]]] = {}
    for word, count in pages.items():
        for name in shards_of(word):
            out.setdefault(name, []).append((-count, word))
    return {
        name: [item for neg, word in sorted(rows) for item in (word, -neg)]
        for name, rows in sorted(out.items())
    }


def corrections(word: str, files: dict[str, list[str | int]]) -> list[str] | None:
    """What a query word should be searched as, given the lookup files it reads.

    None when the word needs no correction: too short to guess, indexed as it is, or the
    beginning of an indexed word (Pagefind matches prefixes). Otherwise the indexed words one
    edit away, the most frequent first, at most :data:`PER_WORD` (an empty list: none).
    """
    word = word.lower()
    if len(word) < MIN_LENGTH or not words_of(word):
        return None
    found: dict[str, int] = {}
    for name in shards_of(word):
        row = files.get(name, [])
        for term, count in zip(row[::2], row[1::2], strict=True):
            assert isinstance(term, str) and isinstance(count, int)
            if term.startswith(word):
                return None
            if within_one(word, term):
                found[term] = count
    return sorted(found, key=lambda t: (-found[t], t))[:PER_WORD]
