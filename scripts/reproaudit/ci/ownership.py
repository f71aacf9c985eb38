"""Who may change what in a pull request: one rule, used by validate.yml and the report.

- A logbook belongs to the GitHub handle in its ``contributor.github`` (compared
  case-insensitively). A pull request may add or change only its author's own
  logbooks (the YAML, the write-up beside it, its code folder), and may not
  change the contributor of an existing one, unless the author has write access
  to the repository; then the report says so.
- Under ``logbooks/`` a pull request holds logbook files only (``pathrule``): no
  link, submodule or dot-file, whoever the author is.
- Files outside ``logbooks/`` (papers in ``claims/``, anything else) are for
  maintainers: ``author_association`` OWNER, MEMBER or COLLABORATOR, or write
  access. Their PRs pass once the files validate.

``validate.yml`` runs the rule with what it knows without a token (the
association); ``ci report --post`` runs it again with the permissions API and
is the required check, and ``/reproduce`` and ``ci store-reruns`` run that same
check (``rule_pull``: the permissions API and the base and head git trees) before
approving a re-run or storing a record. The rule (``rule_pr``) is pure: the
facts about the author and a way to read a logbook's owner at the base and at
the head are passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from .. import layout
from .. import problems as P
from ..errors import InputError
from ..loader import parse_yaml
from ..pathrule import tree_problems
from ..problems import Problem
from .changes import BlobReader, Change, ensure_commits, tree_changes
from .github import WRITE_PERMISSIONS, GitHub

TRUSTED_ASSOCIATIONS = {"OWNER", "MEMBER", "COLLABORATOR"}
Side = Literal["base", "head"]
OwnerAt = Callable[[Side, str], str | None]


@dataclass(frozen=True)
class Author:
    """The pull request's author and what the repository lets them change."""

    login: str
    maintainer: bool  # may change files outside logbooks/
    can_write: bool  # may change other contributors' logbooks
    basis: str  # how that was established, for the report


@dataclass
class Ruling:
    outside: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.outside and not self.problems


def author_from_association(login: str, association: str) -> Author:
    """What the event's ``author_association`` says (no token needed; validate.yml)."""
    trusted = association.upper() in TRUSTED_ASSOCIATIONS
    return Author(login, trusted, trusted, f"author_association {association.upper() or 'NONE'}")


def author_from_api(github: GitHub, repo: str, login: str, association: str) -> Author:
    """The authoritative facts: the permissions API and the association.

    (A "maintainers team" setting was removed: reading team membership needs an
    organization token no workflow should hold; give the team write access instead.)
    """
    permission = github.permission(repo, login)
    can_write = permission in WRITE_PERMISSIONS
    trusted = association.upper() in TRUSTED_ASSOCIATIONS
    basis = f"permission {permission}, author_association {association.upper() or 'NONE'}"
    return Author(login, can_write or trusted, can_write, basis)


def contributor_of(text: bytes | str | None, rel: str) -> str | None:
    """``logbook.contributor.github`` of a logbook file's text, or None when unreadable."""
    if text is None:
        return None
    try:
        raw = text.decode("utf-8") if isinstance(text, bytes) else text
        data = parse_yaml(raw, rel).data
        handle = data["logbook"]["contributor"]["github"]
    except (InputError, UnicodeDecodeError, KeyError, TypeError):
        return None
    return handle if isinstance(handle, str) and handle else None


def git_owner_at(reader: BlobReader, base: str, head: str) -> OwnerAt:
    """``owner_at`` for ``rule_pr``: a logbook's contributor at ``base`` or ``head`` (git)."""

    def owner_at(side: Side, rel: str) -> str | None:
        return contributor_of(reader.read(base if side == "base" else head, rel), rel)

    return owner_at


