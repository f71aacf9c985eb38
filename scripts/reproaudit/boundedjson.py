"""JSON from an untrusted source (an LLM endpoint's reply), with its depth and size bounded.

``json.loads`` recurses once per nesting level, so ``[[[[...]]]]`` a few thousand deep
raises ``RecursionError``, which no ``except ValueError`` catches: one reply would end
a run as a bug. ``loads`` measures the nesting first, in one linear pass that skips
string contents, and refuses a text deeper than ``max_depth`` or longer than
``max_chars`` with ``JsonError`` (a ``ValueError``) before ``json`` sees it.
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
    """Text that is not JSON, or JSON deeper or longer than a reply may be."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (0 for a scalar)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))  # a bracket in a string is text
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_CHARS) -> Any:
    """``json.loads`` for untrusted text: ``JsonError`` for anything it cannot safely return."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonError(f"not UTF-8: {exc}") from None
    if len(text) > max_chars:
        raise JsonError(f"{len(text)} characters of JSON (at most {max_chars})")
    nested = depth(text)
    if nested > max_depth:
        raise JsonError(f"JSON nested {nested} levels deep (at most {max_depth})")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: a smaller stack than ours
        raise JsonError(str(exc)[:200] or type(exc).__name__) from None
