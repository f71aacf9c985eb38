"""Reading the runner's output: the command's log, the outputs block, the status line.

The runner (``runner.py``) prints the outputs file base64-encoded between
marker lines carrying a per-run nonce, then one status line; its first line,
``started``, says the sandbox started it at all. The stream is
read incrementally with every buffer bounded: a command that prints a
gigabyte, or one line without end, costs a fixed amount of memory. Only marker
lines with this run's nonce count, and the last block and status line win: the
runner prints them after everything the command started is dead. Outputs count
only when that final status line says the runner sent them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..rerun_files import MAX_OUTPUTS_BYTES
from .record import LogTail, check_outputs

MARK = "::reproaudit::"  # must match runner.py
_MAX_B64 = (MAX_OUTPUTS_BYTES + 2) // 3 * 4
_MAX_LINE = 64 * 1024  # longer lines are log text, never markers


@dataclass
class JobLog:
    """What the runner's output says: the command's output (capped), outputs and status."""

    log: LogTail = field(default_factory=LogTail)
    outputs: bytes | None = None
    outputs_note: str | None = None
    status: dict[str, Any] | None = None
    started: bool = False  # the runner's first line came: the sandbox did start it


class MarkerReader:
    """Feed it the runner's output in chunks of any size; ``finish()`` returns the ``JobLog``."""

    def __init__(self, nonce: str, outputs_name: str, keep: int | None = None) -> None:
        self.mark = f"{MARK}{nonce} "
        self.name = outputs_name
        self.out = JobLog(LogTail(keep) if keep else LogTail())
        self._block: list[str] | None = None
        self._size = 0
        self._partial = bytearray()
        self._held_blank = False

    def feed(self, chunk: bytes) -> None:
        self._partial += chunk
        while True:
            end = self._partial.find(b"\n")
            if end < 0:
                if len(self._partial) > _MAX_LINE:  # a line without end: plain log text
                    self._text(bytes(self._partial), newline=False)
                    self._partial.clear()
                return
            line = bytes(self._partial[:end])
            del self._partial[: end + 1]
            self.line(line.decode("utf-8", errors="replace"), raw=line)

    def line(self, line: str, raw: bytes | None = None) -> None:
        text = line.strip()
        mark = self.mark
        if self._block is None and not line:
            # the runner starts each marker on a fresh line: an empty one just before a
            # marker is its, not the command's, so it is held until the next line shows
            if self._held_blank:
                self._text(b"")
            self._held_blank = True
            return
        if self._held_blank and not text.startswith(mark):
            self._text(b"")
        self._held_blank = False
        if self._block is not None and text.startswith(mark + "outputs-end"):
            self.out.outputs, self.out.outputs_note = _decode(
                self._block, self._size, text, self.name
            )
            self._block = None
        elif self._block is not None:
            self._size += len(text)
            if self._size <= _MAX_B64:
                self._block.append(text)
        elif text == mark + "outputs-begin":
            self._block, self._size = [], 0
        elif text == mark + "started":
            self.out.started = True
        elif text.startswith(mark + "status "):
            try:
                status = json.loads(text[len(mark + "status ") :])
            except ValueError:
                status = None
            self.out.status = status if isinstance(status, dict) else None
        else:
            self._text(raw if raw is not None else line.encode("utf-8", errors="replace"))

    def _text(self, data: bytes, newline: bool = True) -> None:
        self.out.log.feed(data + (b"\n" if newline else b""))

    def finish(self) -> JobLog:
        if self._held_blank:
            self._text(b"")
            self._held_blank = False
        if self._partial:
            self.line(self._partial.decode("utf-8", errors="replace"), raw=bytes(self._partial))
            self._partial.clear()
        out = self.out
        if self._block is not None:
            out.outputs_note = f"the logs end inside the {self.name} block; not recorded"
            self._block = None
        if out.outputs is not None and (out.status or {}).get("outputs") != "ok":
            out.outputs, out.outputs_note = None, None  # not sent by the runner: forged or stale
        return out


def read_job_log(lines: Iterable[str], nonce: str, outputs_name: str) -> JobLog:
    """Split a job's log lines into output, the outputs block and the status line."""
    reader = MarkerReader(nonce, outputs_name)
    for event in lines:
        for line in event.splitlines() or [""]:
            reader.line(line)
    return reader.finish()


def _decode(block: list[str], size: int, end: str, name: str) -> tuple[bytes | None, str | None]:
    if size > _MAX_B64:
        return None, f"{name} is over the size limit; not recorded"
    try:
        raw = base64.b64decode("".join(block), validate=True)
    except (binascii.Error, ValueError):
        return None, f"{name} came back garbled in the logs; not recorded"
    if hashlib.sha256(raw).hexdigest() != end.rsplit(" ", 1)[-1]:
        return None, f"{name} came back incomplete in the logs (hash differs); not recorded"
    return check_outputs(raw, name)
