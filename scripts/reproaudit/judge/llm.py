"""The LLM layer: any OpenAI-compatible endpoint, through the ``openai`` client.

For each logbook it sends ``samples`` requests (JSON mode), validates every
reply locally, and takes a majority vote per claim. Untrusted text (the
logbook, its write-up, the re-run's log tail) enters the prompt only between
fences carrying a random per-request nonce, cut to a budget with an explicit
marker. ``combine`` then merges the vote with the rules: a claim with a
target keeps its rules verdict unless the LLM agrees, and nothing the LLM says
turns a rules ``toy``, ``falsified`` or ``inconclusive`` into ``verified``.
Transport retries (429 and 5xx, honouring ``Retry-After``) are the client's;
unparsable replies are re-asked a bounded number of times. When no sample
succeeds the rules verdict stands with ``llm_failed``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from pydantic import BaseModel, ConfigDict, ValidationError

from .. import layout
from ..models import FLAGS, VERDICTS, Claim, Usage, VerdictValue
from .rules import Judgement
from .run import Case

PROMPT_VERSION = 1
DEFAULT_MODEL = "zai-org/GLM-5.2"
BUDGET_LOGBOOK = 24_000  # characters of untrusted text per block
BUDGET_WRITEUP = 16_000
BUDGET_LOG_TAIL = 4_000
PARSE_ATTEMPTS = 3  # requests per sample when replies do not parse


@dataclass(frozen=True)
class LlmSettings:
    base_url: str | None
    model: str
    api_key: str | None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> LlmSettings:
        env = dict(os.environ if env is None else env)
        return cls(
            base_url=env.get("REPROAUDIT_JUDGE_BASE_URL") or None,
            model=env.get("REPROAUDIT_JUDGE_MODEL") or DEFAULT_MODEL,
            api_key=env.get("REPROAUDIT_JUDGE_API_KEY") or None,
        )

    @property
    def configured(self) -> bool:
        return self.base_url is not None


# --- the reply schema ---------------------------------------------------------


class _ReplyClaim(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    claim: str
    verdict: VerdictValue
    evidence: str = ""


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    claims: list[_ReplyClaim]


class ReplyError(ValueError):
    """A reply that is not the JSON object the prompt asks for."""


def parse_reply(text: str | None, claim_ids: list[str]) -> dict[str, tuple[str, str]]:
    """Validate a reply; return claim -> (verdict, evidence) for the claims asked about."""
    if not text:
        raise ReplyError("empty reply")
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.S)
    if fenced:
        body = fenced.group(1)
    try:
        reply = _Reply.model_validate(json.loads(body))
    except (ValueError, ValidationError) as exc:
        raise ReplyError(f"reply is not valid judge JSON: {str(exc)[:200]}") from None
    out: dict[str, tuple[str, str]] = {}
    for item in reply.claims:
        if item.claim in claim_ids and item.claim not in out:
            out[item.claim] = (item.verdict, item.evidence.strip()[:1000])
    if not out:
        raise ReplyError("reply names none of the claims asked about")
    return out


# --- prompts ------------------------------------------------------------------


@cache
def _prompt(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", name).read_text(encoding="utf-8")


@cache
def _user_template() -> jinja2.Template:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    return env.from_string(_prompt(f"v{PROMPT_VERSION}.user.md.j2"))


def truncate(text: str, budget: int) -> str:
    """Cut ``text`` to ``budget`` characters, keeping head and tail, with a visible marker."""
    if len(text) <= budget:
        return text
    cut = len(text) - budget
    head = budget * 2 // 3
    return f"{text[:head]}\n[... {cut} characters truncated ...]\n{text[-(budget - head) :]}"


_SLOT = "\x00nonce\x00"  # where the nonce goes; NUL never survives in untrusted text


@dataclass(frozen=True)
class Prompt:
    """The messages for one logbook, rendered once; each request only fills in its nonce."""

    system: str
    user: str
    untrusted: str  # everything fenced, to make sure a nonce never occurs in it

    def messages(self, nonce: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.system.replace(_SLOT, nonce)},
            {"role": "user", "content": self.user.replace(_SLOT, nonce)},
        ]

    def fresh_nonce(self) -> str:
        while True:
            nonce = secrets.token_hex(8)
            if nonce not in self.untrusted:
                return nonce


def build_prompt(case: Case, judgements: list[Judgement], logbook_text: str) -> Prompt:
    """Trusted instructions and findings, then the untrusted texts fenced and cut to budget."""
    rules = {j.claim: j for j in judgements}
    claims = []
    for claim in case.paper.claims:
        j = rules[claim.id]
        claims.append(
            {
                "id": claim.id,
                "statement": claim.statement,
                "anchor": claim.anchor,
                "kind": claim.kind,
                "target": claim.target.model_dump(by_alias=True) if claim.target else None,
                "regime": claim.regime.model_dump(by_alias=True) if claim.regime else None,
                "rules_verdict": j.verdict,
                "rules_flags": j.flags,
                "rules_evidence": j.evidence,
            }
        )
    record = case.record
    untrusted = [
        truncate(logbook_text, BUDGET_LOGBOOK),
        truncate(case.writeup or "(none)", BUDGET_WRITEUP),
        truncate(record.rerun.log_tail if record else "(no re-run)", BUDGET_LOG_TAIL),
    ]
    untrusted = [text.replace("\x00", "") for text in untrusted]
    user = _user_template().render(
        paper=case.paper.paper,
        logbook_id=case.logbook.logbook.id,
        contributor=case.logbook.logbook.contributor.github,
        rerun_status=record.rerun.status if record else "none (numbers are self-reported)",
        claims_json=json.dumps(claims, indent=1, ensure_ascii=False),
        nonce=_SLOT,
        logbook_text=untrusted[0],
        writeup_text=untrusted[1],
        log_tail=untrusted[2],
        claim_ids=", ".join(c.id for c in case.paper.claims),
    )
    system = _prompt(f"v{PROMPT_VERSION}.system.md").replace("{nonce}", _SLOT)
    return Prompt(system, user, "\n".join(untrusted))


_INJECTION = re.compile(
    r"ignore\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier)\s+"
    r"(?:instructions?|prompts?|rules?|messages?)"
    r"|disregard\s+(?:all\s+|the\s+)?(?:previous|prior|above|system|your)"
    r"|(?:system|developer)\s+prompt"
    r"|you\s+are\s+now\b"
    r"|new\s+instructions?\s*:"
    r"|(?:the\s+)?(?:judge|grader|evaluator|assistant)\s+(?:must|should|will)\s+"
    r"(?:answer|output|respond|mark|return|say)"
    r"|\"verdict\"\s*:\s*\""
    r"|<\|im_start\|>|</?system>|\bDATA\s+[0-9a-f]{8,}>>>",
    re.I,
)


def suspected_injection(*texts: str | None) -> bool:
    """Whether untrusted text reads like instructions to the judge."""
    return any(t and _INJECTION.search(t) for t in texts)


# --- votes and merging -----------------------------------------------------------


def majority(votes: Counter[str], samples: int) -> str:
    """The verdict with more than half of the requested samples, else ``inconclusive``."""
    if not votes:
        return "inconclusive"
    verdict, count = votes.most_common(1)[0]
    ranked = [v for v, c in votes.items() if c == count]
    return verdict if count * 2 > samples and len(ranked) == 1 else "inconclusive"


def combine(
    claim: Claim,
    rules: Judgement,
    votes: Counter[str],
    evidence: dict[str, str],
    samples: int,
    *,
    addressed: bool,
    self_assessment: str | None,
    injection: bool,
) -> dict[str, Any]:
    """Merge the rules verdict with the LLM's votes for one claim (pure)."""
    flags = [f for f in rules.flags if f != "self_assessment_disagrees"]
    verdict, text = rules.verdict, rules.evidence
    answered = sum(votes.values())
    if injection:
        flags.append("suspected_injection")
    if addressed and answered == 0:
        flags.append("llm_failed")
        text += "; the LLM judge gave no usable answer, so the rules verdict stands"
    elif addressed:
        said = majority(votes, samples)
        share = f"{votes[said]}/{samples}" if said in votes else f"no majority of {samples}"
        reason = evidence.get(said, "")
        if claim.target is not None:
            if said == rules.verdict:
                text += f"; the LLM judge agrees ({share})"
            else:
                verdict = "inconclusive"
                flags.append("judge_conflict")
                text += f"; the LLM judge says {said} ({share}): {reason}".rstrip(": ")
        else:
            verdict = said
            text = f"LLM judge ({share}): {reason}".rstrip(": ") + (
                f"; rules: {text}" if text else ""
            )
            if "rerun_failed" in flags and verdict == "verified":
                verdict = "inconclusive"
            if "toy_setup" in flags and verdict in ("verified", "falsified"):
                verdict = "toy"
            if injection and verdict == "verified":
                verdict = rules.verdict
                text += "; not verified: the logbook contains text aimed at the judge"
    if self_assessment is not None and self_assessment != verdict:
        flags.append("self_assessment_disagrees")
    return {
        "claim": claim.id,
        "verdict": verdict,
        "evidence": text,
        "flags": sorted(set(flags), key=FLAGS.index),
        "votes": {v: votes.get(v, 0) for v in VERDICTS},
    }


