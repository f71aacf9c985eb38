"""Drafting one paper's claims from its text, each claim tied to a quote found in that text.

The request is ``extract``'s (the same fenced, untrusted paper text with a per-call
nonce) with prompt version 2, which asks for a verbatim ``quote`` per claim. The
reply is untrusted: a claim whose quote is not in the paper's text (compared
after folding layout: ligatures, hyphenation at line ends, quotes, dashes and
spacing) is dropped and counted, and so is one that does not validate as a
``Claim`` (its unit is parsed with pint there). Sends go through the judge's
``Endpoint``: bounded bytes, retries, ``Retry-After`` and a circuit breaker.
"""

from __future__ import annotations

import re
import secrets
import threading
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from pydantic import ValidationError

from ..boundedjson import loads
from ..extract import MAX_CLAIMS, TEXT_BUDGET, _check_sizes
from ..llm.endpoint import Endpoint
from ..llm.halt import Halt
from ..llm.settings import truncate
from ..models import Claim
from ..units import scale_of

PROMPT_VERSION = 2
ATTEMPTS = 3
REPLY_TOKENS = 4_000  # the reply's share of a request's estimate
MIN_QUOTE = 12  # characters: shorter "quotes" ('the', '0.9') prove nothing
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00ad": None,
    }
)


def prompt() -> str:
    return (
        resources.files("reproaudit.judge")
        .joinpath("prompts", f"extract.v{PROMPT_VERSION}.system.md")
        .read_text(encoding="utf-8")
    )


def fold(text: str) -> str:
    """Text with layout folded away, for finding a quote: NFKC, hyphens at line ends, spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    return " ".join(text.split()).lower()


class Budget:
    """Tokens a run may spend; a request reserves its estimate first, then settles the real use."""

    def __init__(self, tokens: int | None) -> None:
        self.limit = tokens
        self.spent = 0
        self._reserved = 0
        self._lock = threading.Lock()

    def reserve(self, estimate: int) -> bool:
        with self._lock:
            if self.limit is not None and self.spent + self._reserved + estimate > self.limit:
                return False
            self._reserved += estimate
            return True

    def settle(self, estimate: int, used: int) -> None:
        with self._lock:
            self._reserved -= estimate
            self.spent += used


class OverBudget(Exception):
    """The next request would pass ``--budget``: the paper is left for another run."""


@dataclass
class Draft:
    claims: list[dict[str, Any]]
    dropped_quote: int = 0
    dropped_invalid: int = 0
    requests: int = 0
    tokens: int = 0
    failures: list[str] = field(default_factory=list)


def check_claims(items: Any, text: str) -> tuple[list[dict[str, Any]], int, int]:
    """(kept claims numbered C1.., dropped for their quote, dropped as invalid) from a reply."""
    if not isinstance(items, list):
        raise ValueError('the reply has no "claims" list')
    haystack = fold(text)
    kept: list[dict[str, Any]] = []
    no_quote = invalid = 0
    for item in items[: MAX_CLAIMS * 2]:
        if not isinstance(item, dict):
            invalid += 1
            continue
        quote = item.get("quote")
        if (
            not isinstance(quote, str)
            or len(fold(quote)) < MIN_QUOTE
            or fold(quote) not in haystack
        ):
            no_quote += 1
            continue
        claim = {"id": f"C{len(kept) + 1}"}
        for key in ("statement", "anchor", "kind", "target", "regime"):
            if item.get(key) is not None:
                claim[key] = item[key]
        claim["quote"] = " ".join(quote.split())
        _draft_scale(claim)
        try:
            Claim.model_validate(claim)
        except ValidationError:
            invalid += 1  # a unit pint cannot read, a kind that is not one, a two-line anchor...
            continue
        if len(kept) < MAX_CLAIMS:
            kept.append(claim)
    return kept, no_quote, invalid


def _draft_scale(claim: dict[str, Any]) -> None:
    """Add the scale the claim's quote names to a target that states none (in place)."""
    target, regime = claim.get("target"), claim.get("regime")
    if not isinstance(target, dict) or target.get("scale") is not None:
        return
    parameter = regime.get("parameter") if isinstance(regime, dict) else None
    scale = {k: v for k, v in scale_of(claim["quote"]).items() if k != parameter}  # a regime
    if scale:
        target["scale"] = scale


def request_body(model: str, text: str) -> dict[str, Any]:
    nonce = secrets.token_hex(8)
    while nonce in text:
        nonce = secrets.token_hex(8)
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": prompt().replace("{nonce}", nonce)},
            {"role": "user", "content": f"<<<PAPER {nonce}\n{text}\nPAPER {nonce}>>>"},
        ],
        "response_format": {"type": "json_object"},
        "temperature": 0.2,
    }


def estimate_tokens(text: str) -> int:
    return (len(prompt()) + min(len(text), TEXT_BUDGET)) // 4 + REPLY_TOKENS


def draft_claims(endpoint: Endpoint, model: str, text: str, budget: Budget, halt: Halt) -> Draft:
    """Claims drafted from ``text``; ``OverBudget`` before any request the budget cannot pay.

    A reply that is not JSON, or not a claims list, is asked again (``ATTEMPTS``
    in all); a reply whose claims are all dropped is an answer, not a failure.
    """
    sent = truncate(text, TEXT_BUDGET).replace("\x00", "")
    draft = Draft([])
    for _ in range(ATTEMPTS):
        estimate = estimate_tokens(sent)
        if not budget.reserve(estimate):
            raise OverBudget
        answer = endpoint.complete(request_body(model, sent), halt)
        used = answer.prompt_tokens + answer.completion_tokens
        budget.settle(estimate, used if used else (estimate if answer.attempts else 0))
        draft.requests += answer.attempts
        draft.tokens += used
        if answer.content is None:
            draft.failures.append(answer.error or "no answer")
            if answer.transport:
                break
            continue
        try:
            reply = loads(answer.content)  # depth and size bounded: the model is untrusted
            _check_sizes(reply)
            if not isinstance(reply, dict):
                raise ValueError("the reply is not a JSON object")
            draft.claims, draft.dropped_quote, draft.dropped_invalid = check_claims(
                reply.get("claims"), text
            )
        except (ValueError, TypeError) as exc:
            draft.failures.append(str(exc).splitlines()[0][:200])
            continue
        draft.failures = []
        return draft
    return draft
