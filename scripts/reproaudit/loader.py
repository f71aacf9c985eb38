"""YAML to models, keeping the file and line of every value.

Data files come from strangers in pull requests, so the reader is deliberately
narrow: it builds plain values straight from the parser's event stream
(libyaml's C parser when PyYAML has it) and refuses anchors and aliases (no
alias bombs), custom tags (no ``!!python/object``), duplicate keys, multiple
documents and files over a size limit. While building, it records the line of
each mapping key and sequence item, so a schema error at
``results[0].claim`` is reported at that line of that file.

Over 400 lines because the event-stream reader, its refusals and the line bookkeeping are
one tight loop that must stay fast (it reads 13,000 files in seconds).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from . import problems as P
from .beneath import read_capped, split_path
from .errors import InputError
from .layout import RESERVED_HINT
from .models import (
    CLAIM_ID_PATTERN,
    GITHUB_PATTERN,
    ID_PATTERN,
    LOGBOOK_ID_PATTERN,
    SCALE_NAME_PATTERN,
    ReviewsFile,
    field_names,
)
from .pointers import SOURCE_PATTERN
from .problems import Problem

try:  # libyaml's C parser is several times faster; fall back to pure Python.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    # a different class under the same name: both parse the same way
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_DATA_BYTES = 1024 * 1024  # one paper, logbook or verdict file

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_TAG}{t}" for t in ("str", "int", "float", "bool", "null", "timestamp")}
_constructor = SafeConstructor()


class _CoreResolver(Resolver):
    """YAML 1.2 core-schema scalars, so `1e-3` is a number and `no` is a string.

    PyYAML follows YAML 1.1, where `1e-3` is a string and `yes`/`no`/`on`/`off`
    are booleans: both surprise people writing data files.
    """

    yaml_implicit_resolvers: dict = {}  # noqa: RUF012 - class-level table, as in PyYAML


for _tag, _regex, _first in (
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+.0123456789"),
    ),
    (
        "timestamp",
        r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}"
        r"(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
        r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?)$",
        list("0123456789"),
    ),
):
    _CoreResolver.add_implicit_resolver(f"{_TAG}{_tag}", re.compile(_regex), _first)
_resolver = _CoreResolver()


def _to_int(text: str) -> int:
    if text[:2] in ("0o", "0x"):
        return int(text, 0)
    return int(text)


def _to_float(text: str) -> float:
    low = text.lower()
    if low.lstrip("+-") == ".inf":
        return float("-inf") if low.startswith("-") else float("inf")
    if low == ".nan":
        return float("nan")
    return float(text)


_CONVERT = {
    f"{_TAG}null": lambda text: None,
    f"{_TAG}bool": lambda text: text.lower() == "true",
    f"{_TAG}int": _to_int,
    f"{_TAG}float": _to_float,
}
M = TypeVar("M", bound=BaseModel)


@dataclass
class Document:
    """One parsed YAML file: its data and where each value stands in the file."""

    path: str  # as reported in problems: relative to the repository, POSIX slashes
    data: Any
    lines: dict[int, Any] = field(repr=False, default_factory=dict)

    def line_of(self, loc: tuple[Any, ...]) -> int:
        """Line of the deepest value along ``loc`` that exists in the file."""
        line, node = 1, self.data
        for key in loc:
            table = self.lines.get(id(node))
            if table is None:
                break
            try:
                line = table[key]
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
        return line


def field_path(loc: tuple[Any, ...]) -> str:
    """``('results', 0, 'claim')`` -> ``results[0].claim``."""
    out = ""
    for key in loc:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def read_text(path: Path, rel: str, limit: int = MAX_DATA_BYTES) -> str:
    """Read a data file, refusing oversized or non-UTF-8 files before parsing them."""
    return decode_text(read_bytes(path, rel, limit), rel, limit)


def read_bytes(path: Path, rel: str, limit: int = MAX_DATA_BYTES) -> bytes:
    """A data file's bytes through the one reader (``beneath``): no link, no special file.

    When ``path`` ends with ``rel``, every folder of ``rel`` is checked too; at most
    ``limit + 1`` bytes are read, and an oversized file is refused.
    """
    root, inner = split_path(path, rel)
    got = read_capped(root, inner, limit, rel)
    if got is None:
        raise InputError(Problem(P.YAML_SYNTAX, rel, None, None, "cannot read file: not found"))
    if len(got.raw) > limit:
        raise _too_large(rel, got.size, limit)
    return got.raw


def _too_large(rel: str, size: int, limit: int) -> InputError:
    return InputError(
        Problem(
            P.FILE_TOO_LARGE,
            rel,
            None,
            None,
            f"file is {P.human_size(size)}, over the {P.human_size(limit)} limit for data files",
            "keep data files small; put large outputs in a linked dataset or the re-run outputs",
        )
    )


def decode_text(raw: bytes, rel: str, limit: int = MAX_DATA_BYTES) -> str:
    """Bytes already read (by ``Corpus``) to text, with the same refusals as ``read_text``."""
    if len(raw) > limit:
        raise _too_large(rel, len(raw), limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(Problem(P.NOT_UTF8, rel, line, None, "file is not valid UTF-8")) from None


def parse_yaml(text: str, rel: str) -> Document:
    """Parse one YAML document into plain values with line numbers, or raise."""
    try:
        return _build(text, rel)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        message = exc.problem or str(exc)
        if exc.context:
            started = exc.context_mark
            where = ""
            if started is not None and mark is not None and started.line != mark.line:
                where = f" that starts on line {started.line + 1}"
            message = f"{message} ({exc.context}{where})"
        hint = None
        all_lines = text.splitlines()
        bad_line = all_lines[line - 1] if line and line <= len(all_lines) else ""
        if "\t" in bad_line:
            hint = "YAML indents with spaces only; replace the tab characters on this line"
        elif "expected ',' or" in message or "flow" in (exc.context or ""):
            hint = "a bracket or brace is not closed"
        raise InputError(Problem(P.YAML_SYNTAX, rel, line, None, message, hint)) from None
    except yaml.YAMLError as exc:
        raise InputError(Problem(P.YAML_SYNTAX, rel, None, None, str(exc))) from None


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _fail(code: str, rel: str, event: Any, message: str, hint: str | None = None) -> InputError:
    return InputError(Problem(code, rel, event.start_mark.line + 1, None, message, hint))


_STR = f"{_TAG}str"
_PLAIN_FIRST = frozenset("~nNtTfF-+.0123456789")  # first characters of non-string plain scalars


@lru_cache(maxsize=65536)
def _implicit_tag(value: str) -> str:
    """The YAML 1.2 core tag of a plain scalar: a pure function, so caching it is safe."""
    return _resolver.resolve(ScalarNode, value, (True, False))


def _scalar(event: yaml.ScalarEvent, rel: str) -> Any:
    tag = event.tag
    value = event.value
    if tag is None:
        # Quoted scalars and plain words are strings: skip the regex resolver (the hot path).
        if not event.implicit[0] or (value and value[0] not in _PLAIN_FIRST):
            return value
        tag = _implicit_tag(value)
    elif tag == "!":
        return value
    if tag not in _SCALAR_TAGS:
        raise _fail(
            P.TAG_NOT_ALLOWED,
            rel,
            event,
            f"tag {_show_tag(event.tag or tag)!r} is not allowed",
            "data files hold plain strings, numbers, booleans and nulls only",
        )
    if tag == f"{_TAG}str":
        return event.value
    try:
        if tag in _CONVERT:
            return _CONVERT[tag](event.value)
        node = ScalarNode(tag, event.value)  # the marks are not needed to read a timestamp
        return _constructor.construct_yaml_timestamp(node)
    except (ValueError, yaml.YAMLError) as exc:
        raise _fail(
            P.INVALID_VALUE, rel, event, f"cannot read {event.value!r} as {tag[len(_TAG) :]}: {exc}"
        ) from None


_ScalarEvent = yaml.ScalarEvent
_MappingStart = yaml.MappingStartEvent
_SequenceStart = yaml.SequenceStartEvent
_CollectionEnd = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
_COLLECTION_TAGS = {_MappingStart: f"{_TAG}map", _SequenceStart: f"{_TAG}seq"}


def _build(text: str, rel: str) -> Document:
    """Build values from the parser's events, recording the line of every key and item.

    This is the hot loop of loading a conference (~3 million events), so the
    current frame lives in local variables rather than on the stack.
    """
    parser = _Loader(text)
    get_event = parser.get_event
    lines: dict[int, Any] = {}
    stack: list[tuple[Any, Any, bool, Any, int]] = []
    roots: list[Any] = []
    container: Any = roots  # the innermost open collection
    table: Any = []  # its line table: list of lines, or key -> line
    is_list = True  # roots behaves as a list
    key: Any = _NO_KEY  # a mapping's pending key
    key_line = 0
    try:
        while True:
            # Any: the branches below test ``type(event) is ...``, which mypy does not narrow
            event: Any = get_event()
            kind = type(event)
            if kind is _ScalarEvent or kind is _MappingStart or kind is _SequenceStart:
                if event.anchor is not None:
                    raise _fail(
                        P.ALIAS_NOT_ALLOWED,
                        rel,
                        event,
                        f"anchor '&{event.anchor}' is not allowed",
                        "write the values out instead of referring to them",
                    )
                line = event.start_mark.line + 1
                if kind is _ScalarEvent:
                    value = _scalar(event, rel)
                    opened = False
                else:
                    if event.tag not in (None, "!", _COLLECTION_TAGS[kind]):
                        raise _fail(
                            P.TAG_NOT_ALLOWED,
                            rel,
                            event,
                            f"tag {_show_tag(event.tag)!r} is not allowed",
                            "data files hold plain mappings and lists only",
                        )
                    value = {} if kind is _MappingStart else []
                    opened = True
                if is_list:
                    container.append(value)
                    table.append(line)
                elif key is _NO_KEY:
                    if opened:
                        raise _fail(
                            P.YAML_SYNTAX, rel, event, "a mapping key must be a plain value"
                        )
                    if value in container:
                        raise _fail(
                            P.DUPLICATE_KEY,
                            rel,
                            event,
                            f"key {value!r} appears twice in this mapping (first on line "
                            f"{table[value]})",
                            "keep one of them",
                        )
                    key, key_line = value, line
                    continue
                else:
                    container[key] = value
                    table[key] = key_line
                    key = _NO_KEY
                if opened:
                    stack.append((container, table, is_list, key, key_line))
                    container, is_list, key = value, kind is _SequenceStart, _NO_KEY
                    table = [] if is_list else {}
                    lines[id(value)] = table
            elif kind in _CollectionEnd:
                container, table, is_list, key, key_line = stack.pop()
            elif kind is yaml.AliasEvent:
                raise _fail(
                    P.ALIAS_NOT_ALLOWED,
                    rel,
                    event,
                    f"alias '*{event.anchor}' is not allowed",
                    "write the values out instead of referring to them",
                )
            elif kind is yaml.DocumentStartEvent and roots:
                raise _fail(
                    P.MULTIPLE_DOCUMENTS,
                    rel,
                    event,
                    "a second YAML document starts here",
                    "each data file holds exactly one document",
                )
            elif kind is yaml.StreamEndEvent:
                break
    finally:
        parser.dispose()
    if not roots or (roots[0] is None and len(roots) == 1):
        raise InputError(
            Problem(
                P.EMPTY_FILE,
                rel,
                None,
                None,
                "file holds no YAML document",
                "fill it in, e.g. from `reproaudit new`",
            )
        )
    return Document(rel, roots[0], lines)


_NO_KEY = object()

# every `pattern=` of the models, in words (a test keeps this complete)
PATTERN_WORDS = {
    SOURCE_PATTERN: "a source is 'outputs:' followed by a JSON pointer into the re-run's "
    "outputs file, such as outputs:/C2/x",
    ID_PATTERN: "an id is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
    "or digit, such as 06Nk3dJDMq",
    LOGBOOK_ID_PATTERN: "a logbook id is 1 to 64 lowercase letters, digits, '.', '_' or '-', "
    "starting with a letter or digit, such as alice-paging-1",
    CLAIM_ID_PATTERN: "a claim id starts with a letter and has up to 32 letters, digits, '.', "
    "'_' or '-', such as C1",
    GITHUB_PATTERN: "a GitHub handle is up to 39 letters, digits and single hyphens, such as "
    "alice-smith",
    SCALE_NAME_PATTERN: "a scale's name starts with a letter or '_' and has up to 32 letters, "
    "digits or '_', such as n_test",
}


def load_document(path: Path, rel: str) -> Document:
    """Read and parse one data file, which must hold a mapping."""
    return parse_document(read_text(path, rel), rel)


def parse_document(text: str, rel: str) -> Document:
    """Parse one data file's text, which must hold a mapping."""
    doc = parse_yaml(text, rel)
    if not isinstance(doc.data, dict):
        what = (
            "a list" if isinstance(doc.data, list) else f"a single {type(doc.data).__name__} value"
        )
        raise InputError(
            Problem(
                P.NOT_A_MAPPING,
                rel,
                1,
                None,
                f"the file holds {what}, but must hold a mapping of fields",
                "start from `reproaudit new` to see the expected layout",
            )
        )
    return doc


