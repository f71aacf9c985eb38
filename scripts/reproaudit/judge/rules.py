"""The deterministic judge: a claim, a logbook's result and a re-run -> a verdict.

Pure: no files, no network, no clock. The rules are DESIGN.md's, in order:

1. Numbers come from the re-run when there is one. A measurement whose
   ``source`` is ``outputs:<JSON pointer>`` takes the re-run's value; a typed
   value that disagrees beyond the claim's tolerance is flagged
   ``rerun_mismatch``; a pointer that resolves to nothing is ``missing_outputs``
   and the typed value is not used (so is a re-run value that is not a finite
   number within ±1e15). A failed or timed-out re-run verifies nothing
   (``rerun_failed``). Without a re-run, numbers are self-reported
   (``not_rerun``); a stale record is ignored (``stale_rerun``), but when its
   outputs contradict the typed numbers the evidence says so.
2. Units are converted with pint; ``per`` compares singular and plural alike,
   and a unit carrying its per (``MB / token``, no ``per``) is read as ``MB``
   per ``token`` (``units.split_per``). An incompatible unit or a different
   ``per`` is ``unit_mismatch`` and ``inconclusive``, never ``falsified``. A
   sweep over another parameter or metric than the claim's is named as such
   and not used. From rules version 4 a re-run's output may carry its own
   ``unit``, ``per`` and ``at`` (``{"value": 140, "unit": "ms", "per": "batch
   of 50"}``, ``judge.points``): those are judged, and a typed label that
   contradicts them is ``unit_mismatch``, not trusted.
3. Scale: a converted value 30x-300x off the target (either way) while the
   number as typed is within 3x of it is ``inconclusive`` + ``scale_suspect``,
   with a hint (typically percent against fraction). From rules version 3, any
   value 30x or more from a point target (``at_least``, ``at_most``,
   ``equal``) in either direction is ``scale_suspect`` too, whatever its unit.
4. Target forms, with ``tol`` = ``abs`` or ``rel`` x |value|:
   ``at_least``: m >= value - tol; ``at_most``: m <= value + tol;
   ``equal``: |m - value| <= tol; ``bounded``: significant growth
   (``judge.growth``) is ``growth_detected``, a point above ``value`` + tol is
   ``bound_exceeded``. A point above the bound falsifies on any sweep; from
   rules version 4, growth alone falsifies only on a sweep that covers the
   regime (rule 5): on a shorter one it is ``toy`` + ``short_horizon`` (a
   rise that may level off past the sweep is no counterexample).
5. Regime coverage (``judge.coverage``): a verification whose evidence does
   not reach a finite ``regime.to``, spans less than two decades for an
   asymptotic claim, or leaves a gap wider than one decade across a regime of
   two decades or more is only ``toy`` (``short_horizon``), the evidence
   naming the gap. A counterexample inside the range still falsifies.
   Rules version 4, scope: every judged claim with a regime or a
   ``target.scale`` records how far its evidence reached (``scope``), and a
   ``verified`` whose claim reaches past the range tested (no upper end, most
   often) is ``within_tested_range``: "held for k = 2..512; claimed for all k
   >= 2" ends its evidence.
5b. Scale of the evaluation (rules version 4): a claim whose target states one
   (``target.scale: {n_test: 20000}``) is ``toy`` at best (``scale_short``)
   when a judged number was measured on less than 99% of it, or its source does
   not say (a re-run number needs the re-run's word: its output object's
   ``at``, or an ``at`` pointer into the outputs), whatever ``setup`` says.
6. ``setup: reduced`` or ``synthetic`` caps verified and falsified at ``toy``,
   and so does a re-run on other hardware than the claim's ``target.hardware``
   (``hardware_mismatch``); without a passed re-run of the current bytes no
   claim is published ``verified``, ``falsified`` or ``toy`` (``not_rerun``,
   "awaiting re-run"). These apply to the rules' and the LLM's verdicts alike,
   in ``judge.finalize``.
7. No result: ``inconclusive`` + ``not_addressed``. Theoretical, qualitative
   and untargeted claims are ``inconclusive`` here; the LLM layer decides them.
8. ``self_assessment_disagrees`` whenever the final verdict differs from the
   logbook's own (also in ``judge.finalize``).

Strings the contributor typed enter evidence only through ``points.quote``
(«between guillemets»), so the LLM prompt can fence them as data.
Numbers in the evidence carry as many digits as it takes for the comparison
shown to be visibly true (75.749 fails >= 76.25 - 0.5, not "75.75 fails").
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal

from ..models import Claim, RegimeScope, Result, ScaleScope, Scope, Span, Target
from ..pointers import resolve_pointer
from .coverage import beyond_tested, coverage_gap, held_text, number
from .growth import MIN_POINTS, PHRASE, T_THRESHOLD, Growth, describe_fit, growth
from .points import (
    _MISSING,
    Judgement,
    Point,
    Rerun,
    gather,
    quote,
    tolerance_of,
)

__all__ = [
    "RULES_VERSION",
    "_MISSING",
    "Judgement",
    "Point",
    "Rerun",
    "judge_claim",
    "resolve_pointer",
]

RULES_VERSION = 4

# Scale check: a converted value this far off the target (either way) ...
SCALE_OFF = (30.0, 300.0)
# ... while the number as typed is within this factor of it.
SCALE_NEAR = 3.0
# Rules version 3: a value this far from a point target, either way, is suspect whatever its unit.
SCALE_FAR = 30.0
POINT_FORMS = ("at_least", "at_most", "equal")
# Rules version 4: an evaluation on less than this share of the claim's scale is scale_short.
SCALE_REACH = 0.99


def judge_claim(claim: Claim, result: Result | None, rerun: Rerun | None) -> Judgement:
    """The rules verdict for one claim of one logbook."""
    if result is None:
        j = Judgement(claim.id, "inconclusive", "the logbook reports no result for this claim")
        j.add("not_addressed")
        return j
    stale = rerun.stale if rerun is not None else None
    j = _judge_numbers(claim, result, None if stale else rerun)
    if stale:
        j.add("stale_rerun")
        j.evidence += f"; the re-run record was ignored: {stale}"
        assert rerun is not None
        j.evidence += _stale_contradiction(claim, result, rerun, j)
    # the toy cap and the self-assessment check apply to every judge's verdict: finalize.py
    return j


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
    points, sweep_points, problems = gather(target, result, rerun, parameter, j)
    if problems:
        j.evidence += "; ".join(problems)
        return j
    slip = _scale_slip(target, points + sweep_points)
    if slip:
        j.add("scale_suspect")
        j.evidence += slip
        return j
    if target.form == "bounded":
        used = _judge_bounded(claim, target, sweep_points or points, j)
    else:
        used = _judge_threshold(claim, target, points + sweep_points, j)
    _judge_scope(claim, target, used, j)
    return j


def _judge_scope(claim: Claim, target: Target, used: list[Point], j: Judgement) -> None:
    """Rules 5 and 5b: record how far the judged points reached, cap a short evaluation,
    and qualify a verified whose claim reaches past the range tested."""
    if j.verdict not in ("verified", "falsified", "toy") or not used:
        return
    regime = None
    placed = [p.at for p in used if p.at is not None]
    if claim.regime is not None and placed:
        regime = RegimeScope(
            parameter=claim.regime.parameter,
            tested=Span.model_validate({"from": min(placed), "to": max(placed)}),
            claimed=Span.model_validate({"from": claim.regime.from_, "to": claim.regime.to}),
        )
    scale = {
        key: ScaleScope(tested=_smallest(used, key), claimed=claimed)
        for key, claimed in (target.scale or {}).items()
    }
    if regime is None and not scale:
        return
    j.scope = Scope(regime=regime, scale=scale or None)
    if scale:
        _cap_for_scale(scale, used, j)
    if j.verdict == "verified" and regime is not None and beyond_tested(regime):
        j.within_tested_range = True
        j.evidence += f"; {held_text(regime)}"


def _smallest(points: list[Point], key: str) -> float | None:
    """The smallest scale ``key`` the points were measured at; None when one does not say."""
    if any(key not in p.scale for p in points):
        return None
    return min(p.scale[key] for p in points)


def _cap_for_scale(scale: dict[str, ScaleScope], used: list[Point], j: Judgement) -> None:
    short = [
        (key, s)
        for key, s in scale.items()
        if s.tested is None or s.tested < s.claimed * SCALE_REACH
    ]
    if not short:
        return
    j.add("scale_short")
    parts = []
    for key, s in short:
        if s.tested is not None:
            parts.append(
                f"the claim is about {key} = {s.claimed:g}, measured on {key} = {s.tested:g}"
            )
            continue
        typed = sorted({p.typed_scale[key] for p in used if key in p.typed_scale})
        said = (
            f" (the logbook types {key} = {typed[0]:g}: only the re-run's word counts)"
            if typed
            else ""
        )
        parts.append(
            f"the claim is about {key} = {s.claimed:g} and the evidence does not say at what "
            f"{key} it was measured{said}; write it beside the number in the outputs: "
            f'{{"value": ..., "at": {{"{key}": ...}}}}'
        )
    if j.verdict in ("verified", "falsified"):
        j.evidence += f"; capped at toy: {'; '.join(parts)} (numbers point to {j.verdict})"
        j.verdict = "toy"
    else:
        j.evidence += f"; {'; '.join(parts)}"


def _stale_contradiction(claim: Claim, result: Result, rerun: Rerun, typed: Judgement) -> str:
    """Evidence naming a stale record whose outputs contradict the typed numbers, else ""."""
    if rerun.status != "passed" or rerun.outputs is None:
        return ""
    old = _judge_numbers(claim, result, replace(rerun, stale=None))
    decided = old.verdict in ("verified", "falsified", "toy")
    if "rerun_mismatch" not in old.flags and not (decided and old.verdict != typed.verdict):
        return ""
    return (
        f"; that stale record's outputs contradict the typed numbers: read as current they "
        f"would give {old.verdict} ({old.evidence})"
    )


def _in_regime(claim: Claim, points: list[Point]) -> list[Point]:
    """The points inside the claim's regime, in parameter order (unplaced ones last)."""
    regime = claim.regime
    lo = regime.from_ if regime and regime.from_ is not None else -math.inf
    hi = regime.to if regime and regime.to is not None else math.inf
    inside = [p for p in points if p.at is None or lo <= p.at <= hi]
    return sorted(inside, key=lambda p: (p.at is None, p.at or 0.0))


