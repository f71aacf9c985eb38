"""Where files live in an audit repository, and what kind each path is.

One place knows the layout of DESIGN.md, so validation, judging and the site
agree on it:

    claims/<venue>/<paper>.yaml          paper file
    logbooks/<paper>/<logbook>.yaml      logbook (write-up <logbook>.md, code <logbook>/)
    verdicts/<paper>/<logbook>.yaml      verdict file
    verdicts/<paper>/reviews.yaml        reviews and author responses
    verdicts/<paper>/mentions.yaml       the ledger of the bot's mentions of the paper's authors
    reruns/<paper>/<logbook>/            re-run record: run.json, outputs.json
"""

from __future__ import annotations

import os
from dataclasses import dataclass
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
