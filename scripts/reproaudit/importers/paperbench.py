"""A PaperBench rubric as a paper file: one claim per "Result Analysis" leaf.

PaperBench (openai/preparedness, ``project/paperbench/data/papers/<id>/``)
grades a replication with a tree of requirements. Its leaves of category
"Result Analysis" state what the paper's results show ("The baseline model
achieves an accuracy of ~66.59% on StrategyQA"): those are claims to check.
Code Development and Code Execution leaves describe the work of a replication,
not what the paper claims, so they are left out.

Each node has ``id``, ``requirements``, ``weight``, ``sub_tasks`` (``[]`` on a
leaf), ``task_category`` and ``finegrained_task_category``. Node ids are not
reliable (some are slugs, some repeat, some are malformed UUIDs), so claims get
fresh ids C1..Cn in tree order and the rubric's own ids only appear in comments.
The result is a draft for a maintainer: every claim is ``kind: empirical`` and
has no ``target``; numbers the statements give are left for a person to turn
into targets.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import layout
from .. import problems as P
from ..errors import InputError
from ..loader import parse_yaml, to_model
from ..models import ID_PATTERN, PaperFile
from ..problems import Problem
from ..scaffold import slug
from ._files import load_json, read_regular
from ._yaml import check_round_trip, clip, comment, q

RESULT_ANALYSIS = "Result Analysis"
ANCHOR_CHARS = 80
MAX_RUBRIC_BYTES = 64 * 1024 * 1024  # the largest real rubric is 2.4 MB
MAX_RUBRIC_DEPTH = 200  # JSON levels; a real rubric nests about 20
MAX_CONFIG_BYTES = 1024 * 1024
MAX_PROBLEMS = 20  # a badly broken rubric of 12,000 nodes should not print 12,000 lines
SCHEMA_URL = "../../schemas/paper.schema.json"
NODE_HINT = (
    "each rubric node is an object with 'requirements' (text), 'sub_tasks' (a list of nodes, "
    "[] on a leaf) and 'task_category' (text, or null on inner nodes)"
)

# "Figure 5.1", "Table 2", "section 4.2", "Fig. 3b", "Appendix B", "Eq. (3)", "Figure E.3".
_REF = re.compile(
    r"\b(Figure|Fig\.|Table|Section|Sec\.|Appendix|Equation|Eq\.|Algorithm|Theorem|Lemma)"
    r"s?\s*(\(?(?:(?-i:[A-Z])(?:\.\d+)*|\d+(?:\.\d+)*)[a-z]?\)?)(?!\.*\w)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Leaf:
    """A Result Analysis leaf, with what the paper file needs from it."""

    statement: str
    anchor: str
    where: str  # JSON path in the rubric
    node_id: str | None


def import_paperbench(
    rubric: Path, *, paper_id: str, venue: str = "ICML 2024", title: str | None = None
) -> tuple[str, str]:
    """Turn ``rubric`` (a ``rubric.json`` or its folder) into a paper file.

    Returns the repository-relative path ``claims/<venue-slug>/<paper_id>.yaml``
    and the YAML text, already checked against the schema; nothing is written.
    The title comes from ``title`` or from the ``config.yaml`` PaperBench keeps
    beside the rubric. Raises ``InputError`` naming the file and the JSON
    path of every structural problem, or when the rubric has no Result
    Analysis leaf.
    """
    rubric = Path(rubric)
    if rubric.is_dir():
        rubric = rubric / "rubric.json"
    shown = rubric.as_posix()
    rel = layout.paper_rel(slug(venue), paper_id)
    problems: list[Problem] = []
    if not re.fullmatch(ID_PATTERN, paper_id):
        problems.append(
            Problem(
                P.INVALID_VALUE,
                rel,
                None,
                "paper.id",
                f"{paper_id!r} is not a valid paper id",
                "use letters, digits, '.', '_' and '-' (at most 64), e.g. the OpenReview id",
            )
        )
    if title is None:
        title, found = _config_title(rubric.parent / "config.yaml")
        problems += found
    leaves: list[_Leaf] | None = None
    try:
        leaves = _result_leaves(_read_json(rubric), shown)
    except InputError as exc:
        problems += exc.problems
    if leaves == []:
        problems.append(
            Problem(
                P.IMPORT_NOTHING_FOUND,
                shown,
                None,
                None,
                f'the rubric has no leaf with task_category "{RESULT_ANALYSIS}", so no claims',
                "write the paper's claims by hand: `reproaudit new paper`",
            )
        )
    if problems or not leaves:
        raise InputError(problems)
    title = " ".join(str(title).split())
    text = _render(paper_id, title, venue, leaves)
    to_model(parse_yaml(text, rel), PaperFile)
    if not check_round_trip(text, rel, _data(paper_id, title, venue, leaves)):
        raise AssertionError(f"rendered {rel} does not read back as written")  # a bug here
    return rel, text


def _read_json(path: Path) -> Any:
    """The rubric: a regular file (no link, FIFO or device), bounded in size, depth, numbers."""
    shown = path.as_posix()
    if not os.path.lexists(path):
        raise InputError(
            Problem(
                P.IMPORT_SOURCE_INVALID,
                shown,
                None,
                None,
                "cannot read the rubric: no such file",
                "give the path of a PaperBench rubric.json, or of the folder holding it",
            )
        )
    raw = read_regular(path, MAX_RUBRIC_BYTES)
    return load_json(raw, shown, max_depth=MAX_RUBRIC_DEPTH)


def _config_title(config: Path) -> tuple[str | None, list[Problem]]:
    """The ``title`` in PaperBench's ``config.yaml``, or the problems that stop it."""
    shown = config.as_posix()
    if not os.path.lexists(config):
        return None, [
            Problem(
                P.IMPORT_NEEDS_INPUT,
                shown,
                None,
                None,
                "no config.yaml beside the rubric to take the paper's title from",
                "pass the title: --title 'The Paper Title'",
            )
        ]
    try:
        raw = read_regular(config, MAX_CONFIG_BYTES)  # the project's strict, safe YAML reader:
        doc = parse_yaml(raw.decode("utf-8"), shown)
    except UnicodeDecodeError:
        return None, [Problem(P.IMPORT_SOURCE_INVALID, shown, None, None, "not UTF-8 text")]
    except InputError as exc:
        return None, exc.problems
    if not isinstance(doc.data, dict):
        return None, [Problem(P.IMPORT_SOURCE_INVALID, shown, 1, None, "expected a mapping")]
    title = doc.data.get("title")
    if not isinstance(title, str) or not title.strip():
        return None, [
            Problem(
                P.IMPORT_NEEDS_INPUT,
                shown,
                doc.line_of(("title",)),
                "title",
                "config.yaml has no title string",
                "add `title: ...` to it, or pass --title",
            )
        ]
    return title, []