def _scale_slip(target: Target, points: list[Point]) -> str | None:
    """Evidence for ``scale_suspect``: a value ~100x off that would fit as typed, or (rules
    version 3) any value 30x or more from a point target."""
    value = target.value
    if not value:
        return None
    return _slip_as_typed(target, value, points) or _far_from_point(target, value, points)


def _far_from_point(target: Target, value: float, points: list[Point]) -> str | None:
    if target.form not in POINT_FORMS:
        return None
    for p in points:
        if p.value == 0:
            continue  # zero is no unit slip (an error rate of 0 meets "at most 1%")
        off = abs(p.value / value)
        if 1 / SCALE_FAR < off < SCALE_FAR:
            continue
        factor, where = (off, "above") if off > 1 else (1 / off, "below")
        unit = "" if target.unit == "dimensionless" else f" {target.unit}"
        typed = f" (typed {p.typed:g} {quote(p.unit)})" if p.unit is not None else ""
        hint = "check the unit and the scale the number was measured in"
        if target.unit == "dimensionless" and p.unit is None and off <= 300:
            hint = f"if {p.value:g} is a percentage, write unit: percent"
        times = f"{factor:.0f}" if factor < 1e6 else f"{factor:.2g}"
        return (
            f"{target.metric} {p.value:.4g}{unit}{typed} is {times}x {where} the target "
            f"{value:g}{unit}: a value {SCALE_FAR:g}x or more from the target is more likely a "
            f"slip of unit or scale than a result. hint: {hint}"
        )
    return None


