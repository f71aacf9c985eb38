"""Slash commands in pull-request threads: one small handler each, one dispatcher.

The dispatcher reads an ``issue_comment`` event, refuses what it must (edited
comments, plain issues, bots), finds the commenter's permission through the
REST permissions API (never ``author_association``), and only then runs the
handler. Every refusal and every unknown command gets a reply that says why and
what to type instead. Comment text is data: it is split on whitespace, never
given to a shell, and every piece shown back is passed through ``text.plain``.

Over 400 lines because each command's parser, permission and handler sit side by side,
buffy-style, so a reviewer reads what a command may do in one place.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pydantic import ValidationError

from .. import layout
from .. import problems as P
from ..errors import ArtifactError, InputError, ReproauditError
from ..fsutil import atomic_write
from ..judge.rules import judge_claim
from ..loader import parse_yaml, to_model
from ..models import CLAIM_ID_PATTERN, Logbook, PaperFile, Review, ReviewsFile
from ..problems import Problem
from ..repo import Corpus
from ..report.markdown_text import code, plain
from .binding import HeadCheck, head_at_comment
from .flow import BACKENDS
from .github import WRITE_PERMISSIONS, GitHub
from .ownership import rule_pull

Who = Literal["anyone", "write", "author"]
_MARKDOWN = MarkdownIt("commonmark")
FULL_SHA = re.compile(r"[0-9a-f]{40}")
URL = re.compile(r"https?://[^\s<>\"')]+")


@dataclass(frozen=True)
class Event:
    action: str
    repo: str
    number: int
    is_pull_request: bool
    comment_id: int
    body: str
    login: str
    is_bot: bool
    created_at: str
    url: str


@dataclass
class Outcome:
    """What a comment causes; printed as JSON by ``reproaudit ci command``."""

    command: str | None
    allowed: bool
    reason: str
    reply: str | None
    record: dict[str, Any] | None = None
    head_sha: str | None = None
    logbooks: list[str] = field(default_factory=list)
    backend: str | None = None  # /reproduce's: None = the repository's default
    pr: int | None = None  # the pull request whose thread it came from (a record waits there)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_event(payload: Any) -> Event:
    """The fields of an ``issue_comment`` payload the commands use, type-checked."""
    try:
        issue, comment, repository = payload["issue"], payload["comment"], payload["repository"]
        user = comment["user"]
        event = Event(
            action=str(payload["action"]),
            repo=str(repository["full_name"]),
            number=int(issue["number"]),
            is_pull_request=bool(issue.get("pull_request")),
            comment_id=int(comment["id"]),
            body=str(comment.get("body") or ""),
            login=str(user["login"]),
            is_bot=user.get("type") == "Bot",
            created_at=str(comment["created_at"]),
            url=str(comment["html_url"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ArtifactError(
            "the event payload", f"not an issue_comment event: missing or bad {exc}"
        ) from None
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", event.repo):
        raise ArtifactError(
            "the event payload", f"repository.full_name: {event.repo!r} is not OWNER/NAME"
        )
    return event


def _lines(inline: Token) -> list[tuple[bool, str]]:
    """The lines of a paragraph as (starts with plain text, text), code spans kept as written."""
    lines: list[tuple[bool, str]] = [(True, "")]
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            lines.append((True, ""))
            continue
        starts_plain, text = lines[-1]
        if not text and child.type != "text":
            starts_plain = False
        if child.type == "code_inline":
            text += child.markup + child.content + child.markup
        elif child.type in ("text", "html_inline"):
            text += child.content
        lines[-1] = (starts_plain, text)
    return lines


def parse_command(body: str) -> tuple[str, list[str], str] | None:
    """(name, words, rest of the paragraph) of the first command line, else None.

    The comment is read as Markdown (CommonMark, markdown-it-py): a command is a
    paragraph line that starts with '/' as plain text. Lines in fenced or indented
    code blocks, block quotes, HTML blocks or inline code are explanations, not
    commands.
    """
    quoted = 0
    for token in _MARKDOWN.parse(body):
        if token.type == "blockquote_open":
            quoted += 1
        elif token.type == "blockquote_close":
            quoted -= 1
        elif token.type == "inline" and not quoted:
            lines = _lines(token)
            for i, (starts_plain, line) in enumerate(lines):
                stripped = line.strip()
                if starts_plain and stripped.startswith("/") and len(stripped) > 1:
                    words = stripped[1:].split()
                    if not words:
                        continue
                    rest = "\n".join([stripped, *(text for _, text in lines[i + 1 :])])
                    return words[0].lower(), words[1:], rest
    return None


def _near(words: list[str], choices: tuple[str, ...]) -> str:
    """'Did you mean `confirm`? ' for a near miss of a command's first word, else ''."""
    close = difflib.get_close_matches(words[0].lower(), choices, n=1) if words else []
    return f"Did you mean `{close[0]}`? " if close else ""


