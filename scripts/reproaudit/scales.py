"""The sizes of an evaluation a claim's words name: "on 20,000 test images" is n_test.

Pure text matching, small on purpose. Onboarding drafts ``target.scale`` from a claim's
quote with it, and ``validate`` warns when a statement names a size its target does not
state (``scale_unstated``): rules version 4 compares ``target.scale`` with the scale the
re-run measured, and a size left out of the target is never compared.
"""

from __future__ import annotations

import re

_NUMBER = r"(\d+(?:[.,]\d+)*)\s*(k|K|M|thousand|million)?"
_UNITS = r"(?:examples|samples|points|images|sentences|questions|problems|items|instances|queries)"
_SCALES = (
    ("n_test", re.compile(_NUMBER + r"\s+(?:held-out\s+|test(?:ing)?\s+|evaluation\s+)" + _UNITS)),
    ("n_test", re.compile(r"test set of\s+" + _NUMBER)),
    ("n_train", re.compile(_NUMBER + r"\s+training\s+" + _UNITS)),
    ("steps", re.compile(_NUMBER + r"\s+(?:training\s+|gradient\s+|optimi[sz]ation\s+)?steps")),
)
_TIMES = {"k": 1e3, "K": 1e3, "thousand": 1e3, "M": 1e6, "million": 1e6}


def scale_of(text: str) -> dict[str, float]:
    """The evaluation sizes ``text`` names ({n_test: 20000.0}), the first of each kind:
    n_test (test, held-out or evaluation examples), n_train (training examples), steps."""
    found: dict[str, float] = {}
    for name, pattern in _SCALES:
        match = pattern.search(text)
        if match is None or name in found:
            continue
        try:
            size = float(match[1].replace(",", "")) * _TIMES.get(match[2] or "", 1.0)
        except ValueError:
            continue
        if 1 <= size <= 1e12:
            found[name] = size
    return found