def _slip_as_typed(target: Target, value: float, points: list[Point]) -> str | None:
    lo, hi = SCALE_OFF
    for p in points:
        if p.unit is None or p.typed is None or p.value == 0:
            continue
        off, near = abs(p.value / value), abs(p.typed / value)
        if (lo <= off <= hi or lo <= 1 / off <= hi) and 1 / SCALE_NEAR <= near <= SCALE_NEAR:
            factor, where = (off, "above") if off > 1 else (1 / off, "below")
            unit = "" if target.unit == "dimensionless" else f" {target.unit}"
            hint = _scale_hint(p.typed, p.unit, target.unit)
            return (
                f"{target.metric} {p.typed:g} {quote(p.unit)} is {p.value:.4g}{unit}, "
                f"{factor:.0f}x {where} the target {value:g}{unit}, though {p.typed:g} as "
                f"typed is close to it: a scale slip? hint: {hint}"
            )
    return None


def _scale_hint(typed: float, unit: str, target_unit: str) -> str:
    percent = {"percent", "%"}
    if unit in percent:
        return (
            f"if {typed:g} is a fraction, write unit: dimensionless "
            f"(or {typed * 100:g} with unit: percent)"
        )
    if target_unit in percent:
        return f"if {typed:g} means {typed:g}%, write unit: percent"
    return f"write the unit {typed:g} was measured in"


