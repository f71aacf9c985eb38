"""The deterministic judge: a claim, a logbook's result and a re-run -> a verdict.

Pure: no files, no network, no clock. The rules are DESIGN.md's, in order:

1. Numbers come from the re-run when there is one. A measurement whose
   ``source`` is ``outputs:<JSON pointer>`` takes the re-run's value; a typed
   value that disagrees beyond the claim's tolerance is flagged
   ``rerun_mismatch``; a pointer that resolves to nothing is ``missing_outputs``
   and the typed value is not used. A failed or timed-out re-run verifies
   nothing (``rerun_failed``). Without a re-run, numbers are self-reported
   (``not_rerun``).
2. Units are converted with pint; an incompatible unit or a different ``per``
   is ``unit_mismatch`` and ``inconclusive``, never ``falsified``.
3. Target forms, with ``tol`` = ``abs`` or ``rel`` x |value|:
   ``at_least``: m >= value - tol; ``at_most``: m <= value + tol;
   ``equal``: |m - value| <= tol; ``bounded``: see ``growth_test``.
4. Regime coverage: a finite ``regime.to`` needs evidence reaching it; an
   asymptotic claim (``to: null``) needs evidence spanning at least two orders
   of magnitude. Otherwise a verification is only ``toy`` (``short_horizon``).
   A counterexample inside the range still falsifies.
5. ``setup: reduced`` or ``synthetic`` caps verified and falsified at ``toy``.
6. No result: ``inconclusive`` + ``not_addressed``. Theoretical, qualitative
   and untargeted claims are ``inconclusive`` here; the LLM layer decides them.
7. ``self_assessment_disagrees`` whenever the verdict differs from the
   logbook's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..models import FLAGS, Claim, Measurement, Result, Sweep, Target
from ..units import UnitError, convert, normalise_per

RULES_VERSION = 1

# Growth test for `bounded` claims (DESIGN.md): least squares of measured on
# ln(parameter); growth is significant with at least GROWTH_MIN_POINTS points,
# a slope t-statistic above GROWTH_T_THRESHOLD, and a fitted rise across the
# sweep larger than the claim's tolerance.
GROWTH_MIN_POINTS = 4
GROWTH_T_THRESHOLD = 3.0
# An asymptotic claim needs evidence spanning this ratio (two orders of magnitude).
ASYMPTOTIC_SPAN = 100.0


@dataclass(frozen=True)
class Rerun:
    """What the CI re-run produced, as the judge sees it."""

    status: str  # passed | failed | timeout
    outputs: Any = None  # parsed outputs.json, or None when it is absent or unreadable
    exit_code: int | None = None
    log_tail: str = ""


@dataclass
class Judgement:
    """The rules' verdict for one claim, with the evidence a person reads."""

    claim: str
    verdict: str
    evidence: str
    flags: list[str] = field(default_factory=list)

    def add(self, flag: str) -> None:
        if flag not in self.flags:
            self.flags.append(flag)
            self.flags.sort(key=FLAGS.index)


@dataclass(frozen=True)
class Point:
    """One resolved number: its value in the claim's unit and where it stands."""

    value: float
    at: float | None  # the regime parameter's value, when known
    origin: str  # "re-run" or "logbook"


_MISSING = object()


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901 JSON pointer lookup; ``_MISSING`` when it leads nowhere."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        return _MISSING
    node = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def tolerance_of(target: Target, reference: float) -> float:
    if target.tolerance is None:
        return 0.0
    if target.tolerance.abs is not None:
        return target.tolerance.abs
    return (target.tolerance.rel or 0.0) * abs(reference)


def judge_claim(claim: Claim, result: Result | None, rerun: Rerun | None) -> Judgement:
    """The rules verdict for one claim of one logbook."""
    if result is None:
        j = Judgement(claim.id, "inconclusive", "the logbook reports no result for this claim")
        j.add("not_addressed")
        return j
    # the toy cap (rule 5) and rule 7 apply to every judge's verdict: see finalize.py
    return _judge_numbers(claim, result, rerun)


def _judge_numbers(claim: Claim, result: Result, rerun: Rerun | None) -> Judgement:
    j = Judgement(claim.id, "inconclusive", "")
    if rerun is None:
        j.add("not_rerun")
    elif rerun.status != "passed":
        j.add("rerun_failed")
        code = f", exit code {rerun.exit_code}" if rerun.exit_code is not None else ""
        j.evidence = f"the re-run {'timed out' if rerun.status == 'timeout' else 'failed'}{code}"
        j.evidence += ": a failed re-run verifies nothing"
        return j
    target = claim.target
    if target is None:
        j.evidence = f"a {claim.kind} claim with no numeric target: the rules cannot decide it" + (
            "; a falsification argument is given for review" if result.falsification else ""
        )
        return j
    parameter = claim.regime.parameter if claim.regime else None
    points, sweep_points, problems = _gather(target, result, rerun, parameter, j)
    if problems:
        j.evidence = "; ".join(problems)
        return j
    if target.form == "bounded":
        _judge_bounded(claim, target, sweep_points or points, j)
    else:
        _judge_threshold(claim, target, points + sweep_points, j)
    return j


