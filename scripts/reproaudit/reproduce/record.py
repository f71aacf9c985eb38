"""The re-run record that ``reproaudit judge --reruns DIR`` reads.

``<out>/<paper>/<logbook>/run.json`` says how the run went and
``outputs.json`` holds the exact bytes the command wrote at
``reproduce.outputs``. Limits come from the judge's reader, so this writer
never produces a file the judge would refuse. Both backends end here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..fsutil import atomic_write
from ..judge.inputs import LOG_TAIL_CHARS, MAX_OUTPUTS_BYTES
from ..problems import human_size

Status = Literal["passed", "failed", "timeout"]
LOG_KEEP_BYTES = 64 * 1024  # what log.txt keeps; run.json keeps the last LOG_TAIL_CHARS
NOTE = "[reproaudit]"


@dataclass(frozen=True)
class RunRecord:
    """One re-run as written to ``run.json`` (first six fields), plus where it went."""

    status: Status
    exit_code: int | None
    duration_s: float
    backend: str
    url: str | None
    log_tail: str
    folder: Path | None = None  # <out>/<paper>/<logbook>
    outputs_written: bool = False
    logbook_sha256: str | None = None  # the logbook file that was re-run

    def run_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "duration_s": round(self.duration_s, 3),
            "backend": self.backend,
            "url": self.url,
            "log_tail": self.log_tail,
            "logbook_sha256": self.logbook_sha256,
        }


class LogTail:
    """The last ``keep`` bytes of a stream, fed chunk by chunk, never more in memory."""

    def __init__(self, keep: int = LOG_KEEP_BYTES) -> None:
        self.keep = keep
        self.total = 0
        self._buf = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._buf += chunk[-self.keep :]
        if len(self._buf) > self.keep:
            del self._buf[: len(self._buf) - self.keep]

    @property
    def truncated(self) -> bool:
        return self.total > len(self._buf)

    def data(self) -> bytes:
        return bytes(self._buf)


def check_outputs(raw: bytes, name: str) -> tuple[bytes | None, str | None]:
    """The outputs bytes when they are JSON within the size limit, else the reason why not."""
    if len(raw) > MAX_OUTPUTS_BYTES:
        return None, f"{name} is over the {human_size(MAX_OUTPUTS_BYTES)} limit; not recorded"
    try:
        json.loads(raw)
    except ValueError as exc:
        return None, f"{name} is not valid JSON ({exc}); not recorded"
    return raw, None


def log_text(log: LogTail, notes: list[str]) -> str:
    """The text of the log as kept, with reproaudit's own notes last so they survive the tail."""
    text = log.data().decode("utf-8", errors="replace")
    if log.truncated:
        dropped = log.total - len(log.data())
        notes = [f"output was {log.total} bytes; the first {dropped} were dropped", *notes]
    if notes:
        if text and not text.endswith("\n"):
            text += "\n"
        text += "".join(f"{NOTE} {note}\n" for note in notes)
    return text


def write_record(
    out: Path,
    paper: str,
    logbook: str,
    record: RunRecord,
    outputs: bytes | None,
    log: str,
    logbook_sha256: str | None = None,
) -> RunRecord:
    """Write outputs.json (or remove a stale one), log.txt, then run.json, each atomically.

    ``run.json`` goes last and is removed first: the judge treats its presence as
    "there is a re-run", so a crash midway never pairs new status with old outputs.
    """
    folder = Path(out) / paper / logbook
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.json").unlink(missing_ok=True)
    if outputs is None:
        (folder / "outputs.json").unlink(missing_ok=True)
    else:
        atomic_write(folder / "outputs.json", outputs)
    atomic_write(folder / "log.txt", log.encode("utf-8")[-LOG_KEEP_BYTES:])
    final = RunRecord(
        status=record.status,
        exit_code=record.exit_code,
        duration_s=record.duration_s,
        backend=record.backend,
        url=record.url,
        log_tail=log[-LOG_TAIL_CHARS:],
        folder=folder,
        outputs_written=outputs is not None,
        logbook_sha256=logbook_sha256,
    )
    atomic_write(folder / "run.json", json.dumps(final.run_json(), indent=2) + "\n")
    return final


def describe_record(record: RunRecord) -> str:
    """One line for the command line: outcome, time, exit code and where the record is."""
    code = "" if record.exit_code is None else f", exit code {record.exit_code}"
    outputs = "outputs.json written" if record.outputs_written else "no outputs.json"
    where = f": {record.folder}" if record.folder else ""
    link = f" ({record.url})" if record.url else ""
    return (
        f"{record.status} in {record.duration_s:.1f} s{code}, {outputs}"
        f" [{record.backend}{link}]{where}"
    )
