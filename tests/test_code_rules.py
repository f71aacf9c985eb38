"""Rules about the package's own code, read from its syntax tree.

- every ``Problem(...)`` names a registered code through its constant (never a string
  literal, never an unknown name), and every registered code is documented;
- the package has no import cycle between its modules, counting imports inside functions
  and those made only for type checking (a circle a checker follows is still a circle);
- no command catches errors by hand: the one handler is at the click group;
- no module keeps mutable state at its top level, and only the command line sets
  process-wide state;
- the README's map of the code names every module.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType

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


# --- state that outlives a call ------------------------------------------------------------

# Calls that change the whole process: only the command line may make them.
PROCESS_WIDE = frozenset(
    {"Path.cwd", "os.getcwd", "os.chdir", "os.environ.setdefault", "matplotlib.use"}
)
# Values that can be changed in place, when a module binds one at its top level.
MUTABLE_FACTORIES = frozenset(
    {
        "dict", "list", "set", "bytearray", "defaultdict", "OrderedDict", "Counter", "deque",
        "ChainMap", "SimpleNamespace", "WeakKeyDictionary", "WeakValueDictionary", "WeakSet",
    }
)  # fmt: skip
MUTATORS = frozenset(
    {
        "append", "extend", "insert", "pop", "popitem", "popleft", "remove", "clear", "update",
        "setdefault", "add", "discard", "sort", "reverse", "appendleft", "extendleft", "rotate",
        "difference_update", "intersection_update", "symmetric_difference_update",
        "__setitem__", "__delitem__",
    }
)  # fmt: skip
# module:name -> why it may be global. Keep it short: each entry is a reviewed exception.
ALLOWED_GLOBALS = MappingProxyType(
    {
        "problems.py:CODES": "the problem-code registry: filled by _code() while the module "
        "is imported, only read afterwards",
        "ci/commands.py:HANDLERS": "the slash-command registry: filled by @handler while the "
        "module is imported, only read afterwards",
    }
)


def _is_mutable(value: ast.expr) -> bool:
    if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp):
        return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name in MUTABLE_FACTORIES


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run at import: the module's, and those inside its top-level if/try."""
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            handlers = [s for h in getattr(node, "handlers", []) for s in h.body]
            yield from _top_level(
                [*node.body, *handlers, *node.orelse, *getattr(node, "finalbody", [])]
            )
        else:
            yield node


def mutable_globals(module: ast.Module) -> Iterator[tuple[str, int]]:
    """(name, line) of each top-level name bound to a mutable value (dunders aside)."""
    for node in _top_level(module.body):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if _is_mutable(value):
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and not name.id.startswith("__"):
                        yield name.id, node.lineno


def _named(node: ast.expr) -> str | None:
    """The name an object is reached by: ``x`` in ``x[k]``, ``NAME`` in ``module.NAME``."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def mutations(module: ast.Module) -> Iterator[tuple[str, int, str]]:
    """(name, line, how) of every in-place change: ``x[k] = v``, ``del x[k]``, ``x.attr = v``,
    ``x += y``, ``x.append(...)`` and the like, and every ``global x``."""
    for node in ast.walk(module):
        if isinstance(node, ast.Global):
            for name in node.names:
                yield name, node.lineno, f"rebound: global {name}"
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript | ast.Attribute) and (name := _named(target.value)):
                yield name, node.lineno, f"set: {ast.unparse(target)}"
            elif isinstance(node, ast.AugAssign) and isinstance(target, ast.Name):
                yield target.id, node.lineno, f"changed: {ast.unparse(node)}"
        func = node.func if isinstance(node, ast.Call) else None
        if (
            isinstance(func, ast.Attribute)
            and func.attr in MUTATORS
            and (name := _named(func.value))
        ):
            yield name, node.lineno, f"changed: {ast.unparse(func)}(...)"


def global_state(modules: dict[str, ast.Module]) -> dict[str, str]:
    """``module:name`` -> why, for each top-level mutable value that is not a constant:
    named in lower case, or changed anywhere in ``modules`` (by its name, through an
    import or an attribute). A ``global`` statement counts as a change of its name."""
    changed: dict[str, str] = {}
    for rel, module in modules.items():
        for name, line, how in mutations(module):
            changed.setdefault(name, f"{rel}:{line}: {how}")
    found = {}
    for rel, module in modules.items():
        bound = dict(mutable_globals(module))
        for name, line in bound.items():
            if not name.lstrip("_").isupper():
                found[f"{rel}:{name}"] = f"line {line}: mutable and not named as a constant"
            elif name in changed:
                found[f"{rel}:{name}"] = f"line {line}: a constant changed at {changed[name]}"
        for name, line, how in mutations(module):
            if how.startswith("rebound") and name not in bound:
                found.setdefault(f"{rel}:{name}", f"line {line}: {how}")
    return found


def test_no_module_holds_state_that_outlives_a_call() -> None:
    """Module-level values are constants: a page, a run or a request never leaves state
    behind for the next one. Exceptions are listed, with their reason, in ALLOWED_GLOBALS."""
    modules = {str(path.relative_to(PACKAGE)): tree(path) for path in SOURCES}
    found = global_state(modules)
    unexpected = [
        f"{key}: {why}" for key, why in sorted(found.items()) if key not in ALLOWED_GLOBALS
    ]
    assert unexpected == [], "module-level mutable state:\n" + "\n".join(unexpected)
    stale = sorted(set(ALLOWED_GLOBALS) - set(found))
    assert stale == [], f"ALLOWED_GLOBALS names what is no longer global state: {stale}"


SAMPLE = {
    "render.py": """
