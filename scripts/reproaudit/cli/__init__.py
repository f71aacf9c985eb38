"""The ``reproaudit`` command line: parse options, call one library function, set the exit code.

Exit codes: 0 success, 1 invalid input, a failed check or another expected error
(one message on stderr), 2 a usage error, 3 a bug (the traceback is shown).

Each command family has its module (data, judging, site, ci, tools); the
options shared by several commands and the one error handler are here.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

import click

from ..errors import ReproauditError, UsageError

BUG_EXIT = 3


class ReproauditGroup(click.Group):
    """A click group with the one error handler of the command line.

    Expected failures (``ReproauditError``) print their text and exit 1; a library
    ``UsageError`` is reported as click's usage error (exit 2); anything else is a
    bug: its traceback is printed and the exit code is 3.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except UsageError as exc:
            raise click.UsageError(str(exc)) from None
        except ReproauditError as exc:
            click.echo(str(exc), err=True)
            ctx.exit(1)
        except Exception:  # a bug: keep the traceback
            click.echo(traceback.format_exc(), err=True, nl=False)
            click.echo(
                "reproaudit: internal error (a bug, not your input); "
                "please report it with the traceback above",
                err=True,
            )
            ctx.exit(BUG_EXIT)


# --- options shared by several commands (one name per concept) ----------------------------

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


def corpus_gate(repo: Path, strict: bool) -> None:
    """With --strict, fail (a line per file) on what validate rejects; else say what is left out."""
    from ..corpus_check import check_corpus

    check = check_corpus(repo)
    if check.ok:
        return
    if strict:
        for line in check.lines():
            click.echo(line, err=True)
        click.echo(f"--strict: {len(check.by_file())} file(s) with problems", err=True)
        raise SystemExit(1)
    click.echo(check.summary(), err=True)


def emit(files: dict[Path, str], stdout: bool) -> None:
    """Print the first file, or write them all; never overwrite existing work."""
    from ..fsutil import write_new_files

    if stdout:
        click.echo(next(iter(files.values())), nl=False)
        return
    for path in write_new_files(files):
        click.echo(f"wrote {path}")


@click.group(cls=ReproauditGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="reproaudit")
def cli() -> None:
    """Audit a conference's papers claim by claim: claims, logbooks, verdicts, site."""


def main() -> None:
    cli(prog_name="reproaudit")


# the command families register themselves on ``cli`` when imported
from . import ci, data, judging, site, tools  # noqa: E402, F401

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
