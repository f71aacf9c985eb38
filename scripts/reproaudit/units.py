"""Units, through pint: parsing, checking and converting measured values.

The registry is built once, on first use (it costs ~0.2 s), and parsed unit
strings are cached, so validating 36,000 claims parses each distinct unit once.
Counting nouns that papers report rates in (tokens, images, trajectories...)
are their own base dimensions: ``token / s`` and ``image / s`` do not convert
into each other, and what a time is *per* is carried separately in ``per``.
"""

from __future__ import annotations

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


@cache
def registry() -> Any:
    import pint

    ureg = pint.UnitRegistry()
    for name in COUNT_UNITS:
        ureg.define(f"{name} = [{name}]")
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


def normalise_per(per: str | None) -> str | None:
    """Fold spelling differences in ``per`` ('Batch of  50' == 'batch of 50')."""
    if per is None:
        return None
    return " ".join(per.lower().split()) or None
