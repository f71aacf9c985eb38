"""A pull request's logbook files, from git objects, into an empty folder of its own.

Privileged jobs (the re-run's fetch, the judge) need the files of the logbooks a
pull request touches, at the approved commit. They are never written into the
job's checkout: a directory link merged on main (``logbooks/<paper>`` pointing
into ``scripts/``) would let a later pull request's file land in the code the
job runs. Instead the fetch reads the trees and blobs of the approved commit
(no checkout, so no ``.gitattributes`` re-encodes anything), refuses the pull
request when any changed path breaks the path rule (``pathrule``), and creates
each folder and file in a new folder with no link followed (``beneath``).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from .. import layout
from .. import problems as P
from ..beneath import fresh_folder, read_file, write_file
from ..errors import InputError
from ..gitrun import run_git
from ..loader import MAX_DATA_BYTES
from ..pathrule import REGULAR_MODES, problem_for, tree_problems
from ..problems import Problem
from ..validate import MAX_CHANGE_BYTES
from .changes import BlobReader, _ref, ensure_commits, tree_changes
from .ownership import logbook_of

if TYPE_CHECKING:
    from ..repo import Corpus


def touched_logbooks(repo_dir: Path, base: str, sha: str) -> list[str]:
    """The logbook YAML paths whose files the pull request adds or changes, after the rule.

    Raises ``InputError`` with one ``not_a_logbook_file`` problem per path the rule
    refuses: nothing is fetched from a pull request that holds one.
    """
    changes = tree_changes(repo_dir, base, sha)
    problems = tree_problems(changes)
    if problems:
        raise InputError(problems)
    books = {logbook_of(c.path) for c in changes if c.status != "D"}
    return sorted(b for b in books if b is not None)


def tree_entries(repo_dir: Path, sha: str, paths: list[str]) -> list[tuple[str, str]]:
    """(mode, path) of every file at ``sha`` under ``paths`` (files or folders), from the tree."""
    if not paths:
        return []
    done = run_git(repo_dir, "ls-tree", "-r", "-z", "--full-tree", _ref(sha), "--", *paths)
    out = []
    for item in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if "\t" in item:
            meta, path = item.split("\t", 1)
            out.append((meta.split()[0], path))
    return out


def fetch_pr_files(
    repo_dir: Path, base: str, sha: str, into: Path, *, with_code: bool
) -> list[str]:
    """Write the touched logbooks' files at ``sha`` into the new folder ``into``; their paths.

    Each touched logbook comes whole: its YAML, its write-up and (``with_code``)
    every file of its folder, so the re-run sees what the commit holds even where
    the pull request changed one file. A link or submodule there (one merged
    before this rule) refuses the fetch. ``into`` must not exist yet and must lie
    outside ``repo_dir``; the total size is capped like a pull request's.
    """
    ensure_commits(repo_dir, [base, sha])
    books = touched_logbooks(repo_dir, base, sha)
    wanted = []
    for book in books:
        stem = book[: -len(".yaml")]
        wanted += [book, f"{stem}.md"] + ([f"{stem}/"] if with_code else [])
    entries = tree_entries(repo_dir, sha, wanted)
    bad = [
        problem_for(path, f"is {'a symbolic link' if mode == '120000' else 'git mode ' + mode} "
                          f"at {sha[:12]}: a fetch copies regular files only")
        for mode, path in entries
        if mode not in REGULAR_MODES
    ]  # fmt: skip
    if bad:
        raise InputError(bad)
    fresh_folder(into, outside=repo_dir)
    written, total = [], 0
    with BlobReader(repo_dir) as reader:
        for mode, path in sorted(entries, key=lambda e: e[1]):
            data = reader.read(sha, path)
            if data is None or PurePosixPath(path).parts[0] != layout.LOGBOOKS_DIR:
                continue
            total += len(data)
            if total > MAX_CHANGE_BYTES:
                raise InputError(
                    Problem(
                        P.CHANGE_TOO_LARGE,
                        path,
                        None,
                        None,
                        "the pull request's logbook files are too large",
                    )
                )
            write_file(into, path, data, executable=mode == "100755")
            written.append(path)
    return written


def copy_papers(repo: Path, into: Path, papers: set[str], corpus: Corpus | None = None) -> None:
    """Copy the paper files of ``papers`` from the checkout ``repo`` into ``into`` (one reader).

    ``corpus``: the command's ``Corpus`` of the checkout, when it has one.
    """
    from ..repo import corpus_of

    corpus = corpus_of(repo, corpus)
    for paper in sorted(papers):
        for rel in corpus.paper_rels.get(paper, []):
            data = read_file(Path(repo), rel, MAX_DATA_BYTES)
            if data is not None:
                write_file(into, rel, data)
