"""The data model: paper files, logbooks, verdict files and reviews.

Field names are the contract of ``DESIGN.md``: the YAML keys, the JSON Schema
property names and these attribute names are the same words. Every model
forbids unknown fields (a typo is an error, not a silently dropped value) and
is strict about types (the string ``"2.5"`` is not a number). Enumerations are
``Literal`` types so the JSON Schema lists their values for editors.

Over 400 lines on purpose: the data contract is read in one place, field by field,
with the docstring under each field that the data-file reference is generated from.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from . import layout
from .pointers import SOURCE_PATTERN
from .units import UnitError, parse_unit

Kind = Literal["empirical", "efficiency", "theoretical", "qualitative"]
Form = Literal["at_least", "at_most", "equal", "bounded"]
Setup = Literal["full", "reduced", "synthetic"]
VerdictValue = Literal["verified", "falsified", "toy", "inconclusive"]
JudgeMode = Literal["rules", "llm"]
DecidedBy = Literal["rules", "model"]
RerunStatus = Literal["passed", "failed", "timeout"]
# a run.json may also say the machine could not run it at all: never a result of the logbook
RunStatus = Literal["passed", "failed", "timeout", "host_error"]
ReviewKind = Literal["review", "author_response"]
Stance = Literal["confirm", "reject", "agree", "disagree", "fixed"]
Track = Literal["oral", "spotlight", "poster"]
DraftStatus = Literal["draft", "reviewed"]
Flag = Literal[
    "rerun_mismatch",
    "unit_mismatch",
    "scale_suspect",
    "scale_short",
    "short_horizon",
    "growth_detected",
    "bound_exceeded",
    "toy_setup",
    "self_assessment_disagrees",
    "judge_conflict",
    "llm_disagrees",
    "not_addressed",
    "missing_outputs",
    "rerun_failed",
    "not_rerun",
    "llm_failed",
    "suspected_injection",
    "stale_rerun",
    "hardware_mismatch",
    "judge_error",
]
# Hugging Face Jobs flavors, plus `cpu` for "any machine, no accelerator".
Hardware = Literal[
    "cpu",
    "cpu-basic",
    "cpu-upgrade",
    "t4-small",
    "t4-medium",
    "l4x1",
    "l4x4",
    "l40sx1",
    "l40sx4",
    "l40sx8",
    "a10g-small",
    "a10g-large",
    "a10g-largex2",
    "a10g-largex4",
    "a100-large",
    "a100x4",
    "a100x8",
    "h100",
    "h100x8",
    "h200",
    "h200x8",
]

VERDICTS: tuple[str, ...] = get_args(VerdictValue)
FLAGS: tuple[str, ...] = get_args(Flag)
HARDWARE: tuple[str, ...] = get_args(Hardware)
REVIEW_STANCES = {
    "review": ("confirm", "reject"),
    "author_response": ("agree", "disagree", "fixed"),
}

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
LOGBOOK_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
CLAIM_ID_PATTERN = r"^[A-Za-z][A-Za-z0-9._-]{0,31}$"
SCALE_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,31}$"
GITHUB_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?(?:\[bot\])?$"
_SHA40 = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_DURATION = re.compile(r"(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?")
MAX_TIMEOUT_S = 48 * 3600


def _check_unit(text: str) -> str:
    try:
        parse_unit(text)
    except UnitError as exc:
        raise ValueError(str(exc)) from None
    return text


def _check_url(text: str) -> str:
    if not re.match(r"^https?://[^\s/$.?#][^\s]*$", text):
        raise ValueError(f"{text!r} is not an http(s) URL")
    return text


def _check_sha40(text: str) -> str:
    if not _SHA40.fullmatch(text):
        raise ValueError(
            f"a commit must be the full 40-character lowercase hex SHA, got {text!r} "
            f"({len(text)} characters); `git rev-parse HEAD` prints it"
        )
    return text


def _check_sha256(text: str) -> str:
    if not _SHA256.fullmatch(text):
        raise ValueError("must be a 64-character lowercase hex SHA-256 digest")
    return text


def parse_duration(text: str) -> int:
    """Seconds in a duration such as ``90s``, ``30m``, ``2h`` or ``1h30m``."""
    m = _DURATION.fullmatch(text.strip())
    if not text.strip() or m is None:
        raise ValueError(f"{text!r} is not a duration; write e.g. '90s', '30m', '2h' or '1h30m'")
    return int(m["h"] or 0) * 3600 + int(m["m"] or 0) * 60 + int(m["s"] or 0)


def _check_duration(text: str) -> str:
    seconds = parse_duration(text)
    if not 0 < seconds <= MAX_TIMEOUT_S:
        raise ValueError(f"timeout must be between 1s and {MAX_TIMEOUT_S // 3600}h, got {text!r}")
    return text


def _check_relative(text: str) -> str:
    parts = text.replace("\\", "/").split("/")
    if text.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", text) or ".." in parts:
        raise ValueError(f"{text!r} must be a relative path that stays inside its folder")
    return text


# Bidirectional overrides and isolates reorder what a reader sees (CVE-2021-42574).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_LINE_BREAKS = frozenset("\u2028\u2029")
MAX_ONE_LINE = 1000
# the characters above and Unicode's control characters (category Cc: U+0000-U+001F and
# U+007F-U+009F, fixed by the standard); a test checks this against every code point
_NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(_BIDI | _LINE_BREAKS)) + "]")


def check_one_line(text: str) -> str:
    """Refuse what lets a one-line value break out of its line or hide what it says.

    Titles, anchors, metric names and units are written into YAML comments,
    generated code and page headings; a newline, a control character or a bidi
    override there is an injection, never a title.
    """
    if len(text) > MAX_ONE_LINE:
        raise ValueError(f"must be one line of at most {MAX_ONE_LINE} characters, got {len(text)}")
    found = _NOT_ONE_LINE.search(text)  # one C pass: a conference holds 200,000 such values
    if found:
        raise ValueError(
            f"must be one line of plain text: it holds {found[0]!a} at position "
            f"{found.start()}; remove line breaks, tabs, control characters and "
            "bidirectional overrides"
        )
    return text


# Every number a person types (or a re-run writes) is finite and within this range: a
# measurement of 1e160 is a typo or an attack (it overflows the growth fits), never data.
MAX_NUMBER = 1e15
# Ids that would name a path the site or the layout writes beside them (``layout.py``).
RESERVED_LOGBOOK_IDS = layout.RESERVED_LOGBOOK_IDS
RESERVED_PAPER_IDS = layout.RESERVED_PAPER_IDS


def check_number(value: float) -> float:
    """Refuse NaN, infinities and magnitudes over ``MAX_NUMBER`` (code ``number_out_of_range``)."""
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        raise PydanticCustomError(
            "number_out_of_range",
            "{value} is not a finite number within ±1e15",
            {"value": f"{value:g}".replace("inf", ".inf").replace("nan", ".nan")},
        )
    return value


def _reserved_check(kind: layout.IdKind) -> Any:
    def check(text: str) -> str:
        message = layout.reserved_message(kind, text)
        if message is not None:
            raise PydanticCustomError("reserved_id", "{why}", {"why": message})
        return text

    return AfterValidator(check)


def _parse_time(value: Any) -> Any:
    # JSON Schema users write strings; YAML gives datetimes. Accept both.
    if isinstance(value, str):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


Timestamp = Annotated[datetime, BeforeValidator(_parse_time)]
# One line of plain text; the pattern is for editors, the validator says what is wrong.
_ONE_LINE_PATTERN = (
    "^[^\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]*$"
)
_ONE_LINE_SCHEMA = Field(json_schema_extra={"pattern": _ONE_LINE_PATTERN})
OneLine = Annotated[str, Field(min_length=1), AfterValidator(check_one_line), _ONE_LINE_SCHEMA]
OneLineStr = Annotated[str, AfterValidator(check_one_line), _ONE_LINE_SCHEMA]  # may be empty
Unit = Annotated[OneLineStr, AfterValidator(_check_unit)]
Url = Annotated[str, AfterValidator(_check_url)]
Sha40 = Annotated[str, AfterValidator(_check_sha40)]
Sha256 = Annotated[str, AfterValidator(_check_sha256)]
Duration = Annotated[str, AfterValidator(_check_duration)]
RelPath = Annotated[str, AfterValidator(_check_relative)]
Text = Annotated[str, Field(min_length=1)]
# the reserved ids are in the schema too, so an editor flags them as they are typed
PaperId = Annotated[
    str,
    Field(
        pattern=ID_PATTERN,
        json_schema_extra={"not": {"enum": sorted(RESERVED_PAPER_IDS)}},
    ),
    _reserved_check("paper"),
]
LogbookId = Annotated[
    str,
    Field(
        pattern=LOGBOOK_ID_PATTERN,
        json_schema_extra={"not": {"enum": sorted(RESERVED_LOGBOOK_IDS)}},
    ),
    _reserved_check("logbook"),
]
ClaimId = Annotated[str, Field(pattern=CLAIM_ID_PATTERN)]
ScaleName = Annotated[str, Field(pattern=SCALE_NAME_PATTERN)]
GitHubHandle = Annotated[str, Field(pattern=GITHUB_PATTERN)]
# ints are accepted; strict mode refuses strings and booleans; the range is for editors
Number = Annotated[
    float,
    AfterValidator(check_number),
    Field(json_schema_extra={"minimum": -MAX_NUMBER, "maximum": MAX_NUMBER}),
]
# the sizes of an evaluation (target.scale): {n_test: 20000}, at most four of them
Scales = Annotated[dict[ScaleName, Annotated[Number, Field(gt=0)]], Field(max_length=4)]


class Model(BaseModel):
    """Base: unknown fields are errors, types are strict, values are immutable."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        populate_by_name=True,
        use_attribute_docstrings=True,  # the line under each field is its description
    )