def did_you_mean(name: str) -> str:
    """'Did you mean `/review`?' for a near miss of a command name, else ''."""
    close = difflib.get_close_matches(name.lower(), list(HANDLERS), n=1, cutoff=0.6)
    return f" Did you mean `/{close[0]}`?" if close else ""


@dataclass
class Context:
    """What handlers may ask: the event, the API, the checked-out base repository."""

    event: Event
    github: GitHub
    repo_dir: Path
    permission: str
    dry_run: bool
    default_backend: str = "local"  # where /reproduce runs when it names none
    _files: list[str] | None = None
    _head: HeadCheck | None = None
    _corpus: Corpus | None = None
    _pull: dict[str, Any] | None = None  # the pull request as last read

    @property
    def can_write(self) -> bool:
        return self.permission in WRITE_PERMISSIONS

    def head(self) -> HeadCheck:
        """The PR's head now, and whether it was pushed before the comment was written."""
        if self._head is None:
            self._head = head_at_comment(
                self.github, self.event.repo, self.event.number, self.event.created_at
            )
        return self._head

    def ownership(self, head: str) -> str | None:
        """Why the pull request fails the ownership rule at ``head`` (the report's check, on
        git trees when ``repo_dir`` is a clone), or None when it passes."""
        git = self.repo_dir if (Path(self.repo_dir) / ".git").exists() else None
        pulled = rule_pull(self.github, self.event.repo, self.event.number, head, git)
        return pulled.refusal()

    def files(self) -> list[str]:
        if self._files is None:
            self._files = self.github.pull_files(self.event.repo, self.event.number)
        return self._files

    def logbooks(self) -> list[tuple[str, str]]:
        """(paper, logbook) of every logbook file the pull request adds or changes."""
        found = set()
        for rel in self.files():
            data = layout.classify(rel)
            if data is not None and data.kind == "logbook":
                found.add(data.key)
        return sorted(found)

    def bound_logbooks(
        self, command: str, named: str | None, again: str
    ) -> list[tuple[str, str]] | Outcome:
        """The logbooks the PR held when the comment was written, or a refusal.

        Only when the head was pushed before the comment (or is the full SHA
        ``named`` in it), and is still the head after the list was read, is the
        list the one the commenter saw. ``again`` is the command as typed up to the
        claim, for a reply that shows it with the SHA.
        """
        check = self.head()
        if named is not None:
            if named != check.sha:
                return refuse(
                    command,
                    "head_moved",
                    f"Not recorded: the head of this pull request is now `{check.sha}`, not "
                    f"{code(named)}: it moved after you looked. Look at the new commits, then "
                    f"post {code(f'{again} {check.sha}')} with your text.",
                )
        elif check.status == "unknown":
            return refuse(
                command,
                "head_unconfirmed",
                "Not recorded yet, and not because of anything you did: GitHub has not yet "
                f"recorded a workflow run for the head `{check.sha}` of this pull request "
                "(which is how the bot tells when a commit was pushed), so the bot cannot tell "
                "whether that commit is the one you read. This is GitHub's delay. "
                f"If `{check.sha}` is the commit you read, post "
                f"{code(f'{again} {check.sha}')} followed by your text, and it is recorded at "
                "once; otherwise post the command again once this pull request's checks have "
                "started (usually within a few minutes).",
            )
        elif check.status != "before":
            return refuse(
                command,
                "head_moved",
                f"Not recorded: the head of this pull request, `{check.sha}`, {check.why}, "
                "so its logbooks may not be the ones you read. Look at the latest commits, "
                "then post the command again.",
            )
        books = self.logbooks()
        self._pull = self.github.pull(self.event.repo, self.event.number)
        now = str(self._pull["head"]["sha"])
        if now != check.sha:
            return refuse(
                command,
                "head_moved",
                f"Not recorded: the head moved to `{now}` while your command was read. "
                "Look at the new commits, then post the command again.",
            )
        return books

    def merged(self) -> bool:
        """Whether the pull request was merged (as GitHub said when its logbooks were read)."""
        if self._pull is None:
            self._pull = self.github.pull(self.event.repo, self.event.number)
        return bool(self._pull.get("merged"))

    def corpus(self) -> Corpus:
        """The base checkout's one ``Corpus`` for this command (handlers only read from it)."""
        if self._corpus is None:
            self._corpus = Corpus(self.repo_dir)
        return self._corpus

    def paper(self, paper_id: str) -> PaperFile | None:
        return self.corpus().paper(paper_id)


