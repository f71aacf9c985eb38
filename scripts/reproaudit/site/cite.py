"""How a paper page is cited and indexed: BibTeX, a plain reference, Highwire ``citation_*``
tags (what Google Scholar and Zotero read) and schema.org ``ScholarlyArticle`` JSON-LD.

Pure: a paper's metadata and its page's URL in, text out. The head markup is escaped here,
once, because the plugin places it into the page's ``<head>`` as it is.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

from ..models import PaperMeta, VerdictFile

YEAR = re.compile(r"\b(19|20)\d\d\b")


@dataclass(frozen=True)
class PaperCitation:
    bibtex: str
    plain: str
    meta: list[tuple[str, str]]  # (name, content) of the Highwire tags, in order
    jsonld: dict[str, object]


_BIBTEX_SPECIAL = str.maketrans({ch: "\\" + ch for ch in "{}%&$#_^~\\"})


def bibtex_escape(text: str) -> str:
    """Text as a BibTeX field value: LaTeX's special characters escaped (one C pass: a
    conference's pages escape two million characters)."""
    return text.translate(_BIBTEX_SPECIAL)


def year_of(venue: str) -> str | None:
    """The year a venue string names ("ICML 2026" -> "2026"), if it names one."""
    found = YEAR.search(venue)
    return found[0] if found else None


def cite_paper(paper: PaperMeta, url: str | None) -> PaperCitation:
    """The citation of a paper as listed in its paper file (names as printed on the paper)."""
    year = year_of(paper.venue)
    names = [a.name for a in paper.authors]
    fields = {
        "title": "{" + bibtex_escape(paper.title) + "}",  # braces keep the title's capitals
        "author": " and ".join(bibtex_escape(n) for n in names),
        "booktitle": bibtex_escape(paper.venue),
        "year": year or "",
        "eprint": bibtex_escape(paper.links.arxiv or ""),
        "archiveprefix": "arXiv" if paper.links.arxiv else "",
        "doi": bibtex_escape(paper.links.doi or ""),
        "url": paper.links.openreview or paper.links.pdf or "",
    }
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    key = re.sub(r"[^A-Za-z0-9]+", "-", paper.id).strip("-") or "paper"
    bibtex = f"@inproceedings{{{key},\n{body}\n}}"
    plain = (", ".join(names) + ". " if names else "") + f"{paper.title}. {paper.venue}."
    if paper.links.arxiv:
        plain += f" arXiv:{paper.links.arxiv}."

    meta = [("citation_title", paper.title)]
    meta += [("citation_author", n) for n in names]
    if year:
        meta.append(("citation_publication_date", year))
    meta.append(("citation_conference_title", paper.venue))
    if paper.links.pdf:
        meta.append(("citation_pdf_url", paper.links.pdf))
    if paper.links.arxiv:
        meta.append(("citation_arxiv_id", paper.links.arxiv))
    if paper.links.doi:
        meta.append(("citation_doi", paper.links.doi))
    if url:
        meta.append(("citation_abstract_html_url", url))

    same_as = [u for u in (paper.links.openreview, paper.links.pdf, paper.links.project) if u]
    if paper.links.arxiv:
        same_as.append(f"https://arxiv.org/abs/{paper.links.arxiv}")
    if paper.abstract:
        meta.append(("citation_abstract", paper.abstract))
    jsonld: dict[str, object] = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "name": paper.title,
        "headline": paper.title,
        "author": [{"@type": "Person", "name": n} for n in names],
        "isPartOf": {"@type": "PublicationEvent", "name": paper.venue},
        "identifier": paper.id,
    }
    if year:
        jsonld["datePublished"] = year
    if paper.abstract:
        jsonld["abstract"] = paper.abstract
    if url:
        jsonld["url"] = url
    if same_as:
        jsonld["sameAs"] = same_as
    return PaperCitation(bibtex=bibtex, plain=plain, meta=meta, jsonld=jsonld)


def contributor_name(paper: PaperMeta, handle: str) -> str:
    """A contributor's name as the paper file gives it (an author listed with that GitHub
    handle), else their handle: GitHub handles compare case-insensitively."""
    for author in paper.authors:
        if author.github and author.github.lower() == handle.lower():
            return author.name
    return handle


def cite_logbook(
    paper: PaperMeta,
    logbook: str,
    handle: str,
    verdict: VerdictFile,
    judge: str,
    url: str | None,
) -> dict[str, str]:
    """BibTeX and plain text for one logbook's verdict, with its input hash and date."""
    who = contributor_name(paper, handle)
    date = verdict.judged_at.strftime("%Y-%m-%d")
    counts: dict[str, int] = {}
    for c in verdict.claims:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    fields = {
        "title": (
            f"Reproduction verdict for ``{bibtex_escape(paper.title)}'' "
            f"(logbook {bibtex_escape(logbook)})"
        ),
        "author": bibtex_escape(who),
        "year": verdict.judged_at.strftime("%Y"),
        "howpublished": f"\\url{{{url}}}" if url else "",
        "note": (
            f"{bibtex_escape(summary)}; judged {date} by {bibtex_escape(judge)}; "
            f"input sha256 {verdict.input_sha256}"
        ),
    }
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    ident = re.sub(r"[^A-Za-z0-9]+", "-", f"reproaudit-{paper.id}-{logbook}")
    plain = (
        f"{who}. Reproduction verdict for \u201c{paper.title}\u201d ({paper.venue}), "
        f"logbook {logbook}: {summary}. Judged {date} by {judge}; "
        f"input sha256 {verdict.input_sha256}." + (f" {url}" if url else "")
    )
    return {"bibtex": f"@misc{{{ident},\n{body}\n}}", "plain": plain, "logbook": logbook}


def head_html(citation: PaperCitation) -> str:
    """The ``<head>`` markup of a citation: escaped meta tags and a JSON-LD script.

    In the script, ``<``, ``>`` and ``&`` are JSON escapes, so no title can close it.
    """
    tags = [
        f'<meta name="{name}" content="{html.escape(content, quote=True)}">'
        for name, content in citation.meta
    ]
    data = json.dumps(citation.jsonld, ensure_ascii=False, sort_keys=True)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    tags.append(f'<script type="application/ld+json">{data}</script>')
    return "\n".join(tags) + "\n"
