"""The hf-jobs backend: run the re-run as a Hugging Face Job and read the result from its logs.

The job is handed no token, no secrets and no environment. It runs a fixed
program (``runner.py``, passed as ``python3 -c RUNNER``) whose arguments are
the clone URL, the exact commit, the folder to run in and the command's argv:
the logbook's command never becomes a shell string, and the job fetches the
code itself, anonymously. The runner prints the outputs file between lines
carrying a per-run nonce; the caller waits for a terminal stage (polling with
backoff, for a bounded time), reads the logs once, and writes the record.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from .. import layout
from .. import problems as P
from ..autorerun import CPU_FLAVOUR
from ..errors import EndpointError, InputError
from ..models import HARDWARE
from ..problems import Problem
from .bundle import RUNNER
from .docker import DEFAULT_IMAGE
from .markers import MARK, JobLog, read_job_log
from .record import RunOutcome, Status, log_text
from .spec import RunSpec, requirements_bytes, requirements_file, requirements_refused
from .wheels import HINT, RequirementRefused, read_requirements

__all__ = ["DEFAULT_IMAGE", "MARK", "RUNNER", "read_job_log", "run_hf_jobs"]

SETUP_GRACE_S = 600  # job timeout = command timeout + time to fetch the code
QUEUE_WAIT_S = 3600  # how long a job may sit in SCHEDULING before we give up
MAX_POLL_S = 60.0
MAX_API_ERRORS = 5
TERMINAL_STAGES = ("COMPLETED", "CANCELED", "ERROR", "DELETED")
_SHA40 = re.compile(r"[0-9a-f]{40}")

# The logbook's `hardware` -> the Jobs flavor launched. Anything else is refused: `cpu`
# means the smallest CPU flavor, and the H100 names the schema allows are not Jobs flavors.
NOT_JOBS_FLAVORS = ("cpu", "h100", "h100x8")
FLAVORS: dict[str, str] = {
    "cpu": CPU_FLAVOUR,
    **{name: name for name in HARDWARE if name not in NOT_JOBS_FLAVORS},
}


class JobsApi(Protocol):
    """The part of ``huggingface_hub.HfApi`` this backend calls (a stand-in fits too)."""

    def run_job(
        self,
        *,
        image: str,
        command: list[str],
        env: dict[str, Any] | None = ...,
        flavor: str | None = ...,
        timeout: int | float | str | None = ...,
        namespace: str | None = ...,
        labels: dict[str, str] | None = ...,
    ) -> Any: ...
    def inspect_job(self, *, job_id: str, namespace: str | None = ...) -> Any: ...
    def fetch_job_logs(self, *, job_id: str, namespace: str | None = ...) -> Iterable[str]: ...
    def cancel_job(self, *, job_id: str, namespace: str | None = ...) -> None: ...
    def whoami(self) -> dict[str, Any]: ...


def flavor_for(spec: RunSpec) -> str:
    flavor = FLAVORS.get(spec.reproduce.hardware)
    if flavor is None:
        raise InputError(
            Problem(
                P.HARDWARE_NOT_ALLOWED,
                spec.rel,
                None,
                "reproduce.hardware",
                f"{spec.reproduce.hardware!r} is not on reproaudit's list of Jobs flavors",
                f"use one of: {', '.join(FLAVORS)}; or re-run with --backend local",
            )
        )
    return flavor


def archive_url(repo_url: str, sha: str) -> str:
    """The commit's tar.gz for GitHub repositories (for images without git), else ''."""
    m = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", repo_url)
    return f"https://github.com/{m[1]}/{m[2]}/archive/{sha}.tar.gz" if m else ""


