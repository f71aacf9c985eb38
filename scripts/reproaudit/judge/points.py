"""A logbook's result as numbers the rules can compare: points in the claim's unit.

Pure. Re-run outputs beat typed numbers (rules 1-2 of ``judge.rules``):
a measurement's ``source`` pointer is resolved in the re-run's outputs, units
are converted with pint after folding a per carried by the unit into ``per``,
and a sweep over another parameter or metric than the claim's is named, not used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..models import FLAGS, MAX_NUMBER, Flag, Measurement, Result, Sweep, Target, VerdictValue
from ..pointers import MISSING, resolve_source
from ..units import UnitError, convert, normalise_per, split_per


@dataclass(frozen=True)
class Rerun:
    """What the CI re-run produced, as the judge sees it."""

    status: str  # passed | failed | timeout
    outputs: Any = None  # parsed outputs.json, or None when it is absent or unreadable
    exit_code: int | None = None
    log_tail: str = ""
    stale: str | None = None  # why the record is ignored (it re-ran other bytes): stale_rerun


@dataclass
class Judgement:
    """The rules' verdict for one claim, with the evidence a person reads."""

    claim: str
    verdict: VerdictValue
    evidence: str
    flags: list[Flag] = field(default_factory=list)

    def add(self, flag: Flag) -> None:
        if flag not in self.flags:
            self.flags.append(flag)
            self.flags.sort(key=FLAGS.index)


@dataclass(frozen=True)
class Point:
    """One resolved number: its value in the claim's unit and where it stands."""

    value: float
    at: float | None  # the regime parameter's value, when known
    origin: str  # "re-run" or "logbook"
    typed: float | None = None  # the number in its own unit, before conversion
    unit: str | None = None  # that unit, when it differs from the claim's


_MISSING = MISSING  # the one resolver's sentinel (``pointers.py``), under its old name

QUOTE_LIMIT = 80  # characters of a contributor's string shown in evidence


def quote(text: str | None) -> str:
    """A string the contributor typed, as evidence shows it: «between guillemets».

    One line of printable characters, no guillemets inside, cut to ``QUOTE_LIMIT``.
    Every contributor string (``per``, ``source``, units, sweep names) enters
    evidence through here, so the LLM prompt can move each «...» span into its
    data fences (``llm.fence_quotes``) and keep them out of the trusted findings.
    """
    clean = "".join(ch for ch in str(text) if ch.isprintable() and ch not in "«»")
    if len(clean) > QUOTE_LIMIT:
        clean = clean[: QUOTE_LIMIT - 1] + "…"
    return f"«{clean}»"


