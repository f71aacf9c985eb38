"""What a verdict depends on: re-run records and the input hash.

A re-run record (``<reruns>/<paper>/<logbook>/outputs.json`` and ``run.json``)
is produced by ``reproaudit reproduce`` and stored by ``ci store-reruns``. Whether
a record is current for a logbook's bytes is decided here once
(``record_currency``, ``passed_and_current``) for the judge and the store. The
input hash covers every byte that can change a verdict: the paper file, the
logbook and its write-up, the re-run outputs and run record, with a record the
code tree and requirements it must match, and the judge's own configuration
(mode, model, prompt and rules versions, samples).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import layout
from ..layout import OUTPUTS_JSON, RUN_JSON
from ..models import RerunInfo, RerunStatus, RunRecord
from ..rerun_files import (
    MAX_OUTPUTS_BYTES,
    MAX_RUN_BYTES,
    load_json,
    read_run_json,
)
from .rules import Rerun

if TYPE_CHECKING:
    from ..repo import Blob, Corpus
    from ..rerun_inputs import InputHashes

LOG_TAIL_CHARS = 4000


@dataclass(frozen=True)
class RerunRecord:
    """A re-run as read from disk: what the judge sees and what the verdict records."""

    rerun: Rerun
    info: RerunInfo
    outputs_bytes: bytes | None
    run_bytes: bytes
    run: RunRecord | None = None  # run.json as its model; None when it did not validate
    currency: Currency = field(default_factory=lambda: Currency(True, []))


def rerun_info(run: RunRecord, run_sha256: str | None, outputs_sha256: str | None) -> RerunInfo:
    """The verdict's ``rerun:`` block, derived from the run record (the one place)."""
    if run.status == "host_error":  # read as no re-run (read_rerun_record): never a verdict's
        raise ValueError("a host_error record is no re-run of the logbook")
    return RerunInfo(
        status=run.status,
        backend=run.backend,
        url=run.url,
        duration_s=float(run.duration_s),
        exit_code=run.exit_code,
        outputs_sha256=outputs_sha256,
        run_sha256=run_sha256,
    )


