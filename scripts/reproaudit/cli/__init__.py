"""The ``reproaudit`` command line: parse options, call one library function, set the exit code.

Exit codes: 0 success, 1 invalid input, a failed check or another expected error
(one message on stderr; a full disk or a folder that cannot be written is one),
2 a usage error, 3 a bug (the traceback is shown), 130 interrupted (Ctrl-C, at any
moment, imports included), 143 terminated (SIGTERM). Both signals run the same
clean-up as an error: temporary files and folders are removed.

Each command family has its module (data, judging, site, ci, tools) and lists its
commands in ``COMMANDS``; the group, ``main`` and the one error handler are here; the
options shared by several commands are in ``options`` (so no module imports this one).
"""

from __future__ import annotations

import signal
import threading


def _interrupted_while_importing(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # Ctrl-C before the handler below exists: no traceback


# Importing click and the commands takes a noticeable fraction of a second; Ctrl-C then
# exits quietly. The previous handler comes back once the imports are done.
_ON_MAIN_THREAD = threading.current_thread() is threading.main_thread()
_previous = signal.signal(signal.SIGINT, _interrupted_while_importing) if _ON_MAIN_THREAD else None

import sys  # noqa: E402
import traceback  # noqa: E402
from typing import Any  # noqa: E402

import click  # noqa: E402

from ..errors import ReproauditError, UsageError, storage_error  # noqa: E402
from . import ci, data, judging, onboard, site, tools  # noqa: E402

if _ON_MAIN_THREAD:
    signal.signal(signal.SIGINT, _previous)

BUG_EXIT = 3
INTERRUPTED_EXIT = 130  # 128 + SIGINT, as shells report it
TERMINATED_EXIT = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so the same clean-up runs (temp files, child processes)."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def _quiet_exit() -> None:
    """Once the run is stopping, a second Ctrl-C or SIGTERM must not print a traceback.

    Only in the ``reproaudit`` process itself (``main`` set the SIGTERM handler), never in
    a test's process that calls the group directly.
    """
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread and signal.getsignal(signal.SIGTERM) is _terminate:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


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
        except KeyboardInterrupt as exc:  # files are written whole or not at all (fsutil)
            _quiet_exit()
            terminated = isinstance(exc, Terminated)
            click.echo("terminated" if terminated else "interrupted", err=True)
            ctx.exit(TERMINATED_EXIT if terminated else INTERRUPTED_EXIT)
        except Exception as exc:
            found = storage_error(exc)
            if found is not None:  # a full disk, a read-only or foreign folder: expected
                click.echo(str(found), err=True)
                ctx.exit(1)
            # a bug: keep the traceback
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
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        cli(prog_name="reproaudit")
    except KeyboardInterrupt as exc:  # between click's parsing and the command's handler
        _quiet_exit()
        sys.exit(TERMINATED_EXIT if isinstance(exc, Terminated) else INTERRUPTED_EXIT)


for _family in (data, judging, site, ci, tools, onboard):
    for _command in _family.COMMANDS:
        cli.add_command(_command)

if __name__ == "__main__":  # pragma: no cover
    main()
