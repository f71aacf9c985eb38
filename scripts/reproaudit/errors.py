"""The expected failures of reproaudit, by kind; the command line turns each into one message.

An expected failure is one the user can fix (bad input, a refused call, an
unreachable endpoint): the library raises a subclass of ``ReproauditError`` and
the single handler in ``reproaudit.cli`` prints its text and exits 1. Anything
else is a bug and keeps its traceback (exit 3). The library never prints.

This module imports nothing from the package at run time (``Problem`` only for
type checking), so every module may import it; ``problems`` does not import it.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .problems import Problem


def _with_hint(message: str, hint: str | None) -> str:
    return f"{message}\n  hint: {hint}" if hint else message


def _problems_text(problems: list[Problem]) -> str:
    # the same order as problems.format_problems (by file, line, field, code)
    ordered = sorted(problems, key=lambda p: (p.path, p.line or 0, p.field or "", p.code))
    return "\n".join(p.format_text() for p in ordered)


class ReproauditError(Exception):
    """An expected failure the user can fix: its text says what went wrong and how to fix it.

    Raise one of the kinds below; problems found in input files are ``InputError``.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        if not isinstance(message, str):  # Problems go to InputError, which keeps them as data
            raise TypeError(f"{type(self).__name__} takes a message; raise InputError(problems)")
        self.hint = hint
        super().__init__(_with_hint(message, hint))


class InputError(ReproauditError):
    """Input files have problems; each ``Problem`` names the file, line and field."""

    def __init__(self, problems: Problem | Iterable[Problem]) -> None:
        one = hasattr(problems, "code")
        self.problems: list[Problem] = [problems] if one else list(problems)  # type: ignore[list-item, arg-type]
        super().__init__(_problems_text(self.problems))


class SettingError(ReproauditError):
    """An option or environment setting has a value that cannot work (named in the message)."""


class UsageError(SettingError):
    """Options that cannot work together; the command line reports it as a usage error (exit 2)."""


class EndpointError(ReproauditError):
    """A remote service (the LLM endpoint, the Hugging Face Hub or Jobs) failed or refused."""


class GitHubError(ReproauditError):
    """A GitHub API call that failed for good (after retries)."""

    def __init__(self, status: int, method: str, path: str, message: str) -> None:
        self.status = status
        super().__init__(f"GitHub API {method} {path} failed ({status}): {message}")


class GitError(ReproauditError):
    """A git command the workflow needs failed (an unknown commit, a shallow clone, a push)."""


class ReadOnlyError(ReproauditError):
    """A write attempted by a read-only (dry-run) GitHub client."""


class ArtifactError(ReproauditError):
    """An untrusted artifact (a workflow's result file, a re-run record, an event) is malformed.

    The message names the file and what is wrong with it; the artifact's own
    text is never shown as an instruction.
    """

    def __init__(self, path: object, message: str, hint: str | None = None) -> None:
        self.path = str(path)
        self.detail = message
        super().__init__(f"{path}: {message}", hint)

    def at(self, path: object) -> ArtifactError:
        """The same error, naming the file the artifact was read from."""
        return ArtifactError(path, self.detail, self.hint)


# errno values of a target that cannot take the write: the user frees space, fixes the
# permissions or picks another folder. Anything else from the operating system is a bug.
_STORAGE_ERRNOS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}


class StorageError(ReproauditError):
    """A file or folder cannot be written: the disk is full, read-only or not ours to write.

    An expected failure (exit 1, one line naming the path), not a bug: ``storage_error``
    turns the operating system's ``OSError`` into one.
    """

    def __init__(self, path: str | None, why: str, hint: str | None = None) -> None:
        self.path = path
        self.why = why
        super().__init__(
            f"cannot write {path}: {why}" if path else f"cannot write a file: {why}", hint
        )


def storage_error(exc: BaseException) -> StorageError | None:
    """The ``StorageError`` an ``OSError`` (or a ``shutil.Error`` of them) stands for, or None."""
    if isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNOS:
        if exc.errno == errno.EPERM and exc.filename is None:
            return None  # EPERM without a path is a signal or a syscall, not a write
        path = exc.filename2 if exc.filename2 is not None else exc.filename
        return StorageError(None if path is None else os.fsdecode(path), _STORAGE_ERRNOS[exc.errno])
    if isinstance(exc, shutil.Error) and exc.args:
        # shutil.Error: copytree's list of (source, target, why) for the files it could not copy
        entries = exc.args[0] if isinstance(exc.args[0], list) else []
        for entry in entries:
            if isinstance(entry, tuple) and len(entry) == 3:
                for code, why in _STORAGE_ERRNOS.items():
                    if f"[Errno {code}]" in str(entry[2]):
                        return StorageError(str(entry[1]), why)
    cause = exc.__cause__ or exc.__context__  # a library that wrapped the OSError
    return storage_error(cause) if cause is not None and cause is not exc else None
