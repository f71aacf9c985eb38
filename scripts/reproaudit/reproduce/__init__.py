"""``reproaudit reproduce``: re-run a logbook's command and write its re-run record.

The record (``<out>/<paper>/<logbook>/run.json`` and ``outputs.json``) is what
``reproaudit judge --reruns <out>`` reads, so verdicts rest on what the re-run
produced rather than on what the logbook says about itself. Two backends:
``local`` runs here inside a sandbox (``bwrap``, ``docker``, or ``none`` when
asked for on one's own machine); ``hf-jobs`` launches a Hugging Face Job with
no token in it. Every record is bound to the logbook bytes, the write-up, the
code tree, the requirements and the outputs it ran (sha256, the inputs hashed
here on the host before the run, never inside the sandbox), and says which
environment, sandbox and limits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from .. import problems as P
from ..errors import InputError, ReproauditError
from ..fsutil import refuse_non_folder
from ..loader import load_model
from ..models import Logbook, RunEnvironment, RunLimits, RunRecord
from ..problems import Problem
from ..rerun_inputs import InputHashes, current_inputs, read_inputs
from .bundle import RUNNER
from .hfjobs import DEFAULT_IMAGE, FLAVORS, JobsApi, run_hf_jobs
from .local import host_python, run_local
from .record import WrittenRecord, describe_record, tail_of, write_record
from .sandbox import SANDBOXES, Limits, choose_sandbox
from .spec import RunSpec, load_logbook, load_spec

if TYPE_CHECKING:
    from ..repo import Corpus

BACKENDS = ("local", "hf-jobs")

__all__ = [
    "BACKENDS",
    "FLAVORS",
    "RUNNER",
    "SANDBOXES",
    "Limits",
    "RunSpec",
    "WrittenRecord",
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
    sandbox: str | None = None,
    limits: Limits | None = None,
    clone_url: str | None = None,
    api: JobsApi | None = None,
    namespace: str | None = None,
    source_repo_url: str | None = None,
    source_sha: str | None = None,
    poll_s: float = 5.0,
    max_wait_s: float | None = None,
    here: Path | None = None,
    corpus: Corpus | None = None,
) -> WrittenRecord:
    """Re-run one logbook and write its record under ``out``; return what was written.

    ``sandbox`` (local backend): ``bwrap``, ``docker`` or ``none``; by default the
    safest available for the logbook's hardware (``sandbox.choose_sandbox``).
    ``limits`` default to ``Limits(wall_s=<the logbook's timeout>)``.
    ``clone_url`` (local backend) fetches a ``code: {repo, commit}`` logbook from
    elsewhere (a mirror; a local repository in tests), still at the pinned
    commit. ``api`` (hf-jobs) is an ``HfApi`` or a stand-in; by default
    ``HfApi()`` with the caller's own login, which never reaches the job.
    ``source_repo_url``/``source_sha`` tell a job where to fetch a ``code.path``
    logbook: the audit repository and the approved pull-request head.
    A run that fails or times out is still a record (status says so), and so is one
    this machine could not run at all (``host_error``, never written over a record
    already there: ``record.write_record``); only a
    logbook that cannot be run at all raises ``ReproauditError``. ``here`` is the folder
    a relative ``logbook_path`` was typed in (the CLI's working folder). ``corpus``: the
    command's one ``Corpus`` of ``repo`` (``check --rerun``): the logbook, write-up and
    code tree it read and hashed are used, not read again.
    """
    if backend not in BACKENDS:
        raise ReproauditError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    spec = load_spec(Path(repo), logbook_path, here, corpus)
    inputs = bind_inputs(Path(repo), spec, corpus)  # before anything runs, on this host
    refuse_non_folder(out)  # a file or device there is refused before the run, not after it
    limits = limits or Limits(wall_s=spec.timeout_s)
    image = spec.reproduce.image
    if backend == "local":
        chosen = choose_sandbox(sandbox, spec.reproduce.hardware)
        run = run_local(Path(repo), spec, sandbox=chosen, limits=limits, clone_url=clone_url)
        outcome, outputs, log, req_sha = run.outcome, run.outputs, run.log, run.requirements_sha256
        used = chosen == "docker"
        environment = RunEnvironment(
            image=(image or DEFAULT_IMAGE) if used else image,
            image_digest=(run.image_digest or _digest(image)) if used else None,
            image_used=used,
            python=None if used else host_python(),
            requirements=spec.reproduce.requirements,
            requirements_sha256=req_sha or inputs.requirements_sha256,  # as installed
        )
        run_limits = RunLimits(**(run.limits or limits).as_record(), memory_scope=run.memory_scope)
    else:
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi()
        outcome, outputs, log, req_sha = run_hf_jobs(
            Path(repo),
            spec,
            api=api,
            namespace=namespace,
            source_repo_url=source_repo_url,
            source_sha=source_sha,
            poll_s=poll_s,
            max_wait_s=max_wait_s,
        )
        environment = RunEnvironment(
            image=image or DEFAULT_IMAGE,
            image_digest=_digest(image),
            image_used=True,
            requirements=spec.reproduce.requirements,
            requirements_sha256=req_sha or inputs.requirements_sha256,  # as installed
        )
        run_limits = RunLimits(wall_s=spec.timeout_s)
    # which bytes were re-run: the judge ignores the record once any of them changes
    record = RunRecord(
        status=outcome.status,
        host_error=outcome.host_error,
        exit_code=outcome.exit_code,
        duration_s=round(outcome.duration_s, 3),
        backend=outcome.backend,
        sandbox=outcome.sandbox,
        url=outcome.url,
        log_tail=tail_of(log),
        logbook_sha256=inputs.logbook_sha256 or "",  # read_inputs read the file: never None
        writeup_sha256=inputs.writeup_sha256,
        code_sha256=inputs.code_sha256,
        outputs_sha256=hashlib.sha256(outputs).hexdigest() if outputs is not None else None,
        environment=environment,
        limits=run_limits,
        reproaudit_version=__version__,
    )
    return write_record(Path(out), spec.paper, spec.logbook, record, outputs, log)


def bind_inputs(repo: Path, spec: RunSpec, corpus: Corpus | None = None) -> InputHashes:
    """The hashes of the logbook, write-up, code tree and requirements, taken on the host
    (from ``corpus``'s one read when given: the hashes the judge then compares).

    A code tree that cannot be hashed (a link, a device) cannot be bound, so it is not run.
    """
    if corpus is not None:
        book = load_logbook(repo, spec.rel, corpus)
        path = corpus.by_rel[spec.rel]  # load_logbook found it there
        inputs = current_inputs(corpus, spec.paper, spec.logbook, book, corpus.load(path).raw)
    else:
        book = load_model(Path(repo) / spec.rel, Logbook, spec.rel)
        inputs = read_inputs(Path(repo), spec.paper, spec.logbook, book)
    if inputs.refused:
        raise InputError(
            Problem(
                P.PATH_NOT_ALLOWED,
                spec.rel,
                None,
                "code.path",
                f"not re-run: {inputs.refused}",
                "keep only regular files in the logbook's folder (no links, devices or FIFOs)",
            )
        )
    return inputs


def _digest(image: str | None) -> str | None:
    """The ``sha256:...`` an image reference is pinned to, or None for a tag."""
    if image and "@sha256:" in image:
        return "sha256:" + image.split("@sha256:", 1)[1]
    return None
