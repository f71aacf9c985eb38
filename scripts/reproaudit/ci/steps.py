"""Small workflow steps that read a file handed over by an earlier job, then call the library."""

from __future__ import annotations

from pathlib import Path

from ..errors import ArtifactError
from ..report.artifact import Artifact, load_artifact
from .events import read_json
from .github import GitHub
from .pending import PENDING_BRANCH, PendingPush, pending_records, pending_review, push_pending
from .push import PushResult, apply_verdicts, push_change


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


KINDS = ("review", "reruns", "verdicts")


def push_from(
    kind: str,
    source: Path,
    repo_dir: Path,
    message: str,
    *,
    remote: str = "origin",
    branch: str = "main",
    repo_name: str | None = None,
    fallback_branch: str | None = None,
    run_id: str = "local",
    pr: int | None = None,
    pending_branch: str | None = None,
) -> PushResult | PendingPush | None:
    """``ci push KIND --from SOURCE``: commit that change (see ``push_change``).

    verdicts: SOURCE is a folder of them, committed to ``branch``. review: SOURCE is
    the outcome JSON of ``ci command`` (None when it records nothing); reruns: a
    folder of them. Those two go to the pending branch under their pull request
    (the outcome's ``pr``, or ``pr``), never straight to ``branch``; then
    ``pending.promote`` moves on what ``branch`` may take now (``ci/pending.py``).
    What ``branch`` refuses goes to ``fallback_branch`` and a pull request in
    ``repo_name``.
    """
    open_pull = None
    github = None
    if repo_name:
        from .github import GitHub

        github = GitHub.from_env()

        def open_pull(head: str, title: str, body: str) -> str:
            assert github is not None
            return github.create_pull(repo_name, title, head, branch, body)

    fallback = fallback_branch or f"reproaudit/{kind}-{run_id}"
    if kind == "verdicts":
        return push_change(
            repo_dir,
            apply_verdicts(source),
            message,
            remote=remote,
            branch=branch,
            fallback_branch=fallback,
            open_pull=open_pull,
        )
    if kind == "review":
        outcome = read_json(source)
        record = outcome.get("record") if isinstance(outcome, dict) else None
        if not (isinstance(outcome, dict) and outcome.get("allowed") and record):
            return None
        if not (isinstance(record, dict) and isinstance(record.get("paper"), str)):
            raise ArtifactError(source, "record: not a review with its paper")
        number = outcome.get("pr")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ArtifactError(source, "pr: not the number of the pull request it came from")
        apply = pending_review(record, number)
    elif kind == "reruns":
        if pr is None:
            raise ValueError("re-run records go under their pull request: give its number")
        number, apply = pr, pending_records(source, pr)
    else:
        raise ValueError(f"unknown kind {kind!r}; one of {KINDS}")
    return push_pending(
        apply,
        number,
        repo_dir,
        message,
        github=github,
        repo_name=repo_name,
        remote=remote,
        branch=branch,
        pending_branch=pending_branch or PENDING_BRANCH,
        fallback_branch=fallback,
        open_pull=open_pull,
    )
