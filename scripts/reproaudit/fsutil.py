"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from . import problems as P
from .errors import InputError, ReproauditError
from .problems import Problem
from .scratch import held_file, sweep_tree

TEMP_SUFFIX = ".tmp"  # `.<name>.<random>.tmp` beside the file being written


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows (threads stay safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # elsewhere the only way to read it is to set it
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: str | bytes, *, overwrite: bool = True) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place.

    With ``overwrite=False`` an existing file is left alone and ``FileExistsError``
    is raised, so scaffolding never clobbers someone's work. A failure names ``path``
    (``OSError.filename``), not the temporary file.
    """
    path = Path(path)
    if not overwrite and path.exists():
        raise FileExistsError(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = fd = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # locked until closed, after the rename: a later `sweep` removes it only if we died
        fd, tmp = held_file(path.parent, f".{path.name}.", TEMP_SUFFIX)
        # mkstemp makes the file 0600; a web server running as another user must read it
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb", closefd=False) as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if the file appeared meanwhile
            os.unlink(tmp)
    except BaseException as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (None, tmp):
            exc.filename = str(path)  # name the file the user asked for, not our temp file
        raise
    finally:
        if fd is not None:
            os.close(fd)


@dataclass(frozen=True)
class Writer:
    """Who writes a path of a tree, in words, and the input file and field it comes from
    (a logbook page: the logbook file and ``logbook.id``), when it comes from one."""

    what: str
    file: str | None = None
    field: str | None = None


def _plain_writer(rel: str, at: str) -> Writer:
    return Writer(f"the file {rel}")


class Paths:
    """The paths of one tree and who takes each: one writer per path.

    A second file at one path, a file where another writer's folder is, or a folder where
    another's file is, is refused as an ``InputError`` (``path_collision``) naming both
    writers. ``describe(rel, at)`` says who writes ``rel``, and the input (file and field)
    that put a name at ``at``, the path both writers want; a writer given to ``take`` is
    used as is (what something else wrote, such as mkdocs). ``tree`` says where, in the
    message (``on the site``).
    """

    def __init__(
        self, describe: Callable[[str, str], Writer] = _plain_writer, tree: str = "on the site"
    ) -> None:
        self.describe = describe
        self.tree = tree
        self._files: set[str] = set()
        self._folders: dict[str, str] = {}  # folder -> the first file taken in it
        self._given: dict[str, Writer] = {}

    def take(self, rel: str, by: Writer | None = None) -> None:
        """Take ``rel``, a ``/``-separated file path, or refuse it before anything is written."""
        if rel in self._files:
            self._collide(rel, rel, by)
        if rel in self._folders:
            self._collide(self._folders[rel], rel, by)
        folder = rel.rpartition("/")[0]
        while folder and folder not in self._folders:  # each folder's ancestors are checked once
            if folder in self._files:
                self._collide(folder, rel, by)
            self._folders[folder] = rel
            folder = folder.rpartition("/")[0]
        self._files.add(rel)
        if by is not None:
            self._given[rel] = by

    def _collide(self, first: str, second: str, by: Writer | None) -> NoReturn:
        at = min(first, second, key=len)  # the file one writer wants as the other's folder
        one = self._given.get(first) or self.describe(first, at)
        two = by or self.describe(second, at)
        # the input to change: a whole file that takes a path (a repository's own site/
        # file), else an id (a file and field), else the later writer
        blamed = max((two, one), key=lambda w: (w.file is not None and not w.field, bool(w.file)))
        where = first if first == second else f"{first} and {second}"
        raise InputError(
            Problem(
                P.PATH_COLLISION,
                blamed.file or second,
                None,
                blamed.field,
                f"{one.what} and {two.what} would be one path {self.tree} ({where})",
                "change the input named: pick another id, or move the file off the path "
                "the site generates",
            )
        )


class TreeWriter:
    """Many new files into a folder no reader sees until it is renamed into place whole (a
    site build's staging folder), so no file needs a temporary file of its own.

    Each folder is made once, not asked for again for every file in it, and each file is
    one open and write of its bytes: a conference's site is 45,000 files. A link where a
    file goes is refused (``O_NOFOLLOW``), never written through. Each path has one writer
    (``Paths``): a second is refused, naming both, before anything is written there;
    ``claim`` takes the paths something else wrote (mkdocs), naming who.
    """

    def __init__(self, root: Path, describe: Callable[[str, str], Writer] = _plain_writer) -> None:
        self.root = str(root)
        self.paths = Paths(describe)
        self._made: set[str] = set()

    def claim(self, rel: str, by: Writer) -> None:
        """Take ``rel`` for a file already there, which ``by`` wrote; nothing is written."""
        self.paths.take(rel, by)

    def write(self, rel: str, data: str | bytes) -> None:
        """Write ``data`` (text as UTF-8) to ``rel``, a ``/``-separated path under the root."""
        self.paths.take(rel)
        folder = rel.rpartition("/")[0]
        if folder not in self._made:
            os.makedirs(f"{self.root}/{folder}" if folder else self.root, exist_ok=True)
            self._made.add(folder)
        raw = memoryview(data.encode("utf-8") if isinstance(data, str) else data)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(f"{self.root}/{rel}", flags, 0o666)
        try:
            while raw:
                raw = raw[os.write(fd, raw) :]
        finally:
            os.close(fd)


def write_new_files(files: dict[Path, str]) -> list[Path]:
    """Write each new file atomically; refuse, before writing any, if one already exists."""
    existing = [path for path in files if Path(path).exists()]
    if existing:
        raise ReproauditError(
            f"{existing[0]} already exists; not overwriting it",
            "pick another id, or use --stdout to print the template",
        )
    for path, text in files.items():
        atomic_write(Path(path), text, overwrite=False)
    return list(files)


def sweep_temp_files(top: Path) -> list[Path]:
    """Remove the temporary files killed writers left in ``top`` and its folders."""
    return sweep_tree(Path(top), ".", TEMP_SUFFIX)