# --- paper file -------------------------------------------------------------


class Links(Model):
    openreview: Url | None = None
    """The paper's OpenReview forum URL."""
    arxiv: OneLineStr | None = Field(None, description='arXiv id, quoted: "2606.01234"')
    pdf: Url | None = None
    """A URL of the paper's PDF."""
    doi: OneLineStr | None = None
    """The paper's DOI, e.g. 10.1234/abcd.5678."""
    project: Url | None = None
    """The paper's project page URL."""


class Author(Model):
    name: OneLine
    """The author's name as printed on the paper."""
    github: GitHubHandle | None = Field(None, description="lets this author answer in PR threads")
    openreview: OneLineStr | None = None
    """The author's OpenReview profile id (e.g. ~Ada_Lovelace1), when the venue lists it."""


class Released(Model):
    code: Url | None = None
    """URL of the code the authors released, if any."""
    data: Url | None = None
    """URL of the data the authors released, if any."""
    checkpoints: Url | None = None
    """URL of the model checkpoints the authors released, if any."""


class Tags(Model):
    area: OneLineStr | None = None
    """Research area, free text: theory, vision, language, ..."""
    spotlight: bool = False
    """A spotlight paper at the venue."""
    oral: bool = False
    """An oral presentation at the venue."""


class PaperMeta(Model):
    id: PaperId
    """The paper's id (its OpenReview id where there is one; not a name the site writes beside
    it, such as index.html); also the file's name."""
    title: OneLine
    """The paper's title."""
    venue: OneLine
    """The venue and year, e.g. ICML 2026."""
    links: Links = Links()
    """Where to read the paper: openreview, arxiv, pdf, doi, project."""
    authors: list[Author] = []
    """The paper's authors; a GitHub handle lets an author answer in PR threads."""
    released: Released = Released()
    """What the authors released: code, data, checkpoints (URLs or null)."""
    tags: Tags = Tags()
    """Labels for the site's filters: area, spotlight, oral."""
    abstract: Text | None = None
    """The paper's abstract, as the venue lists it; agents read it in `reproaudit task`."""
    keywords: list[OneLine] = []
    """The paper's keywords, as the venue lists them."""
    track: Track | None = None
    """How the venue presents the paper: oral, spotlight or poster (from its decision)."""
    license: OneLineStr | None = None
    """The licence the venue publishes the paper's metadata under, e.g. CC BY 4.0."""


