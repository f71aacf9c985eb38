"""The data-file reference page, generated from the models.

Every field of the paper, logbook, verdict, reviews and mentions files and of a re-run's
``run.json``: its path, type, whether it is required, what it means (the
docstring under the field in ``models.py``) and an example (from the complete
example files in ``templates/example-*``, which the tests validate). A test
fails when a field has no description or no example, and when the committed
page differs from what this module writes.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from . import models as M
from .pointers import SOURCE_PATTERN
from .problems import REFERENCE_PAGE

PAGE = REFERENCE_PAGE


@dataclass(frozen=True)
class FileKind:
    name: str
    title: str
    where: str
    who: str
    model: type[BaseModel]
    example: str  # a file in templates/


FILES = (
    FileKind(
        "paper",
        "Paper file",
        "claims/<venue>/<paper>.yaml",
        "maintainers",
        M.PaperFile,
        "example-paper.yaml",
    ),
    FileKind(
        "logbook",
        "Logbook",
        "logbooks/<paper>/<logbook>.yaml",
        "contributors",
        M.Logbook,
        "example-logbook.yaml",
    ),
    FileKind(
        "verdict",
        "Verdict file",
        "verdicts/<paper>/<logbook>.yaml",
        "`reproaudit judge` (never edited by hand)",
        M.VerdictFile,
        "example-verdict.yaml",
    ),
    FileKind(
        "reviews",
        "Reviews",
        "verdicts/<paper>/reviews.yaml",
        "the PR-thread commands `/review` and `/author`",
        M.ReviewsFile,
        "example-reviews.yaml",
    ),
    FileKind(
        "mentions",
        "Author mentions",
        "verdicts/<paper>/mentions.yaml",
        "the bot, when a re-run-backed verdict falsifies an author's claim (`ci push mentions`)",
        M.MentionsFile,
        "example-mentions.yaml",
    ),
    FileKind(
        "run",
        "Re-run record",
        "reruns/<paper>/<logbook>/run.json",
        "`reproaudit reproduce`, and CI's `ci store-reruns` on main",
        M.RunRecord,
        "example-run.json",
    ),
)

# Examples for fields that cannot share one valid file with the others (alternatives)
ALTERNATIVES: dict[tuple[str, str], Any] = {
    ("logbook", "code.repo"): "https://github.com/alice/repro-paging",
    ("logbook", "code.commit"): "3b1f0c2d4e5f60718293a4b5c6d7e8f901234567",
    ("paper", "paper.released.data"): "https://huggingface.co/datasets/aauthor/paging-traces",
    ("paper", "paper.released.checkpoints"): "https://huggingface.co/aauthor/paging-models",
    ("logbook", "results[].measurements[].per"): "trajectory",
    ("run", "url"): "https://huggingface.co/jobs/alice/0123abcd",
    ("run", "host_error"): "python: Permission denied while exec'ing /usr/bin/python3.11 "
    "(marked executable: the machine refuses it)",
    ("paper", "claims[].regime.to"): 1024,
    # a verdict's scope (rules version 4): a finite regime's end; a scale's entry by its name
    ("verdict", "claims[].scope.regime.claimed.to"): 1024,
    ("verdict", "claims[].scope.scale.tested"): 20000,
    ("verdict", "claims[].scope.scale.claimed"): 20000,
}

_VALIDATORS = {
    "_check_unit": "unit (pint)",
    "_check_url": "URL",
    "_check_sha40": "commit SHA (40 hex)",
    "_check_sha256": "SHA-256 (64 hex)",
    "_check_duration": "duration",
    "_check_relative": "relative path",
    "_parse_time": "timestamp (UTC)",
}
_PATTERNS = {
    M.ID_PATTERN: "paper id",
    M.LOGBOOK_ID_PATTERN: "logbook id",
    M.CLAIM_ID_PATTERN: "claim id",
    M.GITHUB_PATTERN: "GitHub handle",
    M.SCALE_NAME_PATTERN: "scale name",
    SOURCE_PATTERN: "outputs:<JSON pointer>",
}
_SCALARS = {str: "text", int: "integer", float: "number", bool: "true or false"}


@dataclass(frozen=True)
class Row:
    path: str
    type: str
    required: str
    meaning: str
    example: Any


def example_document(kind: FileKind) -> Any:
    text = resources.files("reproaudit").joinpath("templates", kind.example).read_text("utf-8")
    return json.loads(text) if kind.example.endswith(".json") else yaml.safe_load(text)


def _describe(annotation: Any, metadata: list[Any]) -> str:
    """Words for a field's type: 'URL', 'one of full, reduced, synthetic', 'list of ...'."""
    for item in metadata:
        if isinstance(item, FieldInfo):  # Annotated[str, Field(pattern=...)] inside a union
            return _describe(annotation, list(item.metadata))
        func = getattr(item, "func", None)
        if func is not None and func.__name__ in _VALIDATORS:
            return _VALIDATORS[func.__name__]
        pattern = getattr(item, "pattern", None)
        if pattern in _PATTERNS:
            return _PATTERNS[pattern]
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *extra = get_args(annotation)
        return _describe(base, list(extra))
    if origin in (Union, types.UnionType):
        parts = [a for a in get_args(annotation) if a is not type(None)]
        return " or ".join(_describe(a, metadata if len(parts) == 1 else []) for a in parts)
    if origin is Literal:
        return "one of " + ", ".join(str(v) for v in get_args(annotation))
    if origin is list:
        return "list of " + _plural(_describe(get_args(annotation)[0], []))
    if origin is dict:
        return "mapping of name to " + _describe(get_args(annotation)[1], [])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    if annotation is M.datetime:
        return "timestamp (UTC)"
    return _SCALARS.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _plural(word: str) -> str:
    return {"mapping": "mappings", "number": "numbers", "text": "texts"}.get(word, word)