def sha256_bytes(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def check_json_shape(raw: bytes) -> str | None:
    """Why ``raw`` is not acceptable re-run JSON (not JSON, too deep), or None."""
    return load_json(raw)[1]


@dataclass(frozen=True)
class Currency:
    """Whether a re-run record ran the current bytes; ``reasons`` say which input changed."""

    current: bool
    reasons: list[str]

    @property
    def why(self) -> str | None:
        """The reasons in one line (the evidence of ``stale_rerun``), or None when current."""
        return None if self.current else "; ".join(self.reasons)


# run.json's input hashes, where they live in it, and how evidence names each input
BOUND_INPUTS = (
    ("logbook_sha256", (), "the logbook YAML"),
    ("writeup_sha256", (), "the write-up"),
    ("code_sha256", (), "the code tree"),
    ("requirements_sha256", ("environment",), "the requirements file"),
)


def record_currency(
    raw: dict[str, Any], inputs: InputHashes, outputs_bytes: bytes | None
) -> Currency:
    """Whether ``run.json`` (as parsed JSON) binds exactly ``inputs`` and these outputs.

    The one check behind the judge and ``ci store-reruns``: every input hash
    must be present in the record (null is a value: "there was no write-up")
    and equal to the current one, computed on the host; ``outputs.json`` must
    be the file ``outputs_sha256`` names. Each mismatch is one reason.
    """
    reasons = []
    if inputs.refused:
        reasons.append(inputs.refused)
    for key, where, name in BOUND_INPUTS:
        holder: Any = raw
        for part in where:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or key not in holder:
            reasons.append(f"run.json does not say which bytes of {name} it re-ran (no {key})")
            continue
        recorded, now = holder[key], getattr(inputs, key)
        if recorded != now:
            change = (
                "was added" if recorded is None else "was removed" if now is None else "changed"
            )
            reasons.append(f"{name} {change} since the re-run ({key} differs)")
    if sha256_bytes(outputs_bytes) != raw.get("outputs_sha256"):
        reasons.append("outputs.json does not match the outputs_sha256 of run.json")
    return Currency(not reasons, reasons)


def passed_and_current(record: RerunRecord | None) -> Currency:
    """Whether there is a passed re-run of the current bytes; if not, why not.

    What the evidence rule asks before any ``verified``, ``falsified`` or ``toy``.
    """
    if record is None:
        return Currency(False, ["there is no re-run record"])
    if not record.currency.current:
        return record.currency
    if record.rerun.status != "passed" or record.run is None:
        return Currency(False, [f"the re-run {record.rerun.status}"])
    return record.currency


def read_rerun(
    reruns: Path | None,
    paper: str,
    logbook: str,
    inputs: InputHashes,
    read: Callable[[Path, int], Blob | None] | None = None,
) -> RerunRecord | None:
    """The re-run record of one logbook, or None when it was never re-run.

    ``run.json`` is read with the one model that wrote it (``models.RunRecord``).
    A record that does not bind exactly ``inputs`` (the current hashes of the
    logbook, write-up, code tree and requirements) or whose ``outputs.json`` is
    not the one it hashed is stale (``record_currency``): returned with
    ``Rerun.stale`` saying which input changed, and the rules ignore it. A record
    that cannot be read counts as a failed re-run that verifies nothing; a
    ``host_error`` record (the machine could not run anything) is no re-run at all. Huge or
    deeply nested files are refused with a reason, never a traceback. ``read`` is
    ``Corpus.blob`` in a judge run, so each file is read once.
    """
    if reruns is None:
        return None
    if read is None:
        from ..repo import read_blob

        read = read_blob
    folder = layout.rerun_folder(Path(reruns), paper, logbook)
    run_blob = read(folder / RUN_JSON, MAX_RUN_BYTES)
    if run_blob is None:
        return None
    run_bytes = run_blob.raw
    outputs_blob = read(folder / OUTPUTS_JSON, MAX_OUTPUTS_BYTES)
    outputs_bytes = None
    outputs_why = None
    if outputs_blob is not None:
        if not outputs_blob.complete:
            outputs_why = f"outputs.json is over the {MAX_OUTPUTS_BYTES >> 20} MiB limit"
        else:
            outputs_bytes = outputs_blob.raw
    run_sha = sha256_bytes(run_bytes)

    def failed(why: str) -> RerunRecord:
        info = RerunInfo(status="failed", run_sha256=run_sha)
        unread = Currency(False, [why])
        return RerunRecord(Rerun("failed", None, None, why), info, None, run_bytes, None, unread)

    read_run = read_run_json(run_bytes)
    if read_run.run is not None and read_run.run.status == "host_error":
        return None  # the machine could not run it: nothing of the logbook ran, no re-run
    raw = read_run.raw
    if raw is None:
        return failed(f"unreadable run record: {read_run.why}")
    currency = record_currency(raw, inputs, outputs_bytes)
    if outputs_why:  # too large to have been read: say that, not "does not match"
        kept = [r for r in currency.reasons if not r.startswith("outputs.json does not")]
        currency = Currency(False, [*kept, outputs_why])
    stale = currency.why
    run = read_run.run
    if run is None:
        if stale is None:
            return failed(f"unreadable run record: {read_run.why}")
        said = raw.get("status")
        status: RerunStatus = said if said in ("passed", "failed", "timeout") else "failed"
        info = RerunInfo(status=status, run_sha256=run_sha)
        rerun = Rerun(status, None, None, "", stale)
        return RerunRecord(rerun, info, None, run_bytes, None, currency)
    outputs: Any = None
    genuine = outputs_bytes is not None and sha256_bytes(outputs_bytes) == run.outputs_sha256
    if outputs_bytes is not None and (stale is None or genuine):
        # unreadable: every pointer is missing_outputs. A stale record keeps the outputs it
        # hashed: the rules ignore them but say when they contradict the typed numbers
        outputs, _ = load_json(outputs_bytes)
    info = rerun_info(run, run_sha, None if stale else sha256_bytes(outputs_bytes))
    tail = run.log_tail[-LOG_TAIL_CHARS:]
    rerun = Rerun(run.status, outputs, run.exit_code, tail, stale)
    return RerunRecord(rerun, info, None if stale else outputs_bytes, run_bytes, run, currency)


def input_hash(
    corpus: Corpus,
    paper_rel: str,
    paper_id: str,
    logbook_id: str,
    rerun: RerunInfo | None,
    config: dict[str, Any],
    inputs: InputHashes | None = None,
) -> str:
    """SHA-256 over everything that can change this logbook's verdict.

    The files' hashes come from the corpus, which read each file once. The re-run
    enters through the hashes a verdict records (``outputs_sha256``,
    ``run_sha256``), so a verdict can be checked for staleness later without the
    re-run files at hand; with a re-run, the current code tree and requirements
    hashes (``inputs``) enter too, since a change to either makes the record stale.
    """
    parts = {
        "config": config,
        "paper": corpus.sha256(paper_rel),
        "logbook": corpus.sha256(layout.logbook_rel(paper_id, logbook_id)),
        "writeup": corpus.sha256(layout.writeup_rel(paper_id, logbook_id)),
        "outputs": rerun.outputs_sha256 if rerun else None,
        "run": rerun.run_sha256 if rerun else None,
    }
    if rerun is not None and inputs is not None:
        parts["code"] = inputs.code_sha256
        parts["requirements"] = inputs.requirements_sha256
        parts["inputs_refused"] = inputs.refused
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
