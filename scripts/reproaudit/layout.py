"""Where files live in an audit repository, and what kind each path is.

One place knows the layout of DESIGN.md, so validation, judging and the site
agree on it:

    claims/<venue>/<paper>.yaml          paper file
    logbooks/<paper>/<logbook>.yaml      logbook (write-up <logbook>.md, code <logbook>/)
    verdicts/<paper>/<logbook>.yaml      verdict file
    verdicts/<paper>/reviews.yaml        reviews and author responses
    verdicts/<paper>/mentions.yaml       the ledger of the bot's mentions of the paper's authors
    reruns/<paper>/<logbook>/            re-run record: run.json, outputs.json

The paths the site and the layout write beside ids, and the ids they reserve: a paper id
``P`` makes ``papers/P/`` on the site and a logbook id ``L`` makes ``papers/<paper>/L/``
and ``verdicts/<paper>/L.yaml``; beside them the site and the layout write names of their
own (the papers list page ``papers/index.html``, a paper's Atom feed
``papers/<paper>/feed.xml``, ``verdicts/<paper>/reviews.yaml``). An id that would make one
of those names would overwrite it or stop the build, so it is reserved. ``WRITTEN`` is the
one list: the site builds these paths from it (``site/context.py``, ``site/render.py``) and
``RESERVED`` is derived from it, so a name added there is reserved the moment the site
writes it. The models, ``validate`` (through them) and onboarding refuse a reserved id
(``reserved_id``); the site's tree writer (``fsutil.TreeWriter``) names both writers of
any path two of them would write, as an input error (``path_collision``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Literal

from .listing import Listing

FileKind = Literal["paper", "logbook", "verdict", "reviews", "mentions"]
DATA_DIRS = ("claims", "logbooks", "verdicts")
REVIEWS_NAME = "reviews.yaml"
MENTIONS_NAME = "mentions.yaml"
RERUNS_DIR = "reruns"
RUN_JSON = "run.json"
OUTPUTS_JSON = "outputs.json"
RECORD_FILES = (RUN_JSON, OUTPUTS_JSON)  # what a re-run record folder holds


@dataclass(frozen=True, order=True)
class DataPath:
    """A data file's repository-relative POSIX path and what it is."""

    rel: str
    kind: FileKind
    # claims: (venue, paper); logbooks/verdicts: (paper, logbook); reviews, mentions: (paper, "")
    key: tuple[str, str]

    @property
    def stem(self) -> str:
        return self.key[1]


def classify(rel: str) -> DataPath | None:
    """Kind of a repository-relative path, or None when it is not a data file there."""
    parts = PurePosixPath(rel).parts
    if len(parts) != 3 or not parts[2].endswith(".yaml"):
        return None
    top, folder, name = parts
    stem = name[: -len(".yaml")]
    if top == "claims":
        return DataPath(rel, "paper", (folder, stem))
    if top == "logbooks":
        return DataPath(rel, "logbook", (folder, stem))
    if top == "verdicts":
        if name == REVIEWS_NAME:
            return DataPath(rel, "reviews", (folder, ""))
        if name == MENTIONS_NAME:
            return DataPath(rel, "mentions", (folder, ""))
        return DataPath(rel, "verdict", (folder, stem))
    return None


def misplaced(rel: str) -> str | None:
    """Why a YAML file under a data folder is in the wrong place, or None."""
    parts = PurePosixPath(rel).parts
    if not parts or parts[0] not in DATA_DIRS or not rel.endswith((".yaml", ".yml")):
        return None
    if rel.endswith(".yml"):
        return "yml"
    if len(parts) == 3:
        return None
    if parts[0] == "logbooks" and len(parts) > 3:
        return None  # inside a logbook's own code folder: code and configs are allowed
    return {
        "claims": "paper files go in claims/<venue>/<paper>.yaml",
        "logbooks": "logbooks go in logbooks/<paper>/<logbook>.yaml",
        "verdicts": "verdict files go in verdicts/<paper>/<logbook>.yaml",
    }[parts[0]]


def scan(root: Path, listing: Listing | None = None) -> tuple[list[DataPath], list[str]]:
    """All data files under ``root`` and the YAML files that are misplaced there.

    Uses ``os.scandir`` two levels deep rather than a recursive glob: a
    conference has ~20,000 data files and logbook code folders can be large.
    ``listing``: the run's one listing of each folder (``Corpus.listing``).
    """
    listing = listing or Listing()
    found: list[DataPath] = []
    stray: list[str] = []
    for top in DATA_DIRS:
        base = root / top
        if not base.is_dir():
            continue
        for first in _entries(listing, base):
            if not first.is_dir(follow_symlinks=False):
                if first.name.endswith((".yaml", ".yml")):
                    stray.append(f"{top}/{first.name}")
                continue
            for second in _entries(listing, Path(first.path)):
                rel = f"{top}/{first.name}/{second.name}"
                if second.is_dir(follow_symlinks=False):
                    if top != "logbooks":
                        stray.extend(_yaml_below(root, Path(second.path)))
                    continue
                data = classify(rel)
                if data is not None:
                    found.append(data)
                elif second.name.endswith(".yml"):
                    stray.append(rel)
    found.sort()
    stray.sort()
    return found, stray