@dataclass(frozen=True)
class Handler:
    name: str
    who: Who
    usage: str
    description: str
    run: Callable[[Context, list[str], str], Outcome]


HANDLERS: dict[str, Handler] = {}


def handler(name: str, who: Who, usage: str, description: str) -> Callable:
    def register(func: Callable[[Context, list[str], str], Outcome]) -> Callable:
        HANDLERS[name] = Handler(name, who, usage, description, func)
        return func

    return register


def refuse(command: str | None, reason: str, reply: str) -> Outcome:
    return Outcome(command, False, reason, reply)


# --- handlers -------------------------------------------------------------------------


@handler("help", "anyone", "/help", "list the commands you may use here")
def _help(ctx: Context, words: list[str], rest: str) -> Outcome:
    lines = ["Commands you can use on this pull request:", ""]
    for h in HANDLERS.values():
        if h.who == "write" and not ctx.can_write:
            continue
        lines.append(f"- `{h.usage}`: {h.description}")
    if not ctx.can_write:
        lines += [
            "",
            "Maintainers (write permission) can also ask for a re-run and review falsifications.",
        ]
    return Outcome("help", True, "help", "\n".join(lines))


@handler(
    "reproduce",
    "write",
    "/reproduce [local|hf-jobs] [40-HEX-SHA]",
    "re-run this pull request's logbooks on CI hardware (a GPU runner, or Hugging Face Jobs "
    "with `hf-jobs`), at the head you reviewed",
)
def _reproduce(ctx: Context, words: list[str], rest: str) -> Outcome:
    backend, words = reproduce_backend(words)
    if isinstance(backend, Outcome):
        return backend
    books = ctx.logbooks()
    if not books:
        return refuse(
            "reproduce",
            "no_logbook",
            "This pull request changes no logbook, so there is nothing to re-run.",
        )
    check = ctx.head()
    head = check.sha
    again = f"/reproduce {backend} " if backend else "/reproduce "  # keeps the backend named
    if words:
        wanted = words[0].lower()
        if not FULL_SHA.fullmatch(wanted):
            return refuse(
                "reproduce",
                "bad_sha",
                f"{code(words[0])} is not a full commit SHA: an approval names one commit "
                f"by all 40 hex digits. Type `{again.rstrip()}` to approve the head you "
                f"reviewed, or `{again}<40-hex SHA>`.",
            )
        if wanted != head:
            return refuse(
                "reproduce",
                "head_moved",
                f"The head of this pull request is now `{head}`, not {code(wanted)}: "
                "it moved after you looked. Review the new commits, then type "
                f"`{again}{head}`.",
            )
    elif check.status != "before":
        return refuse(
            "reproduce",
            "head_moved" if check.status == "after" else "head_unconfirmed",
            f"Not approved: the head of this pull request, `{head}`, {check.why}, so it "
            "may not be the commit you reviewed. If it is, type "
            f"`{again}{head}`.",
        )
    refusal = ctx.ownership(head)
    if refusal is not None:
        return refuse(
            "reproduce",
            "not_owner",
            f"Not approved: this pull request fails the ownership rule at `{head}` "
            f"({plain(refusal)}). A pull request may change only files under `logbooks/` "
            "and only its author's own logbooks, so its re-run records could not be stored. "
            f"Once the report's check passes, type `{again.rstrip()}` again.",
        )
    names = [f"{p}/{lb}" for p, lb in books]
    return Outcome(
        "reproduce",
        True,
        "approved",
        approval_text(ctx, books, head, backend),
        head_sha=head,
        logbooks=names,
        backend=backend,
    )


