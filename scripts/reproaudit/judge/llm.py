"""The LLM layer: any OpenAI-compatible endpoint, asked in JSON mode.

For each logbook, in order:

1. the untrusted text (logbook, write-up, re-run log tail) goes through the
   local intent detector (``injection.py``); if it fires, the endpoint is not
   asked at all;
2. a screening request (``screen.v1.system.md``) shows the endpoint only the
   untrusted text and asks whether it holds instructions to the judge; ``true``
   has the same effect as the local detector once the same endpoint answers a
   canary (``canary.py``: a logbook of the corpus, disguised) ``false``; a screen
   that flags the canaries, or more than half of a run's logbooks, is an
   endpoint fault: the logbook is ``llm_failed`` (asked again) and the run stops;
3. ``samples`` judging requests; each reply is validated locally and votes per
   claim; the majority is over the samples that answered, and fewer answers
   than a quorum (more than half of the samples asked) is ``llm_failed``;
4. with a second endpoint configured (``REPROAUDIT_JUDGE2_*``, another host),
   the same steps on it when the first decided a claim alone: it agrees
   (``second_opinion``, and the claim counts), or not (``judge_conflict``).

Untrusted text enters prompts only between fences carrying a random
per-request nonce, cut to a budget with an explicit marker. ``merge_llm``
turns the votes into a proposal and ``finalize`` applies the rules every
verdict obeys (toy cap, re-run requirement, injection rule, who decided). For a
claim with a target the rules verdict is the verdict, whatever the LLM says:
its disagreement is the flag ``llm_disagrees`` with its answer beside it
(``llm_opinion``). A claim without a target is the LLM's to decide, and its
verdict says so (``decided_by: model``). Transport (time, bytes, retries,
circuit breaker) is ``endpoint.py``'s.

Over 400 lines because the request order above, the reply schemas and the vote are one
protocol; the transport is ``endpoint.py`` and the injection detector ``injection.py``.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
from pydantic import BaseModel, ConfigDict, ValidationError

from .. import layout
from ..boundedjson import JsonError, loads
from ..errors import UsageError
from ..llm.endpoint import Answer, Endpoint
from ..llm.halt import Halt
from ..llm.settings import LlmSettings, truncate
from ..models import FLAGS, VERDICTS, Claim, ClaimVerdict, Opinion, Usage, VerdictValue, Votes
from ..repo import Corpus
from .canary import Canary, CorpusSamples, Sample
from .cases import RulesJudge, claim_facts, judge_config, rules_proposals
from .finalize import DECIDED, ClaimFacts, finalize
from .injection import detect_intent
from .settings import resolve_mode
from .types import Case, CaseResult

PROMPT_VERSION = 4  # 4: the rules decide targeted claims; model-judged; re-run log failures
SCREEN_PROMPT_VERSION = 1
BUDGET_LOGBOOK = 24_000  # characters of untrusted text per block
BUDGET_WRITEUP = 16_000
BUDGET_LOG_TAIL = 4_000
BUDGET_SCREEN = 40_000
PARSE_ATTEMPTS = 3  # requests per sample when replies do not parse
MAX_REPLY_CHARS = 256 * 1024  # a judging or screening reply's content


class JudgeSetupError(UsageError):
    """A judge that cannot be built from the options and environment given."""


def make_judge(
    mode: str, settings: LlmSettings | None = None, samples: int = 3, **endpoint_kw: Any
) -> RulesJudge | LlmJudge:
    """The judge for ``mode`` (rules | llm | auto): auto is llm when an endpoint is set."""
    settings = settings or LlmSettings.from_env()
    try:
        mode = resolve_mode(mode, settings)
    except UsageError as exc:
        raise JudgeSetupError(str(exc)) from None
    if mode == "rules":
        return RulesJudge()
    second = endpoint_kw.pop("second", None) or LlmSettings.second_from_env()
    return LlmJudge(settings, samples, second=second if second.configured else None, **endpoint_kw)


# --- the reply schemas ----------------------------------------------------------


class _ReplyClaim(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    claim: str
    verdict: VerdictValue
    evidence: str = ""


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    claims: list[_ReplyClaim]


class _ScreenReply(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    instructions_found: bool
    evidence: str


class ReplyError(ValueError):
    """A reply that is not the JSON object the prompt asks for."""


def _json_body(text: str | None) -> Any:
    if not text:
        raise ReplyError("empty reply")
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.S)
    if fenced:
        body = fenced.group(1)
    try:
        return loads(body, max_chars=MAX_REPLY_CHARS)
    except JsonError as exc:  # not JSON, or nested or long enough to hurt the parser
        raise ReplyError(f"reply is not JSON: {str(exc)[:200]}") from None


def parse_reply(text: str | None, claim_ids: list[str]) -> dict[str, tuple[VerdictValue, str]]:
    """Validate a reply; return claim -> (verdict, evidence) for the claims asked about."""
    try:
        reply = _Reply.model_validate(_json_body(text))
    except ValidationError as exc:
        raise ReplyError(f"reply is not valid judge JSON: {str(exc)[:200]}") from None
    out: dict[str, tuple[VerdictValue, str]] = {}
    for item in reply.claims:
        if item.claim in claim_ids and item.claim not in out:
            out[item.claim] = (item.verdict, item.evidence.strip()[:1000])
    if not out:
        raise ReplyError("reply names none of the claims asked about")
    return out


def parse_screen(text: str | None) -> tuple[bool, str]:
    """Validate a screening reply: (instructions_found, evidence)."""
    try:
        reply = _ScreenReply.model_validate(_json_body(text))
    except ValidationError as exc:
        raise ReplyError(f"reply is not valid screening JSON: {str(exc)[:200]}") from None
    return reply.instructions_found, reply.evidence.strip()[:300]


# --- prompts ------------------------------------------------------------------


@cache
def _prompt(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", name).read_text(encoding="utf-8")


@cache
def _user_template() -> jinja2.Template:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    return env.from_string(_prompt(f"v{PROMPT_VERSION}.user.md.j2"))


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


def untrusted_texts(case: Case) -> tuple[str, str | None, str | None]:
    """The logbook's raw YAML, its write-up and the re-run's log tail: all untrusted."""
    logbook_path = layout.logbook_rel(case.paper.paper.id, case.logbook.logbook.id)
    logbook_text = case.logbook_text if case.logbook_text is not None else logbook_path
    return logbook_text, case.writeup, case.record.rerun.log_tail if case.record else None


def field_text(case: Case) -> str:
    """Every string of the parsed logbook, keys included, one per line, with the raw lines
    that may hold comments: YAML escapes (``\\n``, ``\\u200b``) resolved, so the detector
    reads what the model will."""

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                yield str(key)
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)
        elif isinstance(node, str):
            yield node

    strings = walk(case.logbook.model_dump(mode="json", exclude_none=True))
    raw = case.logbook_text or ""
    comments = [line for line in raw.splitlines() if "#" in line]  # YAML comments are not data
    return "\n".join([*strings, *comments])


def build_screen(texts: tuple[str | None, ...]) -> Prompt:
    """The screening request: its own prompt, and nothing but the untrusted text."""
    joined = "\n\n".join(t for t in texts if t).replace("\x00", "")
    untrusted = truncate(joined, BUDGET_SCREEN)
    system = _prompt(f"screen.v{SCREEN_PROMPT_VERSION}.system.md").replace("{nonce}", _SLOT)
    user = f"<<<TEXT {_SLOT}\n{untrusted}\nTEXT {_SLOT}>>>"
    return Prompt(system, user, untrusted)


_QUOTED = re.compile(r"«[^«»]*»")


def fence_quotes(evidence: str, quoted: list[str]) -> str:
    """The rules' evidence with every contributor string (``points.quote``'s «...») replaced
    by ``«logbook string N»``; the strings go to ``quoted``, for a data fence."""

    def swap(match: re.Match[str]) -> str:
        text = match.group(0)[1:-1]
        if text not in quoted:
            quoted.append(text)
        return f"«logbook string {quoted.index(text) + 1}»"

    return _QUOTED.sub(swap, evidence)


def build_prompt(case: Case, judgements: list[ClaimVerdict], logbook_text: str) -> Prompt:
    """Trusted instructions and findings, then the untrusted texts fenced and cut to budget.

    The trusted part holds only the paper file's text, enumerations and numbers: the
    strings the contributor typed that the findings quote are fenced with the rest of
    the logbook, and the logbook's id and contributor are read from its YAML.
    """
    rules = {j.claim: j for j in judgements}
    quoted: list[str] = []
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
                "rules_flags": list(j.flags),
                "rules_evidence": fence_quotes(j.evidence or "", quoted),
            }
        )
    record = case.record
    listed = "\n".join(f"[{n}] {text}" for n, text in enumerate(quoted, 1)) or "(none)"
    untrusted = [
        truncate(listed, BUDGET_LOG_TAIL),
        truncate(logbook_text, BUDGET_LOGBOOK),
        truncate(case.writeup or "(none)", BUDGET_WRITEUP),
        truncate(record.rerun.log_tail if record else "(no re-run)", BUDGET_LOG_TAIL),
    ]
    untrusted = [text.replace("\x00", "") for text in untrusted]
    user = _user_template().render(
        paper=case.paper.paper,
        rerun_status=_rerun_status(case),
        claims_json=json.dumps(claims, indent=1, ensure_ascii=False),
        nonce=_SLOT,
        quoted_text=untrusted[0],
        logbook_text=untrusted[1],
        writeup_text=untrusted[2],
        log_tail=untrusted[3],
        claim_ids=", ".join(c.id for c in case.paper.claims),
    )
    system = _prompt(f"v{PROMPT_VERSION}.system.md").replace("{nonce}", _SLOT)
    return Prompt(system, user, "\n".join(untrusted))


def _rerun_status(case: Case) -> str:
    """The re-run as the prompt's trusted header states it (fixed words only)."""
    record = case.record
    if record is None:
        return "none (numbers are self-reported)"
    if record.rerun.stale:
        return f"{record.rerun.status}, but of other bytes than these (stale: ignored)"
    return record.rerun.status


