"""The data model: paper files, logbooks, verdict files and reviews.

Field names are the contract of ``DESIGN.md``: the YAML keys, the JSON Schema
property names and these attribute names are the same words. Every model
forbids unknown fields (a typo is an error, not a silently dropped value) and
is strict about types (the string ``"2.5"`` is not a number). Enumerations are
``Literal`` types so the JSON Schema lists their values for editors.
"""

from __future__ import annotations

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

from .units import UnitError, parse_unit

Kind = Literal["empirical", "efficiency", "theoretical", "qualitative"]
Form = Literal["at_least", "at_most", "equal", "bounded"]
Setup = Literal["full", "reduced", "synthetic"]
VerdictValue = Literal["verified", "falsified", "toy", "inconclusive"]
JudgeMode = Literal["rules", "llm"]
RerunStatus = Literal["passed", "failed", "timeout"]
ReviewKind = Literal["review", "author_response"]
Stance = Literal["confirm", "reject", "agree", "disagree", "fixed"]
Flag = Literal[
    "rerun_mismatch",
    "unit_mismatch",
    "short_horizon",
    "growth_detected",
    "toy_setup",
    "self_assessment_disagrees",
    "judge_conflict",
    "not_addressed",
    "missing_outputs",
    "rerun_failed",
    "not_rerun",
    "llm_failed",
    "suspected_injection",
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

KINDS: tuple[str, ...] = get_args(Kind)
FORMS: tuple[str, ...] = get_args(Form)
SETUPS: tuple[str, ...] = get_args(Setup)
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


def _parse_time(value: Any) -> Any:
    # JSON Schema users write strings; YAML gives datetimes. Accept both.
    if isinstance(value, str):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


Timestamp = Annotated[datetime, BeforeValidator(_parse_time)]
Unit = Annotated[str, AfterValidator(_check_unit)]
Url = Annotated[str, AfterValidator(_check_url)]
Sha40 = Annotated[str, AfterValidator(_check_sha40)]
Sha256 = Annotated[str, AfterValidator(_check_sha256)]
Duration = Annotated[str, AfterValidator(_check_duration)]
RelPath = Annotated[str, AfterValidator(_check_relative)]
Text = Annotated[str, Field(min_length=1)]
PaperId = Annotated[str, Field(pattern=ID_PATTERN)]
LogbookId = Annotated[str, Field(pattern=LOGBOOK_ID_PATTERN)]
ClaimId = Annotated[str, Field(pattern=CLAIM_ID_PATTERN)]
GitHubHandle = Annotated[str, Field(pattern=GITHUB_PATTERN)]
Number = float  # ints are accepted; strict mode refuses strings and booleans


class Model(BaseModel):
    """Base: unknown fields are errors, types are strict, values are immutable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)


# --- paper file -------------------------------------------------------------


class Links(Model):
    openreview: Url | None = None
    arxiv: str | None = Field(None, description='arXiv id, quoted: "2606.01234"')
    pdf: Url | None = None
    doi: str | None = None
    project: Url | None = None


class Author(Model):
    name: Text
    github: GitHubHandle | None = Field(None, description="lets this author answer in PR threads")


class Released(Model):
    code: Url | None = None
    data: Url | None = None
    checkpoints: Url | None = None


class Tags(Model):
    area: str | None = None
    spotlight: bool = False
    oral: bool = False


class PaperMeta(Model):
    id: PaperId
    title: Text
    venue: Text
    links: Links = Links()
    authors: list[Author] = []
    released: Released = Released()
    tags: Tags = Tags()


class Tolerance(Model):
    abs: Number | None = Field(None, ge=0)
    rel: Number | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one(self) -> Tolerance:
        if (self.abs is None) == (self.rel is None):
            raise ValueError("give exactly one of 'abs' or 'rel'")
        return self


class Target(Model):
    metric: Text
    form: Form
    value: Number | None = None
    unit: Unit = "dimensionless"
    per: str | None = Field(
        None, description="what a rate or time is per: trajectory, image, batch of 50"
    )
    tolerance: Tolerance | None = None

    @model_validator(mode="after")
    def _value_needed(self) -> Target:
        if self.form != "bounded" and self.value is None:
            raise ValueError(f"form {self.form!r} needs a numeric 'value' to compare against")
        return self


class Regime(Model):
    parameter: Text
    from_: Number | None = Field(None, alias="from")
    to: Number | None = Field(None, description="null: claimed for every value (asymptotic)")


class Claim(Model):
    id: ClaimId
    statement: Text
    anchor: Text = Field(description="section, figure, table or equation the claim comes from")
    kind: Kind
    target: Target | None = None
    regime: Regime | None = None


class PaperFile(Model):
    paper: PaperMeta
    claims_version: int = Field(ge=1)
    claims: list[Claim] = []

    def claim(self, claim_id: str) -> Claim | None:
        return next((c for c in self.claims if c.id == claim_id), None)


# --- logbook ----------------------------------------------------------------


class Contributor(Model):
    github: GitHubHandle
    hf: str | None = None


class Agent(Model):
    name: Text
    version: str | None = None
    model: str | None = None
    human_in_loop: bool | None = None


class LogbookMeta(Model):
    id: LogbookId
    paper: PaperId
    claims_version: int = Field(ge=1)
    contributor: Contributor
    agent: Agent | None = None
    trace: Url | None = None


class Code(Model):
    repo: Url | None = None
    commit: Sha40 | None = None
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
    image: str | None = None
    hardware: Hardware = "cpu"
    timeout: Duration = "1h"
    outputs: RelPath | None = None


class Measurement(Model):
    metric: Text
    value: Number | None = None
    unit: Unit = "dimensionless"
    per: str | None = None
    at: dict[str, Number | str] = {}
    source: str | None = Field(
        None, pattern=r"^outputs:(/.*)?$", description="outputs:<JSON pointer>"
    )

    @model_validator(mode="after")
    def _something_to_judge(self) -> Measurement:
        if self.value is None and self.source is None:
            raise ValueError("give a 'value', a 'source' pointer into the re-run outputs, or both")
        return self


class Sweep(Model):
    parameter: Text
    values: list[Number] | None = None
    metric: str | None = None
    measured: list[Number] | None = None
    unit: Unit | None = None
    source: str | None = Field(None, pattern=r"^outputs:(/.*)?$")

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
    counterexample: str | None = None


class Discrepancy(Model):
    paper: Text
    code: Text


class Result(Model):
    claim: ClaimId
    self_assessment: VerdictValue | None = None
    setup: Setup
    measurements: list[Measurement] = []
    sweep: Sweep | None = None
    falsification: Falsification | None = None
    discrepancies: list[Discrepancy] = []
    notes: str | None = None


class Logbook(Model):
    logbook: LogbookMeta
    code: Code | None = None
    reproduce: Reproduce | None = None
    results: list[Result]

    def result(self, claim_id: str) -> Result | None:
        return next((r for r in self.results if r.claim == claim_id), None)


# --- verdict file -----------------------------------------------------------


class Usage(Model):
    requests: int = Field(0, ge=0)
    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)


class JudgeInfo(Model):
    mode: JudgeMode
    model: str | None = None
    prompt_version: int | None = None
    samples: int = Field(1, ge=1)
    samples_answered: int | None = Field(
        None, ge=0, description="samples whose reply validated; fewer than a quorum: re-judged"
    )
    usage: Usage | None = None


class RerunInfo(Model):
    status: RerunStatus
    backend: str | None = None
    url: Url | None = None
    duration_s: Number | None = None
    exit_code: int | None = None
    outputs_sha256: Sha256 | None = None
    run_sha256: Sha256 | None = Field(None, description="hash of run.json, part of the input hash")


class Votes(Model):
    verified: int = Field(0, ge=0)
    falsified: int = Field(0, ge=0)
    toy: int = Field(0, ge=0)
    inconclusive: int = Field(0, ge=0)


class ClaimVerdict(Model):
    claim: ClaimId
    verdict: VerdictValue
    evidence: str | None = None
    flags: list[Flag] = []
    votes: Votes | None = None


class VerdictFile(Model):
    paper: PaperId
    logbook: LogbookId
    input_sha256: Sha256
    judge: JudgeInfo
    judged_at: Timestamp
    rerun: RerunInfo | None = None
    claims: list[ClaimVerdict] = []


# --- reviews.yaml -----------------------------------------------------------


class Review(Model):
    claim: ClaimId
    logbook: LogbookId
    kind: ReviewKind
    stance: Stance
    by: GitHubHandle
    at: Timestamp
    link: Url | None = None
    text: str | None = None

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


SCHEMAS: dict[str, type[Model]] = {
    "paper": PaperFile,
    "logbook": Logbook,
    "verdict": VerdictFile,
    "reviews": ReviewsFile,
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