_BACKEND_WORDS = {"local": "a self-hosted GPU runner", "hf-jobs": "Hugging Face Jobs"}


def approval_text(
    ctx: Context, books: list[tuple[str, str]], head: str, backend: str | None
) -> str:
    """The approval: per logbook what runs where, on which hardware, for how long at most,
    and what that may cost (``prices.estimate_cost``), read at the approved head."""
    from ..autorerun import duration_text, estimate_cost, plan_from_text

    runs = backend or ctx.default_backend
    chosen = "" if backend else ", the repository's default"
    lines = [
        f"Re-run approved at commit `{head}`, on `{runs}` "
        f"({_BACKEND_WORDS.get(runs, runs)}{chosen}):",
        "",
    ]
    total, priced = 0.0, True
    for paper_id, logbook_id in books:
        text = ctx.github.file_text(ctx.event.repo, layout.logbook_rel(paper_id, logbook_id), head)
        plan = plan_from_text(paper_id, logbook_id, text)
        name = code(f"{paper_id}/{logbook_id}")
        if plan.hardware is None or plan.timeout_s is None:
            lines.append(f"- {name}: not re-run: {plan.why}")
            continue
        cost = estimate_cost(plan.hardware, plan.timeout_s, runs)
        lines.append(
            f"- {name}: hardware `{plan.hardware}`, timeout {duration_text(plan.timeout_s)}, "
            f"{cost.text()}"
        )
        if cost.usd is None:
            priced = False
        else:
            total += cost.usd
    if priced and total:
        lines += ["", f"In all at most ${total:,.2f}."]
    lines += [
        "",
        "Results will be posted here; a push to the branch cancels this approval.",
    ]
    return "\n".join(lines)


def reproduce_backend(words: list[str]) -> tuple[str | Outcome | None, list[str]]:
    """(the backend ``/reproduce`` names, or None for the default; the other words).

    A first word that is neither a backend nor hex is a misspelt backend: refused
    with a did-you-mean rather than read as a SHA.
    """
    if not words:
        return None, words
    first = words[0].lower()
    if first in BACKENDS:
        return first, words[1:]
    if re.fullmatch(r"[0-9a-f]+", first):
        return None, words
    return (
        refuse(
            "reproduce",
            "usage",
            _near([first], BACKENDS)
            + f"{code(words[0])} is not a backend: type `/reproduce` (the repository's default), "
            "`/reproduce local` (a self-hosted GPU runner) or `/reproduce hf-jobs` "
            "(Hugging Face Jobs), optionally followed by the full 40-hex head SHA.",
        ),
        words,
    )


@handler("rejudge", "write", "/rejudge", "judge this pull request's logbooks again")
def _rejudge(ctx: Context, words: list[str], rest: str) -> Outcome:
    books = [f"{p}/{lb}" for p, lb in ctx.logbooks()]
    if not books:
        return refuse("rejudge", "no_logbook", "This pull request changes no logbook.")
    return Outcome(
        "rejudge", True, "approved", f"Judging again: {', '.join(books)}.", logbooks=books
    )


def named_sha(words: list[str]) -> str | None:
    """The full 40-hex SHA written right after the claim (``words[2]``), if there is one."""
    return words[2].lower() if len(words) > 2 and FULL_SHA.fullmatch(words[2].lower()) else None


