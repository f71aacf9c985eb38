"""JSON from an untrusted source (an LLM endpoint's reply), with its depth and size bounded.

``json.loads`` recurses once per nesting level, so ``[[[[...]]]]`` a few thousand deep
raises ``RecursionError``, which no ``except ValueError`` catches: one reply would end
a run as a bug. ``loads`` measures the nesting first, in one linear pass that skips
string contents, and refuses a text deeper than ``max_depth`` or longer than
``max_chars`` with ``JsonError`` (a ``ValueError``) before ``json`` sees it.
The one depth-bounded JSON parser: LLM and onboarding replies, and the re-run
record's files (``rerun_files``), which a contributor's command writes.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
MAX_CHARS = 1024 * 1024

_STRING = re.compile(r'"(?:[^"\\]+|\\.)*"?', re.S)  # escapes included; unterminated too
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JsonError(ValueError):
    """Text that is not JSON, or JSON deeper or longer than a reply may be.

    ``too_deep`` says it was the nesting; ``lineno`` is where the JSON broke, when known.
    """

    def __init__(self, message: str, *, too_deep: bool = False, lineno: int | None = None):
        super().__init__(message)
        self.too_deep = too_deep
        self.lineno = lineno


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (0 for a scalar)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))  # a bracket in a string is text
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_CHARS) -> Any:
    """``json.loads`` for untrusted text: ``JsonError`` for anything it cannot safely return."""
    if isinstance(text, bytes):
        encoding = json.detect_encoding(text)  # as json.loads would: UTF-8, -16 or -32
        try:
            text = text.decode(encoding)
        except UnicodeDecodeError as exc:
            raise JsonError(f"not {encoding.upper()}: {exc}") from None
    if len(text) > max_chars:
        raise JsonError(f"{len(text)} characters of JSON (at most {max_chars})")
    nested = depth(text)
    if nested > max_depth:
        raise JsonError(f"JSON nested {nested} levels deep (at most {max_depth})", too_deep=True)
    try:
        return json.loads(text)
    except RecursionError:  # a smaller stack than ours
        raise JsonError("JSON nested too deep for this interpreter", too_deep=True) from None
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise JsonError(str(exc)[:200] or type(exc).__name__, lineno=line) from None