def _entries(listing: Listing, path: Path) -> list[os.DirEntry[str]]:
    try:
        return [e for e in listing.entries(path) if not e.name.startswith(".")]
    except OSError:
        return []


def _yaml_below(root: Path, folder: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in folder.rglob("*") if p.suffix in (".yaml", ".yml")
    )


def logbook_rel(paper: str, logbook: str) -> str:
    return f"logbooks/{paper}/{logbook}.yaml"


def verdict_rel(paper: str, logbook: str) -> str:
    return f"verdicts/{paper}/{logbook}.yaml"


def reviews_rel(paper: str) -> str:
    return f"verdicts/{paper}/{REVIEWS_NAME}"


def mentions_rel(paper: str) -> str:
    return f"verdicts/{paper}/{MENTIONS_NAME}"


def writeup_rel(paper: str, logbook: str) -> str:
    return f"logbooks/{paper}/{logbook}.md"


def code_rel(paper: str, logbook: str) -> str:
    """A logbook's own folder (``code: {path: <logbook>/}``), without a trailing slash."""
    return f"{LOGBOOKS_DIR}/{paper}/{logbook}"


def rerun_rel(paper: str, logbook: str) -> str:
    """A logbook's stored re-run record folder, relative to the repository."""
    return f"{RERUNS_DIR}/{paper}/{logbook}"


def run_json_rel(paper: str, logbook: str) -> str:
    return f"{rerun_rel(paper, logbook)}/{RUN_JSON}"


def rerun_folder(reruns: Path, paper: str, logbook: str) -> Path:
    """A record's folder under a re-runs folder (``reruns/`` or ``reproduce --out``)."""
    return Path(reruns) / paper / logbook


def logbook_key(rel: str) -> tuple[str, str] | None:
    """(paper, logbook) of a logbook's YAML path, or None when ``rel`` is not one."""
    data = classify(rel)
    return data.key if data is not None and data.kind == "logbook" else None


CLAIMS_DIR, LOGBOOKS_DIR, VERDICTS_DIR = DATA_DIRS


def paper_rel(venue_slug: str, paper: str) -> str:
    """A paper file, under its venue's folder (``slug`` of the venue's name)."""
    return f"{CLAIMS_DIR}/{venue_slug}/{paper}.yaml"


def in_paper_logbooks(paper: str, rel: str) -> str:
    """A path inside ``logbooks/<paper>/``: a code folder, a requirements file."""
    return f"{LOGBOOKS_DIR}/{paper}/{rel}"


# --- what the site and the layout write beside ids, and the ids it reserves ---------

Tree = Literal["site", "pages", "repository"]
IdKind = Literal["paper", "logbook"]
KINDS: tuple[IdKind, ...] = ("paper", "logbook")
_FIELD = {"paper": "paper.id", "logbook": "logbook.id"}
_INDEX = "index.html"
_WHERE = {
    "site": "the site writes",
    "pages": "the site's page sources hold",
    "repository": "the repository holds",
}


@dataclass(frozen=True)
class Written:
    """One path written by the site or the layout, its ids as ``{paper}`` and ``{logbook}``.

    ``tree``: the built site, the page sources the site hands to mkdocs (``pages``), or the
    repository. ``what`` says in words what is written there, with the same placeholders.
    """

    tree: Tree
    path: str
    what: str

    def at(self, **ids: str) -> str:
        """The path with its ids filled in."""
        return self.path.format(**ids)

    def url(self, **ids: str) -> str:
        """The directory URL of a page (``papers/P/`` for ``papers/P/index.html``)."""
        return self.at(**ids).removesuffix(_INDEX)

    @property
    def own(self) -> IdKind | None:
        """The kind of the id whose input this path comes from (its deepest id), or None."""
        found = re.findall(r"\{(\w+)\}", self.path)
        return found[-1] if found else None