class DraftReview(Model):
    status: DraftStatus
    """draft: written by `reproaudit onboard` and not yet checked (the site lists it apart and
    publishes no verdict counts for it); reviewed: a maintainer checked every claim."""
    drafted_by: OneLineStr | None = None
    """What wrote the draft: the tool, model and prompt version."""
    text_sha256: Sha256 | None = None
    """SHA-256 of the paper's text the claims were drafted from (the cached text's name)."""
    inputs_sha256: Sha256 | None = None
    """SHA-256 of everything the draft was made from; unchanged inputs are never drafted
    again."""
    generated_sha256: Sha256 | None = None
    """SHA-256 of the file as generated (this value zeroed); a file whose hash differs was
    edited by a person and is never overwritten."""
    dropped_claims: int | None = Field(None, ge=0)
    """Claims the model proposed whose quote is not in the paper's text, or whose target did
    not validate (units checked with pint); they were left out."""


class Tolerance(Model):
    abs: Number | None = Field(None, ge=0)
    """Absolute tolerance, in the target's unit."""
    rel: Number | None = Field(None, ge=0)
    """Relative tolerance, as a fraction of the target value: 0.05 is 5%."""

    @model_validator(mode="after")
    def _one(self) -> Tolerance:
        if (self.abs is None) == (self.rel is None):
            raise ValueError("give exactly one of 'abs' or 'rel'")
        return self


