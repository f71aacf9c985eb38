"""What on the machine keeps any command from running, checked where the command would run.

A sandbox shows the machine's own ``/dev/null`` (bwrap binds it): when that is
broken, every command fails the same way whatever the logbook says, so the run
is the machine's failure (``host_error`` in ``run.json``), never the logbook's.
The check runs inside the sandbox before anything of the logbook does: first
in the runner (``runner.py``) and in the install phase (``INSTALL_SHIM``), which
also print their first line, ``started``, so a sandbox that never got that far
(bwrap unable to make namespaces, an interpreter it cannot exec) is told apart
from a command that failed.

Standard library only, Python 3.8 syntax: bundled into the runner as text
(``bundle.py``).
"""

from __future__ import annotations

import os
import stat

_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)
RECREATE = "recreate it on the machine: mknod -m 666 /dev/null c 1 3"


def host_problem(null: str = os.devnull) -> str | None:
    """Why no command can run here (the machine's fault, never a logbook's), or None.

    Every program may read or write ``/dev/null`` (Python's ``subprocess`` opens it
    for a child's standard input): it must be a character device that opens for
    reading and writing.
    """
    try:
        mode = os.stat(null).st_mode
    except OSError as exc:
        return f"{null} cannot be opened: {exc.strerror} ({RECREATE})"
    if not stat.S_ISCHR(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        return (
            f"{null} is not a character device but {kind}: no command can read or write it "
            f"(the sandbox shows the machine's own; {RECREATE})"
        )
    try:
        fd = os.open(null, os.O_RDWR)
    except OSError as exc:
        return f"opening {null} to read and write failed: {exc.strerror} ({RECREATE})"
    os.close(fd)
    return None


# The install phase's program: check, say it started, then run pip as ``python -m pip``.
# argv: MARKER [PIP ARGUMENTS...]; MARKER starts each line this prints.
INSTALL_SHIM = """
import json, runpy, sys
problem = host_problem()
marker = sys.argv[1]
print(marker + (" host_error " + json.dumps(problem) if problem else " started"), flush=True)
if problem:
    sys.exit(3)
sys.argv = ["pip"] + sys.argv[2:]
runpy.run_module("pip", run_name="__main__", alter_sys=True)
"""