def _target(ctx: Context, command: str, words: list[str]) -> tuple[str, str, str] | Outcome:
    """(paper, logbook, claim) named by `C1` or `logbook:C1` (``words[1]``), bound to the
    head the commenter saw or to the full SHA after it, or a refusal."""
    token = words[1] if len(words) > 1 else None
    if token is None:
        return refuse(command, "usage", f"Name the claim, e.g. `/{command} ... C1`.")
    wanted, claim = token.split(":", 1) if ":" in token else (None, token)
    if not re.fullmatch(CLAIM_ID_PATTERN, claim):
        return refuse(command, "usage", f"{code(token)} is not a claim id such as `C1`.")
    books = ctx.bound_logbooks(command, named_sha(words), f"/{command} {words[0]} {token}")
    if isinstance(books, Outcome):
        return books
    if wanted is not None:
        books = [b for b in books if b[1] == wanted]
    if not books:
        return refuse(
            command,
            "no_logbook",
            "No logbook of this pull request matches; name it as `logbook-id:C1`.",
        )
    if len(books) > 1:
        listed = ", ".join(f"`{b[1]}:{claim}`" for b in books)
        return refuse(
            command, "ambiguous", f"This pull request has several logbooks; write one of {listed}."
        )
    paper_id, logbook_id = books[0]
    paper = ctx.paper(paper_id)
    if paper is None:
        return refuse(command, "unknown_paper", f"Paper `{paper_id}` is not on the base branch.")
    if paper.claim(claim) is None:
        ids = ", ".join(c.id for c in paper.claims)
        return refuse(
            command,
            "unknown_claim",
            f"Paper `{paper_id}` has no claim {code(claim)} (it has {ids}).",
        )
    return paper_id, logbook_id, claim


def why_reviewable(ctx: Context, paper: PaperFile, logbook_id: str, claim_id: str) -> str | None:
    """Why a maintainer may review this falsification, or None when there is none to review.

    A review is for a claim the logbook falsified (its recorded verdict on the base
    branch, or the rules judge on the logbook at the bound head) or whose
    ``falsification`` section names it.
    """
    paper_id = paper.paper.id
    rel = layout.logbook_rel(paper_id, logbook_id)
    text = ctx.github.file_text(ctx.event.repo, rel, ctx.head().sha)
    if text is not None:
        try:
            book = to_model(parse_yaml(text, rel), Logbook)
        except ReproauditError:
            book = None
        result = book.result(claim_id) if book is not None else None
        if result is not None and result.falsification is not None:
            return "its falsification section names it"
        claim = paper.claim(claim_id)
        if (
            result is not None
            and claim is not None
            and judge_claim(claim, result, None).verdict == "falsified"
        ):
            return "the rules judge falsifies it"
    verdict = ctx.corpus().verdict(paper_id, logbook_id)
    recorded = next((c for c in verdict.claims if c.claim == claim_id), None) if verdict else None
    if recorded is not None and recorded.verdict == "falsified":
        return "its recorded verdict is falsified"
    return None


def _record(
    ctx: Context,
    kind: str,
    stance: str,
    paper_id: str,
    logbook_id: str,
    claim: str,
    text: str,
    link: str | None,
) -> dict[str, Any] | Outcome:
    """The reviews.yaml entry (plus the paper it belongs to), or a refusal saying what is wrong."""
    record = {
        "claim": claim,
        "logbook": logbook_id,
        "kind": kind,
        "stance": stance,
        "by": ctx.event.login,
        "at": ctx.event.created_at,
        "link": link or ctx.event.url,
        "text": text or None,
    }
    try:
        Review.model_validate(record)
    except ValidationError as exc:  # e.g. a link the comment spells wrong: answer, never crash
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the command"
        command = "review" if kind == "review" else "author"
        return refuse(
            command,
            "invalid",
            f"This cannot be recorded: its {code(field)} is not valid "
            f"({plain(first['msg'])}). Check it and post the command again: "
            f"`{HANDLERS[command].usage}`.",
        )
    return record | {"paper": paper_id}


def _free_text(rest: str, skip_words: int) -> str:
    """The comment's text after the command and its first words, plain and capped."""
    parts = rest.split(None, skip_words)
    return " ".join(parts[skip_words].split())[:1000] if len(parts) > skip_words else ""


def _answer_text(rest: str, words: list[str]) -> str:
    """The text of a ``/review`` or ``/author`` after the claim (and the SHA, if named)."""
    return _free_text(rest, 4 if named_sha(words) else 3)


def _when_shown(ctx: Context, what: str) -> str:
    """When a recorded review or answer reaches the site: it waits for the merge."""
    if ctx.merged():
        return f"This pull request is merged, so {what} on the site within minutes."
    return (
        f"It is kept with this pull request until the pull request is merged; then {what} "
        "on the site, within minutes of the merge. If the pull request is closed without "
        "merging, it is not published."
    )


