"""``RUNNER``: the runner's text with the shared safety modules in front of it.

A job image (or a sandbox) runs ``python3 -c RUNNER ...`` without reproaudit
installed, so the rules the runner needs (confinement, environment scrubbing,
fetching a commit) travel with it as text: still one source file each.
"""

from __future__ import annotations

from pathlib import Path

from .hostcheck import INSTALL_SHIM

_HERE = Path(__file__).parent
_PARTS = ("confine.py", "envscrub.py", "fetch.py", "hostcheck.py", "runner.py")
_FUTURE = "from __future__ import annotations\n"


def build_runner(parts: tuple[str, ...] = _PARTS) -> str:
    """The shipped program: one ``__future__`` line, then each part without its own."""
    texts = [(_HERE / name).read_text(encoding="utf-8").replace(_FUTURE, "") for name in parts]
    return _FUTURE + "\n".join(texts)


RUNNER = build_runner()
# the install phase's program (bwrap): the same check of the machine, then pip
INSTALLER = build_runner(("hostcheck.py",)) + INSTALL_SHIM