def _submodels(annotation: Any) -> list[tuple[type[BaseModel], bool]]:
    """Models inside an annotation, each with whether it sits in a list."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, False)]
    if get_origin(annotation) is list:
        return [(m, True) for m, _ in _submodels(get_args(annotation)[0])]
    return [pair for arg in get_args(annotation) for pair in _submodels(arg)]


def _lookup(document: Any, path: list[str]) -> Any:
    """The first value at ``path`` (``[]`` steps into any list item that has it)."""
    if not path:
        return document
    key, rest = path[0], path[1:]
    if key == "[]":
        seen: Any = _NONE
        for item in document if isinstance(document, list) else []:
            found = _lookup(item, rest)
            if found is not _NONE and found is not None:
                return found
            seen = found if found is None else seen
        return seen
    if isinstance(document, dict) and key in document:
        return _lookup(document[key], rest)
    return _NONE


_NONE = object()


def _required(info: FieldInfo) -> str:
    if info.is_required():
        return "yes"
    default = info.default
    if default is None or default == [] or default == {} or isinstance(default, BaseModel):
        return "no"
    return f"no (default {json.dumps(default)})"


def field_rows(kind: FileKind) -> list[Row]:
    """One row per field of a file kind, depth first, in the models' order."""
    document = example_document(kind)
    rows: list[Row] = []

    def walk(model: type[BaseModel], prefix: list[str]) -> None:
        for name, info in model.model_fields.items():
            key = info.alias or name
            path = [*prefix, key]
            dotted = ".".join(path).replace(".[]", "[]")
            example = _lookup(document, path)
            if example is _NONE or example is None:
                example = ALTERNATIVES.get((kind.name, dotted), example)
            subs = _submodels(info.annotation)
            if subs and example is not _NONE:
                example = FIELDS_BELOW
            rows.append(
                Row(
                    dotted,
                    _describe(info.annotation, list(info.metadata)),
                    _required(info),
                    _sentence(info.description or ""),
                    None if example is _NONE else example,
                )
            )
            for sub, in_list in subs:
                walk(sub, [*path, "[]"] if in_list else path)

    walk(kind.model, [])
    return rows


FIELDS_BELOW = "(its fields below)"


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    first = text.split(" ", 1)[0]
    if not any(c in first for c in ":_<"):  # keep field names and syntax as written
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", ")", "?")) else text + "."


