"""Ids pasted into the search box: what each names, and the lookup files the build writes."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from reproaudit.site.ids import IdEntry, lookup_pages, normalize, shard

# (pasted text, the id it names); shared with the browser test of the JavaScript mirror
CASES = [
    ("Kp4rT9vQ2x", "kp4rt9vq2x"),
    ("  https://openreview.net/forum?id=Kp4rT9vQ2x  ", "kp4rt9vq2x"),
    ("openreview.net/pdf?id=Zm7Lw_3HqE", "zm7lw_3hqe"),
    ("https://openreview.net/forum?noteId=x&id=r8GdN2-yUc", "r8gdn2-yuc"),
    ("2602.11873", "2602.11873"),
    ("arXiv:2602.11873v2", "2602.11873"),
    ("https://arxiv.org/abs/2602.11873v3", "2602.11873"),
    ("https://arxiv.org/pdf/2602.11873.pdf", "2602.11873"),
    ("carol-paging-1", "carol-paging-1"),
    ("@Carol-Lin", "carol-lin"),
    ("robust paging", None),
    ("<script>", None),
    ("x", None),
]


@pytest.mark.parametrize(("text", "key"), CASES)
def test_normalize_names_the_id_a_pasted_text_means(text: str, key: str | None) -> None:
    assert normalize(text) == key


def test_shards_are_two_safe_characters() -> None:
    assert shard("kp4rt9vq2x") == "kp"
    assert shard("2602.11873") == "73"  # an arXiv id by its last digits, not its year
    assert shard("3dgs-1") == "_1" and shard("7") == "7_"
    assert shard("z_") == "z_" and shard("a.b") == "a_"


def test_the_build_writes_each_id_into_its_shard(built: Path) -> None:
    table = json.loads((built / "ids" / "kp.json").read_text())
    assert table["kp4rt9vq2x"] == [
        [
            "Trust, Then Mark: Near-Harmonic Robustness for Learning-Augmented Paging",
            "papers/Kp4rT9vQ2x/",
            "paper",
        ]
    ]
    arxiv = json.loads((built / "ids" / "73.json").read_text())
    assert [hit[1] for hit in arxiv["2602.11873"]] == ["papers/Kp4rT9vQ2x/"]
    people = json.loads((built / "ids" / "ca.json").read_text())
    assert people["carol-lin"] == [["@carol-lin", "people/carol-lin/", "contributor"]]
    assert people["carol-paging-1"][0][1] == "papers/Kp4rT9vQ2x/carol-paging-1/"
    # without JavaScript: a static page per first character links every id
    page = (built / "ids" / "c" / "index.html").read_text()
    assert 'href="../../people/carol-lin/"' in page
    assert 'href="../../papers/Kp4rT9vQ2x/carol-paging-1/"' in page


def _arxiv_heavy() -> list[IdEntry]:
    """A conference's shape: every arXiv id starts with its year, other ids spread out."""
    out = [
        IdEntry(f"26{m:02d}.{n:05d}", f"P{m}-{n}", f"papers/P{m}x{n}/", "arxiv")
        for m in (1, 2, 5)
        for n in range(0, 9000, 300)
    ]
    out += [
        IdEntry(f"{c}{i}x", f"{c}{i}", f"people/{c}{i}/", "contributor")
        for c in "abc"
        for i in range(5)
    ]
    out.append(IdEntry("26", "short", "people/26/", "contributor"))  # as long as a prefix
    return out


def test_a_lookup_page_too_long_splits_by_the_characters_that_follow() -> None:
    items = _arxiv_heavy()
    pages = {p.prefix: p for p in lookup_pages(items, limit=12)}
    top = [p for p in pages if len(p) == 1]
    assert top == ["2", "a", "b", "c"]
    two = pages["2"]
    assert two.entries == [] and [s for _, s in two.narrower] == ["26", "260"]  # "26" is an id
    assert [s for _, s in pages["260"].narrower] == ["2601", "2602", "2605"]
    assert pages["2601"].entries == [] and pages["2601_00"].entries  # 2601.00..., 2601.01...
    # every id is listed once, on a page of at most 12 whose prefix it starts with, and that
    # page is reached from its first character's page through the narrower ones
    listed = [(e, p) for p in pages.values() for e in p.entries]
    assert sorted(e.key for e, _ in listed) == sorted(i.key for i in items)
    for entry, page in listed:
        assert len(page.entries) <= 12 and entry.key.startswith(page.shown)
        path, at = [page.prefix], page.prefix
        while len(at) > 1:
            at = next(p.prefix for p in pages.values() if at in dict(p.narrower))
            path.append(at)
        assert path[-1] == entry.key[0]
    # control: under the limit, one page per first character
    assert [p.prefix for p in lookup_pages(items, limit=1000)] == ["2", "a", "b", "c"]


def test_the_static_lookup_leads_to_every_id_through_its_links(tmp_path: Path) -> None:
    """Built with a page limit of three: from ids/, the links of a reader who knows the id
    (its first character, then the narrower prefixes it starts with) reach a row naming it
    and linking its page."""
    import re

    from reproaudit.site import ids as ids_module
    from reproaudit.site import render
    from reproaudit.site.build import build_site
    from tests.site.conftest import NOW, site_repo

    old = ids_module.LOOKUP_PAGE
    ids_module.LOOKUP_PAGE = 3
    try:
        out = build_site(site_repo(tmp_path), tmp_path / "site", now=NOW, search=False).out
    finally:
        ids_module.LOOKUP_PAGE = old
    from reproaudit.repo import Corpus
    from reproaudit.site.data import load_site_data

    data = load_site_data(Corpus(tmp_path / "repo"), NOW)
    items = render.id_entries(data)
    deeper = 0
    for item in items:
        row = re.compile(
            rf"<code>{re.escape(html.escape(item.key))}</code></td><td>"
            rf'{item.kind}</td><td><a href="([^"]+)">'
        )
        folder = out / "ids"
        page = (folder / "index.html").read_text()
        for _ in range(12):
            links = {
                html.unescape(text).rstrip("…").lower(): href
                for href, text in re.findall(r'<li><a href="([^"]+)"[^>]*>([^<]+)</a></li>', page)
            }
            step = max((k for k in links if item.key.startswith(k)), key=len, default=None)
            if row.search(page) or step is None:
                break
            folder = (folder / links[step]).resolve()
            page = (folder / "index.html").read_text()
            deeper += "than one page lists" in page
        found = row.search(page)
        assert found, item
        target = (folder / found[1]).resolve()
        assert target == (out / item.url).resolve(), (item, target)
        assert (target / "index.html").is_file()
    assert deeper  # some ids were found only on a narrower page
