"""The result artifact of a pull request: its strict schema, and the report's items.

``ci validate-pr`` runs the pull request's code with no secrets and writes one
JSON artifact; ``ci report`` runs the base branch's code and reads it back as
untrusted data (``load_artifact``: strict schema, sizes capped, PR number and
head SHA checked against the trusted event). Its problems and verdicts are the
items a ``Report`` shows, whether they came from a pull request or from
``reproaudit check`` on a contributor's machine (which has no artifact file).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ArtifactError
from ..models import FLAGS, VerdictFile
from ..problems import Problem

SCHEMA = "reproaudit-pr-result/1"
ARTIFACT = "the result artifact"
MAX_BYTES = 5_000_000
Short = Annotated[str, Field(max_length=2000)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ArtifactProblem(_Strict):
    code: Annotated[str, Field(max_length=64)]
    path: Short
    line: int | None = None
    field: Short | None = None
    message: Short
    hint: Short | None = None
    severity: Literal["error", "warning"]

    @classmethod
    def of(cls, problem: Problem) -> ArtifactProblem:
        """A library ``Problem`` as the artifact and the report carry it."""
        return cls(**asdict(problem))


class ArtifactClaim(_Strict):
    claim: Annotated[str, Field(max_length=40)]
    verdict: Literal["verified", "falsified", "toy", "inconclusive"]
    flags: Annotated[list[Literal[FLAGS]], Field(max_length=len(FLAGS))] = []  # type: ignore[valid-type]
    evidence: Short = ""


Numbers = Literal["ci_rerun", "local_rerun", "self_reported"]


class ArtifactVerdict(_Strict):
    paper: Annotated[str, Field(max_length=64)]
    logbook: Annotated[str, Field(max_length=64)]
    claims: Annotated[list[ArtifactClaim], Field(max_length=200)]
    # where the judged numbers came from; anything but CI's re-run is pending
    numbers: Numbers = "self_reported"


class Artifact(_Strict):
    schema_: Literal["reproaudit-pr-result/1"] = Field(alias="schema")
    pr: int = Field(gt=0)
    head_sha: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
    files: Annotated[list[Short], Field(max_length=5000)]
    outside: Annotated[list[Short], Field(max_length=5000)]
    problems: Annotated[list[ArtifactProblem], Field(max_length=1000)]
    verdicts: Annotated[list[ArtifactVerdict], Field(max_length=200)]

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    @property
    def ok(self) -> bool:
        return not self.outside and not any(p.severity == "error" for p in self.problems)


def artifact_verdict(verdict: VerdictFile, numbers: str | None = None) -> dict[str, Any]:
    """A verdict file as the artifact carries it (evidence capped).

    ``numbers`` says where the judged numbers came from; by default a verdict with
    a passed re-run rests on CI's re-run, any other on self-reported numbers.
    """
    if numbers is None:
        passed = verdict.rerun is not None and verdict.rerun.status == "passed"
        numbers = "ci_rerun" if passed else "self_reported"
    return {
        "paper": verdict.paper,
        "logbook": verdict.logbook,
        "numbers": numbers,
        "claims": [
            {
                "claim": c.claim,
                "verdict": c.verdict,
                "flags": list(c.flags),
                "evidence": (c.evidence or "")[:2000],
            }
            for c in verdict.claims
        ],
    }


def load_artifact(raw: bytes, *, pr: int, head_sha: str) -> Artifact:
    """Parse an artifact as untrusted data and check it belongs to this PR and commit."""
    if len(raw) > MAX_BYTES:
        raise ArtifactError(ARTIFACT, "over 5 MB; refusing it")
    try:
        artifact = Artifact.model_validate(json.loads(raw))
    except (ValueError, ValidationError) as exc:
        raise ArtifactError(ARTIFACT, f"not valid: {str(exc)[:500]}") from None
    if artifact.pr != pr:
        raise ArtifactError(ARTIFACT, f"pr: artifact is for PR {artifact.pr}, not {pr}")
    if artifact.head_sha != head_sha:
        raise ArtifactError(
            ARTIFACT,
            f"head_sha: artifact is for commit {artifact.head_sha[:12]}, "
            f"not the run's {head_sha[:12]}",
        )
    return artifact
