"""A ``Report`` as GitHub Markdown: the pull request's sticky comment and check-run summary.

``reproaudit check --format markdown`` prints the same text on a contributor's
machine. Every untrusted value (paths, messages, evidence, the log tail) goes
through ``markdown_text``: data, never markup.
"""

from __future__ import annotations

from ..autorerun import RerunPlan
from .markdown_text import code, plain
from .model import (
    PENDING,
    Report,
    fix_lines,
    log_lines,
    outcome_sentence,
    rerun_line,
    shorten,
)

MARKER = "<!-- reproaudit:report"
PENDING_NOTE = (
    "*pending*: judged on the numbers the logbook reports{local}; CI's re-run decides "
    "(cpu logbooks are re-run by themselves, others after a maintainer's `/reproduce`)."
)
_PLAN_HEADING = {
    "auto": "re-run automatically",
    "reproduce": "awaits `/reproduce`",
    "none": "not re-run",
    "invalid": "not re-run",
}


def render_markdown(report: Report, *, tables: bool = True) -> str:
    """A report as GitHub Markdown (untrusted text escaped), the PR comment's body.

    ``tables=False`` leaves the rules verdicts out: the sticky comment holds them as one
    section per logbook (``verdict_tables``), which a re-run's verdicts supersede."""
    sha = report.head_sha if report.committed else "uncommitted"
    lines = [f"{MARKER} status={report.status} sha={sha} -->", "## reproaudit", ""]
    mark = "✅" if report.ok else "❌"
    lines.append(f"{mark} {outcome_sentence(report)}")
    if report.outside:
        lines += [
            "",
            "### Files outside `logbooks/`",
            "",
            "A contribution may only add or change files under `logbooks/`:",
            "",
        ]
        lines += [f"- ❌ {code(f)}" for f in report.outside[:50]]
    for note in report.notes:
        lines += ["", f"ℹ️ {plain(note, 500)}"]
    for path, problems in report.by_file.items():
        lines += ["", f"### {code(path)}", ""]
        for p in problems[:50]:
            mark = "❌" if p.severity == "error" else "ℹ️"
            where = f"line {p.line}" if p.line else "file"
            field = f" {code(p.field)}" if p.field else ""
            message = plain(shorten(p.message, 300), 400)
            lines.append(f"- {mark} {where}{field}: {message} (`{plain(p.code)}`)")
            if p.hint:
                lines.append(f"  - hint: {plain(shorten(p.hint, 300), 400)}")
    if report.fixable:
        lines += ["", "### To fix before merging", ""]
        lines += [
            f"- ❌ `{flag}` ({plain(claims, 300)}): {plain(what, 400)}"
            for flag, claims, what in fix_lines(report)
        ]
    if tables:
        for table in verdict_tables(report).values():
            lines += ["", table.rstrip("\n")]
        if report.pending and report.verdicts:
            lines += ["", pending_note(report)]
    lines += render_plans(list(report.reruns))
    if report.rerun is not None:
        lines += ["", rerun_line(report.rerun)]
        if report.rerun.status != "passed":
            tail = log_lines(report.rerun.log_tail)
            lines += ["", "<details open><summary>Log tail</summary>", "", "```text"]
            lines += [line.replace("```", "ˋˋˋ") for line in tail] or ["(no output)"]
            lines += ["```", "</details>"]
    lines += [
        "",
        "<details><summary>Reproduce this locally</summary>",
        "",
        "```bash",
        "pip install -e .",
        *report.checks,
        "```",
        "</details>",
    ]
    return "\n".join(lines) + "\n"


def verdict_tables(report: Report) -> dict[str, str]:
    """Each logbook's rules verdicts as a Markdown table, by ``<paper>/<logbook>``."""
    out = {}
    for verdict in report.verdicts:
        name = verdict.paper + "/" + verdict.logbook
        pending = verdict.numbers != "ci_rerun"
        lines = [
            f"### Verdicts for {code(name)} (rules)",
            "",
            "| claim | verdict | flags | evidence |",
            "|---|---|---|---|",
        ]
        for c in verdict.claims:
            flags = ", ".join(c.flags) or "—"
            value = f"{c.verdict} *({PENDING})*" if pending else c.verdict
            evidence = plain(shorten(c.evidence, 300), 400)
            lines.append(f"| {plain(c.claim)} | {value} | {flags} | {evidence} |")
        out[name] = "\n".join(lines) + "\n"
    return out


def pending_note(report: Report) -> str:
    """What *pending* means under the tables: CI's re-run decides."""
    passed = report.rerun is not None and report.rerun.status == "passed"
    return PENDING_NOTE.format(local=" and a local re-run" if passed else "")


def render_plans(plans: list[RerunPlan]) -> list[str]:
    """The report's "Re-runs" section: what runs by itself, what awaits ``/reproduce``, why."""
    if not plans:
        return []
    lines = ["", "### Re-runs", ""]
    for plan in plans:
        lines.append(f"- {code(plan.name)}: {_PLAN_HEADING[plan.kind]}: {plan.why}.")
    return lines
