"""A first search query stays small at conference scale: measured on a generated corpus and
scaled to 6,352 papers, it stays under 300 kB.

Of what a query downloads (``search.query_files``), only Pagefind's metadata (a few bytes
per page), the id lookup shard and the typo word lists grow with the corpus; the script, the
WebAssembly, the index chunks (Pagefind caps their size) and one fragment per result shown
do not. So the growing files are scaled by 6,352 / papers and the rest counted as measured.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reproaudit.repo import Corpus
from reproaudit.site import ids, render
from reproaudit.site.data import load_site_data
from reproaudit.site.search import BUNDLE, TYPOS, SearchIndex, query_bytes, query_files

PAPERS = 120
CONFERENCE = 6352
BUDGET = 300_000


def _generator() -> object:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus.py"
    spec = importlib.util.spec_from_file_location("reproaudit_bench_corpus", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """The search files of a generated corpus: Pagefind's bundle, id shards, typo lists."""
    tmp = tmp_path_factory.mktemp("bytes")
    _generator().generate_corpus(
        tmp / "repo",
        papers=PAPERS,
        logbooks=PAPERS * 6816 // CONFERENCE,
        claims_total=PAPERS * 36000 // CONFERENCE,
        verdicts=True,
        seed=3,
    )
    data = load_site_data(Corpus(tmp / "repo"), datetime(2026, 12, 1, tzinfo=UTC))
    site = tmp / "site"
    (site / "ids").mkdir(parents=True)
    for name, table in ids.shards(render.id_entries(data)).items():
        (site / "ids" / f"{name}.json").write_text(json.dumps(table), encoding="utf-8")
    (tmp / "work").mkdir()
    index = SearchIndex(tmp / "work", render.search_records(data))
    index.finish(site)
    return site, data


def _queries(data: object) -> list[str]:
    paper = data.papers[sorted(data.papers)[0]].paper
    surname = paper.authors[0].name.split()[-1]
    word = max(paper.title.split(), key=len)
    typo = surname[0] + surname[2] + surname[1] + surname[3:]  # two letters swapped
    arxiv = f"arXiv:{paper.links.arxiv}v2"
    return [surname, typo, word, paper.title, paper.id, arxiv, "method"]


def test_a_first_query_scaled_to_a_conference_stays_under_300_kb(indexed: tuple) -> None:
    site, data = indexed
    for query in _queries(data):
        files = query_files(site, query)
        growing = sum(
            n
            for path, n in files.items()
            if path.suffix == ".pf_meta" or path.parent.name in ("ids", TYPOS)
        )
        scaled = sum(files.values()) + growing * (CONFERENCE / PAPERS - 1)
        assert scaled < BUDGET, (query, sum(files.values()), growing, scaled)
        assert query_bytes(site, query) == sum(files.values())


def test_the_files_counted_are_the_ones_a_query_reads(indexed: tuple) -> None:
    site, data = indexed
    surname = _queries(data)[0]
    files = query_files(site, surname)
    names = {p.relative_to(site).as_posix() for p in files}
    assert {f"{BUNDLE}/pagefind.js", f"{BUNDLE}/pagefind-entry.json"} <= names
    assert any(n.endswith(".pf_meta") for n in names)
    assert any(n.startswith(f"{BUNDLE}/index/") for n in names)  # the word's chunk
    fragments = [n for n in names if n.startswith(f"{BUNDLE}/fragment/")]
    assert 1 <= len(fragments) <= 10  # one per result shown
    assert any(n.startswith(f"{TYPOS}/") for n in names)
    # JSON counts as GitHub Pages serves it, gzipped
    entry = site / BUNDLE / "pagefind-entry.json"
    assert files[entry] < entry.stat().st_size