class Target(Model):
    metric: OneLine
    """Name of the quantity; a logbook's measurements of this claim use the same name."""
    form: Form
    """How a measured value is compared: at_least, at_most, equal (within tolerance), or bounded (a
    sweep shows no growth and stays under value)."""
    value: Number | None = None
    """The number to compare against, in unit; may be null only for bounded."""
    unit: Unit = "dimensionless"
    """A pint unit: s, ms, GB, percent, image / s, dimensionless."""
    per: OneLineStr | None = Field(
        None, description="what a rate or time is per: trajectory, image, batch of 50"
    )
    tolerance: Tolerance | None = None
    """Slack allowed in the comparison: {abs: x} or {rel: fraction}."""
    hardware: Hardware | None = None
    """The hardware the paper measured on (a timing or throughput on one A100: a100-large); a
    re-run on other hardware makes the claim toy at best (hardware_mismatch)."""
    scale: Scales | None = None
    """The size of the evaluation the paper reports, e.g. {n_test: 20000} test points or
    {steps: 100000} training steps; a re-run that measured less (its outputs' `at`) makes the
    claim toy at best (scale_short)."""

    @model_validator(mode="after")
    def _value_needed(self) -> Target:
        if self.form != "bounded" and self.value is None:
            raise ValueError(f"form {self.form!r} needs a numeric 'value' to compare against")
        return self


class Regime(Model):
    parameter: OneLine
    """The parameter the claim ranges over: k, n, steps, batch_size, ..."""
    from_: Number | None = Field(None, alias="from")
    """The smallest value of the parameter the claim covers."""
    to: Number | None = Field(None, description="null: claimed for every value (asymptotic)")


class Claim(Model):
    id: ClaimId
    """The claim's id, unique in the paper: C1, C2, ..."""
    statement: Text
    """The claim, in one checkable sentence."""
    anchor: OneLine = Field(description="section, figure, table or equation the claim comes from")
    kind: Kind
    """empirical, efficiency, theoretical or qualitative."""
    target: Target | None = None
    """The number the claim states; it makes the claim checkable by the rules judge."""
    regime: Regime | None = None
    """The range of a parameter the claim covers; a sweep must reach it."""
    quote: Text | None = None
    """The paper's own words the claim rests on, verbatim (drafts carry one found in the text)."""

    @model_validator(mode="after")
    def _scale_is_not_the_regime(self) -> Claim:
        scale = self.target.scale if self.target else None
        if scale and self.regime is not None and self.regime.parameter in scale:
            raise ValueError(
                f"target.scale names {self.regime.parameter!r}, the regime's parameter: a "
                "regime is a range the evidence must cover, a scale one evaluation size; "
                "keep it in one of them"
            )
        return self


class PaperFile(Model):
    paper: PaperMeta
    """The paper's metadata."""
    claims_version: int = Field(ge=1)
    """Bumped whenever a claim changes meaning; logbooks record the version they used."""
    claims: list[Claim] = []
    """The checkable claims of the paper."""
    review: DraftReview | None = None
    """Whether the claims are a machine draft or a maintainer reviewed them; absent means
    written by hand (reviewed)."""

    def claim(self, claim_id: str) -> Claim | None:
        return next((c for c in self.claims if c.id == claim_id), None)

    @property
    def is_draft(self) -> bool:
        """A machine draft no maintainer has reviewed: no verdict counts are published for it."""
        return self.review is not None and self.review.status == "draft"


# --- logbook ----------------------------------------------------------------


class Contributor(Model):
    github: GitHubHandle
    """Your GitHub handle; each contributor counts once per claim."""
    hf: OneLineStr | None = None
    """Your Hugging Face username, if any."""


class Agent(Model):
    name: OneLine
    """The coding agent used: claude-code, codex, none, ..."""
    version: OneLineStr | None = None
    """The agent's version."""
    model: OneLineStr | None = None
    """The model behind the agent."""
    human_in_loop: bool | None = None
    """Whether a person steered or checked the agent's work."""


class LogbookMeta(Model):
    id: LogbookId
    """The logbook's id (lowercase letters, digits, '.', '_', '-'; not a name the site or the
    layout writes beside it, such as feed.xml or reviews); also the file's name."""
    paper: PaperId
    """The id of the paper reproduced; the logbook lives in logbooks/<paper>/."""
    claims_version: int = Field(ge=1)
    """The paper's claims_version this logbook was written against."""
    contributor: Contributor
    """Who did the work: github (required), hf."""
    agent: Agent | None = None
    """The coding agent used, if any."""
    trace: Url | None = None
    """A URL of the agent's trace or working notes (a Hub dataset, a gist)."""


class Code(Model):
    repo: Url | None = None
    """A git repository URL holding the code (with commit)."""
    commit: Sha40 | None = None
    """The full 40-character commit of repo to run."""
    path: str | None = Field(
        None,
        min_length=1,
        description="relative to logbooks/<paper>/: the logbook's own folder, '<logbook>/'",
    )

    @model_validator(mode="after")
    def _one_source(self) -> Code:
        if self.path is not None:
            if self.repo is not None or self.commit is not None:
                raise ValueError("give either 'path' or 'repo' with 'commit', not both")
        elif self.repo is None or self.commit is None:
            raise ValueError("give 'repo' and 'commit' (a 40-hex SHA), or 'path'")
        return self