def _judge_threshold(
    claim: Claim, target: Target, points: list[Point], j: Judgement
) -> list[Point]:
    """Rule 4 for point targets; the points judged."""
    points = _in_regime(claim, points)
    if not points:
        j.evidence += "no measurement falls inside the claim's regime"
        return []
    value = target.value
    assert value is not None  # the model requires it for these forms
    tol = tolerance_of(target, value)
    form = target.form
    failing = [p for p in points if not _passes(form, p.value, value, tol)]
    digits = _digits(form, [p.value for p in points], value, tol)
    sign = {"at_least": (">=", "-"), "at_most": ("<=", "+"), "equal": ("=", "±")}[form]
    text = f"{sign[0]} {value:.{digits}g} {sign[1]} {tol:.{digits}g}"
    unit = "" if target.unit == "dimensionless" else f" {target.unit}"
    if failing:
        j.verdict = "falsified"
        j.evidence += (
            f"{target.metric} {_describe(failing, claim, unit, digits)} fails {text}{unit}"
        )
        passing = len(points) - len(failing)
        if passing:
            j.evidence += f" ({passing} other measurement{'s pass' if passing > 1 else ' passes'})"
        return points
    j.verdict = "verified"
    j.evidence += f"{target.metric} {_describe(points, claim, unit, digits)} meets {text}{unit}"
    _cap_for_coverage(claim, points, j)
    return points


def _passes(form: str, m: float, value: float, tol: float, digits: int = 15) -> bool:
    """The target's comparison in decimal, on the numbers rounded to ``digits``.

    At 15 digits this is the comparison as written, without binary float noise
    (1.0 passes >= 1.1 - 0.1); with fewer it is the comparison as printed.
    """
    m_, v, t = (Decimal(f"{x:.{digits}g}") for x in (m, value, tol))
    if form == "at_least":
        return m_ >= v - t
    if form == "at_most":
        return m_ <= v + t
    return abs(m_ - v) <= t


def _digits(form: str, ms: list[float], value: float, tol: float) -> int:
    """Significant digits (at least 4) for the comparison to read as it really comes out."""
    for digits in range(4, 16):
        if all(_passes(form, m, value, tol, digits) == _passes(form, m, value, tol) for m in ms):
            return digits
    return 15


