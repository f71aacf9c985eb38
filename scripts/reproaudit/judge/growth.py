"""Does a sweep grow? The statistic behind ``growth_detected`` (DESIGN.md, rules version 2).

Pure arithmetic. A ``bounded`` claim says the measured value does not grow
with the regime's parameter. One fit in ln(parameter) misses growth that is
linear or polynomial on a decade-spaced sweep (k = 10..10^4 rising 1.1 -> 101
gives t = 2.06 against ln k), so three least-squares fits are made:

- ``ln``: measured on ln(parameter) (logarithmic growth, as in H_k);
- ``linear``: measured on parameter;
- ``power``: ln(measured) on ln(parameter), only when every measured value is > 0.

Growth is significant when any fit has at least ``MIN_POINTS`` points, a slope
t-statistic above ``T_THRESHOLD`` and a fitted rise across the sweep (in the
measured unit) above the claim's tolerance. The rise condition keeps
statistically clear but practically tiny trends (and float noise on a flat
sweep) from counting as growth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_POINTS = 4
T_THRESHOLD = 3.0

FORMS = ("ln", "linear", "power")


@dataclass(frozen=True)
class Fit:
    """One least-squares fit over a sweep."""

    form: str  # one of FORMS
    n: int
    slope: float  # in the fit's own coordinates
    t: float  # slope / its standard error; +-inf for an exact fit
    rise: float  # fitted measured value at the largest parameter minus at the smallest

    def significant(self, tol: float) -> bool:
        return self.n >= MIN_POINTS and self.t > T_THRESHOLD and self.rise > tol


@dataclass(frozen=True)
class Growth:
    """The fits of one sweep; ``grows`` when any of them is significant."""

    fits: tuple[Fit, ...]
    tol: float

    @property
    def significant(self) -> list[Fit]:
        return [f for f in self.fits if f.significant(self.tol)]

    @property
    def grows(self) -> bool:
        return bool(self.significant)

    @property
    def shown(self) -> Fit:
        """The fit to report: the first significant one in ``FORMS`` order (the slowest
        growth shape that fits), else the one closest to significance (largest t)."""
        if self.significant:
            return self.significant[0]
        return max(self.fits, key=lambda f: (f.t, -FORMS.index(f.form)))


def least_squares(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float] | None:
    """(intercept, slope, t-statistic of the slope); None under 3 points or with x constant."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = my - slope * mx
    rss = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    se = math.sqrt(rss / (n - 2) / sxx)
    scale = max(abs(y) for y in ys) or 1.0
    if se > 1e-12 * scale / math.sqrt(sxx):
        t = slope / se
    else:  # an exact fit (to float precision): any real slope is infinitely significant
        t = math.copysign(math.inf, slope) if abs(slope) * math.sqrt(sxx) > 1e-12 * scale else 0.0
    return intercept, slope, t


def fit(form: str, pairs: Sequence[tuple[float, float]]) -> Fit | None:
    """The ``form`` fit over (parameter, measured) pairs, or None when it does not apply."""
    if form in ("ln", "power"):
        pairs = [(x, y) for x, y in pairs if x > 0]
    if form == "power" and (not pairs or any(y <= 0 for _, y in pairs)):
        return None
    if len(pairs) < 3:
        return None
    lo, hi = min(x for x, _ in pairs), max(x for x, _ in pairs)
    if form == "ln":
        xs, ys = [math.log(x) for x, _ in pairs], [y for _, y in pairs]
    elif form == "linear":
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    else:
        xs, ys = [math.log(x) for x, _ in pairs], [math.log(y) for _, y in pairs]
    result = least_squares(xs, ys)
    if result is None:
        return None
    intercept, slope, t = result
    if form == "ln":
        rise = slope * (math.log(hi) - math.log(lo))
    elif form == "linear":
        rise = slope * (hi - lo)
    else:
        at = lambda x: math.exp(intercept + slope * math.log(x))  # noqa: E731
        rise = at(hi) - at(lo)
    return Fit(form, len(pairs), slope, t, rise)


def growth(pairs: Sequence[tuple[float, float]], tol: float) -> Growth | None:
    """All fits of a sweep, or None when no fit has ``MIN_POINTS`` points."""
    fits = tuple(f for form in FORMS if (f := fit(form, pairs)) is not None)
    if not any(f.n >= MIN_POINTS for f in fits):
        return None
    return Growth(fits, tol)


def describe_fit(f: Fit, parameter: str) -> str:
    """'grows linearly in k (slope ..., t = ..., fitted rise ...)' minus the verb."""
    unit = {"ln": f"per ln {parameter}", "linear": f"per unit of {parameter}", "power": "exponent"}
    return f"slope {f.slope:.3g} {unit[f.form]}, t = {f.t:.3g}, fitted rise {f.rise:.3g}"


PHRASE = {"ln": "with ln {p}", "linear": "linearly in {p}", "power": "as a power of {p}"}