class Reproduce(Model):
    command: Text
    """The command that recomputes the numbers; runs in the code folder, without a shell, with no
    network."""
    image: str | None = None
    """The OCI image the command runs in (digest-pinned recommended)."""
    hardware: Hardware = "cpu"
    """What CI runs it on: cpu (also re-run by `check` locally) or a Hugging Face Jobs flavor."""
    timeout: Duration = "1h"
    """Wall-time limit: 90s, 30m, 2h or 1h30m (at most 48h)."""
    outputs: RelPath | None = None
    """The JSON file the command writes, relative to the code folder; source pointers point into
    it."""
    requirements: str | None = None
    """A pip requirements file inside the logbook's own folder, relative to logbooks/<paper>/
    (e.g. <logbook>/requirements.txt); installed in its own phase (with network) before the run,
    with --require-hashes when it pins hashes."""


class Measurement(Model):
    metric: OneLine
    """The quantity measured; compared with the claim target's metric."""
    value: Number | None = None
    """The number you measured; the re-run's number (through source) wins over it."""
    unit: Unit = "dimensionless"
    """A pint unit; converted before comparing. A rate's per goes in per, not here."""
    per: OneLineStr | None = None
    """What a rate or time is per (trajectory, image, batch of 50), as in the claim's target."""
    at: dict[str, Number | str] = {}
    """Where the number was measured: parameter values, e.g. {k: 1024}, and the evaluation's
    scale, e.g. {n_test: 20000}; a value "outputs:<JSON pointer>" is read from the re-run's
    outputs (a scale counts only from there, or from the output object's own at)."""
    source: str | None = Field(
        None,
        pattern=SOURCE_PATTERN,
        description="outputs:<JSON pointer> into reproduce.outputs; the re-run's number there "
        "is the one judged",
    )

    @model_validator(mode="after")
    def _something_to_judge(self) -> Measurement:
        if self.value is None and self.source is None:
            raise ValueError("give a 'value', a 'source' pointer into the re-run outputs, or both")
        for key, value in self.at.items():
            pointer = isinstance(value, str) and value.startswith("outputs:")
            if pointer and not re.match(SOURCE_PATTERN, str(value)):
                raise ValueError(
                    f"at.{key} {value!r} is not an outputs:<JSON pointer>: a pointer starts "
                    "with '/' and writes '~' as ~0, '/' in a key as ~1"
                )
        return self


class Sweep(Model):
    parameter: OneLine
    """The parameter varied, as named in the claim's regime."""
    values: list[Number] | None = None
    """The parameter's values, in increasing order."""
    metric: OneLineStr | None = None
    """The metric measured at each value."""
    measured: list[Number] | None = None
    """The measured metric at each entry of values (the same length)."""
    unit: Unit | None = None
    """The unit of measured."""
    source: str | None = Field(None, pattern=SOURCE_PATTERN)
    """outputs:<JSON pointer> to an object {values: [...], measured: [...]} the re-run wrote."""

    @model_validator(mode="after")
    def _pairs(self) -> Sweep:
        if (self.values is None) != (self.measured is None):
            raise ValueError("give both 'values' and 'measured', or neither (with 'source')")
        if self.values is not None and len(self.values) != len(self.measured or []):
            counts = f"{len(self.values)} entries but 'measured' has {len(self.measured or [])}"
            raise ValueError(f"'values' has {counts}")
        if self.values is None and self.source is None:
            raise ValueError("give 'values' and 'measured', or a 'source' pointer")
        return self


class Falsification(Model):
    argument: Text
    """Why the claim is false: the step of the proof or the experiment that fails."""
    counterexample: str | None = None
    """A concrete counterexample (inputs, parameters, step), where there is one."""


class Discrepancy(Model):
    paper: Text
    """What the paper says, with where it says it."""
    code: Text
    """What the released code does instead, with file and line."""


class Result(Model):
    claim: ClaimId
    """The id of the claim this result addresses."""
    self_assessment: VerdictValue | None = None
    """Your own verdict: shown next to the judge's, never trusted."""
    setup: Setup
    """full, reduced or synthetic; reduced and synthetic setups count as toy at best."""
    measurements: list[Measurement] = []
    """Single numbers, each with its unit and where it comes from."""
    sweep: Sweep | None = None
    """A metric measured across a parameter's range; needed for regimes and bounded claims."""
    falsification: Falsification | None = None
    """The case against the claim: an argument and a counterexample."""
    discrepancies: list[Discrepancy] = []
    """Places where the paper and its code disagree."""
    notes: str | None = None
    """Free text: what you did and what you saw."""