def logbook_of(path: str) -> str | None:
    """The logbook YAML a path under ``logbooks/`` belongs to (itself, write-up, code)."""
    parts = PurePosixPath(path).parts
    if len(parts) < 3 or parts[0] != layout.LOGBOOKS_DIR or ".." in parts:
        return None
    name = parts[2]
    if len(parts) == 3:
        for suffix in (".yaml", ".md"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
                break
        else:
            return None
    return layout.logbook_rel(parts[1], name)


def rule_pr(changes: list[Change], author: Author, owner_at: OwnerAt) -> Ruling:
    """Which of the pull request's changes its author may not make, and why."""
    ruling = Ruling(problems=tree_problems(changes))  # logbook files only, for everyone
    me = author.login.lower()
    others: set[str] = set()
    seen: set[str] = set()
    outside_allowed = False
    for change in sorted(changes):
        if PurePosixPath(change.path).parts[:1] != (layout.LOGBOOKS_DIR,):
            if author.maintainer:
                outside_allowed = True
            else:
                ruling.outside.append(change.path)
            continue
        book = logbook_of(change.path)
        if book is None or book in seen:
            continue  # a stray file under logbooks/: validate reports where it belongs
        seen.add(book)
        base, head = owner_at("base", book), owner_at("head", book)
        foreign = [h for h in (base, head) if h is not None and h.lower() != me]
        if not foreign:
            continue
        if author.can_write:
            others.update(foreign)
            continue
        ruling.problems.append(_not_owner(book, author.login, base, head))
    if outside_allowed:
        ruling.notes.append(
            f"{author.login} is a maintainer ({author.basis}): changes outside `logbooks/` "
            "are accepted once the files validate."
        )
    if others:
        names = ", ".join(sorted(others, key=str.lower))
        ruling.notes.append(
            f"{author.login} has write access ({author.basis}): this pull request changes "
            f"logbooks of other contributors ({names})."
        )
    return ruling


def _not_owner(book: str, login: str, base: str | None, head: str | None) -> Problem:
    paper = PurePosixPath(book).parts[1]
    if base is not None and base.lower() != login.lower():
        message = (
            f"this logbook belongs to {base} (its contributor.github), and the pull "
            f"request is by {login}"
        )
        if head is not None and head.lower() != base.lower():
            message += f"; it also changes contributor.github from {base} to {head}"
        hint = (
            f"a pull request may change only its author's own logbooks: add yours as "
            f"logbooks/{paper}/<new-id>.yaml with contributor.github {login}, or ask "
            f"{base} or a maintainer to make this change"
        )
    elif base is not None:
        message = (
            f"contributor.github changes from {base} to {head}: a logbook keeps its owner, "
            f"and {head} did not open this pull request"
        )
        hint = f"keep contributor.github: {base}"
    else:
        message = (
            f"a new logbook must be its author's: contributor.github is {head}, and the "
            f"pull request is by {login}"
        )
        hint = f"set contributor.github: {login}, or let {head} open the pull request"
    return Problem(P.NOT_OWNER, book, None, "logbook.contributor.github", message, hint)


@dataclass(frozen=True)
class PullRuling:
    """The ownership rule applied to one pull request at one head, with what it looked at."""

    ruling: Ruling
    author: Author
    changes: list[Change]
    complete: bool  # every changed path was seen (git trees, or a complete files list)

    def refusal(self) -> str | None:
        """Why the pull request fails the rule, in one line; None when it passes."""
        if self.ruling.outside:
            shown = ", ".join(self.ruling.outside[:3])
            more = (
                f" and {len(self.ruling.outside) - 3} more" if len(self.ruling.outside) > 3 else ""
            )
            return (
                f"{self.author.login} may change only files under logbooks/, and it changes "
                f"{shown}{more}"
            )
        if self.ruling.problems:
            first = self.ruling.problems[0]
            return f"{first.path}: {first.message}"
        return None

    def logbooks(self) -> list[str]:
        """The logbook YAML paths the pull request touches (its YAML, write-up or code)."""
        return sorted({b for c in self.changes if (b := logbook_of(c.path)) is not None})


def rule_pull(
    github: GitHub,
    repo: str,
    number: int,
    head: str,
    repo_dir: Path | None,
) -> PullRuling:
    """The ownership rule for pull request ``number`` at ``head``, from trusted facts.

    The author's rights come from the permissions API; the changed paths and the
    owners at base and head from git trees in ``repo_dir`` (a clone; the commits
    are fetched as objects), or from the API when there is no clone, in which
    case a files list GitHub cuts short fails the rule.
    """
    pull = github.pull(repo, number)
    base = str(pull["base"]["sha"])
    author = author_from_api(
        github,
        repo,
        str(pull["user"]["login"]),
        str(pull.get("author_association") or "NONE"),
    )
    if repo_dir is not None:
        ensure_commits(repo_dir, [base, head])
        changes = tree_changes(repo_dir, base, head)
        with BlobReader(repo_dir) as reader:
            ruling = rule_pr(changes, author, git_owner_at(reader, base, head))
        return PullRuling(ruling, author, changes, True)

    def api_owner(side: Side, rel: str) -> str | None:
        return contributor_of(github.file_text(repo, rel, base if side == "base" else head), rel)

    files, complete = github.pull_files_complete(repo, number)
    changes = [Change(f, "M") for f in files]
    ruling = rule_pr(changes, author, api_owner)
    if not complete:
        ruling.problems.insert(
            0,
            Problem(
                P.FILES_NOT_LISTED,
                f"pull request {number}",
                None,
                None,
                f"GitHub lists {len(files)} of the files this pull request changes "
                f"({pull.get('changed_files')}); it cannot be checked completely",
                "split it into pull requests of fewer than 3,000 files",
            ),
        )
    return PullRuling(ruling, author, changes, complete)
