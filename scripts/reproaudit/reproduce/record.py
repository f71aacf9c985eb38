"""The re-run record that ``reproaudit judge --reruns DIR`` reads, written whole or not at all.

``<out>/<paper>/<logbook>/run.json`` (the ``models.RunRecord``: how the run
went and the hashes binding it to the logbook, write-up, code tree, requirements
and outputs it ran, every input hash computed here on the host),
``outputs.json`` (the exact bytes the command wrote at ``reproduce.outputs``)
and ``log.txt``. The folder is built beside its final place and renamed into
it under a lock, so a reader never sees new status with old outputs, a run
that wrote nothing leaves no older ``outputs.json`` behind, and two
concurrent re-runs of one logbook never mix their files. Limits come from the
judge's reader, so this writer never produces a file the judge would refuse.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import StorageError
from ..fsutil import held_folder, kind_of
from ..judge.inputs import LOG_TAIL_CHARS, check_json_shape
from ..layout import OUTPUTS_JSON, RUN_JSON
from ..models import RunRecord
from ..problems import human_size
from ..rerun_files import MAX_OUTPUTS_BYTES
from ..scratch import held_dir, locked_folder, sweep

Status = Literal["passed", "failed", "timeout", "host_error"]
LOG_KEEP_BYTES = 64 * 1024  # what log.txt keeps; run.json keeps the last LOG_TAIL_CHARS
NOTE = "[reproaudit]"


@dataclass(frozen=True)
class RunOutcome:
    """How a backend's run went, before it is bound to its inputs and written."""

    status: Status
    exit_code: int | None
    duration_s: float
    backend: str
    url: str | None
    sandbox: str
    host_error: str | None = None  # with status host_error: what failed on the machine


@dataclass(frozen=True)
class WrittenRecord:
    """A record as written: the ``run.json`` model and where it went.

    ``kept``: a record was already there and this one is a host failure, so it was not
    written (a broken machine never replaces what a working one recorded).
    """

    record: RunRecord
    folder: Path
    outputs_written: bool
    kept: bool = False

    def __getattr__(self, name: str) -> object:  # status, exit_code, duration_s, ...
        return getattr(self.record, name)


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
    """The outputs bytes when they are JSON within the size and depth limits, else why not."""
    if len(raw) > MAX_OUTPUTS_BYTES:
        return None, f"{name} is over the {human_size(MAX_OUTPUTS_BYTES)} limit; not recorded"
    why = check_json_shape(raw)
    if why:
        return None, f"{name} {why}; not recorded"
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


def replace_folder(folder: Path, files: dict[str, bytes], *, top: Path | None = None) -> None:
    """Make ``folder`` hold exactly ``files``: built beside it, renamed into place under a lock.

    The folder being built (``.<name>.new-*``) and the old one on its way out
    (``.<name>.old-*``) are held while this process lives; a later call sweeps those a
    killed writer left, so they never pile up nor block a push of ``reruns/``.
    ``top`` (default: ``folder``'s parent) is the folder the caller named, as
    ``--out``; every folder below it, ``folder`` included, must be a real folder: a
    link, file or device there is refused (``StorageError``), never followed, renamed
    or removed, and everything is written through the parent held open.
    """
    folder = Path(folder)
    top = folder.parent if top is None else Path(top)
    below = folder.relative_to(top).parts[:-1]
    with held_folder(top, below) as parent:
        for kind in ("new", "old"):
            sweep(parent, f".{folder.name}.{kind}-")
        with held_dir(parent, f".{folder.name}.new-") as staging:
            for name, data in files.items():
                try:
                    with open(staging / name, "wb") as handle:
                        handle.write(data)
                        handle.flush()
                        os.fsync(handle.fileno())
                except OSError as exc:
                    exc.filename = str(folder / name)  # the file asked for, not the staging copy
                    raise
            os.chmod(staging, 0o755)
            with held_dir(parent, f".{folder.name}.old-") as old, locked_folder(parent):
                place = parent / folder.name
                with contextlib.suppress(FileNotFoundError):
                    mode = os.lstat(place).st_mode
                    if not stat.S_ISDIR(mode):
                        raise StorageError(
                            str(folder),
                            f"it is {kind_of(mode)}, not a record folder: never replaced",
                            "remove it; reproaudit makes the folder itself",
                        )
                    os.rename(place, old / "record")
                os.rename(staging, place)


def write_record(
    out: Path,
    paper: str,
    logbook: str,
    record: RunRecord,
    outputs: bytes | None,
    log: str,
) -> WrittenRecord:
    """Replace ``<out>/<paper>/<logbook>/`` with this record, its outputs (if any) and log.

    A ``host_error`` record (the machine could not run the logbook at all) is written
    only where no record is yet: it never replaces one.
    """
    folder = Path(out) / paper / logbook
    if record.status == "host_error" and os.path.lexists(folder / RUN_JSON):
        return WrittenRecord(record, folder, False, kept=True)
    files = {"log.txt": log.encode("utf-8")[-LOG_KEEP_BYTES:]}
    if outputs is not None:
        files[OUTPUTS_JSON] = outputs
    files[RUN_JSON] = record_json(record)
    replace_folder(folder, files, top=Path(out))
    return WrittenRecord(record, folder, outputs is not None)


def record_json(record: RunRecord) -> bytes:
    # host_error only where the machine failed: every other record keeps its bytes
    drop = {"host_error"} if record.host_error is None else set()
    data = record.model_dump(mode="json", exclude=drop)
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def tail_of(log: str) -> str:
    return log[-LOG_TAIL_CHARS:]


def describe_record(record: WrittenRecord) -> str:
    """One line for the command line: outcome, time, exit code, sandbox and where it is."""
    run = record.record
    code = "" if run.exit_code is None else f", exit code {run.exit_code}"
    outputs = "outputs.json written" if record.outputs_written else "no outputs.json"
    link = f" ({run.url})" if run.url else ""
    where = f" [{run.backend}, sandbox {run.sandbox}{link}]"
    line = f"{run.status} in {run.duration_s:.1f} s{code}, {outputs}{where}: {record.folder}"
    if run.host_error is None:
        return line
    kept = " (the record already there is kept)" if record.kept else ""
    return f"{line}{kept}\n  {HOST_ERROR_SAYS}: {run.host_error}"


# how every report says a host_error: the machine, not the logbook
HOST_ERROR_SAYS = "this machine could not run the re-run, through no fault of the logbook"
