"""THE bot comment of a pull request: one comment, sections updated in place.

The PR report (``ci report``) and the judge's verdicts (``ci judge-pr``) are two
sections of one comment, so a pull request has one bot comment however often
either step runs. The comment starts with a hidden HTML comment holding a JSON
blob: each section's status (data the steps read back, never parsed from the
prose) and its length. Sections are cut by those lengths, not by searching the
text, so untrusted text inside a section (a logbook's evidence, a log line)
cannot forge a section boundary. A comment that does not parse is rebuilt.

The report's rules verdicts are one section per logbook (``rules:<paper>/<logbook>``,
status ``{"sha": ...}``): once the judge's section says it judged that logbook with a
passed re-run at that same head (``llm`` status ``{"sha": ..., "reran": [...]}``), the
report's verdicts of it, on the numbers the logbook typed, are superseded and left out
(``superseded``), whichever step wrote last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

PREFIX = "<!-- reproaudit:sticky "
SUFFIX = " -->\n"
ORDER = ("report", "rules", "reruns", "llm", "authors")  # the sections (groups), top to bottom
RULES = "rules"  # the group of the report's per-logbook verdicts: rules:<paper>/<logbook>
VERSION = 1
LEGACY = ("<!-- reproaudit:report", "<!-- reproaudit:llm")  # the two comments before this one


class CommentApi(Protocol):
    """The three GitHub calls the sticky comment needs (``ci.github.GitHub``)."""

    def issue_comments(self, repo: str, number: int) -> list[dict[str, Any]]: ...

    def comment(self, repo: str, number: int, body: str) -> dict[str, Any]: ...

    def edit_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]: ...


@dataclass
class Section:
    """One part of the comment: its Markdown and its status (JSON-able data)."""

    body: str
    status: dict[str, Any] = field(default_factory=dict)


@dataclass
class Sticky:
    """The comment's content, by section name."""

    sections: dict[str, Section] = field(default_factory=dict)

    def status(self, name: str) -> dict[str, Any] | None:
        section = self.sections.get(name)
        return section.status if section else None


def group(name: str) -> str:
    """A section's group: ``rules`` for ``rules:<paper>/<logbook>``, else its name."""
    return name.split(":", 1)[0]


def _sep(names: list[str], i: int) -> str:
    """What comes before section ``i``: a rule between groups, a blank line inside one."""
    return "\n---\n" if group(names[i]) != group(names[i - 1]) else "\n"


def superseded(sticky: Sticky) -> set[str]:
    """The report's verdict sections the judge's re-run-backed verdicts replace: those of
    a logbook the ``llm`` section judged with a passed re-run, at the same head."""
    llm = sticky.sections.get("llm")
    sha = llm.status.get("sha") if llm else None
    if llm is None or not sha:
        return set()
    reran = set(llm.status.get("reran") or [])
    return {
        name
        for name, section in sticky.sections.items()
        if group(name) == RULES
        and section.status.get("sha") == sha
        and name.split(":", 1)[1] in reran
    }


def render(sticky: Sticky) -> str:
    """The comment body: the JSON header, then each section's Markdown in ``ORDER``
    (superseded sections left out)."""
    gone = superseded(sticky)
    names = sorted(
        (n for n in sticky.sections if n not in gone),
        key=lambda n: (ORDER.index(group(n)) if group(n) in ORDER else 99, n),
    )
    bodies = [sticky.sections[n].body.rstrip("\n") + "\n" for n in names]
    header = {
        "v": VERSION,
        "sections": [
            {"name": n, "length": len(b), "status": sticky.sections[n].status}
            for n, b in zip(names, bodies, strict=True)
        ],
    }
    # no "-->" can end the HTML comment early: "<" and ">" only occur in JSON strings,
    # where they are escaped
    blob = json.dumps(header, sort_keys=True, separators=(",", ":"))
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e")
    return (
        PREFIX
        + blob
        + SUFFIX
        + "".join((_sep(names, i) if i else "") + body for i, body in enumerate(bodies))
    )


def parse(body: str) -> Sticky | None:
    """The sections of a comment ``render`` wrote, or None when it is not one (or damaged)."""
    if not body.startswith(PREFIX):
        return None
    end = body.find(SUFFIX, len(PREFIX))
    if end < 0:
        return None
    try:
        header = json.loads(body[len(PREFIX) : end])
        at = end + len(SUFFIX)
        sticky = Sticky()
        names = [str(item["name"]) for item in header["sections"]]
        for i, item in enumerate(header["sections"]):
            if i:
                sep = _sep(names, i)
                if body[at : at + len(sep)] != sep:
                    return None
                at += len(sep)
            length = int(item["length"])
            text = body[at : at + length]
            if len(text) != length or not isinstance(item["status"], dict):
                return None
            sticky.sections[str(item["name"])] = Section(text, item["status"])
            at += length
    except (ValueError, KeyError, TypeError):
        return None
    return sticky if at == len(body) else None


def find(comments: list[dict[str, Any]]) -> tuple[int, Sticky] | None:
    """The bot's sticky comment (its id and content): the first bot comment that parses,
    else an older-format bot comment (report or verdicts), taken over with no sections."""
    legacy = None
    for comment in comments:
        user = comment.get("user") or {}
        if user.get("type") != "Bot":
            continue
        body = str(comment.get("body", ""))
        sticky = parse(body)
        if sticky is not None:
            return int(comment["id"]), sticky
        if legacy is None and body.startswith(LEGACY):
            legacy = int(comment["id"]), Sticky()
    return legacy


def update(
    github: CommentApi,
    repo: str,
    pr: int,
    name: str,
    body: str,
    status: dict[str, Any],
    *,
    group_sections: dict[str, Section] | None = None,
) -> tuple[Sticky, bool]:
    """Set one section of the PR's sticky comment (other sections kept): the new content,
    and whether an existing comment was edited (else one was posted).

    ``group_sections``: the whole ``rules`` group as it is now (the report's verdicts per
    logbook), replacing the group's sections, gone logbooks' too."""
    found = find(github.issue_comments(repo, pr))
    sticky = found[1] if found else Sticky()
    sticky.sections[name] = Section(body, status)
    if group_sections is not None:
        for old in [n for n in sticky.sections if group(n) == RULES]:
            del sticky.sections[old]
        sticky.sections.update(group_sections)
    text = render(sticky)
    if found:
        github.edit_comment(repo, found[0], text)
    else:
        github.comment(repo, pr, text)
    return sticky, found is not None
