"""The ``reproaudit`` command line: parse options, call one library function, set the exit code.

Exit codes: 0 success, 1 invalid input, a failed check or another expected error
(one message on stderr), 2 a usage error, 3 a bug (the traceback is shown),
130 interrupted (Ctrl-C).

Each command family has its module (data, judging, site, ci, tools) and lists its
commands in ``COMMANDS``; the group, ``main`` and the one error handler are here; the
options shared by several commands are in ``options`` (so no module imports this one).
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import click

from ..errors import ReproauditError, UsageError
from . import ci, data, judging, onboard, site, tools

BUG_EXIT = 3
INTERRUPTED_EXIT = 130  # 128 + SIGINT, as shells report it


class ReproauditGroup(click.Group):
    """A click group with the one error handler of the command line.

    Expected failures (``ReproauditError``) print their text and exit 1; a library
    ``UsageError`` is reported as click's usage error (exit 2); Ctrl-C exits 130;
    anything else is a bug: its traceback is printed and the exit code is 3.
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
        except KeyboardInterrupt:  # files are written whole or not at all (fsutil.atomic_write)
            click.echo("interrupted", err=True)
            ctx.exit(INTERRUPTED_EXIT)
        except Exception:  # a bug: keep the traceback
            click.echo(traceback.format_exc(), err=True, nl=False)
            click.echo(
                "reproaudit: internal error (a bug, not your input); "
                "please report it with the traceback above",
                err=True,
            )
            ctx.exit(BUG_EXIT)


@click.group(cls=ReproauditGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="reproaudit")
def cli() -> None:
    """Audit a conference's papers claim by claim: claims, logbooks, verdicts, site."""


def main() -> None:
    cli(prog_name="reproaudit")


for _family in (data, judging, site, ci, tools, onboard):
    for _command in _family.COMMANDS:
        cli.add_command(_command)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