@cache
def _known_fields() -> tuple[str, ...]:
    """Every field name of the data files, computed on the first unknown field."""
    return tuple(sorted(field_names()))


def _did_you_mean(name: Any) -> str | None:
    close = difflib.get_close_matches(str(name), _known_fields(), n=1, cutoff=0.75)
    return f"did you mean {close[0]!r}?" if close else f"remove it; {P.FIELD_REFERENCE}"


def validation_problems(doc: Document, error: ValidationError) -> list[Problem]:
    """Turn pydantic's errors into problems at the right line and field."""
    out = []
    for err in error.errors(include_url=False):
        loc = _data_loc(doc.data, err["loc"], err["type"])
        line = doc.line_of(loc)
        field_text = field_path(loc) or None
        kind = err["type"]
        message = err["msg"].removeprefix("Value error, ")
        hint = None
        if kind == "extra_forbidden":
            code = P.UNKNOWN_FIELD
            message = f"unknown field {loc[-1]!r}"
            hint = _did_you_mean(loc[-1])
        elif kind == "missing":
            code = P.MISSING_FIELD
            message = "required field is missing"
            hint = f"add {loc[-1]!r}; {P.FIELD_REFERENCE}" if loc else None
        elif kind == "number_out_of_range":
            code = P.NUMBER_OUT_OF_RANGE
            hint = "write a finite number under 1e15 in magnitude (a larger unit keeps it small)"
        elif kind == "reserved_id":
            code = P.RESERVED_ID
            hint = RESERVED_HINT
        else:
            code = P.INVALID_VALUE
            if kind == "literal_error":
                message = f"{err['input']!r} is not allowed; expected {err['ctx']['expected']}"
                close = P.did_you_mean(err["input"], _literal_values(err["ctx"]["expected"]))
                hint = f"did you mean {close!r}?" if close else None
            elif kind == "string_pattern_mismatch":
                message, hint = pattern_message(err["ctx"]["pattern"], err["input"])
            elif "input" in err and kind.endswith("_type") and not isinstance(err["input"], dict):
                message = f"{message}, got {err['input']!r}"
            if loc and loc[-1] == "unit" and isinstance(err.get("input"), str):
                hint = P.per_hint(err["input"]) or hint
        out.append(Problem(code, doc.path, line, field_text, message, hint))
    return out


