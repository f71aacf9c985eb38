"""Reading files from a folder someone else made: regular files only, bounded, checked.

An imported folder (a trackio workspace, a PaperBench paper folder) comes from
elsewhere. A symlink in it points anywhere on the machine, a FIFO blocks a
read forever, ``/dev/zero`` never ends, and a small JSON file can nest 200,000
levels deep or hold a 5,000-digit number. So: each path is checked with
``lstat`` before it is opened, then read by the one reader (``beneath``:
``O_NOFOLLOW | O_NONBLOCK``, checked again with ``fstat``, capped); JSON is parsed with
bounded numbers and a bounded depth. Every refusal is a ``Problem`` naming the
file, never a traceback.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .. import problems as P
from ..beneath import KINDS, read_capped
from ..errors import InputError
from ..problems import Problem

MAX_JSON_DEPTH = 64
MAX_NUMBER_CHARS = 40  # digits and signs of one JSON number
_KINDS = KINDS  # the one reader's names for what is not a regular file
REFUSED_HINT = (
    "importers read only regular files inside the folder: replace the link or special "
    "file with a copy of the file itself"
)


def kind_of(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file ("a symlink", "a FIFO"...), else None.

    ``lstat``: a symlink is reported as one, never followed. None also when the
    path does not exist (the caller decides whether that matters).
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def refused(path: Path, what: str, shown: str | None = None) -> InputError:
    return InputError(
        Problem(
            P.IMPORT_FILE_REFUSED,
            shown or path.as_posix(),
            None,
            None,
            f"{what}: refused, nothing was read from it",
            REFUSED_HINT,
        )
    )


def check_folder(path: Path, shown: str | None = None) -> None:
    """Raise unless ``path`` is a real folder (not a symlink to one)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # absent: the caller reports what is missing
    if stat.S_ISLNK(mode):
        raise refused(path, "is a symlink", shown)
    if not stat.S_ISDIR(mode):
        raise refused(path, f"is {_KINDS.get(stat.S_IFMT(mode), 'not a folder')}", shown)


def read_regular(path: Path, limit: int, shown: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, refusing links, FIFOs, devices and size > limit.

    The open and the capped read are the one reader's (``beneath.read_capped``);
    refusals carry the importers' code and hint.
    """
    shown = shown or path.as_posix()
    what = kind_of(path)
    if what:
        raise refused(path, f"is {what}", shown)
    try:
        got = read_capped(path.parent, path.name, limit, shown)
    except InputError:  # swapped for something else between the two looks
        raise refused(path, "is not a regular file", shown) from None
    except OSError as exc:
        raise InputError(
            Problem(P.IMPORT_SOURCE_INVALID, shown, None, None, f"cannot open it: {exc.strerror}")
        ) from None
    if got is None:
        raise InputError(
            Problem(P.IMPORT_SOURCE_INVALID, shown, None, None, "cannot open it: not found")
        )
    if len(got.raw) > limit:
        raise InputError(
            Problem(
                P.FILE_TOO_LARGE,
                shown,
                None,
                None,
                f"larger than {P.human_size(limit)}; importers read files up to that size",
            )
        )
    return got.raw


def inside(path: Path, root: Path) -> bool:
    """True when ``path`` (lexically normalised) is ``root`` or under it, with no symlink between.

    Each folder from ``root`` down to ``path``'s parent is checked with
    ``lstat``: a symlinked folder would lead out of ``root``.
    """
    norm = Path(os.path.normpath(path))
    root = Path(os.path.normpath(root))
    if not norm.is_relative_to(root):
        return False
    current = root
    for part in norm.relative_to(root).parts[:-1]:
        current = current / part
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return True


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _NumberTooLong(text)
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _NumberTooLong(text)
    return float(text)


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON number")


class _NumberTooLong(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(
            f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS}): {text[:12]}…"
        )


def json_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (explicit stack: no recursion)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
    return deepest


def load_json(
    text: str | bytes,
    shown: str,
    *,
    line: int = 0,
    what: str = "",
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """Parse untrusted JSON with bounded numbers and nesting, or raise a Problem.

    ``line`` is added to the decoder's line numbers (for JSON inside a larger file).
    """

    def problem(message: str, at: int | None = None) -> InputError:
        return InputError(
            Problem(
                P.IMPORT_SOURCE_INVALID, shown, at, None, f"{what}: {message}" if what else message
            )
        )

    try:
        value = json.loads(
            text,
            parse_int=_bounded_int,
            parse_float=_bounded_float,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise problem(
            f"not valid JSON: {exc.msg} (column {exc.colno})", line + exc.lineno
        ) from None
    except UnicodeDecodeError:
        raise problem("not UTF-8 text") from None
    except RecursionError:
        raise problem(f"nested more than {max_depth} levels deep") from None
    except ValueError as exc:  # a number too long, NaN, Infinity
        raise problem(str(exc), line + 1 if line else None) from None
    if json_depth(value) > max_depth:
        raise problem(f"nested more than {max_depth} levels deep")
    return value
