"""Writing files so that a reader never sees half of one, and never over what is not a file.

Every output reproaudit writes goes through ``atomic_write`` (a file) or
``output_folder`` / ``held_folder`` (a folder outputs go into). A regular file, or
a path where nothing is yet, is replaced whole: a temporary file beside it, then a
rename. Anything else is never renamed over nor removed: ``--out /dev/null`` once
replaced the machine's ``/dev/null`` with a root-only regular file, and every
sandbox on it then failed. A character device or a FIFO (also through a link, as
``/dev/stdout``) is written in place, opened without creating or truncating
anything; a socket, a block device, a folder or a link to anything else is
refused with a message naming it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from . import problems as P
from .errors import InputError, ReproauditError, StorageError
from .problems import Problem
from .scratch import held_file, sweep_tree

TEMP_SUFFIX = ".tmp"  # `.<name>.<random>.tmp` beside the file being written
FOLDER_HINT = "give a folder, or a new path"


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


def kind_of(mode: int) -> str:
    """What a file's mode says it is, as a message names it."""
    for test, name in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def _in_place(mode: int) -> bool:
    """Whether an existing file of this mode takes output in place: a device that consumes
    it (``/dev/null``, a terminal) or a pipe someone reads."""
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _refusal(path: Path, mode: int, target: str | None = None) -> StorageError:
    what = kind_of(mode)
    if target is not None:
        return StorageError(
            str(path),
            f"it is a symbolic link (to {target}); an output never replaces a link nor "
            "writes through one to anything but a device or FIFO",
            f"give the path it points to ({target}), or remove the link",
        )
    if stat.S_ISDIR(mode):
        return StorageError(str(path), "it is a folder", "give the path of a file in it")
    return StorageError(
        str(path),
        f"it is {what}; outputs replace regular files only, and write in place only into "
        "a character device (as /dev/null) or a FIFO",
        "pick another path",
    )


def _existing(path: Path) -> tuple[int, str | None] | None:
    """(mode to act on, link target or None) of what ``path`` names now; None when nothing.

    A link is followed only to decide: to a device or FIFO it is written through (as
    ``/dev/stdout``); to anything else it is refused (``_refusal``).
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISLNK(mode):
        return mode, None
    target = os.readlink(path)
    try:
        followed = os.stat(path).st_mode
    except OSError:  # dangling, or a loop
        return mode, target
    return (followed, None) if _in_place(followed) else (mode, target)


def atomic_write(
    path: Path, data: str | bytes, *, overwrite: bool = True, fsync: bool = True
) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place.

    Only a regular file (or nothing) at ``path`` is replaced; an existing
    character device or FIFO is written in place (``write_in_place``); anything
    else raises ``StorageError`` naming it. With ``overwrite=False`` anything at
    ``path`` is left alone and ``FileExistsError`` is raised, so scaffolding never
    clobbers someone's work. ``fsync=False`` skips the flush to disk (a cache
    entry fetched again if a power cut loses it). A failure names ``path``
    (``OSError.filename``), not the temporary file.
    """
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    found = _existing(path)
    if found is not None:
        if not overwrite:
            raise FileExistsError(errno.EEXIST, "File exists", str(path))
        mode, target = found
        if target is None and _in_place(mode):
            write_in_place(path, raw)
            return
        if target is not None or not stat.S_ISREG(mode):
            raise _refusal(path, mode, target)
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
            if fsync:
                os.fsync(handle.fileno())
        if overwrite:
            swapped = _existing(path)  # what may have appeared while we wrote
            if swapped is not None and (swapped[1] is not None or not stat.S_ISREG(swapped[0])):
                raise _refusal(path, *swapped)
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


def write_in_place(path: Path, raw: bytes) -> None:
    """Write ``raw`` into the character device or FIFO at ``path``, as a shell's ``>`` would.

    Opened without ``O_CREAT`` or ``O_TRUNC`` (nothing is made, nothing cut) and
    with ``O_NONBLOCK``, so a FIFO nobody reads is refused at once instead of
    waiting for ever; once open, writes block again, and a reader that leaves
    early is reported. What was opened is checked again: a file swapped in since
    is never written into.
    """
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO and stat.S_ISFIFO(_mode_or_zero(path)):
            raise StorageError(
                str(path),
                "it is a FIFO no program is reading",
                "start the program that reads it first, or pick another path",
            ) from None
        exc.filename = str(path)
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not _in_place(mode):
            raise StorageError(str(path), f"it became {kind_of(mode)} while being opened")
        os.set_blocking(fd, True)
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view) :]
    except BrokenPipeError:
        raise StorageError(
            str(path), "the program reading the FIFO stopped before everything was written"
        ) from None
    except OSError as exc:
        exc.filename = str(path)
        raise
    finally:
        os.close(fd)


def _mode_or_zero(path: Path) -> int:
    try:
        return os.stat(path).st_mode
    except OSError:
        return 0


def output_folder(path: Path) -> Path:
    """``path`` as a folder outputs go into: made (with its parents) when missing.

    A link the user named is followed, as any path they type; anything that is not
    a folder (a file, a device such as ``/dev/null``, a FIFO) raises ``StorageError``
    naming it: it is never written into, renamed or removed.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        return path
    except (FileExistsError, NotADirectoryError):
        refuse_non_folder(path)  # something else is there, or above it: named
    path.mkdir(parents=True, exist_ok=True)  # what was in the way went meanwhile
    return path


def refuse_non_folder(path: Path) -> None:
    """Refuse (``StorageError``) a ``path`` that could not become an ``output_folder``:
    it, or a folder above it, is something else. Makes nothing: a command checks its
    output folder this way before its work, and makes it only to write into it."""
    path = Path(path)
    for blocker in (path, *path.parents):  # the nearest one that is there, and no folder
        if os.path.lexists(blocker) and not blocker.is_dir():
            mode = os.lstat(blocker).st_mode
            if stat.S_ISLNK(mode):
                target = os.readlink(blocker)
                why = f"it is a symbolic link to {target}, which is not a folder"
            else:
                why = f"it is {kind_of(mode)}, not a folder"
            raise StorageError(str(blocker), why, FOLDER_HINT)


@contextlib.contextmanager
def held_folder(top: Path, below: Sequence[str] = ()) -> Iterator[Path]:
    """The folder ``top/below[0]/below[1]/...``, made where missing and held open while the
    block runs; yields a path naming that very folder (``/proc/self/fd/N`` on Linux).

    ``top`` is an ``output_folder`` (a link the user named is followed); each folder
    ``below`` it must be a real folder: a link, file or device there is refused,
    never followed, and one swapped in while the block runs is never written
    through, since everything goes through the folder held open.
    """
    top = output_folder(top)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    fds = [os.open(top, flags)]
    try:
        where = top
        for name in below:
            where = where / name
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=fds[-1])
            try:
                fds.append(os.open(name, flags | os.O_NOFOLLOW, dir_fd=fds[-1]))
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                mode = os.lstat(name, dir_fd=fds[-1]).st_mode
                raise StorageError(
                    str(where),
                    f"it is {kind_of(mode)}, not a folder: outputs never go through one",
                    "remove it; reproaudit makes the folder itself",
                ) from None
        proc = Path(f"/proc/self/fd/{fds[-1]}")
        yield proc if proc.is_dir() else where
    finally:
        for fd in fds:
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