def _literal_values(expected: str) -> list[str]:
    return [v.strip(" '\"") for v in expected.replace(" or ", ", ").split(",")]


def pattern_message(pattern: str, value: Any) -> tuple[str, str | None]:
    """A pattern error in words (what is expected, with an example) and a hint."""
    expected = PATTERN_WORDS.get(pattern)
    if expected is None:
        return f"{value!r} does not have the expected form ({pattern})", None
    hint = None
    if pattern == SOURCE_PATTERN and isinstance(value, str) and value.startswith("outputs:/"):
        hint = "in a pointer, write '~' as ~0 and a '/' inside a key as ~1"
    elif pattern == SOURCE_PATTERN and isinstance(value, str):
        fixed = "outputs:" + (value if value.startswith("/") else "/" + value.lstrip(":"))
        hint = f'did you mean source: "{fixed}"?'
    elif pattern == LOGBOOK_ID_PATTERN and isinstance(value, str) and value.lower() != value:
        hint = f"did you mean {value.lower()!r}?"
    return f"{value!r} is not valid: {expected}", hint


def _data_loc(data: Any, loc: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
    """Drop pydantic's union-branch labels from ``loc``, keeping keys found in the data."""
    out: list[Any] = []
    node = data
    for i, key in enumerate(loc):
        last = i == len(loc) - 1
        if (isinstance(node, dict) and key in node) or (
            isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node)
        ):
            out.append(key)
            node = node[key]
        elif last and kind in ("missing", "extra_forbidden"):
            out.append(key)
    return tuple(out)


def to_model(doc: Document, model: type[M]) -> M:
    """Validate a document against a model, raising problems with lines."""
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        raise InputError(validation_problems(doc, exc)) from None


def load_model(path: Path, model: type[M], rel: str | None = None) -> M:
    """Read one file as ``model``; raise ``InputError`` describing every problem."""
    return to_model(load_document(path, rel or path.as_posix()), model)


def load_reviews(path: Path, rel: str) -> ReviewsFile:
    return load_model(path, ReviewsFile, rel)
