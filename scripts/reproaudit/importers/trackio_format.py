"""Reading a trackio (0.43) logbook workspace: metadata, pages and their cells.

The on-disk format, as the trackio 0.43.0 CLI writes it::

    <workspace>/.trackio/metadata.json             local state: created_at, space_id, paper
    <workspace>/.trackio/logbook/logbook.json      manifest: title, paper, root.children pages
    <workspace>/.trackio/logbook/pages/<slug>/page.md   "# Title", then cells

Each cell in ``page.md`` is ``\\n---\\n<!-- trackio-cell\\n{json header}\\n-->\\n<body>``;
the header's ``type`` is markdown, code, figure, artifact or dashboard, and a
code cell made by ``trackio logbook run`` carries ``command``, ``exit_code``
and ``duration_s``. Bodies use four-backtick fences (```` ````output ````).
This module only reads; ``trackio.py`` decides what becomes of it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import problems as P
from ..problems import Problem, ReproauditError

TRACKIO_DIR = ".trackio"
MAX_PAGE_BYTES = 8 * 1024 * 1024  # trackio caps a run's output at 20,000 characters per cell

# trackio's own cell pattern (logbook.js), with Python's `$` for JavaScript's.
_CELL = re.compile(
    r"(?:^|\n)---\n<!-- trackio-cell\n([\s\S]*?)\n-->\n([\s\S]*?)"
    r"(?=\n---\n<!-- trackio-cell\n|\s*\Z)"
)
_FENCE = re.compile(r"^````([^\n`]*)\n(.*?)^````[ \t]*$", re.MULTILINE | re.DOTALL)
_H1 = re.compile(r"^# +(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Cell:
    """One cell of a page: its header (type, title, ...) and its Markdown body."""

    header: dict[str, Any]
    body: str
    line: int  # of the header in page.md

    @property
    def type(self) -> str:
        return str(self.header.get("type") or "unknown")

    @property
    def title(self) -> str:
        return str(self.header.get("title") or "")

    def fences(self) -> list[tuple[str, str]]:
        """``(info, text)`` of each four-backtick fence in the body, in order."""
        return [(m[1].strip(), m[2].rstrip("\n")) for m in _FENCE.finditer(self.body)]


@dataclass
class Page:
    title: str
    path: Path
    cells: list[Cell] = field(default_factory=list)


@dataclass
class Workspace:
    """What a trackio workspace holds, as plain data."""

    root: Path  # the .trackio folder
    metadata: dict[str, Any]
    manifest: dict[str, Any]
    pages: list[Page]

    @property
    def title(self) -> str:
        return str(self.manifest.get("title") or "")

    @property
    def paper(self) -> dict[str, Any]:
        paper = self.metadata.get("paper") or self.manifest.get("paper")
        return paper if isinstance(paper, dict) else {}


def read_workspace(folder: Path) -> Workspace:
    """Read the workspace at ``folder`` (or the ``.trackio`` folder itself), or raise."""
    folder = Path(folder)
    root = folder if folder.name == TRACKIO_DIR else folder / TRACKIO_DIR
    if not (root / "logbook").is_dir():
        what = "does not exist" if not folder.exists() else f"has no {TRACKIO_DIR}/logbook/"
        raise ReproauditError(
            Problem(
                P.IMPORT_SOURCE_INVALID,
                folder.as_posix(),
                None,
                None,
                f"not a trackio logbook: {folder.as_posix()} {what}",
                f"give the folder where `trackio logbook open` ran (the one holding "
                f"{TRACKIO_DIR}/)",
            )
        )
    metadata = read_json_object(root / "metadata.json")
    manifest = read_json_object(root / "logbook" / "logbook.json")
    return Workspace(root, metadata, manifest, _read_pages(root / "logbook", manifest))


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; ``{}`` when the file is absent (trackio made it optional)."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _invalid(
            path, getattr(exc, "lineno", None), f"cannot read it as JSON: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise _invalid(path, 1, "expected a JSON object")
    return data


def _read_pages(book: Path, manifest: dict[str, Any]) -> list[Page]:
    """Pages in the manifest's order, then any page.md the manifest does not list."""
    pages_dir = (book / "pages").resolve()
    files: list[Path] = []
    stack = [manifest.get("root")]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        children = node.get("children")
        children = children if isinstance(children, list) else []
        for child in children:
            name = child.get("file") if isinstance(child, dict) else None
            if isinstance(name, str):
                path = (book / name).resolve()
                if path.is_relative_to(pages_dir) and path.is_file() and path not in files:
                    files.append(path)
        stack.extend(reversed(children))
    if pages_dir.is_dir():
        files += [
            p.resolve() for p in sorted(pages_dir.glob("*/page.md")) if p.resolve() not in files
        ]
    return [_read_page(path, book) for path in files]


def _read_page(path: Path, book: Path) -> Page:
    try:
        if path.stat().st_size > MAX_PAGE_BYTES:
            raise _invalid(path, None, f"page is larger than {P.human_size(MAX_PAGE_BYTES)}")
        text = path.read_bytes().decode("utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise _invalid(path, None, f"cannot read the page as UTF-8 text: {exc}") from None
    h1 = _H1.search(text)
    title = h1[1] if h1 else path.parent.name
    cells = []
    for m in _CELL.finditer(text):
        line = text.count("\n", 0, m.start(1))
        try:
            header = json.loads(m[1])
        except json.JSONDecodeError as exc:
            raise _invalid(path, line + exc.lineno, f"cell header is not JSON: {exc.msg}") from None
        if not isinstance(header, dict):
            raise _invalid(path, line + 1, "cell header must be a JSON object")
        cells.append(Cell(header, m[2], line + 1))
    return Page(title, path, cells)


def _invalid(path: Path, line: int | None, message: str) -> ReproauditError:
    return ReproauditError(Problem(P.IMPORT_SOURCE_INVALID, path.as_posix(), line, None, message))
