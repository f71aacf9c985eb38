"""What ``reproaudit check`` tells a contributor beyond validation: pure, data in, problems out.

A logbook can be valid and still not say what the judge needs. Each finding here
would otherwise surface only in a verdict's prose, after a pull request:

- a claim measured per something (``per: trajectory``) and a measurement without ``per``;
- a sweep over a parameter the claim's regime does not name (with a did-you-mean);
- a sweep short of the regime (one message: its point count and range, and the regime's);
- a sweep the re-run wrote that stops short of the regime (the same message);
- a passed re-run that did not write ``reproduce.outputs``;
- a re-run that stopped on ``ModuleNotFoundError`` (the package belongs in
  ``reproduce.requirements``).

``line_of`` maps a field path to its line in the file (the loader's document).
``FIXABLE`` names the verdict flags a contributor can fix (units, scale, a short sweep,
hardware): the report's status is ``fail`` while a claim carries one.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from . import problems as P
from .loader import field_path
from .models import Claim, Logbook, PaperFile
from .problems import Problem

LineOf = Callable[[tuple], int | None]
MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")

# Flags a contributor can fix before the pull request (rules version 4): while a claim
# carries one, `check` and the report end status=fail and say which, with what to do.
FIXABLE: dict[str, str] = {
    "unit_mismatch": "make unit and per say what the code measured (when the re-run's outputs "
    "carry a unit, leave them out or write the same)",
    "scale_suspect": "check the number's unit and scale (a percentage typed as a fraction, "
    "milliseconds labelled as microseconds)",
    "scale_short": "evaluate at the claim's scale (target.scale) and write it beside the number "
    'in the outputs: {"value": ..., "at": {"n_test": ...}}; if you cannot, say setup: reduced',
    "short_horizon": "extend the sweep over the claim's regime (to regime.to, or two orders of "
    "magnitude for a claim with no upper end, no gap over a decade); if you cannot, say "
    "setup: reduced",
    "hardware_mismatch": "set reproduce.hardware to the claim's target.hardware (a maintainer's "
    "/reproduce runs it there); if you cannot, say setup: reduced",
}
# what a declared reduced or synthetic setup (toy_setup) expects: no failure for these
DECLARED_TOY = frozenset({"scale_short", "short_horizon", "hardware_mismatch"})


def fixable(flags: Iterable[str]) -> list[str]:
    """The flags of one claim's verdict the contributor can fix, in ``FIXABLE``'s order."""
    flags = set(flags)
    toy = "toy_setup" in flags
    return [f for f in FIXABLE if f in flags and not (toy and f in DECLARED_TOY)]


def _num(value: float) -> str:
    return f"{value:g}"


def logbook_hints(paper: PaperFile, book: Logbook, rel: str, line_of: LineOf) -> list[Problem]:
    """Warnings about ``per``, sweep parameters and sweep coverage, claim by claim."""
    out: list[Problem] = []
    for i, result in enumerate(book.results):
        claim = paper.claim(result.claim)
        if claim is None:
            continue
        target = claim.target
        if target is not None and target.per:
            for j, m in enumerate(result.measurements):
                if m.per is None and m.metric == target.metric:
                    loc = ("results", i, "measurements", j)
                    out.append(
                        Problem(
                            P.PER_MISSING,
                            rel,
                            line_of(loc),
                            field_path((*loc, "per")),
                            f"{claim.id} is claimed per {target.per!r} and this "
                            f"{m.metric} measurement says nothing about what it is per",
                            f"add `per: {target.per}` if that is what it was measured for; a "
                            "different per is inconclusive (unit_mismatch), never compared",
                        )
                    )
        if result.sweep is not None and claim.regime is not None:
            out += _sweep_hints(claim, result.sweep, rel, line_of(("results", i, "sweep")), i)
    return out


def bare_number_hints(
    paper: PaperFile, book: Logbook, rel: str, outputs: Any, line_of: LineOf
) -> list[Problem]:
    """A warning per measurement whose re-run number carries no unit of its own while its
    claim has one: the label typed in the logbook is then the only word on the unit."""
    from .judge.points import rerun_quantity

    out: list[Problem] = []
    for i, result in enumerate(book.results):
        claim = paper.claim(result.claim)
        target = claim.target if claim else None
        if target is None or (target.unit == "dimensionless" and not target.per):
            continue
        for j, m in enumerate(result.measurements):
            read = rerun_quantity(outputs, m.source) if m.source else None
            if m.metric != target.metric or read is None or read[1].stated:
                continue
            loc = ("results", i, "measurements", j, "source")
            per = f", per {m.per}" if m.per else ""
            out.append(
                Problem(
                    P.UNIT_NOT_IN_OUTPUTS,
                    rel,
                    line_of(loc),
                    field_path(loc),
                    f"{m.source} is a bare number: the judge reads it in the unit this "
                    f"logbook types ({m.unit}{per}), on trust",
                    'write it with its own unit: {"value": ..., "unit": '
                    f'"{target.unit}"'
                    + (f', "per": "{target.per}"' if target.per else "")
                    + "} (reproduce.py's measured(...) does)",
                )
            )
    return out


def rerun_sweep_hints(
    paper: PaperFile, book: Logbook, rel: str, outputs: Any, line_of: LineOf
) -> list[Problem]:
    """The sweep-short warning for sweeps only the re-run wrote (``source``, no ``values``):
    the same message as for a typed sweep, from the values the judge reads."""
    from .judge.points import rerun_sweep

    out: list[Problem] = []
    for i, result in enumerate(book.results):
        claim, sweep = paper.claim(result.claim), result.sweep
        if claim is None or claim.regime is None or sweep is None or sweep.values is not None:
            continue
        pairs = rerun_sweep(outputs, sweep.source) if sweep.source else None
        if pairs:
            read = sweep.model_copy(update={"values": [x for x, _ in pairs]})
            out += _sweep_hints(claim, read, rel, line_of(("results", i, "sweep")), i)
    return out


def _sweep_hints(claim: Claim, sweep, rel: str, line: int | None, i: int) -> list[Problem]:
    regime = claim.regime
    assert regime is not None
    if sweep.parameter != regime.parameter:
        close = difflib.get_close_matches(sweep.parameter, [regime.parameter], n=1, cutoff=0.0)
        mean = f"did you mean {close[0]!r}? " if close else ""
        return [
            Problem(
                P.SWEEP_PARAMETER_DIFFERS,
                rel,
                line,
                field_path(("results", i, "sweep", "parameter")),
                f"the sweep varies {sweep.parameter!r}, but {claim.id}'s regime is over "
                f"{regime.parameter!r}",
                f"{mean}the judge checks the range covered against {regime.parameter!r}",
            )
        ]
    values = sorted(v for v in (sweep.values or []) if isinstance(v, int | float))
    if not values:
        return []
    low, high = values[0], values[-1]
    wanted = _regime_text(regime.parameter, regime.from_, regime.to)
    short = []
    if regime.to is not None and high < regime.to:
        short.append(f"stops at {_num(high)}, short of {_num(regime.to)}")
    if regime.from_ is not None and regime.from_ > 0 and low / regime.from_ > 10:
        short.append(f"starts at {_num(low)}, more than a decade above {_num(regime.from_)}")
    if regime.to is None and (low <= 0 or high / low < 100):
        span = f"{math.log10(high / low):.1f}" if low > 0 else "an unknown number of"
        short.append(f"spans {span} decades where a claim for every value needs 2")
    if not short:
        return []
    points = f"{len(values)} point{'s' if len(values) != 1 else ''}"
    return [
        Problem(
            P.SWEEP_SHORT,
            rel,
            line,
            field_path(("results", i, "sweep", "values")),
            f"the sweep of {claim.id} has {points}, {regime.parameter} from {_num(low)} to "
            f"{_num(high)}; the regime is {wanted}: it {' and '.join(short)}",
            "the judge gives toy at best (short_horizon) until the sweep covers the regime",
        )
    ]


def _regime_text(parameter: str, low: float | None, high: float | None) -> str:
    start = _num(low) if low is not None else "-inf"
    end = _num(high) if high is not None else "infinity (every value)"
    return f"{parameter} from {start} to {end}"


def rerun_hints(
    book: Logbook, rel: str, status: str, outputs_written: bool, log_tail: str, line_of: LineOf
) -> list[Problem]:
    """Problems a local re-run shows: outputs not written, a module the image lacks."""
    out: list[Problem] = []
    reproduce = book.reproduce
    if reproduce is None:
        return out
    if status == "passed" and not outputs_written and reproduce.outputs:
        out.append(
            Problem(
                P.OUTPUTS_NOT_WRITTEN,
                rel,
                line_of(("reproduce", "outputs")),
                "reproduce.outputs",
                f"the command exited 0 but did not write {reproduce.outputs!r}: every "
                "outputs: pointer resolves to nothing and each claim is inconclusive",
                "write that file (relative to the code folder, where the command runs), "
                "or name the file it does write",
            )
        )
    found = MODULE.findall(log_tail)
    if status != "passed" and found:
        module = found[-1].split(".")[0]
        if reproduce.requirements:
            how = f"add it, pinned, to {reproduce.requirements!r} (reproduce.requirements)"
        else:
            how = (
                f"list it, pinned (e.g. {module}==<version>), in a requirements file in the "
                "logbook's folder and name that file in reproduce.requirements"
            )
        out.append(
            Problem(
                P.MISSING_MODULE,
                rel,
                line_of(("reproduce",)),
                "reproduce.requirements",
                f"the re-run stopped on ModuleNotFoundError: the image has no module {module!r}",
                f"{how}; it is installed before the run, which has no network",
            )
        )
    return out


def empty_claims(paper: PaperFile, book: Logbook) -> list[str]:
    """The paper's claims the logbook leaves empty: no result, or one with nothing in it.

    A scaffold (``reproaudit new logbook``) has an entry per claim with no measurement,
    sweep, falsification, discrepancy or note: valid, and saying nothing yet.
    """
    filled = {
        r.claim
        for r in book.results
        if r.measurements or r.sweep or r.falsification or r.discrepancies or r.notes
    }
    return [c.id for c in paper.claims if c.id not in filled]
