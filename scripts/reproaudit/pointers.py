"""Did-you-mean for ``outputs:`` pointers, against the keys a re-run actually wrote.

A measurement's ``source: "outputs:/C2/imbalence"`` that resolves to nothing makes
the claim inconclusive (``missing_outputs``). When a re-run's outputs are at hand,
``check`` tells the contributor which key was meant instead of leaving them to
diff JSON by eye.
"""

from __future__ import annotations

import difflib
from typing import Any

PREFIX = "outputs:"


def _token(raw: str) -> str:
    return raw.replace("~1", "/").replace("~0", "~")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _step(node: Any, token: str) -> tuple[bool, Any]:
    if isinstance(node, dict) and token in node:
        return True, node[token]
    if isinstance(node, list) and token.isdigit() and int(token) < len(node):
        return True, node[int(token)]
    return False, None


def resolves(outputs: Any, pointer: str) -> bool:
    """Whether the JSON pointer (without ``outputs:``) leads somewhere in ``outputs``."""
    if pointer == "":
        return True
    if not pointer.startswith("/"):
        return False
    node = outputs
    for raw in pointer[1:].split("/"):
        found, node = _step(node, _token(raw))
        if not found:
            return False
    return True


def explain_missing(outputs: Any, source: str) -> tuple[str, str] | None:
    """(message, hint) for a ``source`` that resolves to nothing, or None when it resolves.

    The hint names the closest pointer that does resolve, else the keys present
    where the pointer first leads nowhere.
    """
    pointer = source[len(PREFIX) :] if source.startswith(PREFIX) else source
    if resolves(outputs, pointer):
        return None
    message = f"{source!r} points at nothing in the outputs the re-run wrote"
    if not pointer.startswith("/"):
        return message, "a pointer starts with '/', e.g. outputs:/C1/accuracy"
    tokens = [_token(raw) for raw in pointer[1:].split("/")]
    node = outputs
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
            if resolves(outputs, text):
                return message, f"did you mean {PREFIX}{text}?"
        if not keys:
            kind = type(node).__name__ if node is not None else "null"
            return message, f"at {here} the outputs hold a {kind}, not an object or a list"
        shown = ", ".join(keys[:12]) + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
        return message, f"at {here} the outputs have: {shown}"
    return message, "check the pointer against the outputs file"