def _cell(text: str) -> str:
    """Text for a table cell: `|` would end the cell, `<paper>` would read as an HTML tag."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _example_cell(value: Any) -> str:
    if value is None:
        return "`null`"
    if value == FIELDS_BELOW:
        return value
    if isinstance(value, str):
        text = value
    else:
        text = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False)
        text = text.strip().removesuffix("...").strip()
    if len(text) > 60:
        text = text[:57].rsplit(" ", 1)[0] + " …"
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def data_files_page() -> str:
    lines = [
        "# Data files",
        "",
        "<!-- generated by `python -m reproaudit.reference` from models.py; do not edit -->",
        "",
        "Every field of every file reproaudit reads or writes: its type, whether it is "
        "required, what it means and an example. Unknown fields are errors (a typo gets a "
        '"did you mean"), and strings are not numbers. Editors complete and check these files '
        "from the JSON Schemas in `schemas/` (see the README's *Editor support*).",
        "",
        "A required field inside an optional mapping is required only when that mapping is "
        "given (`claims[].target.metric` when a claim has a `target`). `[]` marks a list: "
        "`results[].claim` is the `claim` of each entry of `results`.",
        "",
    ]
    for kind in FILES:
        text = resources.files("reproaudit").joinpath("templates", kind.example).read_text("utf-8")
        lines += [
            f"## {kind.title}: `{kind.where}`",
            "",
            f"Written by {kind.who}. A complete example:",
            "",
            "```" + ("json" if kind.example.endswith(".json") else "yaml"),
            text.rstrip(),
            "```",
            "",
            "| field | type | required | meaning | example |",
            "|---|---|---|---|---|",
        ]
        for row in field_rows(kind):
            lines.append(
                f"| `{row.path}` | {_cell(row.type)} | {row.required} | {_cell(row.meaning)} "
                f"| {_example_cell(row.example)} |"
            )
        lines += ["", *_notes(kind.name), ""]
    return "\n".join(lines).rstrip() + "\n"


def _notes(kind: str) -> list[str]:
    """What a table cannot say: how fields work together."""
    if kind == "logbook":
        return [
            "How the judge reads a logbook:",
            "",
            "- **`code` and `reproduce`**: `code: {path: <logbook>/}` (code in the PR, beside the "
            "logbook) or `code: {repo: URL, commit: <40 hex>}`. `reproduce.command` runs inside "
            "that folder and must write the JSON file named by `reproduce.outputs`.",
            '- **`source: "outputs:/C1/accuracy"`** is a JSON pointer into that file. The '
            "re-run's number there is the one judged; a typed `value` that disagrees beyond the "
            "tolerance is flagged `rerun_mismatch`; a pointer that leads nowhere is "
            "`missing_outputs` (the claim is then `inconclusive`).",
            '- **Units travel with the numbers**: at a pointer the command may write `{"value": '
            '140, "unit": "ms", "per": "batch of 50", "at": {"n_test": 100}}` (other keys are '
            "ignored; a sweep's object may carry `unit`, `per` and `at` too), as the starter "
            "`reproduce.py` of `reproaudit new logbook` does. Its own `unit` and `per` are the "
            "ones judged: a logbook `unit` or `per` that says otherwise is `unit_mismatch`, "
            "never trusted. Its `at` places the number on the regime's parameter and measures "
            "the evaluation's scale (`target.scale`); an `at` value of the measurement may "
            'also be a pointer, `at: {n_test: "outputs:/C1/n_test"}`.',
            "- **Rates and times** carry what they are `per`: `unit: ms, per: trajectory`, not "
            "`unit: ms / trajectory`. A different `per` from the claim's is `unit_mismatch` "
            "(`inconclusive`, never `falsified`).",
            "- **`sweep`** measures one metric across a parameter: `values` and `measured` of "
            "the same length, and/or `source` pointing at an object `{values: [...], measured: "
            "[...]}` the command wrote. A claim with a `regime` needs a sweep that reaches "
            "`regime.to`, or spans two orders of magnitude when `to` is null; a `bounded` claim "
            "is falsified by growth in a sweep that covers the regime (`growth_detected`; on a "
            "shorter sweep it is `toy` + `short_horizon`) or by a point above the bound "
            "(`bound_exceeded`).",
            "- **`falsification`** states the case against a claim: `argument` (required) and "
            "`counterexample`. A maintainer reviews a falsification before it counts as "
            "confirmed.",
            "- **`setup: reduced` or `synthetic`** caps the verdict at `toy`.",
        ]
    if kind == "run":
        return [
            "The judge reads `outputs.json` beside `run.json`: the exact bytes the command "
            "wrote at `reproduce.outputs`. Records are replaced whole. Every input hash is "
            "computed by reproaudit on the host, never inside the sandbox; a record made from "
            "other bytes of the logbook, its write-up, code tree or requirements is ignored "
            "(`stale_rerun`, the evidence naming the input that changed).",
        ]
    if kind == "paper":
        return [
            "A claim with a `target` is checked by the rules judge before any LLM reads "
            "prose; `regime` says over which range of a parameter the claim holds "
            "(`to: null`: for every value, an asymptotic claim), and `target.scale` the size "
            "of the evaluation the paper reports (`{n_test: 20000}`): a re-run on less is "
            "`toy` at best (`scale_short`).",
        ]
    if kind == "verdict":
        return [
            "`scope` (rules version 4) records how far the judged numbers reached beside what "
            "the claim says; a `verified` whose claim reaches past the range tested is "
            '`within_tested_range: true`, and the site says "verified, within the tested range" '
            '("held for k = 2..4096; claimed for all k >= 2").',
        ]
    return []
