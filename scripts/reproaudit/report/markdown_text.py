"""Untrusted text on its way into Markdown: comments, artifacts, logbook fields.

It is data, never markup: HTML is escaped, @-mentions and #-references are
neutralised (no pings, no cross-links made in our name), control characters
dropped (``escaping.strip_controls``, the one set the terminal report strips too),
Markdown structure that could break a table or open a code fence is escaped,
and the length is capped.
"""

from __future__ import annotations

import html
import re

from ..escaping import strip_controls

MAX_TEXT = 1000
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def plain(text: object, limit: int = MAX_TEXT) -> str:
    """Untrusted text made safe to show inline in Markdown (one line)."""
    value = " ".join(strip_controls(text).split())
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    value = html.escape(value, quote=False)
    value = _MD_SPECIAL.sub(r"\\\1", value)
    # "@\u2060name": still readable, never a mention; "#12" is not an issue link either
    value = _MENTION.sub("@\u2060", value)
    return value.replace("#", "#\u2060")


def code(text: object, limit: int = 200) -> str:
    """Untrusted text shown as inline code: backticks cannot close it early."""
    value = " ".join(strip_controls(text).split())[:limit]
    return "`` " + value.replace("`", "ˋ") + " ``"