class Logbook(Model):
    logbook: LogbookMeta
    """Who reproduced which paper, against which claims_version."""
    code: Code | None = None
    """Where the code is: {path: '<logbook>/'} beside the logbook, or {repo, commit}. Without it
    nothing is re-run."""
    reproduce: Reproduce | None = None
    """How to re-run the code. Without it nothing is re-run and verdicts rest on typed numbers
    (not_rerun)."""
    results: list[Result]
    """One entry per claim addressed (may be empty)."""

    def result(self, claim_id: str) -> Result | None:
        return next((r for r in self.results if r.claim == claim_id), None)


# --- verdict file -----------------------------------------------------------


class Usage(Model):
    requests: int = Field(0, ge=0)
    """Requests sent to the LLM endpoint."""
    prompt_tokens: int = Field(0, ge=0)
    """Prompt tokens the endpoint counted."""
    completion_tokens: int = Field(0, ge=0)
    """Completion tokens the endpoint counted."""


class JudgeInfo(Model):
    mode: JudgeMode
    """rules (deterministic, offline) or llm (rules first, then the LLM)."""
    model: str | None = None
    """The LLM's name; null in rules mode."""
    prompt_version: int | None = None
    """The version of the judge's prompt; null in rules mode."""
    samples: int = Field(1, ge=1)
    """LLM samples per logbook; the verdict is their majority."""
    rules_version: int | None = Field(None, ge=1)
    """The version of the deterministic rules that judged; null in verdict files written before
    it was recorded (rules version 3 and older)."""
    samples_answered: int | None = Field(None, ge=0)
    """Samples whose reply validated (llm mode); fewer than a quorum: asked again next run."""
    usage: Usage | None = None
    """What the LLM calls cost, when any were made."""
    second_model: str | None = None
    """The second, independently configured endpoint's model (REPROAUDIT_JUDGE2_*) asked on
    model-judged claims; null when none was configured."""


class RerunInfo(Model):
    status: RerunStatus
    """passed, failed or timeout; only a passed re-run can verify."""
    backend: str | None = None
    """Where it ran: local, hf-jobs, ..."""
    url: Url | None = None
    """A link to the run (a job page, a workflow run)."""
    duration_s: Number | None = None
    """Wall time of the run, in seconds."""
    exit_code: int | None = None
    """The command's exit code; null when it never finished."""
    outputs_sha256: Sha256 | None = None
    """SHA-256 of the outputs.json the judge read."""
    run_sha256: Sha256 | None = Field(None, description="hash of run.json, part of the input hash")


class RunEnvironment(Model):
    """What a re-run ran on: the declared image and how it was used, the requirements."""

    image: str | None = None
    """The logbook's reproduce.image, as declared."""
    image_digest: str | None = None
    """sha256:... of the image that ran, when the sandbox knows it (docker, hf-jobs)."""
    image_used: bool
    """false for bwrap and none: the host's read-only system and Python ran the command."""
    python: str | None = None
    """The interpreter's version when the host's Python ran it."""
    requirements: str | None = None
    """The requirements file installed before the run, relative to logbooks/<paper>/."""
    requirements_sha256: Sha256 | None = None
    """SHA-256 of that file's bytes, computed on the host; the judge ignores the record
    (stale_rerun) once it changes."""


class RunLimits(Model):
    """The limits the sandbox enforced on the run."""

    wall_s: int
    """Wall time, in seconds (the logbook's timeout)."""
    processes: int | None = None
    """Most processes (and threads) at once."""
    memory_bytes: int | None = None
    """Memory, in bytes: of the whole run when `memory_scope` is `run`, else the address space of
    each process."""
    memory_scope: Literal["run", "process"] | None = None
    """What `memory_bytes` bounds: `run`, all its processes together (a memory cgroup, or docker's
    `--memory`); `process`, each process's address space (RLIMIT_AS) but not their sum."""
    file_bytes: int | None = None
    """Largest file the run may write, in bytes."""
    writable_bytes: int | None = None
    """Size of the writable space (the work folder, /tmp and /dev/shm together), in bytes."""
    shm_bytes: int | None = None
    """Size of /dev/shm, in bytes (part of `writable_bytes`)."""
    log_bytes: int | None = None
    """Most output kept: the log's tail, in bytes."""


