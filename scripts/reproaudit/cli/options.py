"""Options shared by several commands (one name per concept) and small output helpers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..repo import Corpus

repo_option = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The audit repository (holds claims/, logbooks/, verdicts/).",
)
strict_option = click.option(
    "--strict",
    is_flag=True,
    help="Fail, one line per file, on anything `validate` would report.",
)
stdout_option = click.option("--stdout", is_flag=True, help="Print instead of writing the file.")
repo_name_option = click.option(
    "--repo-name", required=True, metavar="OWNER/NAME", help="The GitHub repository."
)


def pr_option(required: bool = False):
    """``--pr N``: the pull request."""
    return click.option(
        "--pr", type=click.IntRange(min=1), required=required, help="The pull request number."
    )


def sha_option(required: bool = False):
    """``--sha SHA``: the PR's head commit (approved or checked out), one name everywhere."""
    return click.option(
        "--sha",
        metavar="SHA",
        required=required,
        help="The PR's head commit; a head that moved is refused.",
    )


sandbox_option = click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "docker", "none"]),
    default=None,
    help="Where a local re-run runs [default: the safest available; none is never "
    "the default and is refused in CI].",
)
backend_option = click.option(
    "--backend", type=click.Choice(["local", "hf-jobs"]), default="local", show_default=True
)
mode_option = click.option(
    "--mode",
    type=click.Choice(["rules", "llm", "auto"]),
    default="auto",
    show_default=True,
    help="auto = llm when REPROAUDIT_JUDGE_BASE_URL is set.",
)
samples_option = click.option(
    "--samples",
    type=click.IntRange(1, 15),
    default=3,
    show_default=True,
    help="LLM samples per logbook; the verdict is their majority.",
)
reruns_option = click.option(
    "--reruns",
    type=click.Path(file_okay=False, path_type=Path),
    help="Re-run records: DIR/<paper>/<logbook>/{outputs,run}.json [default: <repo>/reruns].",
)


def corpus_gate(repo: Path, strict: bool) -> Corpus:
    """With --strict, fail (a line per file) on what validate rejects; else say what is left out.

    Returns the command's one ``Corpus``, already read by the check, for the command to use.
    """
    from ..corpus_check import check_corpus
    from ..repo import Corpus

    corpus = Corpus(Path(repo).resolve())
    check = check_corpus(corpus)
    corpus.forget_lines()  # the command reads models from here on, never lines
    if check.ok:
        return corpus
    if strict:
        for line in check.lines():
            click.echo(line, err=True)
        click.echo(f"--strict: {len(check.by_file())} file(s) with problems", err=True)
        raise SystemExit(1)
    click.echo(check.summary(), err=True)
    return corpus


def emit(files: dict[Path, str], stdout: bool) -> None:
    """Print the first file, or write them all; never overwrite existing work."""
    from ..fsutil import write_new_files

    if stdout:
        click.echo(next(iter(files.values())), nl=False)
        return
    for path in write_new_files(files):
        click.echo(f"wrote {path}")
