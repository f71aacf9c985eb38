"""What search matches on each page, and the kind and outcomes a reader filters it by.

A paper offers its title (weighted most), its authors (weighted next, so that a surname
finds the author's papers before the contributor pages whose handle holds it), then its id,
venue, area, outcome and claims. A logbook offers what it argues: each falsification's
argument and counterexample and each paper/code discrepancy, so pasting the sentence a
logbook gave against a claim finds that logbook. A logbook's title (its id and handle) and a
contributor's handle weigh less than a paper's authors.

Outcomes are the states of the verdicts a page shows (:data:`OUTCOMES`, in the filter's
order): a paper carries those of its claims' verdicts, a logbook those of its own. Pure:
site data in, records out.
"""

from __future__ import annotations

from typing import Any

from . import context as ctx
from . import words
from .data import SiteData
from .pages import Contributor
from .search import Record

# the outcome filter: value (no comma: Pagefind's filter syntax) -> label, in menu order
OUTCOMES: dict[str, str] = {
    "verified": words.VERDICTS["verified"][0],
    "falsified": words.VERDICTS["falsified"][0],
    "under review": "falsified, under review",
    "confirmed": "falsification confirmed",
    "contested": words.VERDICTS["contested"][0],
    "toy": words.VERDICTS["toy"][0],
    "inconclusive": words.VERDICTS["inconclusive"][0],
    "awaiting re-run": words.AWAITING,
    "untested": words.VERDICTS["untested"][0],
}
# kind filter: value -> what the search page's menu calls it
KINDS: dict[str, str] = {
    "paper": "Papers",
    "logbook": "Logbooks",
    "contributor": "Contributors",
    "page": "Help pages",
}


def states_of(row: Any) -> set[str]:
    """The outcome filter values of one verdict row (a logbook's verdict on a claim)."""
    verdict = row.verdict
    if verdict == "inconclusive" and "not_rerun" in row.flags:
        return {"awaiting re-run"}
    out = {verdict} if verdict in OUTCOMES else set()
    state = ctx.review_state(verdict, row.review)
    if state == "under_review":
        out.add("under review")
    elif state == "confirmed":
        out.add("confirmed")
    return out


def records(data: SiteData, people: list[Contributor]) -> list[Record]:
    """Search stand-ins for every paper, logbook and contributor."""
    out = []
    for paper_id in sorted(data.papers):
        paper = data.papers[paper_id]
        meta = paper.paper
        rows = data.rows_of(paper_id)
        outcomes = set().union(*(states_of(r) for r in rows)) if rows else set()
        if "contested" in data.claim_folds_of(paper_id).values():
            outcomes.add("contested")
        if not rows:
            outcomes.add("untested")
        claims = " ".join(f"{c.id}: {c.statement}" for c in paper.claims)
        handles = " ".join(f"@{a.github}" for a in meta.authors if a.github)
        text = (  # the title is the stand-in's heading: not repeated in the excerpt
            f"{paper_id}, {meta.venue}{', ' + meta.tags.area if meta.tags.area else ''}. "
            f"Outcome: {ctx.outcome_text(data, paper_id)}. {claims}"
        )
        names = ", ".join(a.name for a in meta.authors) + (f" {handles}" if handles else "")
        out.append(
            Record(ctx.paper_url(paper_id), meta.title, text, "paper", _ordered(outcomes), names)
        )
        by_logbook: dict[str, set[str]] = {}
        for row in rows:
            by_logbook.setdefault(row.logbook, set()).update(states_of(row))
        for key in data.logbooks_of(paper_id):
            out.append(_logbook_record(data, key, by_logbook.get(key[1], set())))
    for person in people:
        text = (
            f"contributor: {person['logbooks']} logbooks on "
            f"{person['papers']} papers, score {person['score']}."
        )
        out.append(
            Record(person["url"], f"@{person['github']}", text, "contributor", title_weight=1)
        )
    return out


def _logbook_record(data: SiteData, key: tuple[str, str], outcomes: set[str]) -> Record:
    book = data.logbooks[key]
    who = book.logbook.contributor.github
    title = f"Logbook {key[1]} by @{who}"
    parts = [f"On {data.papers[key[0]].paper.title} ({key[0]})."]
    for result in book.results:
        if result.falsification is not None:
            parts.append(f"{result.claim} is false: {result.falsification.argument}")
            if result.falsification.counterexample:
                parts.append(f"Counterexample: {result.falsification.counterexample}")
        for d in result.discrepancies:
            parts.append(f"{result.claim}: the paper says {d.paper}; the code does {d.code}.")
    # the handle in the title weighs less than a paper's authors: a surname finds papers first
    url = ctx.logbook_url(*key)
    return Record(url, title, " ".join(parts), "logbook", _ordered(outcomes), title_weight=3)


def _ordered(values: set[str]) -> tuple[str, ...]:
    return tuple(v for v in OUTCOMES if v in values)  # the menu's order
