"""Files beneath a root folder, the one reader (and writer) of repository content.

A checkout holds what pull requests chose: a write-up that is a symbolic link to
``/proc/self/environ``, a link to ``/dev/zero``, a FIFO, a paper folder that is
a link into ``scripts/``. So every read of repository content comes here: each
folder below ``root`` is opened relative to its parent's descriptor with
``O_NOFOLLOW`` (a link at any component is refused, never followed), the file
itself is ``lstat``-ed and refused unopened unless it is a regular file, checked
again with ``fstat`` once open, and read to at most ``limit + 1`` bytes. The
root itself is the caller's (a checkout, a temporary folder) and is trusted.

``write_file`` and ``fresh_folder`` are the same walk for writing: the re-run
fetch creates each folder and file in a folder of its own, refusing to pass
through a link or to replace anything.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from . import problems as P
from .errors import InputError, ReproauditError
from .fsutil import output_folder
from .problems import Problem

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
KINDS = {
    stat.S_IFLNK: "a symlink",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}
HINT = (
    "the repository holds regular files only: replace the link or special file with "
    "the file itself (`git rm` it, then add the file)"
)


@dataclass(frozen=True)
class Capped:
    """A file's first ``limit + 1`` bytes at most, and its size when it was opened."""

    raw: bytes
    size: int

    @property
    def complete(self) -> bool:
        return len(self.raw) == self.size