class RunRecord(Model):
    """``reruns/<paper>/<logbook>/run.json``: one re-run, bound to the bytes it ran.

    The one model for writing it (``reproduce``), checking it (``ci store-reruns``) and
    reading it (the judge).
    """

    status: RunStatus
    """passed (exit code 0), failed, or timeout; a failed or timed-out re-run verifies nothing.
    host_error: the machine could not run the command at all (no usable /dev/null, an
    interpreter it will not exec, a sandbox that cannot start), so nothing of the logbook
    ran: the logbook is not at fault, `ci store-reruns` never stores it, the judge reads it as
    no re-run, and it never replaces a record already there."""
    host_error: OneLine | None = None
    """With status host_error, and only then: what failed on the machine (which path, which open
    or exec, and why)."""
    exit_code: int | None = None
    """The command's exit code; null when it never finished (timeout, could not start)."""
    duration_s: Number = Field(ge=0)
    """Wall time of the run, in seconds."""
    backend: str
    """Where it ran: local or hf-jobs."""
    sandbox: str
    """What isolated it: bwrap, docker, hf-jobs, or none (never in CI)."""
    url: Url | None = None
    """A link to the run (a Hugging Face job page), when there is one."""
    log_tail: str = ""
    """The last part of the command's output, then reproaudit's own notes (which limit was hit)."""
    logbook_sha256: Sha256
    """SHA-256 of the logbook file's bytes that were re-run; the judge ignores the record
    (stale_rerun) once the logbook changes."""
    writeup_sha256: Sha256 | None = None
    """SHA-256 of the write-up (<logbook>.md) beside the logbook when it ran; null when there
    was none. Computed on the host; the judge ignores the record (stale_rerun) once it changes."""
    code_sha256: Sha256 | None = None
    """SHA-256 of the code tree that ran: each file's path, mode (100644 or 100755) and the
    SHA-256 of its bytes, sorted by path; for code: {repo, commit}, of the repository and
    commit. Computed on the host, never inside the sandbox."""
    outputs_sha256: Sha256 | None = None
    """SHA-256 of outputs.json beside it; null when the run wrote none. The judge ignores a
    record whose outputs.json does not match."""
    environment: RunEnvironment
    """The image and requirements the run used."""
    limits: RunLimits
    """The limits the sandbox enforced."""
    reproaudit_version: str
    """The reproaudit version that ran it."""

    @model_validator(mode="after")
    def _host_error_says_what(self) -> RunRecord:
        if (self.status == "host_error") != (self.host_error is not None):
            raise ValueError("host_error (what failed on the machine) goes with status host_error")
        return self


class Votes(Model):
    verified: int = Field(0, ge=0)
    """LLM samples that answered verified."""
    falsified: int = Field(0, ge=0)
    """LLM samples that answered falsified."""
    toy: int = Field(0, ge=0)
    """LLM samples that answered toy."""
    inconclusive: int = Field(0, ge=0)
    """LLM samples that answered inconclusive."""


class Span(Model):
    from_: Number | None = Field(None, alias="from")
    """The smallest value; null (or absent): no lower end."""
    to: Number | None = None
    """The largest value; null (or absent): no upper end, claimed for every value."""


class RegimeScope(Model):
    parameter: OneLine
    """The regime's parameter (k, n, tokens_per_expert, ...)."""
    tested: Span
    """The smallest and largest value of the parameter a judged number was measured at."""
    claimed: Span
    """The claim's regime: from and to as the paper file states them."""


class ScaleScope(Model):
    tested: Number | None = None
    """The smallest scale a judged number was measured at, as the re-run's outputs say it;
    null: they do not say (scale_short)."""
    claimed: Number
    """The scale the claim states (target.scale)."""


class Scope(Model):
    """How far the evidence reached, beside what the claim says (rules version 4)."""

    regime: RegimeScope | None = None
    """The regime's range: tested and claimed."""
    scale: dict[ScaleName, ScaleScope] | None = None
    """Per scale the target names: the scale tested and the scale claimed."""

    def written(self) -> dict[str, Any]:
        """As a verdict file holds it: an absent part left out, a range's open end null."""
        out = self.model_dump(by_alias=True)
        return {k: v for k, v in out.items() if v is not None}


class Opinion(Model):
    """A model's answer on one claim, where it is not the published verdict."""

    model: str | None = None
    """The model that answered."""
    verdict: VerdictValue | None = None
    """Its majority over the samples that answered; null when it gave none (no quorum, an
    outage, text aimed at the judge)."""
    reason: str | None = None
    """Its evidence, in its own words (untrusted: shown, never acted on)."""


