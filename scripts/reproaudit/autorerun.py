"""Which of a pull request's logbooks CI re-runs by itself, which wait for ``/reproduce``.

A ``cpu`` logbook is re-run automatically once ``validate`` succeeds: a
``workflow_run`` job on a GitHub-hosted runner, in bwrap, with no secrets and a
read-only token (``rerun.yml``). Any other hardware needs a GPU runner or Hugging
Face Jobs, which cost money and run on machines a maintainer vouches for, so it
waits for a maintainer's ``/reproduce [backend]``. A logbook without ``code`` and
``reproduce`` has nothing to run.

The automatic re-runs of one pull request are bounded by the contributor's budget, not
the repository's: their ``reproduce.timeout``s may sum to at most the cap
(``REPROAUDIT_AUTO_RERUN_CAP``, default ``2h``, which fits in ``rerun.yml``'s job). The
logbooks are taken in order (paper, then logbook id) until the next would pass the cap;
it and the rest wait for a maintainer's ``/reproduce``, and the report says so, per
logbook. The decision is pure (``plan_for``, ``within_cap``); the PR report (``reproaudit
check`` and the pull request's) and the re-run job (``ci/rerun_pr.py``) both ask it, so
what the report promises is what runs.

What a re-run may cost: a dated price table (``data/prices.yaml``, package data: hardware
flavour -> US dollars per hour, where and on which day it was read; ``price_table`` is its
one reader, a strict model) and ``estimate_cost(hardware, timeout_s)``, the most one re-run
can spend (its timeout at the flavour's price, rounded up to the billing step). The
``/reproduce`` approval states it per logbook; a spend cap adds the same estimates up. A
machine of the repository's own has no price in the table: its estimate says so (``usd``
None), never zero.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from functools import cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import Field, ValidationError

from . import layout
from .errors import InputError, ReproauditError, SettingError
from .loader import parse_yaml, to_model
from .models import MAX_TIMEOUT_S, Logbook, Model, Url, parse_duration

Kind = Literal["auto", "reproduce", "none", "invalid"]
AUTO_HARDWARE = "cpu"
CAP_SETTING = "REPROAUDIT_AUTO_RERUN_CAP"  # a repository variable, read by the workflows
DEFAULT_CAP = "2h"


@dataclass(frozen=True)
class RerunPlan:
    """How a logbook gets re-run and why; with its hardware and timeout (seconds) when it
    has a ``reproduce`` section, for what an approval says it will spend."""

    paper: str
    logbook: str
    kind: Kind
    why: str
    hardware: str | None = None
    timeout_s: int | None = None
    capped: bool = False  # a cpu logbook past the pull request's cap: waits for /reproduce

    @property
    def name(self) -> str:
        return f"{self.paper}/{self.logbook}"


def plan_for(paper: str, logbook: str, book: Logbook | None) -> RerunPlan:
    """How this logbook gets re-run, and why (``book`` None: it does not parse)."""
    if book is None:
        return RerunPlan(paper, logbook, "invalid", "it does not validate: fix it first")
    if book.code is None or book.reproduce is None:
        return RerunPlan(
            paper, logbook, "none", "it has no `code` and `reproduce` sections: nothing to re-run"
        )
    hardware = book.reproduce.hardware
    timeout = parse_duration(book.reproduce.timeout)
    if hardware == AUTO_HARDWARE:
        return RerunPlan(
            paper,
            logbook,
            "auto",
            "hardware `cpu`: re-run automatically in a sandbox on a GitHub-hosted runner "
            "once validation passes",
            hardware,
            timeout,
        )
    return RerunPlan(
        paper,
        logbook,
        "reproduce",
        f"hardware `{hardware}` needs a GPU: it waits for a maintainer's `/reproduce` "
        "(a self-hosted GPU runner) or `/reproduce hf-jobs` (Hugging Face Jobs)",
        hardware,
        timeout,
    )


def cap_s(environ: Mapping[str, str] | None = None) -> int:
    """The pull request's cap on automatic re-run time, in seconds (``CAP_SETTING``, else
    ``DEFAULT_CAP``); a value that is not a duration of 48h at most is a setting error."""
    text = (os.environ if environ is None else environ).get(CAP_SETTING) or DEFAULT_CAP
    try:
        seconds = parse_duration(text)
    except ValueError as exc:
        raise SettingError(f"{CAP_SETTING}: {exc}") from None
    if not 0 < seconds <= MAX_TIMEOUT_S:
        raise SettingError(
            f"{CAP_SETTING}: {text!r} must be between 1s and {MAX_TIMEOUT_S // 3600}h"
        )
    return seconds


def duration_text(seconds: int) -> str:
    """``5400`` -> ``1h30m``: a duration as logbooks write it."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    return text + (f"{secs}s" if secs or not text else "")


