"""Values written into generated text, escaped for the context they land in.

Scaffolds and importers write titles, anchors, ids and notes that came from
other people (a paper file, a trackio page, a model's reply) into YAML and
Python. Pasting them raw lets a newline end a comment, a quote end a string
or a ``#`` start one, so every value goes through one of these builders:

- ``yaml_scalar``: a YAML scalar that reads back as exactly the value;
- ``yaml_plain``: the same, unquoted when the value is a simple id;
- ``one_line``: text for a one-line comment (YAML or Python) that cannot end
  its line or hide what it says;
- ``python_str``: a Python string literal that evaluates to the value;
- ``strip_controls``: untrusted text shown to a person (a terminal, a Markdown
  comment) without the characters that move a cursor, recolour a terminal or
  reorder what is read.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Written as \uXXXX escapes: characters YAML folds or refuses, and the bidi controls that make
# a reviewer read text in an order other than the file's (CVE-2021-42574).
_NOT_YAML_SAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff\ufffe\uffff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
# The one set of characters stripped from untrusted text shown to a person: C0 controls but
# tab and newline (a carriage return overwrites a line), DEL and C1 (escape sequences: ESC,
# CSI), zero-width characters, and the bidi marks, embeddings, overrides and isolates.
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


def yaml_scalar(value: Any) -> str:
    """A YAML scalar for ``value`` (JSON is valid YAML flow syntax).

    JSON leaves some characters raw that YAML reads differently (NEL and the
    Unicode line separators fold into spaces; C1 controls and BOMs are
    refused), and bidi controls would reorder what a reviewer sees: those are
    written as ``\\uXXXX`` escapes, which both languages share. A lone
    surrogate (possible in JSON input, impossible in UTF-8) becomes U+FFFD.
    """
    if value is None:
        return "null"
    text = json.dumps(scrub(value), ensure_ascii=False)
    return _NOT_YAML_SAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
_KEYWORDS = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n"})


def yaml_plain(value: Any) -> str:
    """``value`` unquoted when it is a simple id (``C3``), else ``yaml_scalar(value)``.

    Plain only for letters, digits, ``_`` and ``-`` starting with a letter,
    and never a word some YAML reader takes for a boolean or null.
    """
    text = str(value) if isinstance(value, str) else None
    if text is not None and _PLAIN.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    return yaml_scalar(value)


def scrub(value: Any) -> Any:
    """``value`` with lone surrogates in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def one_line(value: Any, width: int = 400) -> str:
    """Comment text: printable characters only (no breaks, controls or bidi), collapsed, clipped.

    ``str.isprintable`` is false for every line break, control character and
    bidi override, so none of them survives into a comment.
    """
    text = str(value)[: width * 4]  # clipped below anyway; bounds the work on huge values
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return clip(flat, width)


def strip_controls(text: object) -> str:
    """``str(text)`` without the characters of ``CONTROL``; tabs and newlines stay."""
    return CONTROL.sub("", str(text))


def python_str(value: Any) -> str:
    """A Python string literal that evaluates to ``str(value)`` and to nothing else."""
    return repr(str(value))


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
