"""Citations of a paper page: BibTeX, Highwire tags and schema.org JSON-LD, escaped for where
each lands, and present in the built page's head."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from reproaudit.models import PaperMeta
from reproaudit.site.cite import cite_paper, head_html, year_of

HOSTILE = PaperMeta.model_validate(
    {
        "id": "Xy_1-2",
        "title": 'Attention </script><script>alert(1)</script> & "Quotes" {x}_%',
        "venue": "ICML 2026",
        "links": {"arxiv": "2606.01234", "pdf": "https://example.org/p.pdf?a=1&b=2"},
        "authors": [{"name": "Zoë O'Brien"}, {"name": "Li Wei"}],
    }
)


class Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.meta: list[tuple[str, str]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("name") or "").startswith("citation_"):
            self.meta.append((a["name"] or "", a.get("content") or ""))
        self._in_script = tag == "script" and a.get("type") == "application/ld+json"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def parse(markup: str) -> Head:
    head = Head()
    head.feed(markup)
    return head


def test_head_markup_round_trips_a_hostile_title_and_cannot_close_its_script() -> None:
    citation = cite_paper(HOSTILE, "https://audit.example.org/papers/Xy_1-2/")
    markup = head_html(citation)
    assert "</script><script>" not in markup
    head = parse(markup)
    assert ("citation_title", HOSTILE.title) in head.meta
    assert [v for k, v in head.meta if k == "citation_author"] == ["Zoë O'Brien", "Li Wei"]
    assert ("citation_pdf_url", "https://example.org/p.pdf?a=1&b=2") in head.meta
    assert ("citation_publication_date", "2026") in head.meta
    (script,) = head.scripts
    data = json.loads(script)
    assert data["@type"] == "ScholarlyArticle" and data["name"] == HOSTILE.title
    assert [a["name"] for a in data["author"]] == ["Zoë O'Brien", "Li Wei"]
    assert "https://arxiv.org/abs/2606.01234" in data["sameAs"]


def test_bibtex_escapes_latex_and_uses_the_authors_names() -> None:
    bib = cite_paper(HOSTILE, None).bibtex
    assert bib.startswith("@inproceedings{Xy-1-2,\n")
    assert r"\{x\}\_\%" in bib and r"\&" in bib
    assert "author = {Zoë O'Brien and Li Wei}" in bib
    assert "eprint = {2606.01234}" in bib and "year = {2026}" in bib


def test_a_venue_without_a_year_gives_no_date() -> None:
    assert year_of("NeurIPS Workshop on Things") is None
    citation = cite_paper(HOSTILE.model_copy(update={"venue": "A Workshop"}), None)
    assert not any(name == "citation_publication_date" for name, _ in citation.meta)
    assert "year" not in citation.bibtex


def test_the_built_paper_page_carries_its_citation_in_the_head(built: Path) -> None:
    page = (built / "papers" / "Kp4rT9vQ2x" / "index.html").read_text(encoding="utf-8")
    head_part, body = page.split("</head>", 1)
    head = parse(head_part)
    assert ("citation_conference_title", "ICML 2026") in head.meta
    assert [v for k, v in head.meta if k == "citation_author"] == [
        "Ilse Vandermeer",
        "Tomasz Wrobel",
        "Amara Okafor",
    ]
    (script,) = head.scripts
    assert json.loads(script)["url"] == "https://audit.example.org/conf2026/papers/Kp4rT9vQ2x/"
    assert "@inproceedings{Kp4rT9vQ2x," in body  # the BibTeX block, for people
    # a logbook page is not a paper: no citation tags
    logbook = (built / "papers" / "Kp4rT9vQ2x" / "carol-paging-1" / "index.html").read_text()
    assert "citation_title" not in logbook and "RA-SHELL" not in logbook


def test_a_logbook_is_cited_under_the_name_the_paper_file_gives_its_contributor() -> None:
    from datetime import UTC, datetime

    from reproaudit.models import VerdictFile
    from reproaudit.site.cite import cite_logbook

    paper = PaperMeta.model_validate(
        {
            "id": "P1",
            "title": "A {Title}",
            "venue": "ICML 2026",
            "authors": [{"name": "Zoë O'Brien", "github": "ZOBrien"}],
        }
    )
    verdict = VerdictFile.model_validate(
        {
            "paper": "P1",
            "logbook": "zob-1",
            "input_sha256": "a" * 64,
            "judge": {"mode": "rules"},
            "judged_at": datetime(2026, 12, 1, tzinfo=UTC),
            "claims": [{"claim": "C1", "verdict": "verified"}],
        }
    )
    named = cite_logbook(paper, "zob-1", "zobrien", verdict, "rules", "https://x.org/p/")
    assert "  author = {Zoë O'Brien},\n" in named["bibtex"]  # handles compare case-insensitively
    assert named["plain"].startswith("Zoë O'Brien. Reproduction verdict for \u201cA {Title}\u201d")
    assert "A \\{Title\\}" in named["bibtex"] and "\\url{https://x.org/p/}" in named["bibtex"]
    # control: a contributor who is not an author is cited by their handle
    other = cite_logbook(paper, "zob-1", "someone", verdict, "rules", None)
    assert "  author = {someone},\n" in other["bibtex"] and "howpublished" not in other["bibtex"]
