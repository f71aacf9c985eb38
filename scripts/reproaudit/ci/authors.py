"""Telling a paper's authors, once per pull request, that a logbook challenges their claim.

When a pull request's logbook falsifies a claim (the verdict ``ci judge-pr`` just
made of it, in memory, by base-branch code) or argues against it (its
``falsification`` section names it, in the logbook as the pull request holds it), the paper's
listed authors with a GitHub handle are mentioned in a new comment: GitHub notifies
people mentioned in a new comment, not in an edit of the sticky one. The sticky
comment's ``authors`` section records, as data, whom the bot has mentioned, so a
later run (another push, a re-run, a re-judge) mentions nobody twice. Authors with
no handle in the paper file are named, with how to get one added.

The handles come from a trusted file, the paper file on the base branch; the
verdicts are the ones the base-branch judge just made of the pull request's
bytes (never a verdict file of the base branch, which judged other bytes or
nothing at all for a new logbook); the logbook is read as data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..models import Logbook, VerdictFile
from ..repo import Corpus, corpus_of
from ..report.markdown_text import code, plain
from . import sticky

GUIDE_IN_REPO = "scripts/reproaudit/site/docs/authors.md"  # also a page of the site


@dataclass(frozen=True)
class Challenge:
    """A claim of a paper that a logbook of the pull request falsifies or argues against."""

    paper: str
    logbook: str
    claim: str
    how: str  # "falsifies" | "argues against"


Key = tuple[str, str]  # (paper id, logbook id)


def challenges(
    corpus: Corpus,
    books: list[Key],
    verdicts: Mapping[Key, VerdictFile],
    logbooks: Mapping[Key, Logbook],
) -> list[Challenge]:
    """The claims the PR's logbooks falsify (their verdict just judged) or argue against
    (their ``falsification``), among the claims of the paper in ``corpus`` (the base)."""
    found: list[Challenge] = []
    for paper_id, logbook_id in books:
        verdict = verdicts.get((paper_id, logbook_id))
        falsified = (
            {c.claim for c in verdict.claims if c.verdict == "falsified"} if verdict else set()
        )
        book = logbooks.get((paper_id, logbook_id))
        argued = {r.claim for r in book.results if r.falsification is not None} if book else set()
        paper = corpus.paper(paper_id)
        known = {c.id for c in paper.claims} if paper else set()
        for claim in sorted((falsified | argued) & known):  # never a claim the paper lacks
            how = "falsifies" if claim in falsified else "argues against"
            found.append(Challenge(paper_id, logbook_id, claim, how))
    return found


def mention_text(corpus: Corpus, found: list[Challenge], handles: list[str], guide: str) -> str:
    """The new comment: the mentions, what is challenged, how to answer, the guide."""
    lines = [
        " ".join(f"@{h}" for h in handles) + ": you are listed as an author of a paper "
        "this pull request challenges.",
        "",
    ]
    for c in found:
        paper = corpus.paper(c.paper)
        claim = paper.claim(c.claim) if paper else None
        anchor = f" ({plain(claim.anchor, 80)})" if claim else ""
        title = f" of *{plain(paper.paper.title, 200)}*" if paper else ""
        lines.append(f"- logbook {code(c.logbook)} {c.how} claim **{c.claim}**{anchor}{title}")
    lines += [
        "",
        "You can answer here, one comment per answer (add `logbook-id:` before the claim "
        "when the pull request holds several logbooks):",
        "",
        "- `/author agree C1 <why>`: you accept the finding;",
        "- `/author disagree C1 <why>`: you dispute it; the site then shows "
        '"falsified, disputed by the authors";',
        "- `/author fixed C1 <link> <why>`: you fixed it (a paper revision or a code "
        'commit); the site shows "falsified, fixed by the authors" with the link.',
        "",
        "Your answer is dated and shown wherever the verdict is: the claim, the paper's "
        f"header, its badge and the feeds. A maintainer still decides the verdict. Guide: {guide}",
    ]
    return "\n".join(lines) + "\n"


def no_handle_note(corpus: Corpus, papers: set[str]) -> list[str]:
    """Authors listed without a GitHub handle: they cannot answer until one is added."""
    names = []
    for paper_id in sorted(papers):
        paper = corpus.paper(paper_id)
        for author in paper.paper.authors if paper else []:
            if not author.github:
                names.append(plain(author.name, 100))
    if not names:
        return []
    return [
        "",
        f"Listed without a GitHub handle: {', '.join(names)}. To answer, open a pull "
        "request adding `github: <handle>` to your entry under `paper.authors` in the "
        "paper file (see the author guide).",
    ]


def mention_authors(
    github: Any,
    repo_name: str,
    pr: int,
    repo: Path,
    books: list[Key],
    verdicts: Mapping[Key, VerdictFile],
    logbooks: Mapping[Key, Logbook],
    *,
    guide: str = GUIDE_IN_REPO,
    corpus: Corpus | None = None,
) -> list[str]:
    """Mention, in a new comment, the listed authors not yet mentioned on this PR.

    ``verdicts`` and ``logbooks``: the PR's logbooks as fetched and their verdicts as
    just judged (``flow.PrJudgement``). Returns the handles mentioned now (none when
    nothing is challenged or everyone was told before). The sticky comment's
    ``authors`` status keeps the list. ``corpus``: the command's ``Corpus`` of the
    base checkout ``repo`` (paper files, handles), when it has one.
    """
    corpus = corpus_of(repo, corpus)
    found = challenges(corpus, books, verdicts, logbooks)
    if not found:
        return []
    papers = {c.paper for c in found}
    handles: list[str] = []
    for paper_id in sorted(papers):
        paper = corpus.paper(paper_id)
        for author in paper.paper.authors if paper else []:
            if author.github and author.github.lower() not in {h.lower() for h in handles}:
                handles.append(author.github)
    existing = sticky.find(github.issue_comments(repo_name, pr))
    status = existing[1].status("authors") if existing else None
    told = {str(h).lower() for h in (status or {}).get("mentioned", [])}
    new = [h for h in handles if h.lower() not in told]
    if new:
        body = mention_text(corpus, found, new, guide)
        body += "\n".join(no_handle_note(corpus, papers))
        github.comment(repo_name, pr, body.rstrip("\n") + "\n")
    everyone = sorted(told | {h.lower() for h in new})
    if new or not existing or status is None:
        section = (
            "### Authors\n\n"
            + (
                f"Mentioned: {', '.join(code(h) for h in everyone)}."
                if everyone
                else "No listed author has a GitHub handle: none could be mentioned."
            )
            + "\n"
            + "\n".join(no_handle_note(corpus, papers))
        )
        sticky.update(github, repo_name, pr, "authors", section, {"mentioned": everyone})
    return new