def job_source(
    spec: RunSpec, source_repo_url: str | None, source_sha: str | None
) -> tuple[str, str, str, str]:
    """(clone URL, commit, jail folder, working folder) the runner is told to use."""
    if spec.code.path is None:
        return spec.code.repo or "", spec.code.commit or "", "", ""
    if (
        not source_repo_url
        or source_repo_url.startswith("-")
        or not source_sha
        or not _SHA40.fullmatch(source_sha)
    ):
        raise InputError(
            Problem(
                P.SOURCE_NOT_PINNED,
                spec.rel,
                None,
                "code.path",
                "the code is in the audit repository: the job needs its URL and the exact "
                f"commit to fetch (got {source_repo_url!r} at {source_sha!r})",
                "pass source_repo_url and source_sha (the approved head SHA, 40 hex)",
            )
        )
    jail = layout.code_rel(spec.paper, spec.logbook)
    return source_repo_url, source_sha, jail, spec.code_subdir or jail


def job_command(
    spec: RunSpec,
    url: str,
    sha: str,
    jail: str,
    subdir: str,
    requirements: str = "",
) -> list[str]:
    """The job's argument list: the fixed runner, then every value as its own argument.

    ``requirements`` (the text of the logbook's requirements file, read strictly by
    ``checked_requirements``) is installed by the runner before the command, wheels
    only: Jobs cannot cut the network between the two.
    """
    return [
        "python3",
        "-c",
        RUNNER,
        *(["--requirements", requirements] if requirements else []),
        "env",  # the nonce is in the job's environment, never in its argv
        url,
        sha,
        archive_url(url, sha),
        jail,
        subdir,
        spec.reproduce.outputs or "",
        str(spec.timeout_s),
        "--",
        *spec.argv,
    ]


def checked_requirements(spec: RunSpec, req: Path, data: bytes) -> None:
    """Refuse, before launching, a requirements file the local backend would refuse
    (``wheels.read_requirements``: pinned ``==`` lines, no index, URL, path or ``-e``):
    the job installs it with the job's network, wheels only."""
    source = str(spec.reproduce.requirements)
    try:
        read_requirements(data.decode("utf-8", errors="replace"), source, req.parent)
    except RequirementRefused as exc:
        raise requirements_refused(spec, f"not launched: {exc}", HINT) from None


def final_status(
    stage: str, message: str | None, runner: dict[str, Any] | None
) -> tuple[Status, int | None, str | None]:
    """Map the job's last stage and the runner's status line to passed/failed/timeout."""
    said = runner.get("status") if runner else None
    code = runner.get("exit_code") if runner else None
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    if said in ("failed", "timeout"):
        return said, code, None
    if said == "passed" and stage == "COMPLETED":
        return "passed", code, None
    if "timeout" in (message or "").lower() or "timed out" in (message or "").lower():
        return "timeout", None, f"the job ended {stage}: {message}"
    why = f"the job ended {stage}" + (f": {message}" if message else "")
    if said is None:
        why += "; the runner reported no result"
    return "failed", code, why


