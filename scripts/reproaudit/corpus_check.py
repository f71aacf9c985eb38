"""Is the corpus fit to publish? The check behind ``--strict`` of stats, build and export.

``stats``, ``build`` and ``export`` read verdict files as they are and leave out
what they cannot use: a truncated verdict file, a verdict whose logbook was
deleted, a claim id the paper no longer has. Published numbers then change
silently. This module lists every such file: all that ``validate`` reports as an
error (a verdict cut short included), plus what only shows once verdicts are
read with their inputs: the same claim twice in one verdict file, a re-run
record that does not parse, does not validate or belongs to no logbook, a
verdict whose inputs changed since (stale) or whose re-run record is gone, and
a verdict that is not what the judge writes for its inputs (re-derived in
memory with the judge's own functions: rules verdicts exactly, LLM verdicts
where the rules fix them).

With ``--strict`` a command fails with one line per file; without it, it says
how many files it left out, counts as stale, or counts though they differ, and why
(``summary``).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from . import layout
from . import problems as P
from .models import VerdictFile
from .problems import Problem
from .repo import Corpus, as_corpus
from .rerun_files import LIMITS, read_outputs_at, read_run_json
from .validate import validate_repo


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
        """How many files were left out, counted as stale, or counted though they
        differ, and why: the stderr line of a run without --strict (None when all is well)."""
        if not self.problems:
            return None
        groups: dict[str, Counter[str]] = {kind: Counter() for kind in SUMMARY}
        for found in self.by_file().values():
            code = found[0].code
            groups[_summary_kind(code)][code] += 1
        parts = []
        for kind, reasons in groups.items():
            if reasons:
                why = ", ".join(f"{n} {code}" for code, n in sorted(reasons.items()))
                parts.append(SUMMARY[kind].format(n=sum(reasons.values()), why=why))
        return "; ".join(parts) + "; --strict lists them, one line per file, and fails"


SUMMARY = {
    "left_out": "skipped {n} file(s) with problems, left out or read only in part ({why})",
    "stale": "counted {n} stale verdict(s), shown marked stale ({why})",
    "differs": "counted {n} verdict(s) the judge would not write for their inputs ({why})",
}


def _summary_kind(code: str) -> str:
    if code in (P.VERDICT_STALE, P.RERUN_MISSING):
        return "stale"
    return "differs" if code == P.VERDICT_DIFFERS else "left_out"


def check_corpus(source: Path | Corpus) -> CorpusCheck:
    """Every error ``validate`` reports, then what verdicts and re-run records show when
    read with their inputs (see the module docstring).

    ``source``: the command's ``Corpus`` (``stats``, ``build`` and ``export`` then read
    nothing again), or a repository's folder, loaded here once.
    """
    corpus = as_corpus(source)
    root = corpus.root
    problems = [p for p in validate_repo(root, corpus=corpus).problems if p.is_error]
    problems += duplicate_verdict_entries(corpus)
    problems += rerun_problems(root, corpus)
    flagged = {p.path for p in problems}
    reruns = root / layout.RERUNS_DIR
    problems += verdict_input_problems(corpus, reruns if reruns.is_dir() else None, flagged)
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
    """Re-run records the judge cannot read (``rerun_files``: its limits, its model) or that
    belong to no logbook."""
    out: list[Problem] = []
    top = root / layout.RERUNS_DIR
    if not top.is_dir():
        return out
    for run in sorted(top.glob(f"*/*/{layout.RUN_JSON}")):
        paper, logbook = run.parent.parent.name, run.parent.name
        if paper.startswith(".") or logbook.startswith("."):
            continue  # a record being replaced (reproduce.record.replace_folder), not one
        folder = layout.rerun_rel(paper, logbook)
        if corpus.logbook_path(paper, logbook) is None:
            out.append(
                Problem(
                    P.UNKNOWN_LOGBOOK,
                    f"{folder}/{layout.RUN_JSON}",
                    None,
                    None,
                    f"no logbook at {layout.logbook_rel(paper, logbook)} for this re-run record",
                    "delete the record, or restore the logbook",
                )
            )
        for name in layout.RECORD_FILES:
            path = run.parent / name
            rel = f"{folder}/{name}"
            blob = corpus.blob(path, LIMITS[name])  # the judge's reader: no link followed
            out.extend(corpus.refused.get(path, []))
            if blob is None:
                continue
            if not blob.complete or len(blob.raw) > LIMITS[name]:
                out.append(
                    Problem(P.FILE_TOO_LARGE, rel, None, None, "larger than the judge reads")
                )
                continue
            out.extend(_record_file_problems(rel, name, blob.raw))
    return out


def _record_file_problems(rel: str, name: str, raw: bytes) -> list[Problem]:
    """One record file as the judge reads it; each refusal as a problem with its line."""
    restore = (
        "re-run records are written by CI; restore the file from git history or re-run the logbook"
    )
    if name == layout.OUTPUTS_JSON:
        _, why, line = read_outputs_at(raw)
        return [] if why is None else [Problem(P.INVALID_VALUE, rel, line, None, why, restore)]
    read = read_run_json(raw)
    if read.why is None:
        return []
    if read.kind != "invalid":
        return [Problem(P.INVALID_VALUE, rel, read.line, None, read.why, restore)]
    return [
        Problem(
            P.RUN_RECORD_INVALID,
            rel,
            read.line,
            read.field,
            read.detail + (f" (and {read.more} more)" if read.more else ""),
            "re-run records are written by `reproaudit reproduce`; restore the file from "
            "git history or re-run the logbook",
        )
    ]


def verdict_input_problems(
    corpus: Corpus,
    reruns: Path | None,
    flagged: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Problem]:
    """Each verdict read with its inputs as they are now: a re-run record it rested on and
    that is gone, inputs changed since (stale), or a verdict the judge would not write.

    Files already ``flagged`` (a problem of theirs is reported) are not read again.
    """
    from .judge.run import verdict_case  # the judge's own reading of its inputs
    from .judge.types import Case

    out = []
    for path in corpus.of_kind("verdict"):
        if path.rel in flagged:
            continue
        loaded = corpus.load(path, keep_doc=True)
        verdict = loaded.model
        if verdict is None or loaded.doc is None:
            continue
        case = verdict_case(corpus, verdict, reruns)
        if not isinstance(case, Case):
            continue  # no logbook, or one that does not validate: `validate` reports it
        doc = loaded.doc

        def problem(code: str, loc: tuple, message: str, hint: str, doc=doc, path=path) -> Problem:
            return Problem(code, path.rel, doc.line_of(loc), ".".join(map(str, loc)), message, hint)

        record = layout.run_json_rel(verdict.paper, verdict.logbook)
        if verdict.rerun is not None and case.record is None:
            out.append(
                problem(
                    P.RERUN_MISSING,
                    ("rerun",),
                    f"rests on a {verdict.rerun.status} re-run whose record {record} is gone",
                    "restore the record from git history, or re-run the logbook and judge it again",
                )
            )
        elif case.sha != verdict.input_sha256:
            out.append(
                problem(
                    P.VERDICT_STALE,
                    ("input_sha256",),
                    f"judged at {verdict.judged_at:%Y-%m-%dT%H:%M:%SZ}; "
                    f"{_what_changed(verdict, case)} changed since",
                    "run `reproaudit judge`",
                )
            )
        else:
            out.extend(_differs(verdict, case, problem))
    return out


def _what_changed(verdict: VerdictFile, case) -> str:
    now = case.record.info if case.record else None
    then = verdict.rerun
    if (now is None) != (then is None) or (
        now is not None
        and then is not None
        and (now.run_sha256, now.outputs_sha256) != (then.run_sha256, then.outputs_sha256)
    ):
        return f"its re-run record (reruns/{verdict.paper}/{verdict.logbook}/)"
    return "its paper, logbook, write-up or the judge's rules"


def _differs(verdict: VerdictFile, case, problem) -> list[Problem]:
    """The first claim where the verdict is not what the judge writes for these inputs."""
    from .judge.cases import RulesJudge, rerun_current, rules_judgements
    from .llm.halt import Halt

    hint = (
        "verdict files are written by `reproaudit judge` and never edited; restore it from "
        "git history, or delete it and run the judge"
    )
    if verdict.judge.mode == "rules":
        expected = RulesJudge().judge_case(case, Halt(None)).claims
        want = [c.model_dump(exclude_none=True) for c in expected]
        have = [c.model_dump(exclude_none=True) for c in verdict.claims]
        for wanted, written in zip(want, have, strict=False):
            if "decided_by" not in written:  # written before the field: the rules decided
                wanted.pop("decided_by", None)
        if want == have:
            return []
        by_claim = {c["claim"]: c for c in want}
        for i, written in enumerate(have):
            other = by_claim.get(written["claim"])
            if other is None or other == written:
                continue
            field = next(
                k
                for k in (
                    "verdict",
                    "flags",
                    "evidence",
                    "votes",
                    "scope",
                    "within_tested_range",
                    "decided_by",
                    "log_failures",
                )
                if written.get(k) != other.get(k)
            )
            return [
                problem(
                    P.VERDICT_DIFFERS,
                    ("claims", i, field),
                    f"the rules write {field} {_show(other.get(field))} for these inputs, "
                    f"the file has {_show(written.get(field))}",
                    hint,
                )
            ]
        return [
            problem(
                P.VERDICT_DIFFERS,
                ("claims",),
                "the claims are not in the order the judge writes them",
                hint,
            )
        ]
    rules = {c.claim: c for c in rules_judgements(case)}
    targets = {c.id for c in case.paper.claims if c.target is not None}
    rerun = rerun_current(case)
    for i, item in enumerate(verdict.claims):
        fixed = rules.get(item.claim)
        if fixed is None:
            continue
        if item.claim in targets:
            # before prompt version 4 an LLM disagreement made it inconclusive + judge_conflict
            older = (verdict.judge.prompt_version or 0) < 4
            conflict = older and item.verdict == "inconclusive" and "judge_conflict" in item.flags
            if item.verdict != fixed.verdict and not conflict:
                return [
                    problem(
                        P.VERDICT_DIFFERS,
                        ("claims", i, "verdict"),
                        f"{item.verdict} for a claim with a target whose rules verdict is "
                        f"{fixed.verdict}: the rules decide it, the LLM may only disagree "
                        "beside it (llm_disagrees)",
                        hint,
                    )
                ]
        elif item.verdict in ("verified", "falsified") and not rerun:
            return [
                problem(
                    P.VERDICT_DIFFERS,
                    ("claims", i, "verdict"),
                    f"{item.verdict} without a passed re-run of the current logbook: the "
                    "judge writes inconclusive with not_rerun",
                    hint,
                )
            ]
    return []


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
