"""``outputs:`` pointers: the one RFC 6901 resolver, and did-you-mean for those that miss.

A measurement's ``source: "outputs:/C2/x"`` is a JSON pointer into the file the
re-run wrote. The judge, the site and ``reproaudit check`` resolve it here, with
the ``jsonpointer`` library, so they agree on every edge of RFC 6901: a list
index is ``0`` or digits without a leading zero (``01`` and ``²`` index nothing),
``-`` is past the end (nothing), and ``~`` appears only as ``~0`` or ``~1``.
``SOURCE_PATTERN`` is that syntax as the models' pattern, so ``validate``
refuses what the library would refuse. A pointer that resolves to nothing makes
the claim inconclusive (``missing_outputs``); when a re-run's outputs are at
hand, ``check`` tells the contributor which key was meant (``explain_missing``).
"""

from __future__ import annotations

import difflib
from typing import Any

from jsonpointer import EndOfList, JsonPointer, JsonPointerException

PREFIX = "outputs:"
# RFC 6901 section 3: each reference token is any character but '/' and '~', or ~0 / ~1
SOURCE_PATTERN = r"^outputs:(/([^/~]|~[01])*)*$"

MISSING = object()  # what a pointer that leads nowhere resolves to


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901 lookup of ``pointer`` (without ``outputs:``) in ``document``; ``MISSING``
    when it is malformed or leads nowhere, the past-the-end index ``-`` included."""
    try:
        found = JsonPointer(pointer).resolve(document, MISSING)
    except JsonPointerException:  # malformed: no leading "/", a bad "~" escape
        return MISSING
    return MISSING if isinstance(found, EndOfList) else found


def resolve_source(outputs: Any, source: str) -> Any:
    """A measurement's or sweep's ``source`` (``outputs:/...``) in the re-run's outputs."""
    return resolve_pointer(outputs, source.removeprefix(PREFIX))


def _step(node: Any, token: str) -> tuple[bool, Any]:
    """One reference token, as ``jsonpointer`` takes it: (found, child)."""
    if not isinstance(node, (dict, list)):
        return False, None
    try:
        child = JsonPointer("").walk(node, token)
    except JsonPointerException:  # a list index that is not one: "01", "²", "x", out of range
        return False, None
    return (False, None) if isinstance(child, EndOfList) else (True, child)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def explain_missing(outputs: Any, source: str) -> tuple[str, str] | None:
    """(message, hint) for a ``source`` that resolves to nothing, or None when it resolves.

    The hint names the closest pointer that does resolve, else the keys present
    where the pointer first leads nowhere.
    """
    pointer = source.removeprefix(PREFIX)
    if resolve_pointer(outputs, pointer) is not MISSING:
        return None
    message = f"{source!r} points at nothing in the outputs the re-run wrote"
    try:
        tokens = JsonPointer(pointer).parts
    except JsonPointerException:
        return message, "a pointer starts with '/' and writes '~' as ~0, '/' in a key as ~1"
    node: Any = outputs
    done: list[str] = []
    for i, token in enumerate(tokens):
        found, child = _step(node, token)
        if found:
            node, done = child, [*done, token]
            continue
        keys = [str(k) for k in node] if isinstance(node, dict) else []
        if isinstance(node, list):
            keys = [str(n) for n in range(len(node))]
        here = "/" + "/".join(_escape(t) for t in done) if done else "the top level"
        for guess in difflib.get_close_matches(token, keys, n=3, cutoff=0.6):
            candidate = [*done, guess, *tokens[i + 1 :]]
            text = "/" + "/".join(_escape(t) for t in candidate)
            if resolve_pointer(outputs, text) is not MISSING:
                return message, f"did you mean {PREFIX}{text}?"
        if not keys:
            kind = type(node).__name__ if node is not None else "null"
            if isinstance(node, (dict, list)):
                return message, f"at {here} the outputs hold an empty {kind}"
            return message, f"at {here} the outputs hold a {kind}, not an object or a list"
        if isinstance(node, list):
            return message, (
                f"at {here} the outputs hold a list of {len(node)}: index it with 0 to "
                f"{len(node) - 1}, in ASCII digits without a leading zero"
            )
        shown = ", ".join(keys[:12]) + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
        return message, f"at {here} the outputs have: {shown}"
    return message, "check the pointer against the outputs file"
