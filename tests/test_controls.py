"""One set of control characters stripped from untrusted text (``escaping.strip_controls``).

The terminal report and the Markdown comment once stripped different sets: the
comment kept C1 controls (``\\x9b`` is CSI, an escape sequence on its own) and
the Arabic letter mark; both now strip exactly ``escaping.CONTROL``.
"""

from __future__ import annotations

import pytest

from reproaudit.escaping import CONTROL, strip_controls
from reproaudit.report.markdown_text import code, plain
from reproaudit.report.terminal import clean

HOSTILE = [
    "\x1b[2J",  # ESC: clear screen
    "\x9b31m",  # CSI (C1): recolour, without ESC
    "\r",  # carriage return: overwrite what was printed
    "\x07",  # bell
    "\x85",  # next line (C1)
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u061c",  # Arabic letter mark
    "\u200b",  # zero-width space
    "\ufeff",  # byte order mark
]


@pytest.mark.parametrize("char", HOSTILE)
def test_the_terminal_and_the_comment_strip_the_same_characters(char: str) -> None:
    text = f"ok{char}done"
    assert CONTROL.search(text)
    assert clean(text) == strip_controls(text)
    assert char not in clean(text)
    assert char not in plain(text) and char not in code(text)


def test_tabs_newlines_and_printable_text_stay() -> None:
    """The control: what a person should read is kept (the comment folds whitespace)."""
    text = "line one\n\tline two: naïve café, 1 ≤ 2, 日本"
    assert clean(text) == text
    assert plain("naïve café, 1 ≤ 2") == "naïve café, 1 ≤ 2"
