"""Safe YAML text for imported files: quoted scalars, readable notes, honest comments.

Imported text comes from other tools and may hold anything (quotes, colons,
`1e3`, `no`, control characters). Every scalar is written as a JSON string,
which is a valid YAML double-quoted string read back exactly by the project's
YAML 1.2 loader. Long notes are written as literal blocks when that is safe,
so a reviewer reads them as text rather than one line of ``\\n`` escapes;
``check_round_trip`` then proves that the text parses back to the data.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..loader import parse_yaml
from ..problems import ReproauditError

# Characters YAML treats as line breaks or that editors mangle: never in a literal block.
_BREAKS = frozenset("\r\x85\u2028\u2029\ufeff")
_NOT_YAML_SAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def q(value: Any) -> str:
    """A YAML scalar for ``value`` (JSON is valid YAML flow syntax).

    JSON leaves some characters raw that YAML reads differently (NEL and the
    Unicode line separators fold into spaces; C1 controls and BOMs are
    refused): those are written as ``\\uXXXX`` escapes, which both languages
    share. A lone surrogate (possible in JSON input, impossible in UTF-8)
    becomes U+FFFD.
    """
    if value is None:
        return "null"
    text = json.dumps(scrub(value), ensure_ascii=False)
    return _NOT_YAML_SAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def scrub(value: Any) -> Any:
    """``value`` with lone surrogates in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def block(text: str, indent: int) -> str:
    """``text`` as a ``|-`` literal block indented by ``indent`` spaces, or quoted."""
    lines = text.split("\n")
    safe = (
        text
        and text == text.strip()
        and not any(ch in _BREAKS for ch in text)
        and all(line.isprintable() and line == line.rstrip() for line in lines)
    )
    if not safe:
        return q(text)
    pad = " " * indent
    return "|-\n" + "\n".join(pad + line if line else "" for line in lines)


def comment(text: str, width: int = 96) -> str:
    """One-line comment text: printable characters only, collapsed, clipped."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return clip(flat, width)


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def check_round_trip(text: str, rel: str, expected: Any) -> bool:
    """True when ``text`` parses back to exactly ``expected`` (the data it was made from)."""
    try:
        return parse_yaml(text, rel).data == scrub(expected)
    except ReproauditError:
        return False
