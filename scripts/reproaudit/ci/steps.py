"""Small workflow steps that read a file handed over by an earlier job, then call the library."""

from __future__ import annotations

from pathlib import Path

from ..errors import ArtifactError
from ..report.artifact import Artifact, load_artifact
from .events import read_json
from .github import GitHub


def load_artifact_file(path: Path, pr: int, sha: str) -> Artifact:
    """The result artifact in ``path``, checked as untrusted data against the PR and commit."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ArtifactError(path, f"cannot read it: {exc.strerror}") from None
    return load_artifact(raw, pr=pr, head_sha=sha)


def dispatch_for(outcome: Path, payload: Path, ref: str, default_backend: str = "local") -> str:
    """``ci dispatch``: start reproduce.yml for the approved command of ``outcome``."""
    from .commands import parse_event
    from .flow import dispatch_run, read_outcome

    try:
        event = parse_event(read_json(payload))
    except ArtifactError as exc:
        raise exc.at(payload) from None
    return dispatch_run(
        GitHub.from_env(),
        event.repo,
        ref,
        read_outcome(outcome),
        event.number,
        default_backend=default_backend,
    )
