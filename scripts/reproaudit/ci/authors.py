"""Telling a paper's authors that a re-run falsified their claim: at most once a week.

Only a verdict a re-run backs is worth a paper author's attention: a claim the pull request's
logbook falsifies by the verdict ``ci judge-pr`` just made of it with a passed, current
re-run of its bytes (base-branch code; never a verdict file of the base branch, which judged
other bytes or nothing). A ``falsification:`` section alone, an argument nobody re-ran, pings
nobody: it shows in the report, and a maintainer's review decides it.

Whom the bot mentioned is kept on the default branch, in one ledger per paper
(``verdicts/<paper>/mentions.yaml``, append-only, one entry per author mentioned), so the
rate holds across pull requests, however many anyone opens: an author is mentioned about a
paper at most once in ``MENTION_EVERY`` (a week), and never twice from one pull request.
The judge job only plans (``plan_mentions``: which logbook falsifies which claims, as a
file); the job that may write ``ci push mentions``: it re-reads the ledger on the branch as
it is at each attempt, appends the authors that are due (the ledger is the lock: two jobs at
once never mention one author twice), pushes, and only then mentions them, in a new comment
(GitHub notifies people mentioned in a new comment, not in an edit). The sticky comment's
``authors`` section says who was mentioned and who was not, and when they last were.

The handles come from a trusted file, the paper file on the default branch, read again when
the ledger is written: a plan can only name a paper's listed authors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError

from .. import layout
from ..errors import ArtifactError, InputError
from ..fsutil import atomic_write
from ..loader import load_model
from ..models import (
    ClaimId,
    LogbookId,
    Mention,
    MentionsFile,
    Model,
    PaperFile,
    PaperId,
    Sha40,
    VerdictFile,
)
from ..repo import Corpus
from ..report.markdown_text import code, plain
from . import sticky
from .push import ApplyConflict, PushResult, push_change

GUIDE_IN_REPO = "scripts/reproaudit/site/docs/authors.md"  # also a page of the site
MENTION_EVERY = timedelta(days=7)  # one mention per author per paper per week at most

Key = tuple[str, str]  # (paper id, logbook id)


@dataclass(frozen=True)
class Challenge:
    """A claim of a paper that a logbook of the pull request falsifies, by a re-run."""

    paper: str
    logbook: str
    claim: str


def challenges(
    corpus: Corpus, books: list[Key], verdicts: Mapping[Key, VerdictFile]
) -> list[Challenge]:
    """The claims the PR's logbooks falsify by their verdict just judged, where a passed,
    current re-run backs it, among the claims of the paper in ``corpus`` (the base)."""
    found: list[Challenge] = []
    for paper_id, logbook_id in books:
        verdict = verdicts.get((paper_id, logbook_id))
        if verdict is None or verdict.rerun is None or verdict.rerun.status != "passed":
            continue  # no re-run, or one that verifies nothing: nobody is told
        falsified = {
            c.claim
            for c in verdict.claims
            if c.verdict == "falsified" and "stale_rerun" not in c.flags
        }
        paper = corpus.paper(paper_id)
        known = {c.id for c in paper.claims} if paper else set()
        for claim in sorted(falsified & known):  # never a claim the paper lacks
            found.append(Challenge(paper_id, logbook_id, claim))
    return found


# --- the plan: what the judge job hands the job that writes -------------------------------


class PlannedMention(Model):
    paper: PaperId
    paper_file: str
    logbook: LogbookId
    claims: list[ClaimId] = Field(min_length=1)


class MentionPlan(Model):
    """``ci judge-pr --mentions-out``: the pull request, its head, what it falsifies."""

    pr: int = Field(ge=1)
    head_sha: Sha40
    mentions: list[PlannedMention] = Field(min_length=1)


def plan_mentions(
    corpus: Corpus, pr: int, head: str, books: list[Key], verdicts: Mapping[Key, VerdictFile]
) -> MentionPlan | None:
    """What the PR's verdicts would tell the authors of (None: nothing re-run-backed)."""
    by_book: dict[Key, list[str]] = {}
    for c in challenges(corpus, books, verdicts):
        by_book.setdefault((c.paper, c.logbook), []).append(c.claim)
    items = []
    for (paper_id, logbook_id), claims in sorted(by_book.items()):
        rels = corpus.paper_rels.get(paper_id, [])
        if len(rels) == 1:
            items.append(
                PlannedMention(
                    paper=paper_id, paper_file=rels[0], logbook=logbook_id, claims=claims
                )
            )
    if not items:
        return None
    return MentionPlan(pr=pr, head_sha=head, mentions=items)


