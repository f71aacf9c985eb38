"""The re-run's own word: lines of its log that report a failure.

A claim without a target is the LLM's to decide, but the program the contributor
re-ran may say plainly that the claim failed (``C6: conclusion: violated``,
``AssertionError``, ``counterexample found``). The rules pick those lines out so that
the verdict's evidence quotes them, for the model (inside its data fences: the log is
untrusted) and for readers (the logbook and paper pages show the evidence). They decide
nothing: a log line is the contributor's program talking, shown, never obeyed.

Pure: a log tail in, lines out.
"""

from __future__ import annotations

import re

MAX_LINES = 3  # lines quoted per claim
_FAILURE = re.compile(
    r"\b(?:violat(?:ed|es|ion)|fail(?:s|ed|ure)?|does ?n[o']t hold|not hold|"
    r"counter-?example|contradict(?:s|ed|ion)?|assertion ?error|disproved?|refuted?)\b",
    re.IGNORECASE,
)
# "0 failed", "no failures", "failed: 0": a count of nothing is not a failure
_NONE = re.compile(
    r"\b(?:0|no|zero)\s+(?:\w+\s+)?fail|fail\w*\s*[:=]\s*0\b|without fail", re.IGNORECASE
)
_CLAIM_WORD = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,31}")


def failure_lines(log_tail: str | None, claim: str, claims: list[str]) -> list[str]:
    """The last lines (at most ``MAX_LINES``) of ``log_tail`` that report a failure and
    concern ``claim``: they name it, or name none of the paper's ``claims``."""
    if not log_tail:
        return []
    ids = set(claims)
    found = []
    for line in log_tail.splitlines():
        text = line.strip()
        if not text or not _FAILURE.search(text) or _NONE.search(text):
            continue
        named = set(_CLAIM_WORD.findall(text)) & ids
        if named and claim not in named:
            continue
        found.append(text)
    return found[-MAX_LINES:]
