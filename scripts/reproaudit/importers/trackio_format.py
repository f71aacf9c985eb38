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

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import problems as P
from ..errors import InputError
from ..escaping import clip
from ..problems import Problem
from ._files import check_folder, inside, kind_of, load_json, read_regular, refused

TRACKIO_DIR = ".trackio"
MAX_PAGE_BYTES = 8 * 1024 * 1024  # trackio caps a run's output at 20,000 characters per cell
MAX_JSON_BYTES = 1024 * 1024  # metadata.json, logbook.json
MAX_HEADER_CHARS = 64 * 1024  # one cell's JSON header
MAX_PAGES = 10_000
MAX_TITLE_CHARS = 300  # a page title names a claim; the rest is noise in notes and messages
# What starts a cell: trackio writes "\n---\n<!-- trackio-cell\n{header}\n-->\n<body>".
CELL_MARKER = "\n---\n<!-- trackio-cell\n"
HEADER_END = "\n-->"
FENCE = "````"


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
        return fences(self.body)


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
    check_folder(root)
    check_folder(root / "logbook")
    if not (root / "logbook").is_dir():
        what = "does not exist" if not folder.exists() else f"has no {TRACKIO_DIR}/logbook/"
        raise InputError(
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
    if not os.path.lexists(path):
        return {}
    data = load_json(read_regular(path, MAX_JSON_BYTES), path.as_posix(), what="JSON file")
    if not isinstance(data, dict):
        raise _invalid(path, 1, "expected a JSON object")
    return data


def _read_pages(book: Path, manifest: dict[str, Any]) -> list[Page]:
    """Pages in the manifest's order, then any page.md the manifest does not list.

    Only regular files inside ``pages/`` are read: a symlink, FIFO or device
    there (or a symlinked page folder) is refused before it is opened.
    """
    pages_dir = book / "pages"
    check_folder(pages_dir)
    files: list[Path] = []
    seen: set[Path] = set()

    def add(path: Path) -> None:
        what = kind_of(path)
        if what:
            raise refused(path, f"is {what}")
        if path not in seen and path.is_file():
            seen.add(path)
            files.append(path)

    stack = [manifest.get("root")]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        children = node.get("children")
        children = children if isinstance(children, list) else []
        for child in children:
            name = child.get("file") if isinstance(child, dict) else None
            if isinstance(name, str) and "\0" not in name:
                path = Path(os.path.normpath(book / name))
                if path.is_relative_to(pages_dir) and path != pages_dir:
                    if not inside(path, pages_dir):
                        raise refused(path, "is reached through a symlinked folder")
                    add(path)
        stack.extend(reversed(children))
        if len(files) > MAX_PAGES:
            break
    if pages_dir.is_dir():
        with os.scandir(pages_dir) as entries:
            folders = sorted(entries, key=lambda e: e.name)
        for entry in folders:
            if entry.is_symlink():
                raise refused(Path(entry.path), "is a symlink")
            if entry.is_dir(follow_symlinks=False) and os.path.lexists(Path(entry.path, "page.md")):
                add(Path(entry.path, "page.md"))
    if len(files) > MAX_PAGES:
        raise _invalid(book, None, f"more than {MAX_PAGES} pages")
    return [_read_page(path) for path in files]


def _read_page(path: Path) -> Page:
    raw = read_regular(path, MAX_PAGE_BYTES)
    try:
        text = raw.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise _invalid(path, None, f"cannot read the page as UTF-8 text: {exc}") from None
    return parse_page(text, path)


def parse_page(text: str, path: Path) -> Page:
    """The title and cells of a page's text, in one pass (no backtracking regex).

    Cells are found with ``str.find`` on the literal cell marker, as trackio's
    own pattern reads them: a header runs to the first ``\\n-->\\n`` line, the
    body to the next marker (the last one loses its trailing blanks); a marker
    whose header never closes starts no cell. The title is the first ``# ``
    heading line.
    """
    title = heading(text) or path.parent.name
    shift = 1 if text.startswith(CELL_MARKER[1:]) else 0
    padded = "\n" * shift + text
    cells = []
    newlines, counted = -shift, 0  # newlines in padded[:counted], not counting the padding
    at = padded.find(CELL_MARKER)
    while at >= 0:
        start = at + len(CELL_MARKER)
        end = padded.find(HEADER_END + "\n", start)
        if end < 0:
            break
        newlines += padded.count("\n", counted, start)
        counted = start
        raw_header = padded[start:end]
        if len(raw_header) > MAX_HEADER_CHARS:
            raise _invalid(
                path, newlines + 1, f"cell header is longer than {MAX_HEADER_CHARS} characters"
            )
        header = load_json(raw_header, path.as_posix(), line=newlines, what="cell header")
        if not isinstance(header, dict):
            raise _invalid(path, newlines + 1, "cell header must be a JSON object")
        body_start = end + len(HEADER_END) + 1
        at = padded.find(CELL_MARKER, body_start)
        body = padded[body_start:at] if at >= 0 else padded[body_start:].rstrip()
        cells.append(Cell(header, body, newlines + 1))
    return Page(title, path, cells)


def heading(text: str) -> str | None:
    """The text of the first ``# Title`` line (clipped to ``MAX_TITLE_CHARS``), or None."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text.startswith("# ", start):
            title = text[start + 2 : end].strip()
            if title:
                return clip(title, MAX_TITLE_CHARS)
        start = end + 1
    return None


def fences(body: str) -> list[tuple[str, str]]:
    """``(info, text)`` of each four-backtick fence in ``body``, read line by line.

    A fence opens with a line ```````` ````info ```` (info without backticks) and
    closes with a line of exactly four backticks (trailing blanks allowed); an
    unclosed fence is not a fence.
    """
    out = []
    opened: tuple[str, list[str]] | None = None
    for line in body.split("\n"):
        if opened is None:
            if line.startswith(FENCE) and "`" not in line[len(FENCE) :]:
                opened = (line[len(FENCE) :].strip(), [])
        elif line.rstrip(" \t") == FENCE:
            out.append((opened[0], "\n".join(opened[1]).rstrip("\n")))
            opened = None
        else:
            opened[1].append(line)
    return out


def _invalid(path: Path, line: int | None, message: str) -> InputError:
    return InputError(Problem(P.IMPORT_SOURCE_INVALID, path.as_posix(), line, None, message))