@handler(
    "review",
    "write",
    "/review confirm|reject [LOGBOOK:]CLAIM [40-HEX-SHA] [text]",
    "confirm or reject a claimed falsification (maintainers)",
)
def _review(ctx: Context, words: list[str], rest: str) -> Outcome:
    if not words or words[0] not in ("confirm", "reject"):
        return refuse(
            "review",
            "usage",
            _near(words, ("confirm", "reject"))
            + "Type `/review confirm C1 [why]` or `/review reject C1 [why]`.",
        )
    target = _target(ctx, "review", words)
    if isinstance(target, Outcome):
        return target
    paper_id, logbook_id, claim = target
    paper = ctx.paper(paper_id)
    if paper is None or why_reviewable(ctx, paper, logbook_id, claim) is None:
        return refuse(
            "review",
            "not_falsified",
            f"There is no falsification of `{claim}` in `{logbook_id}` to review: the "
            f"logbook does not falsify it and its `falsification` section does not name "
            "it. A review confirms or rejects a claimed falsification; to discuss "
            "another verdict, comment without a command.",
        )
    text = _answer_text(rest, words)
    record = _record(ctx, "review", words[0], paper_id, logbook_id, claim, text, None)
    if isinstance(record, Outcome):
        return record
    state = "falsified" if words[0] == "confirm" else "inconclusive"
    return Outcome(
        "review",
        True,
        "recorded",
        f"Recorded: {plain(ctx.event.login)} {words[0]}s the falsification of "
        f"`{claim}` in `{logbook_id}`. " + _when_shown(ctx, f"it counts as **{state}**"),
        record=record,
    )


@handler(
    "author",
    "author",
    "/author agree|disagree|fixed [LOGBOOK:]CLAIM [40-HEX-SHA] text",
    "answer as one of the paper's listed authors (`fixed` needs a link)",
)
def _author(ctx: Context, words: list[str], rest: str) -> Outcome:
    if not words or words[0] not in ("agree", "disagree", "fixed"):
        return refuse(
            "author",
            "usage",
            _near(words, ("agree", "disagree", "fixed"))
            + "Type `/author agree C1 ...`, `/author disagree C1 ...` "
            "or `/author fixed C1 <link> ...`.",
        )
    target = _target(ctx, "author", words)
    if isinstance(target, Outcome):
        return target
    paper_id, logbook_id, claim = target
    paper = ctx.paper(paper_id)
    handles = {a.github.lower() for a in paper.paper.authors if a.github} if paper else set()
    if ctx.event.login.lower() not in handles:
        return refuse(
            "author",
            "not_author",
            f"Only the paper's listed authors can answer as authors, and "
            f"{plain(ctx.event.login)} is not one of them. An author's GitHub handle "
            f"goes in the paper file (`authors[].github`) through a pull request.",
        )
    text = _answer_text(rest, words)
    link = None
    if words[0] == "fixed":
        found = URL.search(text)
        if not found:
            return refuse(
                "author",
                "usage",
                "`fixed` needs a link to the fix, e.g. "
                "`/author fixed C1 https://github.com/org/repo/commit/...`.",
            )
        link = found.group(0)
    record = _record(ctx, "author_response", words[0], paper_id, logbook_id, claim, text, link)
    if isinstance(record, Outcome):
        return record
    return Outcome(
        "author",
        True,
        "recorded",
        f"Recorded the authors' response to `{claim}` ({words[0]}). "
        + _when_shown(ctx, "it is shown beside the claim on the paper's page"),
        record=record,
    )


# --- dispatcher -------------------------------------------------------------------------