SITE_FEED = Written("site", "feed.xml", "the site's Atom feed")
PAPERS_PAGE = Written("site", "papers/index.html", "the papers list page")
PAPER_PAGE = Written("site", "papers/{paper}/index.html", "the page of paper {paper}")
PAPER_FEED = Written("site", "papers/{paper}/feed.xml", "the Atom feed of paper {paper}")
LOGBOOK_PAGE = Written(
    "site", "papers/{paper}/{logbook}/index.html", "the page of logbook {logbook} of {paper}"
)
BADGE = Written("site", "badges/{paper}.svg", "the badge of paper {paper}")
SITE_RECORDS = tuple(
    Written(
        "site",
        f"{RERUNS_DIR}/{{paper}}/{{logbook}}/{name}",
        f"the re-run record's {name} of logbook {{logbook}} of {{paper}}",
    )
    for name in (RUN_JSON, OUTPUTS_JSON)
)
PAPERS_SOURCE = Written("pages", "papers/index.md", "the source of the papers list page")
PAPER_SOURCE = Written("pages", "papers/{paper}/index.md", "the source of the page of {paper}")
LOGBOOK_SOURCE = Written(
    "pages", "papers/{paper}/{logbook}/index.md", "the source of the page of logbook {logbook}"
)
REVIEWS = Written(
    "repository",
    f"{VERDICTS_DIR}/{{paper}}/{REVIEWS_NAME}",
    "the reviews and author answers of paper {paper}",
)
MENTIONS = Written(
    "repository",
    f"{VERDICTS_DIR}/{{paper}}/{MENTIONS_NAME}",
    "the ledger of the bot's mentions of the authors of paper {paper}",
)
VERDICT = Written(
    "repository", f"{VERDICTS_DIR}/{{paper}}/{{logbook}}.yaml", "the verdicts of logbook {logbook}"
)
LOGBOOK_FILE = Written(
    "repository", f"{LOGBOOKS_DIR}/{{paper}}/{{logbook}}.yaml", "the logbook {logbook}"
)
RECORD = Written(
    "repository", f"{RERUNS_DIR}/{{paper}}/{{logbook}}/{RUN_JSON}", "the re-run record of {logbook}"
)

WRITTEN: tuple[Written, ...] = (
    SITE_FEED,
    PAPERS_PAGE,
    PAPER_PAGE,
    PAPER_FEED,
    LOGBOOK_PAGE,
    BADGE,
    *SITE_RECORDS,
    PAPERS_SOURCE,
    PAPER_SOURCE,
    LOGBOOK_SOURCE,
    REVIEWS,
    MENTIONS,
    VERDICT,
    LOGBOOK_FILE,
    RECORD,
)


def _derive(kind: IdKind) -> dict[str, Written]:
    """Each id of ``kind`` one of whose paths is a name written beside it -> that name's path.

    A path component holding the id (``{logbook}`` or ``{logbook}.yaml``) meets every fixed
    component at the same place of a path of the same tree under the same folder
    (``feed.xml`` beside ``{logbook}`` in ``papers/{paper}/``): the id that would make that
    name is reserved, a folder of the id's as much as a file.
    """
    mark = "{" + kind + "}"
    out: dict[str, Written] = {}
    for mine in WRITTEN:
        parts = mine.path.split("/")
        for at, part in enumerate(parts):
            if mark not in part:
                continue
            head, _, tail = part.partition(mark)
            for other in WRITTEN:
                theirs = other.path.split("/")
                if other.tree != mine.tree or len(theirs) <= at or theirs[:at] != parts[:at]:
                    continue
                name = theirs[at]
                fixed = "{" not in name
                if fixed and name.startswith(head) and name.endswith(tail):
                    taken = name[len(head) : len(name) - len(tail)]
                    if taken:
                        out.setdefault(taken, other)
    return out


RESERVED_HINT = "pick another id, and name the file after it"

RESERVED: dict[IdKind, dict[str, Written]] = {kind: _derive(kind) for kind in KINDS}
RESERVED_PAPER_IDS = frozenset(RESERVED["paper"])
RESERVED_LOGBOOK_IDS = frozenset(RESERVED["logbook"])


def reserved_for(kind: IdKind, value: str) -> Written | None:
    """The written path an id of ``kind`` would take, or None when the id is free.

    Compared without case: a paper id ``Index.html`` is ``index.html`` on the file systems
    of macOS and Windows, where a maintainer may build the site.
    """
    return RESERVED[kind].get(value.lower())


def reserved_message(kind: IdKind, value: str) -> str | None:
    """Why an id of ``kind`` is reserved, in words, or None when it is free."""
    written = reserved_for(kind, value)
    if written is None:
        return None
    shown = written.path.replace("{paper}", "<paper>")
    what = written.what.format(paper="<paper>", logbook="<logbook>")
    return f"{value!r} is reserved: {_WHERE[written.tree]} {shown}, {what}"


@cache
def _patterns(tree: Tree) -> list[tuple[re.Pattern[str], Written]]:
    made = []
    for written in WRITTEN:
        if written.tree == tree:
            parts = re.split(r"(\{\w+\})", written.path)
            regex = "".join(
                f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p) for p in parts
            )
            made.append((re.compile(regex), written))
    return made


def match_written(tree: Tree, path: str) -> tuple[Written, dict[str, str]] | None:
    """The written path ``path`` is an instance of, and its ids, or None."""
    for pattern, written in _patterns(tree):
        found = pattern.fullmatch(path)
        if found:
            return written, found.groupdict()
    return None


def id_field(kind: IdKind) -> str:
    """The field of the input file that holds an id of ``kind``."""
    return _FIELD[kind]