class ClaimVerdict(Model):
    claim: ClaimId
    """The claim's id."""
    verdict: VerdictValue
    """verified, falsified, toy or inconclusive."""
    evidence: str | None = None
    """What the verdict rests on, in a sentence or two."""
    flags: list[Flag] = []
    """What the deterministic checks found (rerun_mismatch, short_horizon, ...)."""
    votes: Votes | None = None
    """LLM samples per verdict (llm mode)."""
    # --- how far the evidence reached (rules version 4, issue 28) ---
    scope: Scope | None = None
    """What the rules' evidence covered beside what the claim says: the range of the regime's
    parameter the measurements were placed at, and the evaluation's scale; null when the claim
    has no regime and no target.scale, or no number was judged."""
    within_tested_range: bool | None = None
    """true on a verified whose claim reaches beyond the range tested (no upper end, or starting
    below the first point): it held for scope.regime.tested, not for every value claimed; the
    site says "verified, within the tested range". null otherwise."""

    @model_validator(mode="after")
    def _within_needs_scope(self) -> ClaimVerdict:
        if self.within_tested_range and (self.verdict != "verified" or not self.scope):
            raise ValueError("within_tested_range qualifies a verified with a scope")
        return self

    # --- who decided (issue 28) ---
    decided_by: DecidedBy | None = None
    """rules: the deterministic layer decided (every claim with a target, whatever the LLM
    said: its disagreement is the flag llm_disagrees, never a change); model: the LLM alone
    did (a claim without a target). A model-judged verified, falsified or toy is shown as
    such and does not count as re-run-verified (or falsified) until second_opinion agrees
    or a maintainer confirms it. Absent in files of judges before prompt version 4: read as
    model for an llm-mode verified, falsified or toy on a claim without a target."""
    llm_opinion: Opinion | None = None
    """With llm_disagrees: what the LLM answered on a claim the rules decided, and why."""
    second_opinion: Opinion | None = None
    """On a claim the model decided: the second, independently configured endpoint's answer.
    The same verdict confirms it; another decisive one makes the claim inconclusive +
    judge_conflict."""
    log_failures: list[str] | None = None
    """Lines of the passed re-run's log that report a failure of this claim (a claim without a
    target), as the rules found them: shown to the model inside its data fences and to readers,
    never obeyed."""


class VerdictFile(Model):
    paper: PaperId
    """The paper's id."""
    logbook: LogbookId
    """The logbook's id."""
    input_sha256: Sha256
    """SHA-256 over every input (paper, logbook, write-up, re-run, judge settings); an unchanged
    hash is never judged again."""
    judge: JudgeInfo
    """How it was judged: mode, model, prompt_version, samples."""
    judged_at: Timestamp
    """When it was judged (UTC)."""
    rerun: RerunInfo | None = None
    """The re-run the verdict rests on; null when there was none."""
    claims: list[ClaimVerdict] = []
    """One verdict per claim of the paper."""


# --- reviews.yaml -----------------------------------------------------------


class Review(Model):
    claim: ClaimId
    """The claim reviewed."""
    logbook: LogbookId
    """The logbook whose verdict is reviewed."""
    kind: ReviewKind
    """review (a maintainer's) or author_response (a paper author's)."""
    stance: Stance
    """review: confirm or reject; author_response: agree, disagree or fixed."""
    by: GitHubHandle
    """GitHub handle of who wrote it."""
    at: Timestamp
    """When it was written (UTC)."""
    link: Url | None = None
    """The PR comment it came from."""
    text: str | None = None
    """What they wrote."""

    @model_validator(mode="after")
    def _stance_fits_kind(self) -> Review:
        allowed = REVIEW_STANCES[self.kind]
        if self.stance not in allowed:
            raise ValueError(
                f"a {self.kind} takes stance {' or '.join(allowed)}, not {self.stance!r}"
            )
        return self


class ReviewsFile(Model):
    reviews: list[Review] = []
    """Append-only list of reviews and author responses."""


# --- mentions.yaml -----------------------------------------------------------


class Mention(Model):
    author: GitHubHandle
    """The paper author the bot mentioned (their handle in the paper file)."""
    at: Timestamp
    """When (UTC): the next mention of this author about this paper waits a week from it."""
    pr: int = Field(ge=1)
    """The pull request whose comment mentioned them."""
    logbook: LogbookId
    """The logbook whose re-run-backed verdict falsified their claim."""
    claims: list[ClaimId] = Field(min_length=1)
    """The claims that verdict falsified."""


class MentionsFile(Model):
    mentions: list[Mention] = []
    """Append-only ledger of the bot's mentions of the paper's authors, one entry per author
    mentioned, written by the bot through `ci push mentions`."""


# --- re-run record: <reruns>/<paper>/<logbook>/run.json ----------------------


SCHEMAS: dict[str, type[Model]] = {
    "paper": PaperFile,
    "logbook": Logbook,
    "verdict": VerdictFile,
    "reviews": ReviewsFile,
    "mentions": MentionsFile,
}


def json_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schema (draft 2020-12) of each file kind, for editors and other tools."""
    out = {}
    for name, model in SCHEMAS.items():
        schema = model.model_json_schema(by_alias=True)
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://reproaudit.dev/schemas/{name}.schema.json",
            **schema,
        }
        schema["title"] = f"reproaudit {name} file"
        out[name] = schema
    return out


def field_names() -> set[str]:
    """Every field name in the model, for 'did you mean' hints."""
    names: set[str] = set()
    seen: set[type] = set()

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            names.add(info.alias or name)
            for sub in _models_in(info.annotation):
                walk(sub)

    for model in SCHEMAS.values():
        walk(model)
    return names


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]
