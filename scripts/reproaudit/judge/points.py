"""A logbook's result as numbers the rules can compare: points in the claim's unit.

Pure. Re-run outputs beat typed numbers (rules 1-2 of ``judge.rules``):
a measurement's ``source`` pointer is resolved in the re-run's outputs, units
are converted with pint after folding a per carried by the unit into ``per``,
and a sweep over another parameter or metric than the claim's is named, not used.

Units travel with the numbers (rules version 4): at a pointer the re-run may write
``{"value": 140, "unit": "ms", "per": "batch of 50", "at": {"n_test": 100}}`` (a
sweep: ``{"values", "measured", "unit", "per", "at"}``). What that object says about
itself wins over the logbook's labels: a typed ``unit`` or ``per`` that says otherwise
is ``unit_mismatch`` (the label is not trusted, the numbers are not compared), and
its ``at`` places the number (the regime's parameter) and measures the evaluation's
scale (``target.scale``). A scale counts only from the source the number came from:
a re-run number needs a re-run scale (its object's ``at``, or an ``at`` value that is
an ``outputs:`` pointer), never a typed one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from ..models import (
    FLAGS,
    MAX_NUMBER,
    Flag,
    Measurement,
    Result,
    Scope,
    Sweep,
    Target,
    VerdictValue,
)
from ..pointers import MISSING, PREFIX, resolve_source
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
    scope: Scope | None = None  # how far the evidence reached (rules version 4)
    within_tested_range: bool | None = None  # a verified that holds only within scope

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
    # the evaluation's scale where it was measured ({n_test: 100}), from the number's own
    # source (a re-run number's from the re-run); typed_scale: what the logbook typed
    scale: dict[str, float] = field(default_factory=dict)
    typed_scale: dict[str, float] = field(default_factory=dict)


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


# the longest unit or per a re-run may write; longer is no unit (and no text to quote)
MAX_LABEL = 64


@dataclass(frozen=True)
class Labels:
    """What a re-run's output object says about its number(s): unit, per and where."""

    unit: str | None = None  # None: the object names no unit
    per: str | None = None
    per_stated: bool = False  # the object has a "per" key (null: per nothing)
    at: dict[str, float] = field(default_factory=dict)  # its numeric "at" entries
    problem: str | None = None  # a unit or per the rules cannot read: unit_mismatch

    @property
    def stated(self) -> bool:
        return self.unit is not None or self.per_stated


def _labels(found: dict[str, Any]) -> Labels:
    """The labels of an output object ``{value|values, unit?, per?, at?}`` (pure)."""
    unit, per, problem = found.get("unit"), found.get("per"), None
    for key, text in (("unit", unit), ("per", per)):
        if key not in found or (text is None and key == "per"):
            continue
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_LABEL:
            problem = f"its {key} {quote(str(text))} is not a {key} the rules can read"
        elif not text.isprintable():
            problem = f"its {key} {quote(text)} holds control characters"
    at = found.get("at")
    places = {}
    if isinstance(at, dict):
        places = {k: v for k, x in at.items() if (v := number_or_none(x)) is not None}
    return Labels(
        unit if isinstance(unit, str) and problem is None else None,
        per if isinstance(per, str) and problem is None else None,
        "per" in found,
        places,
        problem,
    )


def rerun_quantity(outputs: Any, source: str) -> tuple[float, Labels] | None:
    """The number a measurement's ``source`` names in the re-run's outputs, with its labels:
    a bare finite number, or an object ``{"value": n, "unit"?, "per"?, "at"?}`` (other keys
    are ignored); None when there is none the rules would use (``missing_outputs``)."""
    found = resolve_source(outputs, source)
    if isinstance(found, dict):
        value = number_or_none(found.get("value"))
        return (value, _labels(found)) if value is not None else None
    value = number_or_none(found)
    return (value, Labels()) if value is not None else None


def rerun_number(outputs: Any, source: str) -> float | None:
    """The number a measurement's ``source`` names in the re-run's outputs, or None when
    there is none the rules would use (``missing_outputs``). The judge and the site
    both read re-run numbers here, so a page never shows one the judge refused."""
    found = rerun_quantity(outputs, source)
    return found[0] if found is not None else None