def dispatch(
    payload: Any,
    github: GitHub,
    repo_dir: Path,
    *,
    dry_run: bool = False,
    default_backend: str = "local",
) -> Outcome:
    """Decide what one comment does. Sends nothing and writes nothing itself.

    ``default_backend``: where ``/reproduce`` runs when it names none (the repository
    variable ``REPROAUDIT_REPRODUCE_BACKEND``), so the approval says where it runs."""
    event = parse_event(payload)
    parsed = parse_command(event.body)
    if parsed is None:
        return Outcome(None, False, "not_a_command", None)
    name, words, rest = parsed
    if event.is_bot:
        return Outcome(name, False, "bot", None)
    if event.action != "created":
        return refuse(
            name,
            "edited",
            "Commands run only from new comments, not edited ones "
            "(an edit could change what was approved). Post the command again.",
        )
    if not event.is_pull_request:
        return refuse(name, "not_a_pull_request", "Commands work on pull requests only.")
    command = HANDLERS.get(name)
    permission = github.permission(event.repo, event.login)
    ctx = Context(event, github, repo_dir, permission, dry_run, default_backend)
    if command is None:
        return refuse(
            name,
            "unknown",
            f"{code('/' + name)} is not a command.{did_you_mean(name)} "
            "Type `/help` for the ones you can use here.",
        )
    if command.who == "write" and not ctx.can_write:
        return refuse(
            name,
            "not_allowed",
            f"`/{name}` needs write permission on this "
            f"repository, and {plain(event.login)} has {permission}. Type `/help` for "
            "the commands you can use.",
        )
    outcome = command.run(ctx, words, rest)
    outcome.pr = event.number
    return outcome


def append_review(repo_dir: Path, record: dict[str, Any]) -> Path:
    """Append one record to ``verdicts/<paper>/reviews.yaml`` (atomically, validated)."""
    record = dict(record)
    paper_id = record.pop("paper")
    path = Path(repo_dir) / layout.reviews_rel(paper_id)
    existing: list[dict[str, Any]] = []
    if path.is_file():
        from ..loader import load_reviews

        existing = [
            r.model_dump(mode="json")
            for r in load_reviews(path, layout.reviews_rel(paper_id)).reviews
        ]
    try:
        normal = Review.model_validate(record).model_dump(mode="json")
        if normal in existing:
            return path  # already recorded (a re-run job): appending again would count it twice
        ReviewsFile.model_validate({"reviews": [*existing, record]})
    except ValidationError as exc:
        raise InputError(
            Problem(
                P.INVALID_VALUE,
                str(PurePosixPath(layout.reviews_rel(paper_id))),
                None,
                None,
                f"refusing to write an invalid review: {exc}",
            )
        ) from None
    text = "# Appended by the reproaudit bot from pull-request commands; do not edit by hand.\n"
    text += yaml.safe_dump(
        {"reviews": [*existing, record]}, sort_keys=False, allow_unicode=True, width=100
    )
    atomic_write(path, text)
    return path


def carry_out(outcome: Outcome, event: Event, github: GitHub, repo_dir: Path) -> None:
    """Post the reply and write the record (not in dry-run mode)."""
    if outcome.reply:
        github.comment(event.repo, event.number, outcome.reply)
    if outcome.allowed and outcome.record is not None:
        append_review(repo_dir, outcome.record)


def handle_comment(
    payload: Path,
    repo_dir: Path,
    *,
    dry_run: bool = False,
    offline: bool = False,
    base: str | None = None,
    default_backend: str = "local",
) -> Outcome:
    """``ci command``: read the event file, decide, and (unless ``dry_run``) reply and record.

    With ``dry_run`` the GitHub client sends nothing but GETs. With ``offline`` there is
    no client at all: ``offline.LocalGitHub`` answers from the payload and the local clone
    ``repo_dir`` (base branch ``base``), and nothing is sent or written.
    """
    from .events import read_json

    data = read_json(payload)
    try:
        parse_event(data)
    except ArtifactError as exc:
        raise exc.at(payload) from None
    if offline:
        from .offline import LocalGitHub

        # LocalGitHub is a stand-in with GitHub's methods, not a subclass
        local = LocalGitHub(data, repo_dir, base)
        return dispatch(data, local, repo_dir, dry_run=True, default_backend=default_backend)  # type: ignore[arg-type]
    github = GitHub.from_env(read_only=dry_run)
    outcome = dispatch(data, github, repo_dir, dry_run=dry_run, default_backend=default_backend)
    if not dry_run and outcome.command is not None:
        carry_out(outcome, parse_event(data), github, repo_dir)
    return outcome
