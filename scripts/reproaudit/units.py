"""Units, through pint: parsing, checking and converting measured values.

The registry is built once, on first use (it costs ~0.2 s), and parsed unit
strings are cached, so validating 36,000 claims parses each distinct unit once.
Counting nouns that papers report rates in (tokens, images, trajectories...)
are their own base dimensions: ``token / s`` and ``image / s`` do not convert
into each other, and what a time is *per* is carried separately in ``per``.

``per`` is compared after two normalisations (DESIGN.md, rules version 2):
singular and plural alike (``token`` = ``tokens``, ``batches of 50`` = ``batch
of 50``), and a unit that carries its per (``MB / token``, no ``per``) is read
as ``MB`` per ``token``.

A claim's evaluation has a size too, counted in test points or steps (rules version 4:
``target.scale``). ``scale_of`` reads the sizes a claim's words name ("on 20,000 test
images" is n_test): onboarding drafts ``target.scale`` from a quote with it, and
``validate`` warns when a statement names a size its target leaves out (``scale_unstated``).
Plain text matching, small on purpose: a maintainer reviews every draft.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

COUNT_UNITS = (
    "token",
    "sample",
    "image",
    "example",
    "step",
    "episode",
    "trajectory",
    "query",
    "request",
    "sequence",
    "frame",
    "parameter",
)
# pint reads a trailing "s" as a plural by itself; these plurals need an alias.
_IRREGULAR_PLURALS = {"trajectory": "trajectories", "query": "queries"}


@cache
def registry() -> Any:
    import pint

    ureg: pint.UnitRegistry = pint.UnitRegistry()
    for name in COUNT_UNITS:
        plural = _IRREGULAR_PLURALS.get(name)
        ureg.define(f"{name} = [{name}]" + (f" = _ = {plural}" if plural else ""))
    return ureg


class UnitError(ValueError):
    """A unit string pint cannot parse."""


@lru_cache(maxsize=4096)
def parse_unit(text: str) -> Any:
    """Return the pint unit for ``text`` or raise ``UnitError`` saying why."""
    if not text.strip():
        raise UnitError("a unit may not be empty; use 'dimensionless' for pure numbers")
    try:
        return registry().parse_units(text)
    except Exception as exc:  # pint raises several unrelated types (even AssertionError)
        detail = str(exc) or type(exc).__name__
        raise UnitError(
            f"{text!r} is not a unit pint understands ({detail}); "
            "write e.g. 's', 'ms', 'GB', 'percent', 'dimensionless' or 'image / s'"
        ) from None


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert ``value`` between units; raise ``UnitError`` when incompatible."""
    ureg = registry()
    src, dst = parse_unit(from_unit), parse_unit(to_unit)
    try:
        return float(ureg.Quantity(value, src).to(dst).magnitude)
    except Exception as exc:
        raise UnitError(f"cannot convert {from_unit!r} to {to_unit!r}: {exc}") from None


@lru_cache(maxsize=4096)
def normalise_per(per: str | None) -> str | None:
    """One spelling per ``per``, so that equal pers compare equal.

    Case and spacing are folded ('Batch of  50' == 'batch of 50'); a per that
    pint reads as a unit becomes pint's name for it ('tokens' == 'token',
    'trajectories' == 'trajectory'); otherwise each word is made singular
    ('batches of 50' == 'batch of 50').
    """
    if per is None:
        return None
    text = " ".join(per.lower().split())
    if not text:
        return None
    as_unit = _unit_name(text)
    if as_unit is not None:
        return as_unit
    return " ".join(_unit_name(word) or singular(word) for word in text.split())


def _unit_name(text: str) -> str | None:
    """pint's name for ``text`` when it is a plain unit (not a number, not dimensionless)."""
    if not any(c.isalpha() for c in text):
        return None
    try:
        unit = parse_unit(text)
    except UnitError:
        return None
    return str(unit) if unit != registry().dimensionless else None


# Endings whose plural adds "es" (batch -> batches, box -> boxes, class -> classes).
_ES_AFTER = ("ch", "sh", "x", "z", "ss")
# Singular words that end in "s" and must stay as they are.
_KEEP_S = ("ss", "us", "is", "ics")


def singular(word: str) -> str:
    """The singular of an English count noun, for comparing pers (regular plurals only).

    Conservative: a word it does not recognise as a regular plural is kept, so two
    pers compare equal only when they name the same thing.
    """
    if not word.isalpha() or len(word) < 3 or not word.endswith("s") or word.endswith(_KEEP_S):
        return word
    if word.endswith("ies") and len(word) > 4 and word[-4] not in "aeiou":
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(_ES_AFTER):
        return word[:-2]
    return word[:-1]


@lru_cache(maxsize=4096)
def split_per(unit: str | None, per: str | None) -> tuple[str, str | None]:
    """Fold a count in a unit's denominator into ``per`` when no ``per`` is given.

    ``("MB / token", None)`` -> ``("megabyte", "token")``; anything else is
    returned as it is (with ``None`` read as ``dimensionless``). A count
    unit is one of ``COUNT_UNITS``, with exponent -1.
    """
    unit = unit or "dimensionless"
    if per is not None:
        return unit, per
    try:
        parsed = parse_unit(unit)
    except UnitError:
        return unit, per
    counts = [name for name, power in parsed._units.items() if name in COUNT_UNITS and power == -1]
    if len(counts) != 1:
        return unit, per
    (count,) = counts
    return str(parsed * registry().parse_units(count)), count


# --- the sizes of an evaluation a claim's words name ------------------------------------

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
