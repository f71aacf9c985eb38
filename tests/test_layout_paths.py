"""Repository paths are built by ``layout.py`` alone.

About 25 paths were once written by hand beside ``layout.py``
(``f"logbooks/{paper}/{logbook}.yaml"``, ``root / "reruns" / paper``,
``"run.json"``): a change of layout had to find them all. This test reads the
package's source for the shapes such code takes.
"""

from __future__ import annotations

import re
from pathlib import Path

from reproaudit import layout

PACKAGE = Path(layout.__file__).parent
DIRS = "logbooks|claims|verdicts|reruns"
BY_HAND = re.compile(
    rf'f"({DIRS})/'  # an f-string that starts with a data folder
    rf'|/ "({DIRS})"'  # a Path joined with a data folder's name
    rf'|\[:1\]\s*[!=]=\s*\(\s*"({DIRS})",\s*\)'  # a path's first part compared with one
    r'|"(run|outputs)\.json"'  # a record file's name
)
PENDING: set[str] = set()  # modules whose paths are still to move into layout.py


def test_no_repository_path_is_built_by_hand_outside_layout() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "layout.py" or rel in PENDING:
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if BY_HAND.search(code) and "<" not in code:  # "<paper>" in a hint is prose
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == [], "build these with layout.py:\n" + "\n".join(found)


def test_the_guard_sees_a_path_built_by_hand() -> None:
    """The control: each shape the guard looks for is found."""
    for line in (
        'rel = f"logbooks/{paper}/{logbook}.yaml"',
        'folder = root / "reruns" / paper',
        'if parts[:1] != ("logbooks",):',
        'files["run.json"] = data',
    ):
        assert BY_HAND.search(line), line
    assert layout.logbook_key(layout.logbook_rel("P1", "a-1")) == ("P1", "a-1")
    assert layout.logbook_key(layout.verdict_rel("P1", "a-1")) is None
    assert layout.run_json_rel("P1", "a-1") == "reruns/P1/a-1/run.json"
