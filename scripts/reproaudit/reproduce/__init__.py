"""``reproaudit reproduce``: re-run a logbook's command and write its re-run record.

The record (``<out>/<paper>/<logbook>/run.json`` and ``outputs.json``) is what
``reproaudit judge --reruns <out>`` reads, so verdicts rest on what the re-run
produced rather than on what the logbook says about itself. Two backends:
``local`` runs here (a CI runner, a GPU box, a laptop); ``hf-jobs`` launches a
Hugging Face Job with no token in it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import layout
from ..problems import ReproauditError
from .hfjobs import FLAVORS, RUNNER, JobsApi, run_hf_jobs
from .local import run_local
from .record import RunRecord, describe_record, write_record
from .spec import RunSpec, load_spec

BACKENDS = ("local", "hf-jobs")

__all__ = [
    "BACKENDS",
    "FLAVORS",
    "RUNNER",
    "RunRecord",
    "RunSpec",
    "describe_record",
    "load_spec",
    "reproduce_logbook",
]


def reproduce_logbook(
    repo: Path,
    logbook_path: str | Path,
    *,
    backend: str = "local",
    out: Path,
    clone_url: str | None = None,
    api: JobsApi | None = None,
    namespace: str | None = None,
    source_repo_url: str | None = None,
    source_sha: str | None = None,
    poll_s: float = 5.0,
    max_wait_s: float | None = None,
) -> RunRecord:
    """Re-run one logbook and write its record under ``out``; return what was written.

    ``clone_url`` (local backend) fetches a ``code: {repo, commit}`` logbook from
    elsewhere (a mirror; a local repository in tests), still at the pinned
    commit. ``api`` (hf-jobs) is an ``HfApi`` or a stand-in; by default
    ``HfApi()`` with the caller's own login, which never reaches the job.
    ``source_repo_url``/``source_sha`` tell a job where to fetch a ``code.path``
    logbook: the audit repository and the approved pull-request head.
    A run that fails or times out is still a record (status says so); only a
    logbook that cannot be run at all raises ``ReproauditError``.
    """
    if backend not in BACKENDS:
        raise ReproauditError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    spec = load_spec(Path(repo), logbook_path)
    if backend == "local":
        record, outputs, log = run_local(Path(repo), spec, clone_url=clone_url)
    else:
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi()
        record, outputs, log = run_hf_jobs(
            spec,
            api=api,
            namespace=namespace,
            source_repo_url=source_repo_url,
            source_sha=source_sha,
            poll_s=poll_s,
            max_wait_s=max_wait_s,
        )
    # which logbook bytes were re-run: the judge ignores the record once the logbook changes
    logbook_file = Path(repo) / layout.logbook_rel(spec.paper, spec.logbook)
    digest = hashlib.sha256(logbook_file.read_bytes()).hexdigest()
    return write_record(Path(out), spec.paper, spec.logbook, record, outputs, log, digest)