def read_plan(path: Path) -> MentionPlan:
    """The plan file (written by another job of the run: checked as data)."""
    from .events import read_json

    try:
        return MentionPlan.model_validate(read_json(path), strict=False)
    except ValidationError as exc:
        raise ArtifactError(path, f"not a mention plan: {exc.errors()[0]['msg']}") from None


# --- the ledger ---------------------------------------------------------------------------


def due(ledger: list[Mention], author: str, pr: int, now: datetime) -> Mention | None:
    """The entry that holds a mention of ``author`` back (mentioned from this PR already,
    or less than ``MENTION_EVERY`` ago), or None when they are due."""
    mine = [m for m in ledger if m.author.lower() == author.lower()]
    for entry in mine:
        if entry.pr == pr or now - entry.at < MENTION_EVERY:
            return entry
    return None


@dataclass
class Recorded:
    """What one attempt wrote to the ledger: who is mentioned now, who was held back."""

    mentioned: list[tuple[PlannedMention, list[str]]] = field(default_factory=list)
    held: list[tuple[str, Mention]] = field(default_factory=list)  # (paper, entry)
    no_handle: list[str] = field(default_factory=list)  # listed authors without a handle


def apply_mentions(plan: MentionPlan, now: datetime, recorded: Recorded) -> Any:
    """The ``ci push`` change: append to each paper's ledger the listed authors who are due,
    on the branch as it is now; ``recorded`` says what the last attempt wrote."""

    def apply(work: Path) -> list[str]:
        fresh = Recorded()
        written = []
        for item in plan.mentions:
            paper = _paper_at(work, item)
            if paper is None:
                continue  # the paper file moved or went: whom to tell is not known
            rel = layout.mentions_rel(item.paper)
            ledger = _ledger(work, rel)
            new: list[Mention] = []
            for author in paper.paper.authors:
                if not author.github:
                    fresh.no_handle.append(author.name)
                    continue
                held = due([*ledger, *new], author.github, plan.pr, now)
                if held is not None:
                    fresh.held.append((item.paper, held))
                    continue
                new.append(
                    Mention(
                        author=author.github,
                        at=now,
                        pr=plan.pr,
                        logbook=item.logbook,
                        claims=item.claims,
                    )
                )
            if new:
                _write_ledger(work / rel, [*ledger, *new])
                written.append(rel)
                fresh.mentioned.append((item, [m.author for m in new]))
        recorded.mentioned, recorded.held, recorded.no_handle = (
            fresh.mentioned,
            fresh.held,
            sorted(set(fresh.no_handle)),
        )
        return sorted(set(written))

    return apply


def _paper_at(work: Path, item: PlannedMention) -> PaperFile | None:
    path = work / item.paper_file
    found = layout.classify(item.paper_file)
    if found is None or found.kind != "paper" or ".." in item.paper_file.split("/"):
        return None
    if path.is_symlink() or not path.is_file():
        return None
    try:
        paper = load_model(path, PaperFile, item.paper_file)
    except InputError:
        return None
    return paper if paper.paper.id == item.paper else None


def _ledger(work: Path, rel: str) -> list[Mention]:
    path = work / rel
    if not path.is_file():
        return []
    try:
        return list(load_model(path, MentionsFile, rel).mentions)
    except InputError as exc:  # a person decides: the ledger on the branch is broken
        raise ApplyConflict(f"{rel} does not validate: {exc.problems[0].message}") from None


def _write_ledger(path: Path, entries: list[Mention]) -> None:
    data = MentionsFile(mentions=entries).model_dump(mode="json")
    text = "# Appended by the reproaudit bot when it mentions a paper's authors; do not edit.\n"
    text += yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    atomic_write(path, text)


