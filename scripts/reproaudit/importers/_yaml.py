"""Safe YAML text for imported files: quoted scalars, readable notes, honest comments.

Imported text comes from other tools and may hold anything (quotes, colons,
`1e3`, `no`, control characters). Every scalar is written as a JSON string,
which is a valid YAML double-quoted string read back exactly by the project's
YAML 1.2 loader. Long notes are written as literal blocks when that is safe,
so a reviewer reads them as text rather than one line of ``\\n`` escapes;
``check_round_trip`` then proves that the text parses back to the data.
"""

from __future__ import annotations

from typing import Any

from ..errors import ReproauditError
from ..escaping import clip, one_line, scrub, yaml_scalar
from ..loader import parse_yaml

# Characters YAML treats as line breaks or that editors mangle: never in a literal block.
_BREAKS = frozenset("\r\x85\u2028\u2029\ufeff")
q = yaml_scalar
__all__ = ["block", "check_round_trip", "clip", "comment", "q", "scrub"]


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
    return one_line(text, width)


def check_round_trip(text: str, rel: str, expected: Any) -> bool:
    """True when ``text`` parses back to exactly ``expected`` (the data it was made from)."""
    try:
        return parse_yaml(text, rel).data == scrub(expected)
    except ReproauditError:
        return False