def _result_leaves(root: Any, shown: str) -> list[_Leaf]:
    """Result Analysis leaves in tree (pre-)order; raise on any malformed node.

    Walks with an explicit stack: a rubric is data from elsewhere and its depth
    is not ours to trust.
    """
    problems: list[Problem] = []
    leaves: list[_Leaf] = []
    root_context = _Context(None, None, None)
    stack: list[tuple[Any, str, _Context | None]] = [(root, "$", None)]
    while stack:
        node, where, context = stack.pop()
        wrong = _node_problem(node)
        if wrong:
            hint = None if problems else NODE_HINT  # once is enough
            problems.append(Problem(P.IMPORT_SOURCE_INVALID, shown, None, where, wrong, hint))
            continue
        children = node["sub_tasks"]
        if children:
            inner = _Context.of(node["requirements"], context, root_context)
            for i in reversed(range(len(children))):
                stack.append((children[i], f"{where}.sub_tasks[{i}]", inner))
        elif node["task_category"] == RESULT_ANALYSIS:
            statement = " ".join(node["requirements"].split())
            if not statement:
                problems.append(
                    Problem(
                        P.IMPORT_SOURCE_INVALID,
                        shown,
                        None,
                        f"{where}.requirements",
                        "a Result Analysis leaf has no requirement text",
                    )
                )
                continue
            node_id = node.get("id") if isinstance(node.get("id"), str) else None
            anchor = _anchor(statement, context or root_context)
            leaves.append(_Leaf(statement, anchor, where, node_id))
    if problems:
        more = len(problems) - MAX_PROBLEMS
        problems = problems[:MAX_PROBLEMS]
        if more > 0:
            problems.append(
                Problem(P.IMPORT_SOURCE_INVALID, shown, None, None, f"and {more} more like these")
            )
        raise InputError(problems)
    return leaves