def record_mentions(
    plan_file: Path,
    repo_dir: Path,
    message: str,
    *,
    repo_name: str,
    github: Any = None,
    remote: str = "origin",
    branch: str = "main",
    fallback_branch: str | None = None,
    guide: str | None = None,
    now: datetime | None = None,
) -> PushResult:
    """``ci push mentions``: write the due authors to the ledgers on ``branch`` (fetch,
    re-apply, retry), then, once it is pushed, mention them and say so in the sticky.

    ``github``: the API client (default: from the environment); ``guide``: the author
    guide's address (default: this repository's on GitHub)."""
    from ..judge.run import now_utc
    from .github import GitHub

    github = github or GitHub.from_env()
    if guide is None:
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
        guide = f"{server}/{repo_name}/blob/HEAD/{GUIDE_IN_REPO}"
    plan = read_plan(plan_file)
    recorded = Recorded()

    def open_pull(head: str, title: str, body: str) -> str:
        return str(github.create_pull(repo_name, title, head, branch, body))

    result = push_change(
        repo_dir,
        apply_mentions(plan, now or now_utc(), recorded),
        message,
        remote=remote,
        branch=branch,
        fallback_branch=fallback_branch,
        open_pull=open_pull,
    )
    if result.status == "pull_request":
        return result  # not on the branch: nobody is told until it is
    if recorded.mentioned:
        body = mention_text(Corpus(repo_dir), recorded, guide)
        github.comment(repo_name, plan.pr, body)
    section, status = authors_section(plan, recorded)
    sticky.update(github, repo_name, plan.pr, "authors", section, status)
    return result


# --- what the pull request thread says ------------------------------------------------------


def mention_text(corpus: Corpus, recorded: Recorded, guide: str) -> str:
    """The new comment: the mentions, what the re-runs falsify, how to answer, the guide."""
    handles = [h for _, authors in recorded.mentioned for h in authors]
    lines = [
        " ".join(f"@{h}" for h in dict.fromkeys(handles)) + ": you are listed as an author of "
        "a paper whose claim a re-run in this pull request falsifies.",
        "",
    ]
    for item, _ in recorded.mentioned:
        paper = corpus.paper(item.paper)
        title = f" of *{plain(paper.paper.title, 200)}*" if paper else ""
        for claim_id in item.claims:
            claim = paper.claim(claim_id) if paper else None
            anchor = f" ({plain(claim.anchor, 80)})" if claim else ""
            lines.append(
                f"- logbook {code(item.logbook)} falsifies claim **{claim_id}**{anchor}{title}, "
                "by CI's re-run of its command"
            )
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
        "header, its badge and the feeds. A maintainer still decides the verdict. The bot "
        "mentions an author about one paper at most once a week. Guide: " + guide,
    ]
    lines += no_handle_note(recorded.no_handle)
    return "\n".join(lines).rstrip("\n") + "\n"


def no_handle_note(names: list[str]) -> list[str]:
    """Authors listed without a GitHub handle: they cannot answer until one is added."""
    if not names:
        return []
    shown = ", ".join(plain(n, 100) for n in names)
    return [
        "",
        f"Listed without a GitHub handle: {shown}. To answer, open a pull request adding "
        "`github: <handle>` to your entry under `paper.authors` in the paper file (see the "
        "author guide).",
    ]


def authors_section(plan: MentionPlan, recorded: Recorded) -> tuple[str, dict[str, Any]]:
    """The sticky comment's ``authors`` section and its status (data)."""
    now = sorted({h.lower() for _, authors in recorded.mentioned for h in authors})
    lines = ["### Authors", ""]
    if now:
        lines.append(f"Mentioned now: {', '.join(code(h) for h in now)}.")
    for paper_id, entry in recorded.held:
        when = entry.at.strftime("%Y-%m-%d")
        where = "this pull request" if entry.pr == plan.pr else f"#{entry.pr}"
        lines.append(
            f"Not mentioned again: {code(entry.author)}, told about {code(paper_id)} on "
            f"{when} in {where} (at most once a week per paper)."
        )
    if not now and not recorded.held:
        lines.append("No listed author has a GitHub handle: none could be mentioned.")
    lines += no_handle_note(recorded.no_handle)
    held = sorted({entry.author.lower() for _, entry in recorded.held})
    return "\n".join(lines) + "\n", {"mentioned": now, "held": held}
