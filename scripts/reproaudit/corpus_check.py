"""Is the corpus fit to publish? The check behind ``--strict`` of stats, build and export.

``stats``, ``build`` and ``export`` read verdict files as they are and leave out
what they cannot use: a truncated verdict file, a verdict whose logbook was
deleted, a claim id the paper no longer has. Published numbers then change
silently. This module lists every such file: all that ``validate`` reports as an
error, plus what only matters once verdicts and re-run records are read
together (the same claim twice in one verdict file, a re-run record that does
not parse or belongs to no logbook).

With ``--strict`` a command fails with one line per file; without it, it says
how many files it left out and why (``summary``).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from . import layout
from . import problems as P
from .judge.inputs import MAX_OUTPUTS_BYTES
from .problems import Problem
from .repo import Corpus
from .validate import validate_repo

RERUN_FILES = ("run.json", "outputs.json")


@dataclass
class CorpusCheck:
    """The problems that make a corpus unfit to publish as it is."""

    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    def by_file(self) -> dict[str, list[Problem]]:
        out: dict[str, list[Problem]] = defaultdict(list)
        for problem in self.problems:
            out[problem.path].append(problem)
        return dict(sorted(out.items()))

    def lines(self) -> list[str]:
        """One line per file: where, the first problem, and how many more."""
        out = []
        for path, found in self.by_file().items():
            first = found[0]
            where = f"{path}:{first.line}" if first.line else path
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            out.append(f"{where}: {first.code}: {first.message}{more}")
        return out

    def summary(self) -> str | None:
        """'skipped N file(s) ...: why' for a non-strict run, or None when all is well."""
        if not self.problems:
            return None
        files = self.by_file()
        reasons = Counter(found[0].code for found in files.values())
        why = ", ".join(f"{n} {code}" for code, n in sorted(reasons.items()))
        return (
            f"skipped {len(files)} file(s) with problems, left out or read only in part "
            f"({why}); --strict lists them, one line per file, and fails"
        )


def check_corpus(root: Path) -> CorpusCheck:
    """Every error ``validate`` reports, duplicate verdict entries, broken re-run records."""
    root = Path(root)
    problems = [p for p in validate_repo(root).problems if p.is_error]
    corpus = Corpus(root)
    problems += duplicate_verdict_entries(corpus)
    problems += rerun_problems(root, corpus)
    return CorpusCheck(problems)


def duplicate_verdict_entries(corpus: Corpus) -> list[Problem]:
    """A claim judged twice in one verdict file: the fold would count one of them at random."""
    out = []
    for path, verdict in corpus.verdicts():
        seen: dict[str, int] = {}
        for i, item in enumerate(verdict.claims):
            if item.claim in seen:
                out.append(
                    Problem(
                        P.DUPLICATE_ID,
                        path.rel,
                        None,
                        f"claims[{i}].claim",
                        f"claim {item.claim!r} is judged again "
                        f"(first at claims[{seen[item.claim]}])",
                        "verdict files are written by `reproaudit judge`; run it again",
                    )
                )
            else:
                seen[item.claim] = i
    return out


def rerun_problems(root: Path, corpus: Corpus) -> list[Problem]:
    """Re-run records that do not parse as JSON objects or belong to no logbook."""
    out = []
    top = root / "reruns"
    if not top.is_dir():
        return out
    for run in sorted(top.glob("*/*/run.json")):
        paper, logbook = run.parent.parent.name, run.parent.name
        folder = f"reruns/{paper}/{logbook}"
        if corpus.logbook_path(paper, logbook) is None:
            out.append(
                Problem(
                    P.UNKNOWN_LOGBOOK,
                    f"{folder}/run.json",
                    None,
                    None,
                    f"no logbook at {layout.logbook_rel(paper, logbook)} for this re-run record",
                    "delete the record, or restore the logbook",
                )
            )
        for name in RERUN_FILES:
            path = run.parent / name
            rel = f"{folder}/{name}"
            blob = corpus.blob(path, MAX_OUTPUTS_BYTES)  # the judge's reader: no link followed
            out.extend(corpus.refused.get(path, []))
            if blob is None:
                continue
            if not blob.complete:
                out.append(
                    Problem(P.FILE_TOO_LARGE, rel, None, None, "larger than the judge reads")
                )
                continue
            try:
                data = json.loads(blob.raw)
            except (ValueError, UnicodeDecodeError) as exc:
                out.append(
                    Problem(
                        P.INVALID_VALUE,
                        rel,
                        getattr(exc, "lineno", None),
                        None,
                        f"not JSON: {str(exc)[:200]}",
                        "re-run records are written by CI; restore the file from git history "
                        "or re-run the logbook",
                    )
                )
                continue
            if name == "run.json" and not isinstance(data, dict):
                out.append(Problem(P.INVALID_VALUE, rel, None, None, "not a JSON object"))
    return out