def _gather(
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
        why = _unit_problem(target, m.unit, m.per)
        if why:
            j.add("unit_mismatch")
            problems.append(why)
            continue
        value, origin = _measured_value(m, rerun if rerun_ok else None, target, j, problems)
        if value is None:
            continue
        used_self_reported |= origin == "logbook"
        at = _number(m.at.get(parameter)) if parameter else None
        points.append(Point(convert(value, m.unit, target.unit), at, origin))
    sweep_points: list[Point] = []
    sweep = result.sweep
    if (
        sweep is not None
        and (sweep.metric in (None, target.metric))
        and (parameter is None or sweep.parameter == parameter)
    ):
        sweep_points, used = _sweep_points(sweep, target, rerun if rerun_ok else None, j, problems)
        used_self_reported |= used
    if used_self_reported and rerun_ok:
        j.add("not_rerun")  # these numbers were typed, not produced by the re-run
    if not points and not sweep_points and not problems:
        problems.append(f"no measurement of {target.metric!r} to compare with the target")
    return points, sweep_points, problems


def _unit_problem(target: Target, unit: str | None, per: str | None) -> str | None:
    unit = unit or "dimensionless"
    try:
        convert(1.0, unit, target.unit)
    except UnitError:
        return f"measured in {unit!r}, which does not convert to the claim's {target.unit!r}"
    want, got = normalise_per(target.per), normalise_per(per)
    if want != got:
        return (
            f"measured per {got or 'nothing stated'!s} but the claim is per "
            f"{want or 'nothing stated'!s}: the numbers are not comparable"
        )
    return None


def _measured_value(
    m: Measurement, rerun: Rerun | None, target: Target, j: Judgement, problems: list[str]
) -> tuple[float | None, str]:
    if m.source is None or rerun is None:
        if m.value is None:
            problems.append(f"{m.metric} has no value and no re-run to read it from")
            j.add("missing_outputs")
        return m.value, "logbook"
    found = _number(resolve_pointer(rerun.outputs, m.source.removeprefix("outputs:")))
    if found is None:
        j.add("missing_outputs")
        problems.append(f"{m.source} is not a number in the re-run outputs")
        return None, "re-run"
    if m.value is not None and abs(m.value - found) > max(
        tolerance_of(target, found), 1e-9 * abs(found)
    ):
        j.add("rerun_mismatch")
        j.evidence += f"logbook says {m.metric} = {m.value:g} but the re-run gives {found:g}; "
    return found, "re-run"


def _sweep_points(
    sweep: Sweep, target: Target, rerun: Rerun | None, j: Judgement, problems: list[str]
) -> tuple[list[Point], bool]:
    unit = sweep.unit or target.unit
    why = _unit_problem(target, unit, target.per)
    if why:
        j.add("unit_mismatch")
        problems.append(why)
        return [], False
    values, measured, origin = sweep.values, sweep.measured, "logbook"
    if sweep.source is not None and rerun is not None:
        found = resolve_pointer(rerun.outputs, sweep.source.removeprefix("outputs:"))
        xs = found.get("values") if isinstance(found, dict) else None
        ys = found.get("measured") if isinstance(found, dict) else None
        pairs = (
            [(_number(x), _number(y)) for x, y in zip(xs, ys, strict=True)]
            if isinstance(xs, list) and isinstance(ys, list) and len(xs) == len(ys)
            else None
        )
        if not pairs or any(x is None or y is None for x, y in pairs):
            j.add("missing_outputs")
            problems.append(
                f"{sweep.source} is not a {{values, measured}} sweep in the re-run outputs"
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
    points = [
        Point(convert(y, unit, target.unit), x, origin)
        for x, y in zip(values, measured, strict=True)
    ]
    return points, origin == "logbook"


def _in_regime(claim: Claim, points: list[Point]) -> list[Point]:
    regime = claim.regime
    if regime is None:
        return points
    lo = regime.from_ if regime.from_ is not None else -math.inf
    hi = regime.to if regime.to is not None else math.inf
    return [p for p in points if p.at is None or lo <= p.at <= hi]


def coverage_gap(claim: Claim, points: list[Point]) -> str | None:
    """Why the points do not cover the claim's regime, or None when they do."""
    regime = claim.regime
    if regime is None:
        return None
    xs = [p.at for p in points if p.at is not None]
    name = regime.parameter
    if not xs:
        return f"no measurement says which {name} it was taken at"
    if regime.to is not None:
        if max(xs) < regime.to:
            reach = f"{name} = {max(xs):g}"
            return f"evidence reaches {reach}, but the claim runs to {name} = {regime.to:g}"
        return None
    positive = [x for x in xs if x > 0]
    span = max(positive) / min(positive) if positive else 1.0
    if span < ASYMPTOTIC_SPAN:
        return (
            f"{name} spans {min(xs):g}..{max(xs):g} ({span:.0f}x), short of the two orders of "
            f"magnitude an asymptotic claim needs"
        )
    return None


def _judge_threshold(claim: Claim, target: Target, points: list[Point], j: Judgement) -> None:
    points = _in_regime(claim, points)
    if not points:
        j.evidence += "no measurement falls inside the claim's regime"
        return
    value = target.value
    assert value is not None  # the model requires it for these forms
    tol = tolerance_of(target, value)
    compare = {
        "at_least": (lambda m: m >= value - tol, f">= {value:g} - {tol:g}"),
        "at_most": (lambda m: m <= value + tol, f"<= {value:g} + {tol:g}"),
        "equal": (lambda m: abs(m - value) <= tol, f"= {value:g} ± {tol:g}"),
    }
    ok, text = compare[target.form]
    failing = [p for p in points if not ok(p.value)]
    unit = "" if target.unit == "dimensionless" else f" {target.unit}"
    if failing:
        j.verdict = "falsified"
        j.evidence += f"{target.metric} {_describe(failing, claim, unit)} fails {text}{unit}"
        passing = len(points) - len(failing)
        if passing:
            j.evidence += f" ({passing} other measurement{'s pass' if passing > 1 else ' passes'})"
        return
    j.verdict = "verified"
    j.evidence += f"{target.metric} {_describe(points, claim, unit)} meets {text}{unit}"
    _cap_for_coverage(claim, points, j)


def _cap_for_coverage(claim: Claim, points: list[Point], j: Judgement) -> None:
    gap = coverage_gap(claim, points)
    if gap and j.verdict == "verified":
        j.verdict = "toy"
        j.add("short_horizon")
        j.evidence += f"; {gap}"


def growth_test(points: list[Point]) -> tuple[float, float, float] | None:
    """Least squares of measured on ln(parameter): (slope, t-statistic, fitted rise).

    None when there are fewer than ``GROWTH_MIN_POINTS`` positive parameter values
    or they do not vary. A zero residual with a positive slope gives t = inf.
    """
    pts = [(math.log(p.at), p.value) for p in points if p.at is not None and p.at > 0]
    n = len(pts)
    if n < GROWTH_MIN_POINTS:
        return None
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
    intercept = my - slope * mx
    rss = sum((y - intercept - slope * x) ** 2 for x, y in pts)
    se = math.sqrt(rss / (n - 2) / sxx)
    if se > 0:
        t = slope / se
    else:  # an exact fit: any slope is infinitely significant
        t = math.copysign(math.inf, slope) if slope else 0.0
    xs = [x for x, _ in pts]
    return slope, t, slope * (max(xs) - min(xs))


def _judge_bounded(claim: Claim, target: Target, points: list[Point], j: Judgement) -> None:
    points = _in_regime(claim, points)
    parameter = claim.regime.parameter if claim.regime else "the sweep parameter"
    scale = max((abs(p.value) for p in points), default=0.0)
    tol = tolerance_of(target, target.value if target.value is not None else scale)
    if target.value is not None:
        over = [p for p in points if p.value > target.value + tol]
        if over:
            j.verdict = "falsified"
            j.add("growth_detected")
            j.evidence += (
                f"{target.metric} reaches {max(p.value for p in over):g}, above the bound "
                f"{target.value:g} + {tol:g}"
            )
            return
    fit = growth_test(points)
    if fit is None:
        j.evidence += (
            f"a bounded claim needs a sweep over {parameter} with at least {GROWTH_MIN_POINTS} "
            f"points to test for growth; found {len([p for p in points if p.at])}"
        )
        return
    slope, t, rise = fit
    stats = f"slope {slope:.3g} per ln {parameter}, t = {t:.3g}, fitted rise {rise:.3g}"
    xs = [p.at for p in points if p.at is not None]
    ends = f"{points[0].value:g} -> {points[-1].value:g}"
    sweep = f"{parameter} = {min(xs):g}..{max(xs):g}, {target.metric} {ends}"
    if t > GROWTH_T_THRESHOLD and rise > tol:
        j.verdict = "falsified"
        j.add("growth_detected")
        j.evidence += (
            f"{sweep}: grows with ln {parameter} ({stats}; significant: t > {GROWTH_T_THRESHOLD:g} "
            f"and rise > tolerance {tol:g})"
        )
        return
    j.verdict = "verified"
    j.evidence += f"{sweep}: no significant growth in ln {parameter} ({stats}; tolerance {tol:g})"
    _cap_for_coverage(claim, points, j)


def _describe(points: list[Point], claim: Claim, unit: str) -> str:
    name = claim.regime.parameter if claim.regime else None
    parts = []
    for p in points[:6]:
        where = f" at {name}={p.at:g}" if name and p.at is not None else ""
        parts.append(f"{p.value:.4g}{unit}{where} ({p.origin})")
    more = f" and {len(points) - 6} more" if len(points) > 6 else ""
    return ", ".join(parts) + more