def _node_problem(node: Any) -> str | None:
    """Why ``node`` is not a rubric node, or None."""
    if not isinstance(node, dict):
        return f"expected a rubric node (a JSON object), got {_json_type(node)}"
    missing = [k for k in ("requirements", "sub_tasks", "task_category") if k not in node]
    if missing:
        return f"node has no {', '.join(repr(k) for k in missing)}"
    if not isinstance(node["requirements"], str):
        return f"'requirements' must be text, got {_json_type(node['requirements'])}"
    if not isinstance(node["sub_tasks"], list):
        return f"'sub_tasks' must be a list of nodes, got {_json_type(node['sub_tasks'])}"
    if node["task_category"] is not None and not isinstance(node["task_category"], str):
        return f"'task_category' must be text or null, got {_json_type(node['task_category'])}"
    return None


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


@dataclass(frozen=True)
class _Context:
    """What a node's descendants need from its ancestors, computed once per inner node.

    ``refs``: the references named by the nearest ancestor that names any;
    ``inner``: the nearest non-root ancestor's requirement that is not blank;
    ``root``: the root's requirement, when not blank. Passing this down keeps
    the walk linear: no leaf rescans its ancestors.
    """

    refs: str | None
    inner: str | None
    root: str | None

    @classmethod
    def of(cls, requirements: str, parent: _Context | None, root: _Context) -> _Context:
        refs = _references(requirements)
        named = clip(", ".join(refs), ANCHOR_CHARS) if refs else None
        text = requirements if requirements.strip() else None
        if parent is None:  # the root itself
            return cls(named, None, text)
        return cls(named or parent.refs, text or parent.inner, parent.root)


def _anchor(statement: str, context: _Context) -> str:
    """Where in the paper a leaf comes from.

    The figures, tables and sections named by the leaf itself, or else by its
    nearest ancestor that names any ("Table 2", "Figure 5.1, Section 5.3");
    failing that, the nearest ancestor's requirement, shortened.
    """
    refs = _references(statement)
    if refs:
        return clip(", ".join(refs), ANCHOR_CHARS)
    if context.refs:
        return context.refs
    nearest = context.inner or context.root
    if nearest is None:
        return "PaperBench rubric"
    return clip(" ".join(nearest.split()).rstrip("."), ANCHOR_CHARS)


def _references(text: str) -> list[str]:
    out: list[str] = []
    for m in _REF.finditer(text):
        word = m.group(1)
        ref = f"{word[0].upper()}{word[1:].lower()} {m.group(2)}"
        if ref not in out:
            out.append(ref)
    return out


def _data(paper_id: str, title: str, venue: str, leaves: list[_Leaf]) -> dict[str, Any]:
    """The paper file as plain data: what the rendered text must read back as."""
    claims = [
        {"id": f"C{i}", "statement": leaf.statement, "anchor": leaf.anchor, "kind": "empirical"}
        for i, leaf in enumerate(leaves, 1)
    ]
    return {
        "paper": {"id": paper_id, "title": title, "venue": venue},
        "claims_version": 1,
        "claims": claims,
    }


def _render(paper_id: str, title: str, venue: str, leaves: list[_Leaf]) -> str:
    lines = [
        f"# yaml-language-server: $schema={SCHEMA_URL}",
        f'# Imported from a PaperBench rubric: one claim per "{RESULT_ANALYSIS}" leaf, in tree',
        "# order. Review before committing: check each anchor, and add a `target` where the",
        "# statement gives a number. Re-importing rewrites this file from the rubric.",
        "paper:",
        f"  id: {q(paper_id)}",
        f"  title: {q(title)}",
        f"  venue: {q(venue)}",
        "claims_version: 1",
        "claims:",
    ]
    for i, leaf in enumerate(leaves, 1):
        node = f"node {comment(leaf.node_id, 60)} at " if leaf.node_id else ""
        lines += [
            f"  # rubric {node}{leaf.where}",
            f"  - id: C{i}",
            f"    statement: {q(leaf.statement)}",
            f"    anchor: {q(leaf.anchor)}",
            "    kind: empirical",
        ]
    return "\n".join(lines) + "\n"