# --- votes and merging -----------------------------------------------------------


def quorum(samples: int) -> int:
    """Answers needed before the LLM's votes count: more than half of those asked."""
    return samples // 2 + 1


def majority(votes: Counter[VerdictValue]) -> VerdictValue:
    """The verdict with more than half of the answers given, else ``inconclusive``."""
    answered = sum(votes.values())
    if not answered:
        return "inconclusive"
    verdict, count = votes.most_common(1)[0]
    return verdict if count * 2 > answered else "inconclusive"


def merge_llm(
    claim: Claim,
    proposal: ClaimVerdict,
    rules_verdict: str,
    votes: Counter[VerdictValue],
    evidence: dict[str, str],
    samples: int,
    failure: str | None = None,
    model: str | None = None,
) -> tuple[ClaimVerdict, bool]:
    """One claim's proposal from the rules' and the LLM's (pure); True when the LLM decided.

    ``proposal`` is the rules' proposal before ``finalize``, ``rules_verdict`` what
    it finalizes to (what the LLM was shown). On a claim with a target the rules'
    verdict stands: an LLM majority for another verdict is ``llm_disagrees``, its
    answer kept in ``llm_opinion`` and the evidence, never a change of verdict.
    """
    flags = list(proposal.flags)
    verdict, text = proposal.verdict, proposal.evidence or ""
    answered = sum(votes.values())
    counts: dict[str, int] = {v: n for v, n in votes.items()}
    counted = Votes(**{v: counts.get(v, 0) for v in VERDICTS})
    decided = False
    opinion = None
    if answered < quorum(samples):
        flags.append("llm_failed")
        why = f"; last error: {failure}" if failure else ""
        text += (
            f"; the LLM judge answered {answered} of {samples} samples (a quorum is "
            f"{quorum(samples)}{why}), so the rules verdict stands"
        )
    else:
        said = majority(votes)
        share = f"{votes[said]}/{answered}" if said in votes else f"no majority of {answered}"
        reason = evidence.get(said, "")
        if claim.target is not None:
            if said == rules_verdict:
                text += f"; the LLM judge agrees ({share})"
            elif votes[said] * 2 > answered:
                flags.append("llm_disagrees")
                opinion = Opinion(model=model, verdict=said, reason=reason or None)
                text += (
                    f"; the LLM judge says {said} ({share}), but a claim with a target is "
                    "decided by the rules on the re-run's numbers: their verdict stands"
                )
            else:
                text += f"; the LLM judge reached {share}: the rules verdict stands"
        else:
            verdict, decided = said, True
            text = f"LLM judge ({share}): {reason}".rstrip(": ") + (
                f"; rules: {text}" if text else ""
            )
    # a copy of the rules' proposal: what the LLM does not decide (the scope) travels on
    out = proposal.model_copy(
        update={
            "verdict": verdict,
            "evidence": text,
            "flags": flags,
            "votes": counted,
            "llm_opinion": opinion,
        }
    )
    return out, decided