def run_hf_jobs(
    repo: Path,
    spec: RunSpec,
    *,
    api: JobsApi,
    namespace: str | None = None,
    source_repo_url: str | None = None,
    source_sha: str | None = None,
    poll_s: float = 5.0,
    max_wait_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[RunOutcome, bytes | None, str, str | None]:
    """Launch, wait, read the logs; return the outcome, outputs, log text, requirements hash."""
    flavor = flavor_for(spec)
    url, sha, jail, subdir = job_source(spec, source_repo_url, source_sha)
    image = spec.reproduce.image or DEFAULT_IMAGE
    notes = [] if spec.reproduce.image else [f"no reproduce.image: used {DEFAULT_IMAGE}"]
    nonce = secrets.token_hex(12)
    req = requirements_file(repo, spec)
    req_bytes = requirements_bytes(repo, spec) or b""
    req_sha = hashlib.sha256(req_bytes).hexdigest() if req is not None else None
    if req is not None:
        checked_requirements(spec, req, req_bytes)  # before a job is paid for
    job_timeout = spec.timeout_s + SETUP_GRACE_S
    ns = namespace or _call("whoami", None, api.whoami)["name"]
    started = time.monotonic()
    job = _call(
        "run_job",
        None,
        lambda: api.run_job(
            image=image,
            command=job_command(
                spec, url, sha, jail, subdir, req_bytes.decode("utf-8", errors="replace")
            ),
            env={"REPROAUDIT_NONCE": nonce},
            flavor=flavor,
            timeout=job_timeout,
            namespace=ns,
            labels={"reproaudit-paper": spec.paper, "reproaudit-logbook": spec.logbook},
        ),
    )
    job_url = getattr(job, "url", None) or f"https://huggingface.co/jobs/{ns}/{job.id}"
    deadline = started + (max_wait_s if max_wait_s is not None else job_timeout + QUEUE_WAIT_S)
    info, waited_out = _wait(api, job.id, ns, job_url, deadline, poll_s, sleep)
    wall = time.monotonic() - started
    if waited_out:
        notes.append(f"gave up waiting after {wall:.0f} s; the job was cancelled")
        try:
            api.cancel_job(job_id=job.id, namespace=ns)
        except Exception as exc:  # the record matters more than the cancel
            notes.append(f"cancelling failed: {exc}")
    parsed = JobLog()
    try:
        parsed = read_job_log(
            api.fetch_job_logs(job_id=job.id, namespace=ns), nonce, spec.reproduce.outputs or ""
        )
    except Exception as exc:  # a record without logs still says how the job ended
        notes.append(f"could not read the job logs: {exc}")
    stage = _stage(info)
    message = getattr(getattr(info, "status", None), "message", None)
    status: Status
    if waited_out:
        status, code, why = "timeout", None, None
    else:
        status, code, why = final_status(stage, message, parsed.status)
    if why:
        notes.append(why)
    notes.extend(str(n) for n in (parsed.status or {}).get("notes") or [])
    runner_note = (parsed.status or {}).get("outputs")
    if spec.reproduce.outputs and parsed.outputs is None:
        notes.append(parsed.outputs_note or str(runner_note or "no outputs in the job logs"))
    elif not spec.reproduce.outputs:
        notes.append("the logbook names no reproduce.outputs; nothing to record")
    duration = _duration(parsed.status, info, wall)
    outcome = RunOutcome(status, code, duration, "hf-jobs", job_url, "hf-jobs")
    return outcome, parsed.outputs, log_text(parsed.log, notes), req_sha


def _wait(
    api: JobsApi,
    job_id: str,
    ns: str,
    job_url: str,
    deadline: float,
    poll_s: float,
    sleep: Callable[[float], None],
) -> tuple[Any, bool]:
    """Poll until a terminal stage or the deadline: (last JobInfo, whether we gave up)."""
    delay, errors, info = poll_s, 0, None
    while True:
        try:
            info = api.inspect_job(job_id=job_id, namespace=ns)
            errors = 0
        except Exception as exc:
            errors += 1
            if errors >= MAX_API_ERRORS:
                raise _api_error("inspect_job", job_url, exc) from exc
        if info is not None and _stage(info) in TERMINAL_STAGES:
            return info, False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return info, True
        sleep(min(delay, remaining))
        delay = min(delay * 1.5, MAX_POLL_S)


def _stage(info: Any) -> str:
    stage = getattr(getattr(info, "status", None), "stage", None)
    return str(getattr(stage, "value", stage) or "UNKNOWN")


def _duration(runner: dict[str, Any] | None, info: Any, wall: float) -> float:
    said = (runner or {}).get("duration_s")
    if isinstance(said, (int, float)) and not isinstance(said, bool) and said >= 0:
        return float(said)
    running = getattr(getattr(info, "durations", None), "running_secs", None)
    return float(running) if isinstance(running, (int, float)) else wall


def _call(what: str, job_url: str | None, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as exc:
        raise _api_error(what, job_url, exc) from exc


def _api_error(what: str, job_url: str | None, exc: Exception) -> EndpointError:
    where = f" for {job_url}" if job_url else ""
    return EndpointError(
        f"hf-jobs: {what}{where} failed: {type(exc).__name__}: {exc}",
        "check the token (`hf auth whoami`), the namespace and the job on the Hub",
    )