def kind_name(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


def refusal(rel: str, what: str) -> InputError:
    """The one error for a path that is not a regular file (or passes through a link)."""
    return InputError(
        Problem(
            P.NOT_A_REGULAR_FILE,
            rel,
            None,
            None,
            f"{what}: refused, nothing was read from it",
            HINT,
        )
    )


def split(rel: str) -> list[str]:
    """``rel``'s components; a path that is absolute, empty or climbs with ``..`` is refused."""
    parts = PurePosixPath(rel).parts
    if not parts or parts[0] == "/" or any(p in ("", ".", "..") for p in parts):
        raise refusal(rel, "is not a path inside the folder")
    return list(parts)


@contextmanager
def _folder_fd(root: Path, parts: list[str], rel: str, *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``root/parts...``, each component opened with no link followed.

    Raises ``FileNotFoundError`` when a folder is absent (and ``create`` is False).
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        done: list[str] = []
        for part in parts:
            done.append(part)
            if create:
                with suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    where = "/".join(done)
                    try:
                        mode = os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode
                        what = kind_name(mode)
                    except OSError:
                        what = "not a folder"
                    raise refusal(rel, f"{where} is {what}") from None
                raise
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def read_capped(root: Path, rel: str, limit: int, shown: str | None = None) -> Capped | None:
    """``root/rel``'s first ``limit + 1`` bytes at most; None when it does not exist.

    A link at any component below ``root``, or a file that is not regular, raises
    ``InputError`` (``not_a_regular_file``) naming ``shown`` (default ``rel``);
    nothing is read from it.
    """
    parts = split(rel)
    rel = shown or rel
    try:
        with _folder_fd(Path(root), parts[:-1], rel) as dir_fd:
            try:
                before = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                return None
            if not stat.S_ISREG(before.st_mode):
                raise refusal(rel, f"is {kind_name(before.st_mode)}")
            fd = os.open(parts[-1], FILE_FLAGS, dir_fd=dir_fd)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (
            before.st_dev,
            before.st_ino,
        ):
            raise refusal(rel, "was replaced while it was opened")
        chunks, want = [], min(limit + 1, now.st_size + 1)
        while want > 0:  # the size may change under us: read until EOF or the cap
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            want = limit + 1 - sum(map(len, chunks))
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    return Capped(raw, max(now.st_size, len(raw)))


def read_file(root: Path, rel: str, limit: int) -> bytes | None:
    """``root/rel``'s bytes (None when absent), refused over ``limit`` bytes.

    ``file_too_large`` names the file; at most ``limit + 1`` bytes are ever read.
    """
    got = read_capped(root, rel, limit)
    if got is None:
        return None
    if len(got.raw) > limit:
        raise InputError(
            Problem(
                P.FILE_TOO_LARGE,
                rel,
                None,
                None,
                f"file is {P.human_size(got.size)}, over the {P.human_size(limit)} limit",
            )
        )
    return got.raw


def split_path(path: Path, rel: str | None = None) -> tuple[Path, str]:
    """(root, rel) for a full ``path``: ``rel`` is its tail when it ends ``path``, else its name.

    Callers that know the repository-relative path get every component below the
    repository checked; others get the file itself checked.
    """
    path = Path(path)
    if rel:
        tail = PurePosixPath(rel).parts
        if len(tail) < len(path.parts) and path.parts[-len(tail) :] == tail:
            return Path(*path.parts[: -len(tail)]), "/".join(tail)
    return path.parent, path.name


def regular_files(root: Path, rel: str) -> list[tuple[str, int]]:
    """Every file under the folder ``root/rel`` as (path relative to it, mode), sorted.

    Anything but folders and regular files (a link, a FIFO) raises ``InputError``
    naming it, and no link is followed on the way down.
    """
    out: list[tuple[str, int]] = []

    def walk(fd: int, prefix: str) -> None:
        for name in sorted(os.listdir(fd)):
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            here = f"{prefix}{name}"
            if stat.S_ISDIR(info.st_mode):
                child = os.open(name, DIR_FLAGS, dir_fd=fd)
                try:
                    walk(child, here + "/")
                finally:
                    os.close(child)
            elif stat.S_ISREG(info.st_mode):
                out.append((here, info.st_mode))
            else:
                raise refusal(f"{rel.rstrip('/')}/{here}", f"is {kind_name(info.st_mode)}")

    with _folder_fd(Path(root), split(rel), rel) as fd:
        walk(fd, "")
    return out


def copy_folder(root: Path, rel: str, dest: Path, limit: int) -> int:
    """Copy the regular files under ``root/rel`` into the new folder ``dest``; return bytes.

    The copy is made with ``write_file``: no link is read or written, modes keep
    only the executable bit, and a file over ``limit`` bytes is refused.
    """
    Path(dest).mkdir(parents=True)
    total = 0
    for sub, mode in regular_files(root, rel):
        data = read_file(root, f"{rel.rstrip('/')}/{sub}", limit)
        assert data is not None
        write_file(dest, sub, data, executable=bool(mode & 0o111))
        total += len(data)
    return total


def write_file(root: Path, rel: str, data: bytes, *, executable: bool = False) -> None:
    """Create ``root/rel`` (and its folders) with ``data``, passing through no link.

    The file must not exist yet (``O_EXCL``): a fetch writes into a folder of its
    own, so anything already there is a mistake or an attack, never overwritten.
    """
    parts = split(rel)
    with _folder_fd(Path(root), parts[:-1], rel, create=True) as dir_fd:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
        fd = os.open(parts[-1], flags, 0o755 if executable else 0o644, dir_fd=dir_fd)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)


def fresh_folder(path: Path, *, outside: Path | None = None) -> Path:
    """Create ``path`` as a new empty folder (its parents as needed); refuse an existing one.

    With ``outside``, ``path`` must not lie inside that folder (a job's checkout).
    """
    path = Path(path).absolute()
    if outside is not None:
        real_parent = Path(os.path.realpath(path.parent))
        if real_parent.is_relative_to(Path(os.path.realpath(outside))):
            raise ReproauditError(
                f"{path} is inside {outside}: the fetch writes into a folder of its own",
                "give a folder outside the checkout (for example under $RUNNER_TEMP)",
            )
    output_folder(path.parent)
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        raise ReproauditError(
            f"{path} already exists: the fetch writes into a new, empty folder of its own",
            "remove it, or give a folder that does not exist yet",
        ) from None
    return path
