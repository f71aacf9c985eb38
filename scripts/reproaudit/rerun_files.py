"""The one reader of a stored re-run record's files: ``run.json`` and ``outputs.json``.

The judge, ``ci store-reruns``, the site, ``export`` and the fitness check behind
``--strict`` all read the record a re-run left; they once did so with four size
limits and as many ways of saying why a file was refused, so a record the judge
called unreadable could be published, or counted fit, elsewhere. Here each file
has one size limit and one depth limit, ``run.json`` is read with the one model
that writes it (``models.RunRecord``), and a refusal has one shape: a ``why``
that starts with the file's name (``run.json is over 1024 KiB``,
``run.json: status: Input should be 'passed', 'failed' or 'timeout'``).
Pure: callers read the bytes (through ``beneath``) and pass them in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .boundedjson import JsonError, loads
from .layout import OUTPUTS_JSON, RUN_JSON
from .models import RunRecord

MAX_RUN_BYTES = 1024 * 1024
MAX_OUTPUTS_BYTES = 16 * 1024 * 1024
MAX_JSON_DEPTH = 64  # outputs nest metrics by claim and parameter: a few levels
LIMITS = {RUN_JSON: MAX_RUN_BYTES, OUTPUTS_JSON: MAX_OUTPUTS_BYTES}


def shown_limit(name: str) -> str:
    """A file's size limit in words: ``1024 KiB``, ``16 MiB``."""
    limit = LIMITS[name]
    return f"{limit >> 20} MiB" if limit >= 4 << 20 else f"{limit >> 10} KiB"


def load_json(raw: bytes) -> tuple[Any, str | None]:
    """Parse JSON no deeper than ``MAX_JSON_DEPTH``: (value, None) or (None, why not)."""
    value, why, _ = parse_json(raw)
    return value, why


def parse_json(raw: bytes) -> tuple[Any, str | None, int | None]:
    """(value, None, None) or (None, why not, the line where JSON broke when known).

    Through the one depth-bounded parser (``boundedjson``): the nesting is measured
    before ``json`` recurses into it. Callers bound the size first (``LIMITS``).
    """
    try:
        return loads(raw, max_depth=MAX_JSON_DEPTH, max_chars=len(raw)), None, None
    except JsonError as exc:
        if exc.too_deep:
            return None, f"is nested deeper than {MAX_JSON_DEPTH} levels", None
        return None, f"is not valid JSON ({exc})", exc.lineno


@dataclass(frozen=True)
class RunFile:
    """``run.json`` as read: the parsed object, the model, or why either is missing."""

    raw: dict[str, Any] | None  # the parsed JSON object; None when it is not one
    run: RunRecord | None  # the model; None when the file does not validate
    why: str | None = None  # the first reason, starting "run.json"; None when it validates
    kind: str | None = None  # too_large | not_json | invalid (the model refused it)
    field: str | None = None  # the first field the model refused, dotted
    line: int | None = None  # where in the file, when known
    more: int = 0  # how many more fields the model refused
    detail: str = ""  # the model's message for that field


def read_run_json(data: bytes) -> RunFile:
    """``run.json``'s bytes (as read with ``MAX_RUN_BYTES``, perhaps one byte more) as a
    ``RunFile``: refused when too large, not a JSON object, too deep, or not a
    ``RunRecord``."""
    if len(data) > MAX_RUN_BYTES:
        return RunFile(None, None, f"{RUN_JSON} is over {shown_limit(RUN_JSON)}", "too_large")
    raw, why, line = parse_json(data)
    if why is None and not isinstance(raw, dict):
        why = "is not a JSON object"
    if why is not None:
        return RunFile(None, None, f"{RUN_JSON} {why}", "not_json", line=line)
    try:
        return RunFile(raw, RunRecord.model_validate(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(part) for part in first["loc"]]
        dotted = ".".join(loc) or None
        text = data.decode("utf-8", "replace")
        return RunFile(
            raw,
            None,
            f"{RUN_JSON}: {dotted or 'the record'}: {first['msg']}",
            "invalid",
            dotted,
            _json_line(text, loc[0]) if loc else None,
            exc.error_count() - 1,
            first["msg"],
        )


def read_outputs_json(data: bytes) -> tuple[Any, str | None]:
    """``outputs.json``'s bytes as parsed JSON: (value, None), or (None, why) starting
    ``outputs.json`` when it is over ``MAX_OUTPUTS_BYTES``, not JSON, or too deep."""
    value, why, _ = read_outputs_at(data)
    return value, why


def read_outputs_at(data: bytes) -> tuple[Any, str | None, int | None]:
    """``read_outputs_json`` with the line where the JSON broke, when known."""
    if len(data) > MAX_OUTPUTS_BYTES:
        return None, f"{OUTPUTS_JSON} is over {shown_limit(OUTPUTS_JSON)}", None
    value, why, line = parse_json(data)
    return (value, None, None) if why is None else (None, f"{OUTPUTS_JSON} {why}", line)


def _json_line(text: str, key: str) -> int | None:
    """The line of ``"key":`` in a JSON text (first one), for a problem's location."""
    at = text.find(json.dumps(key) + ":")
    if at < 0:
        at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else None
