"""Rules about the package's own code, read from its syntax tree.

- every ``Problem(...)`` names a registered code through its constant (never a string
  literal, never an unknown name), and every registered code is documented;
- the package has no import cycle between its modules, counting imports inside functions
  and those made only for type checking (a circle a checker follows is still a circle);
- no command catches errors by hand: the one handler is at the click group.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import reproaudit.problems as P
from reproaudit.problems import CODES

PACKAGE = Path(P.__file__).resolve().parent
SOURCES = sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES}
REGISTERED = {
    name for name, value in vars(P).items() if name.isupper() and isinstance(value, str)
} & {name for name, value in vars(P).items() if isinstance(value, str) and value in CODES}


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def problem_calls(module: ast.Module) -> Iterator[tuple[int, ast.expr | None]]:
    """(line, code argument) of each ``Problem(...)`` call; None for ``Problem(**data)``."""
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name != "Problem":
            continue
        code = (
            node.args[0]
            if node.args
            else next((k.value for k in node.keywords if k.arg == "code"), None)
        )
        yield node.lineno, code


def code_error(code: ast.expr | None) -> str | None:
    """Why this code argument is not allowed, or None."""
    if code is None or (isinstance(code, ast.Name) and code.id.islower()):
        return None  # rebuilt from data or passed through: Problem() itself checks it at run time
    if isinstance(code, ast.Constant | ast.JoinedStr):
        return f"a string literal {ast.unparse(code)}: use the registered constant (P.NAME)"
    if isinstance(code, ast.Attribute) and code.attr in REGISTERED:
        return None
    if isinstance(code, ast.Name) and code.id in REGISTERED:
        return None
    return f"{ast.unparse(code)} is not a registered problem code"


def test_every_problem_names_a_registered_code_by_its_constant() -> None:
    bad = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {why}"
        for path in SOURCES
        for line, code in problem_calls(tree(path))
        if (why := code_error(code))
    ]
    assert bad == [], "ad-hoc problem codes:\n" + "\n".join(bad)


def test_the_rule_catches_literals_and_unknown_names() -> None:
    snippet = ast.parse(
        'Problem("invalid_value", "x", None, None, "m")\n'
        "Problem(P.NOT_A_CODE, 'x', None, None, 'm')\n"
        "Problem(P.INVALID_VALUE, 'x', None, None, 'm')\n"
        "Problem(code=f'{x}', path='x', line=None, field=None, message='m')\n"
    )
    found = [code_error(code) is not None for _, code in problem_calls(snippet)]
    assert found == [True, True, False, True]


def test_every_registered_code_is_documented_on_the_reference_page() -> None:
    page = (PACKAGE / "site/docs/reference/problem-codes.md").read_text(encoding="utf-8")
    for code in CODES.values():
        assert code.doc.strip(), f"{code.name} has no docstring"
        assert f"## `{code.name}`" in page, f"{code.name} is missing from the reference page"


def imports_of(name: str, path: Path, *, typing: bool = True) -> set[str]:
    """The package's modules that ``name`` imports anywhere; ``typing=False`` skips
    the imports under ``if TYPE_CHECKING:`` (those made for the type checker only)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not typing and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                found.add(
                    f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target
                )
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree(path))
    return {m for m in found if m in MODULES and m != name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := walk(start)):
            return cycle
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = {name: imports_of(name, path) for name, path in MODULES.items()}
    assert "reproaudit.cli" in graph["reproaudit.reference"]  # the CLI page is generated from it
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_a_circle_through_type_checking_imports_counts(tmp_path: Path) -> None:
    """The shape ``errors.py`` <-> ``problems.py`` had: one side imports only for types."""
    errors, problems = tmp_path / "errors.py", tmp_path / "problems.py"
    errors.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .problems import P\n"
    )
    problems.write_text("from .errors import E\n")
    graph = {
        "reproaudit.errors": imports_of("reproaudit.errors", errors),
        "reproaudit.problems": imports_of("reproaudit.problems", problems),
    }
    assert find_cycle(graph) == ["reproaudit.errors", "reproaudit.problems", "reproaudit.errors"]
    assert imports_of("reproaudit.errors", errors, typing=False) == set()


def test_errors_import_nothing_at_run_time_and_problems_import_no_errors() -> None:
    """Every module may import ``errors``; ``problems`` (data) does not need it."""
    assert imports_of("reproaudit.errors", MODULES["reproaudit.errors"], typing=False) == set()
    assert "reproaudit.errors" not in imports_of(
        "reproaudit.problems", MODULES["reproaudit.problems"]
    )


def test_the_report_lives_outside_the_ci_layer() -> None:
    """``report/`` and ``check`` need no GitHub: nothing of theirs imports ``reproaudit.ci``."""
    graph = {name: imports_of(name, path) for name, path in MODULES.items()}
    starts = ["reproaudit.check", *(n for n in MODULES if n.startswith("reproaudit.report"))]
    reached, todo = set(), list(starts)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(graph[name])
    assert sorted(n for n in reached if n.startswith("reproaudit.ci")) == []


def test_commands_catch_no_errors_by_hand() -> None:
    """The handler at the group does it: no ``except`` and no ``_fail`` in cli/ commands."""
    offenders = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        if path.name == "__init__.py":  # the one handler
            continue
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.ExceptHandler) or (
                isinstance(node, ast.Name) and node.id == "_fail"
            ):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


GLOBAL_STATE = (
    "Path.cwd(",
    "os.environ.setdefault(",
    "matplotlib.use(",
    "rcParams[",
    "rcParams.update(",
)


def test_the_library_changes_no_global_state() -> None:
    """Only the command line knows the working folder; no module sets process-wide state."""
    found = [
        f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "cli" not in path.relative_to(PACKAGE).parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(call in line for call in GLOBAL_STATE)
    ]
    assert found == [], "global state in the library:\n" + "\n".join(found)
