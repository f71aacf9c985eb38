"""Does the evidence cover the claim's regime? The statistic behind ``short_horizon``.

Pure. DESIGN.md, rules version 2 (unchanged in 4), in order:

1. Every point must say where it stands (its value of the regime's parameter).
2. A finite ``regime.to`` needs evidence reaching it.
3. An asymptotic claim (``to: null``) needs evidence spanning at least two
   orders of magnitude.
4. When the regime spans two decades or more, no gap between neighbouring
   points, or between an end of the regime and the nearest point, may exceed
   one decade on a log scale: points at 10 and 10^6 alone do not cover 10..10^6.

Rules version 4: a verification that meets these still holds only for the range tested
when the claim reaches past it (``beyond_tested``: no upper end, most often); the
verdict says so ("held for k = 2..512; claimed for all k >= 2", ``held_text``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from ..models import Regime, RegimeScope

# An asymptotic claim needs evidence spanning this ratio (two orders of magnitude).
ASYMPTOTIC_SPAN = 100.0
# Regimes spanning this ratio or more are checked for gaps ...
GAP_CHECKED_SPAN = 100.0
# ... and no gap may be wider than this ratio (one decade).
MAX_GAP = 10.0


def number(x: float) -> str:
    """A parameter value as people write it: 10^6 rather than 1e+06."""
    if x > 0 and x >= 1e4:
        exponent = round(math.log10(x))
        if math.isclose(x, 10.0**exponent, rel_tol=1e-12):
            return f"10^{exponent}"
    return f"{x:g}"


def span_text(name: str, lo: float | None, hi: float | None) -> str:
    """A claimed range of ``name`` in words: 'all k >= 2', 'n = 10..10^6', 'all k'."""
    if lo is None and hi is None:
        return f"all {name}"
    if hi is None:
        assert lo is not None
        return f"all {name} >= {number(lo)}"
    if lo is None:
        return f"all {name} <= {number(hi)}"
    return f"{name} = {number(lo)}..{number(hi)}"


def held_text(scope: RegimeScope) -> str:
    """'held for k = 2..512; claimed for all k >= 2': a verified that holds only within the
    tested range (DESIGN.md, "scope is data"), as evidence and pages say it."""
    name, tested, claimed = scope.parameter, scope.tested, scope.claimed
    lo = tested.from_ if tested.from_ is not None else tested.to
    hi = tested.to if tested.to is not None else tested.from_
    if lo is None or hi is None:
        held = f"no placed {name}"
    else:
        held = f"{name} = {number(lo)}" if lo == hi else span_text(name, lo, hi)
    return f"held for {held}; claimed for {span_text(name, claimed.from_, claimed.to)}"


def beyond_tested(scope: RegimeScope) -> bool:
    """Whether the claim reaches past what was tested: no upper end, an upper end above the
    last point, or a stated lower end below the first point (an unstated one is no claim)."""
    tested, claimed = scope.tested, scope.claimed
    if tested.from_ is None or tested.to is None:
        return True
    if claimed.to is None or _past(claimed.to, tested.to):
        return True
    return claimed.from_ is not None and _past(tested.from_, claimed.from_)


def _past(a: float, b: float) -> bool:
    """``a`` beyond ``b``, float noise aside."""
    return a > b and not math.isclose(a, b, rel_tol=1e-12)


def coverage_gap(regime: Regime | None, xs: Sequence[float]) -> str | None:
    """Why points at ``xs`` do not cover ``regime``, or None when they do."""
    if regime is None:
        return None
    name = regime.parameter
    if not xs:
        return f"no measurement says which {name} it was taken at"
    if regime.to is not None and max(xs) < regime.to:
        return (
            f"evidence reaches {name} = {number(max(xs))}, but the claim runs to "
            f"{name} = {number(regime.to)}"
        )
    positive = sorted({x for x in xs if x > 0})
    if regime.to is None:
        span = positive[-1] / positive[0] if positive else 1.0
        if span < ASYMPTOTIC_SPAN:
            return (
                f"{name} spans {number(min(xs))}..{number(max(xs))} ({span:.0f}x), short of the "
                f"two orders of magnitude an asymptotic claim needs"
            )
    return _widest_gaps(regime, positive)


def _widest_gaps(regime: Regime, positive: list[float]) -> str | None:
    """The gaps wider than one decade across a regime of two decades or more."""
    name = regime.parameter
    start = regime.from_ if regime.from_ is not None and regime.from_ > 0 else None
    marks: list[tuple[float, str]] = [(x, "") for x in positive]
    if start is not None and (not positive or start < positive[0]):
        marks.insert(0, (start, " (where the claim starts)"))
    if not marks:
        return None
    if regime.to is not None and regime.to > marks[-1][0]:
        marks.append((regime.to, " (where the claim ends)"))
    lo, hi = marks[0][0], (regime.to if regime.to is not None else math.inf)
    if hi / lo < GAP_CHECKED_SPAN:
        return None
    gaps = [(b / a, a, sa, b, sb) for (a, sa), (b, sb) in pairwise(marks) if b / a > MAX_GAP]
    if not gaps:
        return None
    gaps.sort(key=lambda g: -g[0])
    shown = [
        f"no point between {name}={number(a)}{sa} and {name}={number(b)}{sb} "
        f"({math.log10(ratio):.1f} decades)"
        for ratio, a, sa, b, sb in gaps[:3]
    ]
    more = f" and {len(gaps) - 3} more gaps" if len(gaps) > 3 else ""
    return (
        "; ".join(shown)
        + more
        + ": across a regime of two decades or more, points may be at most one decade apart"
    )
