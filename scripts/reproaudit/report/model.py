"""The ``Report``: what a check of logbooks found, computed once, shown by two renderers.

A pull request's report (``ci report``, from the untrusted artifact plus the
base branch's own checks) and a contributor's ``reproaudit check`` (local, no
pull request: ``pr`` is None) build the same ``Report``; ``markdown.py`` renders
it as the PR comment and ``terminal.py`` for a terminal, both starting with
``outcome_sentence``. Pure: no files, no network.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .. import layout
from ..autorerun import RerunPlan
from ..escaping import clip
from ..hints import FIXABLE, fixable
from .artifact import ArtifactProblem, ArtifactVerdict

PENDING = "pending"


def _backticks(text: str) -> str:
    return f"`{text}`"


@dataclass(frozen=True)
class LocalRerun:
    """A re-run made by ``reproaudit check`` on the contributor's machine."""

    status: str  # passed | failed | timeout | host_error
    exit_code: int | None
    duration_s: float
    log_tail: str
    sandbox: str | None = None  # "none": the contributor asked for an unconfined run
    host_error: str | None = None  # what failed on this machine: nothing of the logbook ran


@dataclass(frozen=True)
class Fixable:
    """A claim whose verdict carries flags the contributor can fix (``hints.FIXABLE``)."""

    logbook: str  # paper/logbook
    claim: str
    flags: tuple[str, ...]


@dataclass(frozen=True)
class Report:
    """What a report says, computed once; the Markdown and terminal renderers show it."""

    pr: int | None  # None: a local check (``reproaudit check``), no pull request
    ok: bool
    head_sha: str
    committed: bool  # False: the files checked are not (all) committed at head_sha
    errors: list[ArtifactProblem]
    outside: list[str]
    by_file: dict[str, list[ArtifactProblem]]
    verdicts: list[ArtifactVerdict]
    checks: list[str]
    rerun: LocalRerun | None = None
    rerun_expected: bool = True  # False when the logbook has nothing CI could re-run
    notes: tuple[str, ...] = ()  # the report's own findings (base-branch code), shown as info
    reruns: tuple[RerunPlan, ...] = ()  # how CI re-runs each logbook (base-branch code, git)
    empty: int | None = None  # claims left empty (None: count the verdicts' not_addressed)
    fixable: tuple[Fixable, ...] = ()  # flags the contributor can fix: the status is fail

    @property
    def status(self) -> str:
        """ok, fail, or host_error: nothing to fix in the files, but this machine could not
        re-run them (the logbook is not at fault)."""
        if self.ok:
            return "ok"
        if self.host_error is not None and not self.errors and not self.outside:
            return "host_error"
        return "fail"

    @property
    def host_error(self) -> str | None:
        return self.rerun.host_error if self.rerun is not None else None

    def where(self, code_of: Callable[[str], str] = _backticks) -> str:
        if not self.committed:
            return "in your working copy (not committed)"
        return f"at {code_of(self.head_sha[:12])}"

    @property
    def pending(self) -> bool:
        """Whether any verdict rests on numbers not (yet) from CI's re-run."""
        return any(v.numbers != "ci_rerun" for v in self.verdicts)


def build_report(
    *,
    pr: int | None,
    head_sha: str,
    files: Sequence[str],
    problems: Iterable[ArtifactProblem],
    verdicts: Iterable[ArtifactVerdict],
    outside: Iterable[str] = (),
    committed: bool = True,
    rerun: LocalRerun | None = None,
    rerun_expected: bool = True,
    notes: Iterable[str] = (),
    reruns: Iterable[RerunPlan] = (),
    empty: int | None = None,
) -> Report:
    """Compute a report from what was checked (``files``) and found, and a local re-run.

    ``pr`` is None for ``reproaudit check``: nothing here depends on a pull request.
    """
    problems = list(problems)
    errors = [p for p in problems if p.severity == "error"]
    outside = sorted(set(outside))
    failed_rerun = rerun is not None and rerun.status != "passed"  # host_error too: not ok
    by_file: dict[str, list[ArtifactProblem]] = defaultdict(list)
    for problem in problems:
        by_file[problem.path].append(problem)
    books = [f for f in files if (d := layout.classify(f)) is not None and d.kind == "logbook"]
    checks = [f"reproaudit check {f}" for f in books[:10] if "`" not in f] or [
        "reproaudit validate --changed-from origin/main"
    ]
    verdicts = list(verdicts)
    to_fix = tuple(
        Fixable(f"{v.paper}/{v.logbook}", c.claim, tuple(found))
        for v in verdicts
        for c in v.claims
        if (found := fixable(c.flags))
    )
    return Report(
        pr=pr,
        ok=not errors and not outside and not failed_rerun and not to_fix,
        head_sha=head_sha,
        committed=committed,
        errors=errors,
        outside=outside,
        by_file={k: by_file[k] for k in sorted(by_file)},
        verdicts=verdicts,
        checks=checks,
        rerun=rerun,
        rerun_expected=rerun_expected,
        notes=tuple(notes),
        reruns=tuple(reruns),
        empty=empty,
        fixable=to_fix,
    )