def rerun_sweep_labelled(
    outputs: Any, source: str
) -> tuple[list[tuple[float, float]], Labels] | None:
    """A sweep's (value, measured) pairs and the labels its object carries."""
    found = resolve_source(outputs, source)
    xs = found.get("values") if isinstance(found, dict) else None
    ys = found.get("measured") if isinstance(found, dict) else None
    if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != len(ys) or not xs:
        return None
    pairs = [(number_or_none(x), number_or_none(y)) for x, y in zip(xs, ys, strict=True)]
    if any(x is None or y is None for x, y in pairs):
        return None
    assert isinstance(found, dict)
    return [(x, y) for x, y in pairs if x is not None and y is not None], _labels(found)


def rerun_sweep(outputs: Any, source: str) -> list[tuple[float, float]] | None:
    """The (value, measured) pairs a sweep's ``source`` names: an object ``{values,
    measured}`` of two equally long, non-empty lists of finite numbers; else None
    (``missing_outputs``), as for ``rerun_number``."""
    found = rerun_sweep_labelled(outputs, source)
    return found[0] if found is not None else None


def same_unit(a: str, b: str) -> bool:
    """Whether two unit strings name one unit (``ms`` and ``millisecond``; not ``s``)."""
    try:
        return math.isclose(convert(1.0, a, b), 1.0, rel_tol=1e-9)
    except UnitError:
        return a == b


def _unit_text(unit: str | None, per: str | None) -> str:
    shown = quote(unit or "dimensionless")
    return f"{shown} per {quote(per)}" if per else shown


def label_mismatch(
    what: str,
    typed: tuple[str | None, str | None],
    given: tuple[bool, bool],
    labels: Labels,
) -> str | None:
    """Why the logbook's ``unit``/``per`` (``typed``, each counted only when ``given``)
    contradict what the re-run's object says of itself; None when they agree."""
    if not labels.stated:
        return None
    own_unit = labels.unit if labels.unit is not None else typed[0]
    own_per = labels.per if labels.per_stated else typed[1]
    said_unit = typed[0] if given[0] else own_unit
    said_per = typed[1] if given[1] else own_per
    tu, tp = split_per(said_unit, said_per)
    ou, op = split_per(own_unit, own_per)
    if same_unit(tu, ou) and normalise_per(tp) == normalise_per(op):
        return None
    return (
        f"the re-run wrote {what} in {_unit_text(own_unit, own_per)} but the logbook labels it "
        f"{_unit_text(said_unit, said_per)}: a label that contradicts the re-run's own unit is "
        "not trusted, and the numbers are not compared (fix the label, or leave unit and per "
        "out: the re-run's own are used)"
    )


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
        read = _measured_value(m, rerun if rerun_ok else None, target, j, problems)
        if read is None:
            continue
        value, origin, (unit, per), labels = read
        units = _comparable(target, unit, per)
        if isinstance(units, str):
            j.add("unit_mismatch")
            problems.append(units)
            continue
        used_self_reported |= origin == "logbook"
        where = _where(m, labels, rerun.outputs if rerun_ok and rerun else None, origin)
        at = where.get(parameter) if parameter else None
        typed_at = number_or_none(m.at.get(parameter)) if parameter else None
        if at is not None and typed_at is not None and not math.isclose(at, typed_at):
            j.add("rerun_mismatch")
            j.evidence += (
                f"logbook says {target.metric} was measured at {parameter} = {typed_at:g} but "
                f"the re-run says {parameter} = {at:g}; "
            )
        elif at is None:
            at = typed_at
        scale, typed_scale = _scales(target, where, m, origin)
        point = _point(value, units, at, origin)
        points.append(replace(point, scale=scale, typed_scale=typed_scale))
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


def _where(m: Measurement, labels: Labels, outputs: Any, origin: str) -> dict[str, float]:
    """Where a re-run number was measured, as the re-run says it: its object's ``at``,
    then each ``at`` value of the measurement that is an ``outputs:`` pointer."""
    if origin != "re-run":
        return {}
    where = dict(labels.at)
    for key, value in m.at.items():
        if key not in where and isinstance(value, str) and value.startswith(PREFIX):
            found = rerun_number(outputs, value)
            if found is not None:
                where[key] = found
    return where