def second_opinion(first: ClaimVerdict, second: ClaimVerdict | None, model: str) -> ClaimVerdict:
    """A model-judged verdict with a second endpoint's answer on the same claim (pure).

    The same verdict, decided by the second model too, confirms it (``second_opinion``;
    the fold counts it). Another decisive verdict makes it ``inconclusive`` +
    ``judge_conflict``. An inconclusive, an outage (``llm_failed``: asked again next
    run) or a suspected injection leaves it model-judged and unconfirmed.
    """
    if first.decided_by != "model" or first.verdict not in DECIDED:
        return first
    flags = list(first.flags)
    evidence = first.evidence or ""
    if second is None or second.decided_by != "model":
        why = "gave no verdict of its own"
        if second is not None and "llm_failed" in second.flags:
            why = "did not answer (asked again next run)"
            flags.append("llm_failed")
        elif second is not None and "suspected_injection" in second.flags:
            why = "found text aimed at the judge in the logbook"
        evidence += f"; the second model ({model}) {why}: not confirmed"
        opinion = Opinion(model=model, verdict=None, reason=why)
        return first.model_copy(
            update={
                "flags": sorted(set(flags), key=FLAGS.index),
                "evidence": evidence,
                "second_opinion": opinion,
            }
        )
    opinion = Opinion(model=model, verdict=second.verdict, reason=(second.evidence or "")[:300])
    verdict = first.verdict
    if second.verdict == first.verdict:
        evidence += f"; a second, independently configured model ({model}) agrees"
    elif second.verdict in DECIDED:
        evidence = (
            f"two models disagree: the first said {first.verdict} ({evidence}); the second "
            f"({model}) says {second.verdict}: a person should look"
        )
        verdict = "inconclusive"
        flags.append("judge_conflict")
    else:
        evidence += f"; the second model ({model}) finds it inconclusive: not confirmed"
    return first.model_copy(
        update={
            "verdict": verdict,
            "flags": sorted(set(flags), key=FLAGS.index),
            "evidence": evidence,
            "second_opinion": opinion,
        }
    )