def within_cap(plans: Iterable[RerunPlan], cap: int) -> list[RerunPlan]:
    """The plans of one pull request's logbooks (``plan_for`` each), in order, with the
    automatic ones bounded: once the next one's timeout would take their sum past ``cap``
    seconds, it and every later cpu logbook wait for ``/reproduce``, each saying why."""
    used, full = 0, False
    out = []
    for plan in sorted(plans, key=lambda p: (p.paper, p.logbook)):
        timeout = plan.timeout_s
        if plan.kind == "auto" and timeout is not None:
            full = full or used + timeout > cap
            if full:
                why = _capped_why(plan, used, cap)
                plan = replace(plan, kind="reproduce", why=why, capped=True)
            else:
                used += timeout
        out.append(plan)
    return out


def _capped_why(plan: RerunPlan, used: int, cap: int) -> str:
    timeout = duration_text(plan.timeout_s or 0)
    before = f"; the logbooks before it take {duration_text(used)}" if used else ""
    return (
        f"hardware `cpu`, but this pull request's automatic re-runs may take "
        f"{duration_text(cap)} of `reproduce.timeout` in all (`{CAP_SETTING}`) and its "
        f"{timeout} would pass that{before}: it waits for a maintainer's `/reproduce`"
    )


def plan_from_text(paper: str, logbook: str, text: str | None) -> RerunPlan:
    """``plan_for`` of a logbook given as YAML text (None: deleted by the pull request)."""
    if text is None:
        return RerunPlan(paper, logbook, "none", "the pull request deletes it")
    rel = layout.logbook_rel(paper, logbook)
    try:
        book = to_model(parse_yaml(text, rel), Logbook)
    except InputError:
        book = None
    return plan_for(paper, logbook, book)


def plan_books(
    books: Iterable[tuple[str, str]], read: Callable[[str], str | None], cap: int | None = None
) -> list[RerunPlan]:
    """The plans of one pull request's (paper, logbook)s, within ``cap`` seconds (None: the
    setting, ``cap_s``); ``read(rel)`` gives a logbook file's text at the head (None: deleted)."""
    plans = [plan_from_text(p, lb, read(layout.logbook_rel(p, lb))) for p, lb in sorted(books)]
    return within_cap(plans, cap_s() if cap is None else cap)


# --- what a re-run may cost -------------------------------------------------------

PRICES_FILE = "data/prices.yaml"
CPU_FLAVOUR = "cpu-basic"  # a logbook's `cpu` on Hugging Face Jobs (reproduce/hfjobs.py)


class PriceTable(Model):
    backend: str
    """The backend whose machines these are (``hf-jobs``)."""
    provider: str
    """Who bills them, in words."""
    source: Url
    """The page the prices were read from."""
    read: date
    """The day they were read: prices change, the approval says how old they are."""
    currency: Literal["USD"]
    billed_per: Literal["minute", "second", "hour"]
    """The provider's billing step: an estimate is rounded up to it."""
    per_hour: dict[str, float] = Field(min_length=1)
    """Hardware flavour -> price per hour."""


@cache
def price_table() -> PriceTable:
    """The packaged price table, read and validated once."""
    text = resources.files("reproaudit").joinpath(PRICES_FILE).read_text(encoding="utf-8")
    try:
        return PriceTable.model_validate(yaml.safe_load(text), strict=False)
    except ValidationError as exc:  # a packaging error, not the user's input
        raise ReproauditError(f"{PRICES_FILE} does not validate: {exc}") from None


@dataclass(frozen=True)
class Estimate:
    """At most what one re-run costs: ``usd`` None when the table has no price for it."""

    hardware: str
    backend: str
    flavour: str | None
    timeout_s: int
    per_hour: float | None
    usd: float | None
    table: PriceTable

    def text(self) -> str:
        """``at most $2.50 ($2.50/h; Hugging Face Jobs prices read 2026-12-04)``."""
        if self.backend != self.table.backend:
            return "on the repository's own runner (not priced)"
        if self.usd is None or self.per_hour is None:
            return f"not priced ({self.table.provider} lists no price for `{self.hardware}`)"
        return (
            f"at most ${self.usd:,.2f} (${self.per_hour:,.2f}/h; {self.table.provider} "
            f"prices read {self.table.read.isoformat()})"
        )


_STEP_S = {"second": 1, "minute": 60, "hour": 3600}


def estimate_cost(hardware: str, timeout_s: int, backend: str = "hf-jobs") -> Estimate:
    """The most a re-run on ``hardware`` (a logbook's ``reproduce.hardware``, or a flavour)
    with a timeout of ``timeout_s`` seconds can cost on ``backend``.

    Billed steps are rounded up (a 61-second job is two billed minutes); the result is
    rounded up to the cent, so it is never less than the bill.
    """
    table = price_table()
    if backend != table.backend:
        return Estimate(hardware, backend, None, timeout_s, None, None, table)
    flavour = CPU_FLAVOUR if hardware == "cpu" else hardware
    rate = table.per_hour.get(flavour)
    if rate is None:
        return Estimate(hardware, backend, None, timeout_s, None, None, table)
    step = _STEP_S[table.billed_per]
    billed_h = math.ceil(timeout_s / step) * step / 3600
    usd = math.ceil(round(billed_h * rate * 100, 6)) / 100
    return Estimate(hardware, backend, flavour, timeout_s, rate, usd, table)