def outcome_sentence(report: Report, code_of: Callable[[str], str] = _backticks) -> str:
    """The one-sentence outcome both renderers start with (without the emoji)."""
    where = report.where(code_of)
    if report.errors or report.outside:
        n = len(report.errors)
        text = f"{n} problem{'s' if n != 1 else ''} to fix"
        if report.outside:
            text += f" and {len(report.outside)} file(s) outside {code_of('logbooks/')}"
        return f"{text} {where}."
    if report.host_error is not None:
        return (
            f"The local re-run could not run on this machine {where}, through no fault of the "
            f"logbook: {report.host_error}. Fix the machine and check again, or check with "
            f"{code_of('--no-rerun')}: CI re-runs the logbook on its own runners."
        )
    if report.rerun is not None and report.rerun.status != "passed":
        what = "timed out" if report.rerun.status == "timeout" else "failed"
        code_text = (
            f" (exit code {report.rerun.exit_code})" if report.rerun.exit_code is not None else ""
        )
        return (
            f"The local re-run {what}{code_text} {where}: a failed re-run verifies nothing; "
            "fix the command, then check again."
        )
    if report.fixable:
        n = len(report.fixable)
        many = len({f.logbook for f in report.fixable}) > 1
        which = ", ".join(
            (f"{f.logbook.split('/')[-1]} " if many else "") + f"{f.claim}: {'/'.join(f.flags)}"
            for f in report.fixable[:8]
        )
        more = f" and {n - 8} more" if n > 8 else ""
        return (
            f"Valid, but {n} claim{'s' if n != 1 else ''} {'carry' if n != 1 else 'carries'} "
            f"a flag you can fix ({which}{more}) {where}: fix {'them' if n != 1 else 'it'} "
            "as said below, then check again."
        )
    count = len(report.verdicts)
    empty = report.empty
    if empty is None:
        empty = sum(1 for v in report.verdicts for c in v.claims if "not_addressed" in c.flags)
    addressed = (
        "every claim addressed"
        if not empty
        else f"{empty} claim{'s' if empty != 1 else ''} still empty"
    )
    if report.reruns:
        auto = sum(p.kind == "auto" for p in report.reruns)
        waiting = sum(p.kind == "reproduce" for p in report.reruns)
        then = f" {auto} re-run automatically" if auto else ""
        if waiting:
            then += f"{',' if auto else ''} {waiting} awaiting {code_of('/reproduce')}"
        then = f" In CI:{then}." if then else ""
    elif count:  # how each logbook re-runs is not known here (no clone, no GitHub)
        then = (
            " In CI, cpu logbooks are re-run by themselves (within the pull request's cap), "
            f"the others after a maintainer's {code_of('/reproduce')}."
        )
    else:
        then = ""
    return (
        f"Valid, {addressed}: {count} logbook{'s' if count != 1 else ''} checked {where}; "
        f"the rules verdicts are below.{then}"
    )


def fix_lines(report: Report) -> list[tuple[str, str, str]]:
    """(flag, the claims carrying it, what to do) for each fixable flag on the report."""
    flags = [f for f in FIXABLE if any(f in item.flags for item in report.fixable)]
    lines = []
    for flag in flags:
        claims = ", ".join(sorted({item.claim for item in report.fixable if flag in item.flags}))
        lines.append((flag, claims, FIXABLE[flag]))
    return lines


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary when longer than ``limit``."""
    return clip(" ".join(str(text).split()), limit)


def log_lines(tail: str, most: int = 20) -> list[str]:
    """The last ``most`` non-empty lines of a log tail."""
    lines = [line.rstrip() for line in tail.splitlines() if line.strip()]
    return lines[-most:]


def rerun_line(rerun: LocalRerun) -> str:
    """The local re-run in one sentence (Markdown backticks; the terminal drops them)."""
    where = f"exit code {rerun.exit_code}" if rerun.exit_code is not None else "no exit code"
    line = (
        f"Local re-run: {rerun.status} in {rerun.duration_s:.1f} s ({where}); "
        "CI re-runs it again (cpu logbooks by themselves, others after a maintainer's "
        "`/reproduce`)."
    )
    if rerun.sandbox == "none":
        line += (
            "\n\nNOT SANDBOXED: the re-run ran unconfined on this machine (`--sandbox none`); "
            "CI always runs it in a sandbox."
        )
    return line
