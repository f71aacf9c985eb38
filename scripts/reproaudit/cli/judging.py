"""Commands that judge or re-run logbooks: judge, check, reproduce."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .. import layout
from ..problems import format_problems
from .options import (
    backend_option,
    mode_option,
    repo_option,
    reruns_option,
    samples_option,
    sandbox_option,
)


@click.command()
@click.option("--paper", help="Judge only this paper's logbooks.")
@click.option("--logbook", help="Judge only logbooks with this id.")
@mode_option
@reruns_option
@samples_option
@click.option(
    "--concurrency",
    type=click.IntRange(1, 512),
    default=8,
    show_default=True,
    help="LLM requests in flight at once.",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop the whole run after SECONDS: logbooks not judged by then are left for next time.",
)
@repo_option
def judge(
    paper: str | None,
    logbook: str | None,
    mode: str,
    reruns: Path | None,
    samples: int,
    concurrency: int,
    deadline: float | None,
    repo: Path,
) -> None:
    """Judge logbooks and write verdicts/<paper>/<logbook>.yaml.

    A verdict whose inputs are unchanged (same input_sha256) is not recomputed,
    unless the LLM failed on it (llm_failed, or fewer answers than a quorum).
    Exits 1 when any verdict is llm_failed or judge_error (the judge failed on that
    logbook; the others are judged) or the run stopped early, 130 on Ctrl-C.
    LLM settings: REPROAUDIT_JUDGE_BASE_URL, REPROAUDIT_JUDGE_MODEL, REPROAUDIT_JUDGE_API_KEY.
    """
    from ..judge.llm import make_judge
    from ..judge.run import describe_summary, judge_repo
    from ..judge.settings import default_reruns

    judge_ = make_judge(mode, samples=samples)
    summary = judge_repo(
        repo,
        judge_,
        reruns=default_reruns(repo, reruns),
        paper=paper,
        logbook=logbook,
        concurrency=concurrency,
        deadline=deadline,
    )
    if summary.problems:
        click.echo(format_problems(summary.problems, "text"), err=True)
    click.echo(describe_summary(summary, judge_.mode))
    raise SystemExit(1 if summary.problems or not summary.complete else 0)


@click.command()
@click.argument("logbook", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--rerun/--no-rerun",
    default=None,
    help="Re-run the command locally [default: when hardware is cpu].",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="text for a terminal (colour on a TTY); markdown is the PR comment itself.",
)
@sandbox_option
@repo_option
def check(logbook: Path, rerun: bool | None, fmt: str, sandbox: str | None, repo: Path) -> None:
    """Everything CI will do to LOGBOOK, locally: validate, re-run, judge, the PR report.

    The first line starts with status=ok, status=fail or status=host_error; exit 1 on
    fail (a problem to fix, or a local re-run that failed or timed out) and on host_error
    (this machine could not re-run it: what failed is named, the logbook is not at fault).
    Writes nothing into the repository.
    """
    from ..check import check_logbook
    from ..report.markdown import render_markdown
    from ..report.terminal import live_line, render_terminal

    live = None
    if sys.stderr.isatty():  # a live line while the local re-run runs; never in logs

        def live(label: str, timeout_s: float):
            return live_line(sys.stderr, label, timeout_s)

    result = check_logbook(repo, logbook, rerun=rerun, sandbox=sandbox, here=Path.cwd(), live=live)
    if fmt == "markdown":
        click.echo(render_markdown(result.report), nl=False)
    else:
        colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        click.echo(render_terminal(result.report, colour=colour), nl=False, color=colour)
    raise SystemExit(0 if result.ok else 1)


@click.command()
@click.argument("logbook", type=click.Path(dir_okay=False, path_type=Path))
@backend_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(layout.RERUNS_DIR),
    show_default=True,
    help="Writes OUT/<paper>/<logbook>/{outputs,run}.json.",
)
@sandbox_option
@click.option("--source-repo-url", help="hf-jobs, code in the audit repo: its clone URL.")
@click.option("--source-sha", help="hf-jobs, code in the audit repo: the commit to run.")
@click.option("--namespace", help="hf-jobs: the user or org the job runs under.")
@repo_option
def reproduce(
    logbook: Path,
    backend: str,
    out: Path,
    sandbox: str | None,
    source_repo_url: str | None,
    source_sha: str | None,
    namespace: str | None,
    repo: Path,
) -> None:
    """Re-run LOGBOOK's command and write the re-run record the judge reads (--reruns).

    local: in a sandbox (bwrap: no network, no view of this machine's processes, bounded
    processes, memory and bytes written; docker on GPU runners), no shell, a scrubbed
    environment, the logbook's timeout, capped output.
    hf-jobs: Hugging Face Jobs with an allowed flavor; no token is passed into the job.
    """
    from ..reproduce import describe_record, reproduce_logbook

    record = reproduce_logbook(
        repo,
        logbook,
        backend=backend,
        out=out,
        sandbox=sandbox,
        source_repo_url=source_repo_url,
        source_sha=source_sha,
        namespace=namespace,
        here=Path.cwd(),
    )
    click.echo(describe_record(record))
    raise SystemExit(0 if record.status == "passed" else 1)


COMMANDS = [judge, check, reproduce]