def _scales(
    target: Target, where: dict[str, float], m: Measurement, origin: str
) -> tuple[dict[str, float], dict[str, float]]:
    """(the scale measured from the number's own source, the scale the logbook typed)."""
    if not target.scale:
        return {}, {}
    typed = {k: v for k in target.scale if (v := number_or_none(m.at.get(k))) is not None}
    if origin == "re-run":
        return {k: where[k] for k in target.scale if k in where}, typed
    return dict(typed), typed


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


Read = tuple[float, str, tuple[str, str | None], Labels]


def _measured_value(
    m: Measurement, rerun: Rerun | None, target: Target, j: Judgement, problems: list[str]
) -> Read | None:
    """(value, origin, (unit, per) it is in, the re-run's labels), or None with the problem
    recorded: a typed number when there is no re-run to read, else the re-run's."""
    if m.source is None or rerun is None:
        if m.value is None:
            problems.append(f"{target.metric} has no value and no re-run to read it from")
            j.add("missing_outputs")
            return None
        return m.value, "logbook", (m.unit, m.per), Labels()
    read = rerun_quantity(rerun.outputs, m.source)
    if read is None:
        j.add("missing_outputs")
        problems.append(
            f"{quote(m.source)} is not a finite number (within ±1e15) in the re-run outputs"
        )
        return None
    found, labels = read
    given = ("unit" in m.model_fields_set, "per" in m.model_fields_set)
    why = labels.problem and f"the re-run's {quote(m.source)}: {labels.problem}"
    what = f"{target.metric} ({quote(m.source)})"
    why = why or label_mismatch(what, (m.unit, m.per), given, labels)
    unit = labels.unit if labels.unit is not None else m.unit
    per = labels.per if labels.per_stated else m.per
    if why:
        j.add("unit_mismatch")
        units = None if labels.problem else _comparable(target, unit, per)
        if isinstance(units, tuple):
            own = convert(found, *units)
            shown = "" if target.unit == "dimensionless" else f" {target.unit}"
            why += f"; in the re-run's own unit it is {own:.4g}{shown}"
        problems.append(why)
        return None
    if m.value is not None and abs(m.value - found) > max(
        tolerance_of(target, found), 1e-9 * abs(found)
    ):
        j.add("rerun_mismatch")
        typed, rerun_value = _shown_apart(m.value, found)
        j.evidence += f"logbook says {target.metric} = {typed} but the re-run gives {rerun_value}; "
    return found, "re-run", (unit, per), labels


def _sweep_points(
    sweep: Sweep, target: Target, rerun: Rerun | None, j: Judgement, problems: list[str]
) -> tuple[list[Point], bool]:
    unit: str | None = sweep.unit or target.unit
    per: str | None = None
    values, measured, origin = sweep.values, sweep.measured, "logbook"
    labels = Labels()
    pairs: list[tuple[float, float]] = []
    if sweep.source is not None and rerun is not None:
        read = rerun_sweep_labelled(rerun.outputs, sweep.source)
        if read is None:
            j.add("missing_outputs")
            problems.append(
                f"{quote(sweep.source)} is not a {{values, measured}} sweep of finite numbers "
                "in the re-run outputs"
            )
            return [], False
        pairs, labels = read
        given = (sweep.unit is not None, False)
        what = f"the sweep ({quote(sweep.source)})"
        why = labels.problem and f"the re-run's {quote(sweep.source)}: {labels.problem}"
        why = why or label_mismatch(what, (unit, target.per), given, labels)
        if why:
            j.add("unit_mismatch")
            problems.append(why)
            return [], False
        unit = labels.unit if labels.unit is not None else unit
        per = labels.per if labels.per_stated else None
    folded_unit, folded_per = split_per(unit, per)
    stated_per = folded_per if (folded_per is not None or labels.per_stated) else target.per
    units = _comparable(target, folded_unit, stated_per)
    if isinstance(units, str):
        j.add("unit_mismatch")
        problems.append(units)
        return [], False
    if sweep.source is not None and rerun is not None:
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
    scale = {k: labels.at[k] for k in target.scale or {} if k in labels.at}
    points = [
        replace(_point(y, units, x, origin), scale=scale)
        for x, y in zip(values, measured, strict=True)
    ]
    return points, origin == "logbook"


def _shown_apart(a: float, b: float) -> tuple[str, str]:
    """Two different numbers printed so that they look different."""
    for digits in range(6, 18):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            return x, y
    return repr(a), repr(b)
