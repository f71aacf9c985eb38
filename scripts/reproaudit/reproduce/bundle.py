"""``RUNNER``: the runner's text with the shared safety modules in front of it.

A job image (or a sandbox) runs ``python3 -c RUNNER ...`` without reproaudit
installed, so the rules the runner needs (confinement, environment scrubbing,
fetching a commit) travel with it as text: still one source file each.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent
_PARTS = ("confine.py", "envscrub.py", "fetch.py", "runner.py")
_FUTURE = "from __future__ import annotations\n"


def build_runner(parts: tuple[str, ...] = _PARTS) -> str:
    """The shipped program: one ``__future__`` line, then each part without its own."""
    texts = [(_HERE / name).read_text(encoding="utf-8").replace(_FUTURE, "") for name in parts]
    return _FUTURE + "\n".join(texts)


RUNNER = build_runner()
