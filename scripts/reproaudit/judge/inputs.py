"""What a verdict depends on: re-run records and the input hash.

A re-run record lives outside the repository (CI produces it):
``<reruns>/<paper>/<logbook>/outputs.json`` and ``run.json``. The input hash
covers every byte that can change a verdict: the paper file, the logbook and
its write-up, the re-run outputs and run record, and the judge's own
configuration (mode, model, prompt and rules versions, samples).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import layout
from ..models import RerunInfo
from .rules import Rerun

MAX_OUTPUTS_BYTES = 16 * 1024 * 1024
LOG_TAIL_CHARS = 4000


@dataclass(frozen=True)
class RerunRecord:
    """A re-run as read from disk: what the judge sees and what the verdict records."""

    rerun: Rerun
    info: RerunInfo
    outputs_bytes: bytes | None
    run_bytes: bytes


def sha256_bytes(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_rerun(
    reruns: Path | None, paper: str, logbook: str, logbook_sha256: str | None = None
) -> RerunRecord | None:
    """The re-run record of one logbook, or None when it was never re-run.

    A record whose ``run.json`` is unreadable counts as a failed re-run: it
    verifies nothing, and says why in the log tail. A record made from other
    logbook bytes than ``logbook_sha256`` (the logbook changed since) is ignored:
    it re-ran something else.
    """
    if reruns is None:
        return None
    folder = Path(reruns) / paper / logbook
    run_path = folder / "run.json"
    if not run_path.is_file():
        return None
    run_bytes = run_path.read_bytes()
    try:
        run: dict[str, Any] = json.loads(run_bytes)
        if not isinstance(run, dict):
            raise ValueError("run.json is not an object")
        status = run.get("status")
        if status not in ("passed", "failed", "timeout"):
            raise ValueError(f"run.json has status {status!r}")
        recorded = run.get("logbook_sha256")
        if logbook_sha256 and isinstance(recorded, str) and recorded != logbook_sha256:
            return None
    except ValueError as exc:
        run = {"status": "failed", "log_tail": f"unreadable run record: {exc}"}
        status = "failed"
    outputs_path = folder / "outputs.json"
    outputs_bytes = None
    outputs: Any = None
    if outputs_path.is_file() and outputs_path.stat().st_size <= MAX_OUTPUTS_BYTES:
        outputs_bytes = outputs_path.read_bytes()
        try:
            outputs = json.loads(outputs_bytes)
        except ValueError:
            outputs = None  # every pointer then resolves to nothing: missing_outputs
    exit_code = run.get("exit_code") if isinstance(run.get("exit_code"), int) else None
    duration = run.get("duration_s")
    info = RerunInfo(
        status=status,
        backend=str(run["backend"]) if run.get("backend") else None,
        url=run["url"]
        if isinstance(run.get("url"), str) and run["url"].startswith("http")
        else None,
        duration_s=float(duration) if isinstance(duration, (int, float)) else None,
        exit_code=exit_code,
        outputs_sha256=sha256_bytes(outputs_bytes),
        run_sha256=sha256_bytes(run_bytes),
    )
    tail = str(run.get("log_tail") or "")[-LOG_TAIL_CHARS:]
    return RerunRecord(Rerun(status, outputs, exit_code, tail), info, outputs_bytes, run_bytes)


def input_hash(
    root: Path,
    paper_rel: str,
    paper_id: str,
    logbook_id: str,
    rerun: RerunInfo | None,
    config: dict[str, Any],
) -> str:
    """SHA-256 over everything that can change this logbook's verdict.

    The re-run enters through the hashes a verdict records (``outputs_sha256``,
    ``run_sha256``), so a verdict can be checked for staleness later without the
    re-run files at hand.
    """

    def file_hash(rel: str) -> str | None:
        path = root / rel
        return sha256_bytes(path.read_bytes()) if path.is_file() else None

    parts = {
        "config": config,
        "paper": file_hash(paper_rel),
        "logbook": file_hash(layout.logbook_rel(paper_id, logbook_id)),
        "writeup": file_hash(layout.writeup_rel(paper_id, logbook_id)),
        "outputs": rerun.outputs_sha256 if rerun else None,
        "run": rerun.run_sha256 if rerun else None,
    }
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