# --- the judge ----------------------------------------------------------------------


class LlmJudge:
    """The ``llm`` judge: rules first, then the endpoint, then ``finalize``."""

    mode = "llm"

    def __init__(
        self,
        settings: LlmSettings,
        samples: int = 3,
        *,
        max_retries: int = 4,
        timeout: float = 120.0,
        breaker_threshold: int = 5,
        max_bytes: int | None = None,
        max_wait: float | None = None,
        backoff: float = 0.5,
        second: LlmSettings | None = None,
    ) -> None:
        if settings.base_url is None:
            raise JudgeSetupError("the LLM judge needs a base URL (REPROAUDIT_JUDGE_BASE_URL)")
        self.second: LlmJudge | None = None
        if second is not None:
            if not independent(settings, second):
                raise JudgeSetupError(
                    "the second endpoint (REPROAUDIT_JUDGE2_BASE_URL) must be configured "
                    "independently of the first: another host, not "
                    f"{_host(settings.base_url)}"
                )
            self.second = LlmJudge(
                second,
                samples,
                max_retries=max_retries,
                timeout=timeout,
                breaker_threshold=breaker_threshold,
                max_bytes=max_bytes,
                max_wait=max_wait,
                backoff=backoff,
            )
        extra: dict[str, Any] = {}
        if max_bytes is not None:
            extra["max_bytes"] = max_bytes
        if max_wait is not None:
            extra["max_wait"] = max_wait
        self.endpoint = Endpoint(
            settings.base_url,
            settings.api_key,
            timeout=timeout,
            max_retries=max_retries,
            breaker_threshold=breaker_threshold,
            backoff=backoff,
            **extra,
        )
        self.settings = settings
        self.samples = samples
        self.canary = Canary()

    def config(self) -> dict[str, Any]:
        second = self.second.settings.model if self.second is not None else None
        return judge_config("llm", self.settings.model, PROMPT_VERSION, self.samples, second)

    def bind_corpus(self, corpus: Corpus, reruns: Path | None) -> None:
        """Draw canaries from this corpus's logbooks (``judge_corpus`` calls it)."""
        self.canary.sources = CorpusSamples(corpus, reruns)
        if self.second is not None:
            self.second.bind_corpus(corpus, reruns)

    @property
    def down(self) -> str | None:
        """Why the endpoint is of no use for the rest of the run: its circuit breaker is
        open, or its screen is faulty (``canary.py``). The second endpoint's faults only
        leave model-judged claims unconfirmed."""
        return self.endpoint.down or self.canary.fault

    def judge_case(self, case: Case, halt: Halt) -> CaseResult:
        proposals = rules_proposals(case)
        facts = claim_facts(case)
        finals = [finalize(p, facts[p.claim]) for p in proposals]
        addressed = [c for c in case.paper.claims if facts[c.id].result is not None]
        if not addressed:  # nothing for the LLM to read
            return CaseResult(finals, Usage(), None)
        texts = untrusted_texts(case)
        findings = [f for t in (field_text(case), *texts[1:]) for f in detect_intent(t)]
        usage = Usage()
        if findings:
            note = "intent detector: " + "; ".join(str(f) for f in findings[:3])
            return self._ignored(case, proposals, facts, note, usage, None)
        screen, answer = self._screen(texts, halt)
        usage = _add(usage, answer)
        if screen is None:
            failure = answer.error or "the screening reply did not validate"
            return self._failed(case, proposals, facts, finals, failure, usage)
        key = (case.paper.paper.id, case.logbook.logbook.id)
        fault = self.canary.note(key, texts, screen[0])
        if fault is not None:
            return self._failed(case, proposals, facts, finals, fault, usage)
        if screen[0]:
            honest, costs = self.canary.confirm(
                time.monotonic(), key, lambda sample: self._ask_canary(sample, halt)
            )
            for cost in costs:
                usage = _add(usage, cost)
            if honest:
                note = f"screening request: {screen[1] or 'instructions found'}"
                return self._ignored(case, proposals, facts, note, usage, None)
            last = costs[-1].error if costs else None
            failure = self.canary.fault or (
                "the screening request flagged this logbook, and the flag could not be "
                f"checked against a known-clean text ({last or 'no answer'})"
            )
            return self._failed(case, proposals, facts, finals, failure, usage)
        claim_ids = [c.id for c in case.paper.claims]
        votes: dict[str, Counter[VerdictValue]] = {c: Counter() for c in claim_ids}
        evidence: dict[str, dict[str, str]] = {c: {} for c in claim_ids}
        prompt = build_prompt(case, finals, texts[0])
        answered = 0
        last_error: str | None = None
        for _ in range(self.samples):
            reply, used, error = self._sample(prompt, claim_ids, halt)
            usage = _add(usage, used)
            if reply is None:
                last_error = error
                continue
            answered += 1
            for claim_id, (verdict, text) in reply.items():
                votes[claim_id][verdict] += 1
                evidence[claim_id].setdefault(verdict, text)
        by_id = {f.claim: f for f in finals}
        claims = []
        for claim, proposal in zip(case.paper.claims, proposals, strict=True):
            if facts[claim.id].result is None:
                claims.append(by_id[claim.id])
                continue
            merged, decided = merge_llm(
                claim,
                proposal,
                by_id[claim.id].verdict,
                votes[claim.id],
                evidence[claim.id],
                self.samples,
                last_error,
                self.settings.model,
            )
            claims.append(finalize(merged, facts[claim.id], rules=proposal, llm_decided=decided))
        if self.second is not None and any(
            c.decided_by == "model" and c.verdict in DECIDED for c in claims
        ):
            other = self.second.judge_case(case, halt)
            usage = _add_usage(usage, other.usage)
            theirs = {c.claim: c for c in other.claims}
            model = self.second.settings.model
            claims = [second_opinion(c, theirs.get(c.claim), model) for c in claims]
        return CaseResult(claims, usage, answered)

    def _ignored(
        self,
        case: Case,
        proposals: list[ClaimVerdict],
        facts: dict[str, ClaimFacts],
        note: str,
        usage: Usage,
        answered: int | None,
    ) -> CaseResult:
        """Suspected injection: the rules' verdicts stand, the LLM's words count for nothing."""
        claims = []
        for p in proposals:
            f = facts[p.claim]
            if f.result is not None:
                why = f"suspected injection ({note}): the LLM judge is ignored for this logbook"
                p = p.model_copy(update={"evidence": f"{p.evidence}; {why}".lstrip("; ")})
            claims.append(finalize(p, replace(f, injection=True)))
        return CaseResult(claims, usage, answered)

    def _failed(
        self,
        case: Case,
        proposals: list[ClaimVerdict],
        facts: dict[str, ClaimFacts],
        finals: list[ClaimVerdict],
        failure: str,
        usage: Usage,
    ) -> CaseResult:
        """No screening answer: the LLM's votes cannot be trusted, so none are asked for."""
        claims = []
        for claim, proposal, final in zip(case.paper.claims, proposals, finals, strict=True):
            if facts[claim.id].result is None:
                claims.append(final)
                continue
            merged, _ = merge_llm(
                claim, proposal, final.verdict, Counter(), {}, self.samples, failure
            )
            claims.append(finalize(merged, facts[claim.id]))
        return CaseResult(claims, usage, 0)

    def _body(self, prompt: Prompt, temperature: float) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "messages": prompt.messages(prompt.fresh_nonce()),
            "response_format": {"type": "json_object"},
            "temperature": temperature,
        }

    def _screen(
        self, texts: tuple[str | None, ...], halt: Halt
    ) -> tuple[tuple[bool, str] | None, Answer]:
        """The screening request, re-asked when its reply does not validate."""
        prompt = build_screen(texts)
        total = Answer(None, 0)
        for _ in range(PARSE_ATTEMPTS):
            answer = self.endpoint.complete(self._body(prompt, 0.0), halt)
            total = _sum_answers(total, answer)
            if answer.transport:
                return None, total
            try:
                return parse_screen(answer.content), total
            except ReplyError as exc:
                total = _sum_answers(total, Answer(None, 0, error=answer.error or str(exc)))
        return None, total

    def _ask_canary(self, sample: Sample, halt: Halt) -> tuple[bool | None, Answer]:
        """Screen a canary, as any logbook is screened: True if flagged, None without an
        answer."""
        screen, answer = self._screen(sample, halt)
        return (screen[0] if screen is not None else None), answer

    def _sample(
        self, prompt: Prompt, claim_ids: list[str], halt: Halt
    ) -> tuple[dict[str, tuple[VerdictValue, str]] | None, Answer, str | None]:
        """One vote: up to PARSE_ATTEMPTS requests until a reply validates."""
        total = Answer(None, 0)
        error = None
        for _ in range(PARSE_ATTEMPTS):
            answer = self.endpoint.complete(self._body(prompt, 0.7), halt)
            total = _sum_answers(total, answer)
            if answer.transport:
                return None, total, answer.error
            try:
                return parse_reply(answer.content, claim_ids), total, None
            except ReplyError as exc:
                error = answer.error or str(exc)
        return None, total, error


def _sum_answers(a: Answer, b: Answer) -> Answer:
    return Answer(
        b.content,
        a.attempts + b.attempts,
        a.prompt_tokens + b.prompt_tokens,
        a.completion_tokens + b.completion_tokens,
        b.error,
        b.transport,
    )


def independent(first: LlmSettings, second: LlmSettings) -> bool:
    """Whether a second endpoint is configured apart from the first: another host (and
    port), so that one compromised service does not answer both."""
    return _host(first.base_url) != _host(second.base_url)


def _host(url: str | None) -> str:
    return urlsplit(url or "").netloc.lower()


def _add_usage(usage: Usage, more: Usage | None) -> Usage:
    if more is None:
        return usage
    return Usage(
        requests=usage.requests + more.requests,
        prompt_tokens=usage.prompt_tokens + more.prompt_tokens,
        completion_tokens=usage.completion_tokens + more.completion_tokens,
    )


def _add(usage: Usage, answer: Answer) -> Usage:
    return Usage(
        requests=usage.requests + answer.attempts,
        prompt_tokens=usage.prompt_tokens + answer.prompt_tokens,
        completion_tokens=usage.completion_tokens + answer.completion_tokens,
    )
