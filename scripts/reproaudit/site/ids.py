"""Ids people paste into the search box, and the pages they lead to.

A reader pastes a paper id, an OpenReview forum URL, an arXiv id or URL, a logbook id or a
contributor's handle; full-text search ranks those poorly (an id is one token among many).
So the build writes a small lookup, sharded by two characters of the normalised id
(:func:`shard`: ``ids/<shard>.json``), which the search page fetches (one request of a few
kB) before it asks Pagefind, and static lookup pages (``ids/<character>/``) that resolve the
same ids without JavaScript. :func:`normalize` is mirrored in ``reproaudit-search.js``; the tests
run both on the same inputs.

Pure: site data in, entries out.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?(?:.*&)?id=([A-Za-z0-9_-]+)", re.I)
ARXIV = re.compile(
    r"^(?:(?:https?://)?(?:www\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)?(\d{4}\.\d{4,5})(?:v\d+)?"
    r"(?:\.pdf)?/?$",
    re.I,
)
PLAIN = re.compile(r"^@?([A-Za-z0-9][A-Za-z0-9._-]{1,99})$")
SHARD_CHARS = re.compile(r"[^a-z0-9]")


@dataclass(frozen=True)
class IdEntry:
    key: str  # normalised: what the reader's text becomes
    title: str
    url: str  # site path
    kind: str  # paper, arxiv, logbook, contributor


def normalize(text: str) -> str | None:
    """The id a pasted text names, lower-cased, or None when it names no id.

    ``https://openreview.net/forum?id=Kp4rT9vQ2x`` -> ``kp4rt9vq2x``;
    ``arXiv:2602.11873v2`` and ``https://arxiv.org/abs/2602.11873`` -> ``2602.11873``;
    ``@Carol-Lin`` -> ``carol-lin``.
    """
    text = text.strip()
    found = OPENREVIEW.search(text)
    if found:
        return found[1].lower()
    found = ARXIV.match(text)
    if found:
        return found[1]
    found = PLAIN.match(text)
    return found[1].lower() if found else None


def shard(key: str) -> str:
    """The lookup file of a normalised id: two of its characters, others as ``_``.

    The first two, except for a key that starts with a digit: the last two. Every arXiv id
    of a conference starts with its year (``26``), so the first two would put them all in
    one file that a pasted arXiv id fetches whole (630 kB at 6,352 papers); their last
    digits spread them over a hundred files.
    """
    two = key[-2:] if key[:1].isdigit() else key[:2]
    return SHARD_CHARS.sub("_", two.ljust(2, "_"))


def entries(
    papers: dict[str, tuple[str, str | None]],
    logbooks: list[tuple[str, str, str]],
    people: list[str],
    urls: Mapping[str, Callable[..., str]],
) -> list[IdEntry]:
    """Every id that leads to a page.

    ``papers``: id -> (title, arXiv id); ``logbooks``: (paper, logbook, contributor);
    ``people``: handles; ``urls``: the site's path functions (``paper``, ``logbook``,
    ``person``), so this module does not depend on the page layout.
    """
    paper_url, logbook_url, person_url = urls["paper"], urls["logbook"], urls["person"]
    out = []
    for paper_id, (title, arxiv) in sorted(papers.items()):
        out.append(IdEntry(paper_id.lower(), title, paper_url(paper_id), "paper"))
        key = normalize(arxiv) if arxiv else None
        if key:
            out.append(IdEntry(key, title, paper_url(paper_id), "arxiv"))
    for paper_id, logbook_id, who in sorted(logbooks):
        title = f"Logbook {logbook_id} by @{who} ({papers[paper_id][0]})"
        url = logbook_url(paper_id, logbook_id)
        out.append(IdEntry(logbook_id.lower(), title, url, "logbook"))
    for handle in sorted(people, key=str.lower):
        out.append(IdEntry(handle.lower(), f"@{handle}", person_url(handle), "contributor"))
    return out


def shards(items: list[IdEntry]) -> dict[str, dict[str, list[list[str]]]]:
    """The lookup files: shard -> normalised id -> [[title, url, kind], ...]."""
    out: dict[str, dict[str, list[list[str]]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        out[shard(item.key)][item.key].append([item.title, item.url, item.kind])
    return {name: dict(table) for name, table in sorted(out.items())}


LOOKUP_PAGE = 1000  # ids on one static lookup page at most (about 200 kB of HTML)


@dataclass(frozen=True)
class LookupPage:
    """A static lookup page: the ids that start with ``shown``, or the narrower pages."""

    prefix: str  # its folder under ids/: the ids' first characters, others as ``_``
    shown: str  # those characters as the ids spell them
    entries: list[IdEntry]  # sorted by id; empty when the page lists narrower pages
    narrower: list[tuple[str, str]]  # (prefix, shown) of the pages it splits into


def _cut(key: str, length: int) -> str:
    return SHARD_CHARS.sub("_", key[:length].ljust(length, "_"))


def lookup_pages(items: list[IdEntry], limit: int | None = None) -> list[LookupPage]:
    """The static lookup pages, the ones of the first characters first.

    An id is looked up by its first character; a page that would list more than ``limit``
    ids (every arXiv id of a conference starts with ``26``: 6,454 at 6,352 papers) lists
    instead the pages of the shortest longer prefix that tells them apart (``2601``, ...),
    and so on down.
    """
    limit = LOOKUP_PAGE if limit is None else limit
    ordered = sorted(items, key=lambda i: (i.key, i.kind, i.url))
    pages: list[LookupPage] = []

    def place(prefix: str, length: int, group: list[IdEntry]) -> None:
        longest = max(len(i.key) for i in group)
        parts: dict[str, list[IdEntry]] = defaultdict(list)
        while len(group) > limit and length < longest and len(parts) < 2:
            length += 1
            parts = defaultdict(list)
            for item in group:
                parts[_cut(item.key, length)].append(item)
        shown = group[0].key[: len(prefix)]
        if len(parts) < 2:
            pages.append(LookupPage(prefix, shown, group, []))
            return
        narrower = [(name, part[0].key[:length]) for name, part in parts.items()]
        pages.append(LookupPage(prefix, shown, [], narrower))
        for name, part in parts.items():
            place(name, length, part)

    firsts: dict[str, list[IdEntry]] = defaultdict(list)
    for item in ordered:
        firsts[_cut(item.key, 1)].append(item)
    for first in sorted(firsts):
        place(first, 1, firsts[first])
    return sorted(pages, key=lambda page: (len(page.prefix) > 1, page.prefix))
