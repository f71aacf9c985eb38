"""The report for a terminal: plain text, colour only when the output is a TTY.

``reproaudit check`` prints this; the pull request gets the Markdown rendering
of the same ``Report`` (``markdown.render_markdown``). Nothing here is Markdown:
no backslash escapes, no HTML entities. Untrusted text (messages quoting the
logbook, evidence, the re-run's log) loses control characters, so a logbook
cannot move the cursor or recolour the terminal.
"""

from __future__ import annotations

import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from ..escaping import strip_controls
from .model import (
    PENDING,
    Report,
    fix_lines,
    log_lines,
    outcome_sentence,
    rerun_line,
    shorten,
)

_COLOURS = {"red": "31", "green": "32", "yellow": "33", "bold": "1", "dim": "2"}
_VERDICT_COLOUR = {
    "verified": "green",
    "falsified": "red",
    "toy": "yellow",
    "inconclusive": "dim",
}
WIDTH = 100
NO_RERUN = (
    "They rest on the numbers the logbook reports (flag not_rerun) until CI re-runs it "
    "(cpu logbooks by themselves once the pull request validates, others after a "
    "maintainer's /reproduce)."
)
LOCAL_RERUN = (
    "judged on the numbers of a local re-run; CI re-runs the logbook (cpu by itself, others "
    "after a maintainer's /reproduce), and its numbers decide."
)


def clean(text: object) -> str:
    """Untrusted text for a terminal: control characters (escape sequences) removed."""
    return strip_controls(text)


def render_terminal(report: Report, *, colour: bool = False) -> str:
    """A report as terminal text; the first line starts ``status=`` and ``Report.status``."""

    def paint(text: str, name: str) -> str:
        return f"\x1b[{_COLOURS[name]}m{text}\x1b[0m" if colour else text

    def wrap(text: str, indent: str) -> list[str]:
        return textwrap.wrap(
            text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_long_words=False
        ) or [indent.rstrip()]

    status = paint(f"status={report.status}", "green" if report.ok else "red")
    lines = [f"{status} {outcome_sentence(report, code_of=str)}"]
    if report.outside:
        lines += ["", "Files outside logbooks/ (a contribution may only change logbooks/):"]
        lines += [f"  {paint('✗', 'red')} {clean(f)}" for f in report.outside[:50]]
    for path, problems in report.by_file.items():
        lines += ["", paint(clean(path), "bold")]
        for p in problems[:50]:
            mark = paint("✗", "red") if p.severity == "error" else paint("i", "yellow")
            where = f"line {p.line}" if p.line else "file"
            field = f" {clean(p.field)}" if p.field else ""
            body = wrap(f"{where}{field}: {clean(p.message)} [{p.code}]", "    ")
            body[0] = f"  {mark} {body[0].lstrip()}"
            lines += body
            if p.hint:
                lines += wrap(f"hint: {clean(p.hint)}", "      ")
    if report.fixable:
        lines += ["", paint("To fix before the pull request:", "bold")]
        for flag, claims, what in fix_lines(report):
            lines += wrap(f"{flag} ({clean(claims)}): {what}", "  ")
    for verdict in report.verdicts:
        pending = verdict.numbers != "ci_rerun"
        lines += [
            "",
            paint(f"Verdicts for {clean(verdict.paper)}/{clean(verdict.logbook)} (rules)", "bold"),
        ]
        for c in verdict.claims:
            word = paint(c.verdict, _VERDICT_COLOUR[c.verdict])
            note = f" ({PENDING})" if pending else ""
            flags = f"  flags: {', '.join(c.flags)}" if c.flags else ""
            lines.append(f"  {clean(c.claim)}  {word}{note}{flags}")
            if c.evidence:
                lines += wrap(shorten(clean(c.evidence), 600), "      ")
    if report.verdicts and report.rerun is None:
        how = (
            "reproaudit check --rerun runs it here first."
            if report.rerun_expected
            else "This logbook has no code and reproduce sections: nothing can be re-run."
        )
        lines += [
            "",
            *wrap(f"No re-run: these verdicts are provisional ({PENDING}). {NO_RERUN} {how}", ""),
        ]
    elif (
        report.verdicts
        and report.pending
        and report.rerun is not None
        and report.rerun.status == "passed"
    ):
        lines += ["", *wrap(f"{PENDING}: {LOCAL_RERUN}", "")]
    if report.rerun is not None:
        lines += ["", rerun_line(report.rerun).replace("`", "")]
        if report.rerun.status != "passed":
            lines.append("Log tail:")
            tail = log_lines(report.rerun.log_tail)
            lines += [f"  | {clean(line)}" for line in tail] or ["  (no output)"]
    return "\n".join(lines) + "\n"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@contextmanager
def live_line(
    stream: TextIO, label: str, timeout_s: float, *, every: float = 1.0
) -> Iterator[threading.Event]:
    """One line on ``stream`` (a terminal's stderr), rewritten while the block runs.

    ``re-running P/L: 0:42 of at most 1:00:00 (Ctrl-C stops it)``: a re-run with a long
    timeout otherwise prints nothing while it waits. The line is erased at the end;
    the returned event is set after each redraw (tests wait on it, not on the clock).
    """
    stop = threading.Event()
    drawn = threading.Event()
    start = time.monotonic()
    limit = f" of at most {_clock(timeout_s)}" if timeout_s else ""

    def draw() -> None:
        while True:
            elapsed = _clock(time.monotonic() - start)
            stream.write(f"\r\x1b[2Kre-running {clean(label)}: {elapsed}{limit} (Ctrl-C stops it)")
            stream.flush()
            drawn.set()
            if stop.wait(every):
                return

    thread = threading.Thread(target=draw, name="reproaudit-live-line", daemon=True)
    thread.start()
    try:
        yield drawn
    finally:
        stop.set()
        thread.join()
        stream.write("\r\x1b[2K")
        stream.flush()