def number_or_none(value: Any) -> float | None:
    """A finite number within ±``MAX_NUMBER`` from parsed JSON or YAML (not a boolean), else
    None: a re-run value of 1e160 or NaN is no measurement (``missing_outputs``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return number if math.isfinite(number) and abs(number) <= MAX_NUMBER else None


def rerun_number(outputs: Any, source: str) -> float | None:
    """The number a measurement's ``source`` names in the re-run's outputs, or None when
    there is none the rules would use (``missing_outputs``). The judge and the site
    both read re-run numbers here, so a page never shows one the judge refused."""
    return number_or_none(resolve_source(outputs, source))


def rerun_sweep(outputs: Any, source: str) -> list[tuple[float, float]] | None:
    """The (value, measured) pairs a sweep's ``source`` names: an object ``{values,
    measured}`` of two equally long, non-empty lists of finite numbers; else None
    (``missing_outputs``), as for ``rerun_number``."""
    found = resolve_source(outputs, source)
    xs = found.get("values") if isinstance(found, dict) else None
    ys = found.get("measured") if isinstance(found, dict) else None
    if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != len(ys) or not xs:
        return None
    pairs = [(number_or_none(x), number_or_none(y)) for x, y in zip(xs, ys, strict=True)]
    if any(x is None or y is None for x, y in pairs):
        return None
    return [(x, y) for x, y in pairs if x is not None and y is not None]


def tolerance_of(target: Target, reference: float) -> float:
    if target.tolerance is None:
        return 0.0
    if target.tolerance.abs is not None:
        return target.tolerance.abs
    return (target.tolerance.rel or 0.0) * abs(reference)


def gather(
    target: Target, result: Result, rerun: Rerun | None, parameter: str | None, j: Judgement
) -> tuple[list[Point], list[Point], list[str]]:
    """Resolve the measurements and sweep of the target's metric into the target's unit."""
    points: list[Point] = []
    problems: list[str] = []
    rerun_ok = rerun is not None and rerun.status == "passed"
    used_self_reported = False
    for m in result.measurements:
        if m.metric != target.metric:
            continue
        units = _comparable(target, m.unit, m.per)
        if isinstance(units, str):
            j.add("unit_mismatch")
            problems.append(units)
            continue
        value, origin = _measured_value(m, rerun if rerun_ok else None, target, j, problems)
        if value is None:
            continue
        used_self_reported |= origin == "logbook"
        at = number_or_none(m.at.get(parameter)) if parameter else None
        points.append(_point(value, units, at, origin))
    sweep_points: list[Point] = []
    sweep, unused = result.sweep, None
    if sweep is not None and sweep.metric not in (None, target.metric):
        unused = f"the sweep measures {quote(sweep.metric)}, the claim's target is {target.metric}"
    elif sweep is not None and parameter is not None and sweep.parameter != parameter:
        unused = (
            f"the sweep is over {quote(sweep.parameter)}, the claim's regime is over {parameter}"
        )
    elif sweep is not None:
        sweep_points, used = _sweep_points(sweep, target, rerun if rerun_ok else None, j, problems)
        used_self_reported |= used
    if used_self_reported and rerun_ok:
        j.add("not_rerun")  # these numbers were typed, not produced by the re-run
    if unused and not points:
        problems.append(f"{unused}: it cannot test this claim")
    elif unused:
        j.evidence += f"{unused} (not used); "
    if not points and not sweep_points and not problems:
        problems.append(f"no measurement of {target.metric!r} to compare with the target")
    return points, sweep_points, problems


def _point(value: float, units: tuple[str, str], at: float | None, origin: str) -> Point:
    source, dest = units
    converted = convert(value, source, dest)
    return Point(converted, at, origin, value, None if source == dest else source)


def _comparable(target: Target, unit: str | None, per: str | None) -> tuple[str, str] | str:
    """(measured unit, claim's unit) once pers are folded in, or why they do not compare."""
    want_unit, want_per = split_per(target.unit, target.per)
    got_unit, got_per = split_per(unit, per)
    try:
        convert(1.0, got_unit, want_unit)
    except UnitError:
        shown = unit or "dimensionless"
        return f"measured in {quote(shown)}, which does not convert to the claim's {target.unit!r}"
    want, got = normalise_per(want_per), normalise_per(got_per)
    if want != got:
        return (
            f"measured per {quote(got_per) if got_per else 'nothing stated'} but the claim is "
            f"per {want_per or 'nothing stated'!s}: the numbers are not comparable"
        )
    return got_unit, want_unit


def _measured_value(
    m: Measurement, rerun: Rerun | None, target: Target, j: Judgement, problems: list[str]
) -> tuple[float | None, str]:
    if m.source is None or rerun is None:
        if m.value is None:
            problems.append(f"{target.metric} has no value and no re-run to read it from")
            j.add("missing_outputs")
        return m.value, "logbook"
    found = rerun_number(rerun.outputs, m.source)
    if found is None:
        j.add("missing_outputs")
        problems.append(
            f"{quote(m.source)} is not a finite number (within ±1e15) in the re-run outputs"
        )
        return None, "re-run"
    if m.value is not None and abs(m.value - found) > max(
        tolerance_of(target, found), 1e-9 * abs(found)
    ):
        j.add("rerun_mismatch")
        typed, rerun_value = _shown_apart(m.value, found)
        j.evidence += f"logbook says {target.metric} = {typed} but the re-run gives {rerun_value}; "
    return found, "re-run"


def _sweep_points(
    sweep: Sweep, target: Target, rerun: Rerun | None, j: Judgement, problems: list[str]
) -> tuple[list[Point], bool]:
    unit = sweep.unit or target.unit
    folded_unit, folded_per = split_per(unit, None)
    units = _comparable(target, folded_unit, folded_per or target.per)
    if isinstance(units, str):
        j.add("unit_mismatch")
        problems.append(units)
        return [], False
    values, measured, origin = sweep.values, sweep.measured, "logbook"
    if sweep.source is not None and rerun is not None:
        pairs = rerun_sweep(rerun.outputs, sweep.source)
        if pairs is None:
            j.add("missing_outputs")
            problems.append(
                f"{quote(sweep.source)} is not a {{values, measured}} sweep of finite numbers "
                "in the re-run outputs"
            )
            return [], False
        if measured is not None and values is not None:
            typed = dict(zip(values, measured, strict=True))
            tol = tolerance_of(target, max(abs(y) for _, y in pairs) or 1.0)
            if any(x in typed and abs(typed[x] - y) > max(tol, 1e-9) for x, y in pairs):
                j.add("rerun_mismatch")
                j.evidence += "the logbook's sweep differs from the re-run's; "
        values = [x for x, _ in pairs]
        measured = [y for _, y in pairs]
        origin = "re-run"
    if values is None or measured is None:
        j.add("missing_outputs")
        problems.append("the sweep points to re-run outputs, but there is no re-run")
        return [], False
    points = [_point(y, units, x, origin) for x, y in zip(values, measured, strict=True)]
    return points, origin == "logbook"


def _shown_apart(a: float, b: float) -> tuple[str, str]:
    """Two different numbers printed so that they look different."""
    for digits in range(6, 18):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            return x, y
    return repr(a), repr(b)