def _cap_for_coverage(claim: Claim, points: list[Point], j: Judgement) -> None:
    gap = coverage_gap(claim.regime, [p.at for p in points if p.at is not None])
    if gap and j.verdict == "verified":
        j.verdict = "toy"
        j.add("short_horizon")
        j.evidence += f"; {gap}"


def growth_test(points: list[Point], tol: float = 0.0) -> Growth | None:
    """The growth fits of a sweep (``judge.growth``); None with too few placed points."""
    return growth([(p.at, p.value) for p in points if p.at is not None], tol)


def _judge_bounded(claim: Claim, target: Target, points: list[Point], j: Judgement) -> list[Point]:
    """Rule 4 for bounded targets (growth and the bound, rule 5 on short sweeps); the points
    judged."""
    points = _in_regime(claim, points)
    parameter = claim.regime.parameter if claim.regime else "the sweep parameter"
    scale = max((abs(p.value) for p in points), default=0.0)
    tol = tolerance_of(target, target.value if target.value is not None else scale)
    bound = target.value
    over = [p for p in points if bound is not None and not _passes("at_most", p.value, bound, tol)]
    fit = growth_test(points, tol)
    placed = [(p.at, p.value) for p in points if p.at is not None]
    sweep = ""
    if placed:
        (first_at, first), (last_at, last) = placed[0], placed[-1]
        sweep = f"{parameter} = {number(first_at)}..{number(last_at)}, "
        sweep += f"{target.metric} {first:.4g} -> {last:.4g}: "
    if fit is not None and fit.grows:
        best = fit.shown
        j.verdict = "falsified"
        j.add("growth_detected")
        j.evidence += (
            f"{sweep}grows {PHRASE[best.form].format(p=parameter)} ({describe_fit(best, parameter)}"
            f"; significant: t > {T_THRESHOLD:g} and rise > tolerance {tol:.4g})"
        )
        gap = coverage_gap(claim.regime, [at for at, _ in placed])
        if gap and not over:  # rules version 4: a short sweep's rise may level off past it
            j.verdict = "toy"
            j.add("short_horizon")
            j.evidence += (
                f"; {gap}: growth on a sweep shorter than the regime is no counterexample, "
                "it may level off past the sweep (a measured point above the bound would be one)"
            )
            return points
    if over and bound is not None:  # ``over`` is empty without a bound
        worst = max(over, key=lambda p: p.value)
        digits = _digits("at_most", [worst.value], bound, tol)
        where = f" at {parameter}={number(worst.at)}" if worst.at is not None else ""
        text = (
            f"{target.metric} reaches {worst.value:.{digits}g}{where}, above the bound "
            f"{bound:.{digits}g} + {tol:.{digits}g}"
        )
        j.add("bound_exceeded")
        if j.verdict == "falsified":
            j.evidence += f"; {text}"
            return points
        j.verdict = "falsified"
        flat = " with no significant growth" if fit is not None else ""
        j.evidence += f"{sweep}{text}{flat}"
        return points
    if j.verdict == "falsified":
        return points
    if fit is None:
        j.evidence += (
            f"a bounded claim needs a sweep over {parameter} with at least {MIN_POINTS} "
            f"points to test for growth; found {len(placed)}"
        )
        return []
    best = fit.shown
    j.verdict = "verified"
    j.evidence += (
        f"{sweep}no significant growth with ln {parameter}, in {parameter} or as a power of "
        f"{parameter} (closest: {PHRASE[best.form].format(p=parameter)}, "
        f"{describe_fit(best, parameter)}; tolerance {tol:.4g})"
    )
    _cap_for_coverage(claim, points, j)
    return points


def _describe(points: list[Point], claim: Claim, unit: str, digits: int = 4) -> str:
    name = claim.regime.parameter if claim.regime else None
    parts = []
    for p in points[:6]:
        where = f" at {name}={number(p.at)}" if name and p.at is not None else ""
        parts.append(f"{p.value:.{digits}g}{unit}{where} ({p.origin})")
    more = f" and {len(points) - 6} more" if len(points) > 6 else ""
    return ", ".join(parts) + more