# --- the client ---------------------------------------------------------------------


class LlmJudge:
    """Callable used by ``judge_repo`` in ``llm`` mode: (case, rules) -> (claims, usage)."""

    def __init__(
        self,
        settings: LlmSettings,
        samples: int = 3,
        *,
        max_retries: int = 4,
        timeout: float = 120.0,
        client: Any = None,
    ) -> None:
        if client is None:
            from openai import OpenAI

            client = OpenAI(
                base_url=settings.base_url,
                api_key=settings.api_key or "unused",
                max_retries=max_retries,
                timeout=timeout,
            )
        self.client = client
        self.settings = settings
        self.samples = samples

    def __call__(self, case: Case, judgements: list[Judgement]) -> tuple[list[dict], Usage]:
        claim_ids = [c.id for c in case.paper.claims]
        logbook_path = layout.logbook_rel(case.paper.paper.id, case.logbook.logbook.id)
        logbook_text = case.logbook_text if case.logbook_text is not None else logbook_path
        usage = Usage()
        votes: dict[str, Counter[str]] = {c: Counter() for c in claim_ids}
        evidence: dict[str, dict[str, str]] = {c: {} for c in claim_ids}
        prompt = build_prompt(case, judgements, logbook_text)
        for _ in range(self.samples):
            answer, used = self._sample(prompt, claim_ids)
            usage = Usage(
                requests=usage.requests + used.requests,
                prompt_tokens=usage.prompt_tokens + used.prompt_tokens,
                completion_tokens=usage.completion_tokens + used.completion_tokens,
            )
            for claim_id, (verdict, text) in (answer or {}).items():
                votes[claim_id][verdict] += 1
                evidence[claim_id].setdefault(verdict, text)
        injection = suspected_injection(
            logbook_text, case.writeup, case.record.rerun.log_tail if case.record else None
        )
        rules = {j.claim: j for j in judgements}
        claims = []
        for claim in case.paper.claims:
            result = case.logbook.result(claim.id)
            claims.append(
                combine(
                    claim,
                    rules[claim.id],
                    votes[claim.id],
                    evidence[claim.id],
                    self.samples,
                    addressed=result is not None,
                    self_assessment=result.self_assessment if result else None,
                    injection=injection,
                )
            )
        return claims, usage

    def _sample(
        self, prompt: Prompt, claim_ids: list[str]
    ) -> tuple[dict[str, tuple[str, str]] | None, Usage]:
        """One vote: up to PARSE_ATTEMPTS requests until a reply validates.

        The request goes through the client's generic ``post`` (its documented way
        to call any path) so it keeps the client's retries, backoff and
        ``Retry-After`` handling without re-validating our messages on every call,
        which cost more CPU than the rest of the judge together.
        """
        from openai import OpenAIError

        requests = prompt_tokens = completion_tokens = 0
        answer = None
        for _ in range(PARSE_ATTEMPTS):
            body = {
                "model": self.settings.model,
                "messages": prompt.messages(prompt.fresh_nonce()),
                "response_format": {"type": "json_object"},
                "temperature": 0.7,
            }
            requests += 1
            try:
                raw = self.client.post("/chat/completions", body=body, cast_to=str)
            except OpenAIError:
                break
            try:
                data = json.loads(raw)
                used = data.get("usage") or {}
                prompt_tokens += int(used.get("prompt_tokens") or 0)
                completion_tokens += int(used.get("completion_tokens") or 0)
                content = data["choices"][0]["message"]["content"]
                answer = parse_reply(content, claim_ids)
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                continue  # ReplyError is a ValueError: ask again
            break
        usage = Usage(
            requests=requests, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
        return answer, usage
