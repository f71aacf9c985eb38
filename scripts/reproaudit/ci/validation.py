"""``ci validate-pr``: validate a PR's changes, judge its logbooks (rules), write the artifact."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write
from ..problems import Problem


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
    from .ownership import author_from_association
    from .report import validate_pr

    who = author_from_association(author, association) if author else None
    artifact = validate_pr(repo, base, pr, sha, allow_outside=allow_outside, author=who)
    atomic_write(out, json.dumps(artifact, indent=1) + "\n")
    problems = [Problem(**p) for p in artifact["problems"]]
    return Validation(Path(out), artifact, problems, list(artifact["outside"]))
