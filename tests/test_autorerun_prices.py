"""The price table (package data, one reader) and ``estimate_cost``: what a re-run may cost
at most, never less than the bill, and "not priced" rather than free when it is unknown."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reproaudit.autorerun import PriceTable, estimate_cost, price_table
from reproaudit.models import HARDWARE
from reproaudit.reproduce.hfjobs import FLAVORS


def test_the_table_is_dated_sourced_and_prices_every_jobs_flavour() -> None:
    table = price_table()
    assert table.backend == "hf-jobs" and table.currency == "USD"
    assert str(table.source) == "https://huggingface.co/docs/hub/jobs-pricing"
    assert table.read.isoformat() == "2026-12-04"
    # every flavour a logbook can launch on Jobs has a price, and nothing else is listed:
    # a spend cap never meets a flavour it cannot price
    assert set(table.per_hour) == set(FLAVORS.values())
    assert all(0 < rate < 100 for rate in table.per_hour.values())


@pytest.mark.parametrize(
    ("hardware", "timeout_s", "usd"),
    [
        ("a10g-small", 7200, 2.00),  # $1.00/h for 2h
        ("a100-large", 3600, 2.50),
        ("a100-large", 61, 0.09),  # two billed minutes (2/60 x 2.50 = 0.083): rounded up
        ("cpu", 600, 0.01),  # a logbook's cpu is cpu-basic on Jobs; a cent at least
        ("h200x8", 48 * 3600, 1920.00),  # the most a logbook's timeout allows
    ],
)
def test_an_estimate_bounds_the_bill(hardware: str, timeout_s: int, usd: float) -> None:
    got = estimate_cost(hardware, timeout_s)
    assert got.usd == usd
    assert got.text().startswith(f"at most ${usd:,.2f} (")
    assert got.text().endswith("; Hugging Face Jobs prices read 2026-12-04)")


def test_what_the_table_cannot_price_says_so_never_zero() -> None:
    h100 = estimate_cost("h100", 3600)  # allowed in logbooks, not a Jobs flavour
    assert h100.usd is None and h100.text() == (
        "not priced (Hugging Face Jobs lists no price for `h100`)"
    )
    own = estimate_cost("a10g-small", 3600, backend="local")
    assert own.usd is None and own.text() == "on the repository's own runner (not priced)"
    assert {h for h in HARDWARE if estimate_cost(h, 60).usd is None} == {"h100", "h100x8"}


def test_a_table_with_a_typo_is_refused() -> None:
    good = price_table().model_dump(mode="json")
    for bad in ({"currency": "EUR"}, {"per_hour": {}}, {"read": "last week"}, {"prices": {}}):
        with pytest.raises(ValidationError):
            PriceTable.model_validate({**good, **bad}, strict=False)