import re
from collections import defaultdict
from types import MappingProxyType
from typing import Final

_here = {"url": ""}  # the page being rendered, overwritten per page
def render(src): _here["url"] = src
CACHE = {}  # named as a constant, but filled at run time
def remember(key, value): CACHE[key] = value
SEEN = set()  # changed from another module
PENDING = [n for n in range(3)]  # changed through an attribute
rows = list()
table = defaultdict(list)
if True:
    _nested = []
counter = 0  # immutable, but rebound
def bump():
    global counter
    counter += 1
COLUMNS = ["paper", "claim"]  # a list nobody changes: a constant
SIZES: Final = MappingProxyType({"a": 1})
NAMES = ("a", "b")
KINDS = frozenset({"x"})
PATTERN = re.compile("x")
__all__ = ["render"]
""",
    "other.py": """
from . import render
from .render import SEEN

def visit(x):
    SEEN.add(x)
    render.PENDING.append(x)
    local = {}
    local["k"] = x  # a local: not global state
""",
}


def test_the_state_rule_finds_each_kind_of_module_state_and_spares_constants() -> None:
    found = global_state({rel: ast.parse(text) for rel, text in SAMPLE.items()})
    assert sorted(found) == [
        "render.py:CACHE",
        "render.py:PENDING",
        "render.py:SEEN",
        "render.py:_here",
        "render.py:_nested",
        "render.py:counter",
        "render.py:rows",
        "render.py:table",
    ]
    assert found["render.py:_here"] == "line 7: mutable and not named as a constant"
    assert found["render.py:CACHE"] == "line 9: a constant changed at render.py:10: set: CACHE[key]"
    assert found["render.py:SEEN"].endswith("other.py:6: changed: SEEN.add(...)")
    assert found["render.py:PENDING"].endswith("other.py:7: changed: render.PENDING.append(...)")
    assert found["render.py:counter"] == "line 19: rebound: global counter"


def test_the_library_changes_no_process_wide_state() -> None:
    """Only the command line knows the working folder; no module sets process-wide state
    (matplotlib's backend and rcParams, the environment)."""
    found = []
    for path in SOURCES:
        if "cli" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in PROCESS_WIDE:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
            if isinstance(node, ast.Subscript | ast.Attribute) and "rcParams" in ast.unparse(node):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert found == [], "process-wide state in the library:\n" + "\n".join(found)


# --- the README's map of the code -----------------------------------------------------------


def readme_map(readme: str) -> set[str]:
    """The package paths the README's "Where things live in the code" table names.

    A name with a slash is a path from the package (``judge/rules.py``, ``site/``); a bare
    one (``spec.py``) is in the folder whose parentheses hold it (``reproduce/`` (...)), or
    at the top of the package.
    """
    section = readme.split("### Where things live in the code", 1)[1].split("\n## ", 1)[0]
    named = set()
    for row in section.splitlines():
        if not row.startswith("|"):
            continue
        folders = [""]  # the folder of each open parenthesis
        last = ""
        for token in re.finditer(r"`([^`]+)`|\(|\)", row):
            name = token[1]
            if name is not None:
                named.add(name if "/" in name else folders[-1] + name)
            elif token[0] == "(":
                folders.append(last if last.endswith("/") else folders[-1])
            elif len(folders) > 1:
                folders.pop()
            last = name or ""
    return named


def test_the_readme_map_names_every_module_and_package() -> None:
    """The "where things live" table stays a one-step index of the package: each module and
    subpackage is on a row, and each module a row names exists."""
    named = readme_map((PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8"))
    modules = {
        path.relative_to(PACKAGE).as_posix()
        for path in SOURCES
        if not path.name.startswith("__")  # a package's __init__ is named by its folder
    }
    packages = {f"{p.parent.relative_to(PACKAGE).as_posix()}/" for p in SOURCES}
    packages.discard("./")
    missing = sorted(modules - named) + sorted(
        pkg for pkg in packages if not any(n.startswith(pkg) for n in named)
    )
    assert missing == [], f"the README's map of the code does not name {missing}"
    gone = sorted(n for n in named if n.endswith(".py") and n not in modules)
    assert gone == [], f"the README's map names modules that do not exist: {gone}"


def test_the_map_reads_folders_and_bare_names() -> None:
    readme = (
        "### Where things live in the code\n\n| to change | open | job |\n|---|---|---|\n"
        "| a | `reproduce/` (`spec.py` what, `runner.py` (with `bundle.py`)), `fold.py` | x |\n"
        "| b | `judge/run.py` (HTML), `boundedjson.py` | y |\n\n## Next\n| c | `late.py` | z |\n"
    )
    assert readme_map(readme) == {
        "reproduce/",
        "reproduce/spec.py",
        "reproduce/runner.py",
        "reproduce/bundle.py",
        "fold.py",
        "judge/run.py",
        "boundedjson.py",
    }


def test_every_page_context_is_typed() -> None:
    """What ``site/context.py`` hands a template has a declared type (``site/pages.py``), so
    the type checker holds each producer to it: no function returns a bare dict or Any."""
    tree = ast.parse((PACKAGE / "site" / "context.py").read_text("utf-8"))
    loose = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        returns = ast.unparse(node.returns) if node.returns else "(none)"
        if returns == "(none)" or "dict[str, Any]" in returns or returns == "Any":
            loose.append(f"{node.name} -> {returns}")
    assert loose == []
