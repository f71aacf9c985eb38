"""``ci validate-pr``: validate a PR's changes, judge its logbooks (rules), write the artifact.

This step runs the pull request's code with no secrets; what it writes
(``report.artifact``) is read back by ``ci report`` as untrusted data.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .. import layout
from ..errors import GitError
from ..fsutil import atomic_write
from ..judge.run import judge_in_memory
from ..pathrule import tree_problems
from ..problems import Problem
from ..repo import Corpus
from ..report.artifact import SCHEMA, Artifact, artifact_verdict
from ..validate import git_changed, validate_repo
from .changes import BlobReader, Change, tree_changes
from .ownership import Author, author_from_association, git_owner_at, rule_pr


@dataclass(frozen=True)
class Validation:
    """The artifact as written, and what the step reports from it."""

    out: Path
    artifact: dict[str, Any]
    problems: list[Problem]
    outside: list[str]

    @property
    def errors(self) -> int:
        return sum(p.is_error for p in self.problems) + len(self.outside)

    @property
    def judged(self) -> int:
        return len(self.artifact["verdicts"])


def validate_pr_to(
    repo: Path,
    base: str,
    pr: int,
    sha: str,
    out: Path,
    *,
    allow_outside: bool = False,
    author: str | None = None,
    association: str = "NONE",
) -> Validation:
    """Build the result artifact for the PR at ``sha`` and write it to ``out`` atomically.

    With ``author`` (and its ``author_association``), the ownership rule applies.
    """
    who = author_from_association(author, association) if author else None
    artifact = validate_pr(repo, base, pr, sha, allow_outside=allow_outside, author=who)
    atomic_write(out, json.dumps(artifact, indent=1) + "\n")
    problems = [Problem(**p) for p in artifact["problems"]]
    return Validation(Path(out), artifact, problems, list(artifact["outside"]))


def outside_logbooks(files: list[str]) -> list[str]:
    """Changed paths a contributor's pull request may not touch (anything not in logbooks/)."""
    return sorted(f for f in files if PurePosixPath(f).parts[:1] != (layout.LOGBOOKS_DIR,))


def validate_pr(
    repo: Path,
    base: str,
    pr: int,
    head_sha: str,
    *,
    allow_outside: bool = False,
    author: Author | None = None,
) -> dict[str, Any]:
    """Validate what the pull request changed and judge its logbooks (rules): the artifact.

    With ``author``, who may change what follows the one rule of ``ownership``.
    A ``base`` git cannot compare with raises ``GitError`` (no artifact is written).
    """
    repo = Path(repo).resolve()
    corpus = Corpus(repo)  # one read of each file, for validation and every logbook judged
    files = git_changed(repo, base)
    report = validate_repo(repo, changed_from=base, corpus=corpus)
    changes = changes_with_modes(repo, base, files)
    tree = tree_problems(changes)  # from the git trees: what a checkout makes does not matter
    seen = {p.path for p in tree}
    problems = [p for p in report.problems if p.path not in seen]
    outside = [] if allow_outside else outside_logbooks(files)
    if author is not None:
        with BlobReader(repo) as reader:
            ruling = rule_pr(changes, author, git_owner_at(reader, base, "HEAD"))
        outside, problems = ruling.outside, [*problems, *ruling.problems]
    else:
        problems.extend(tree)
    verdicts = []
    books = sorted(
        {
            d.key
            for f in files
            if (d := layout.classify(f)) and d.kind == "logbook" and (repo / f).is_file()
        }
    )
    if report.ok:
        for paper_id, logbook_id in books:
            verdict, _ = judge_in_memory(repo, paper_id, logbook_id, corpus=corpus)  # no writes
            if verdict is not None:
                verdicts.append(artifact_verdict(verdict))
    artifact = {
        "schema": SCHEMA,
        "pr": pr,
        "head_sha": head_sha,
        "files": files,
        "outside": outside,
        "problems": [asdict(p) for p in problems],
        "verdicts": verdicts,
    }
    Artifact.model_validate(artifact)
    return artifact


def changes_with_modes(repo: Path, base: str, files: list[str]) -> list[Change]:
    """``files`` as changes, with the git mode of each one committed since ``base``.

    Committed paths take their mode from the trees; an uncommitted one has only
    its name (``validate`` checks it on disk), or is a deletion when it is gone.
    """
    try:
        tree = {c.path: c for c in tree_changes(repo, base, "HEAD")}
    except GitError:
        tree = {}
    return [tree.get(f) or Change(f, "M" if os.path.lexists(repo / f) else "D") for f in files]
