"""Scaffold templates hold against hostile values: each is rendered, then parsed.

Every value reaches a template through an escaping filter for its context, so
a title that closes a docstring, an anchor with a newline or a metric with a
``#`` stays data: the generated Python has only the template's statements, the
generated YAML has only the template's keys, and the values read back exactly.
The models also refuse such one-line fields; the templates do not rely on it,
so these tests build the paper with ``model_construct`` (no validation).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.errors import ReproauditError
from reproaudit.loader import parse_yaml, to_model
from reproaudit.models import Claim, Logbook, PaperFile, PaperMeta, Regime, Target
from reproaudit.scaffold import _env, new_paper

PWN = 'x"""; __import__("os").system("touch PWNED"); """'
HOSTILE = [
    PWN,
    "x'''; __import__('os').system('touch PWNED'); '''",
    "line one\ndiscrepancies: [{paper: a, code: b}]\n# ",
    "hash # then: colon, {brace: 1}, [list], &anchor *alias !tag",
    "bidi \u202eevil\u202c and \u2066isolate\u2069",
    "controls \x00\x07\x1b[31m\x7f\x85 nel \u2028 ls \u2029 ps \r cr \t tab",
    "%(prog)s {0} ${HOME} `uname` $(id)",
    "\\ backslash \\n not a newline \\x41",
]


def hostile_paper(text: str) -> PaperFile:
    """A paper whose every one-line field is ``text``, built without validation."""
    target = Target.model_construct(
        metric=text, form=text, value=None, unit=text, per=text, tolerance=None
    )
    regime = Regime.model_construct(parameter=text, from_=text, to=text)
    claims = [
        Claim.model_construct(
            id=cid, statement=text, anchor=text, kind=text, target=target, regime=regime
        )
        for cid in ("C1", text)
    ]
    meta = PaperMeta.model_construct(id=text, title=text, venue=text)
    return PaperFile.model_construct(paper=meta, claims_version=text, claims=claims)


def render(name: str, **values: object) -> str:
    return _env().get_template(name).render(**values)


ALLOWED_CALLS = {
    "argparse.ArgumentParser",
    "parser.add_argument",
    "parser.parse_args",
    "args.out.parent.mkdir",
    "args.out.write_text",
    "json.dumps",
    "main",
    "measured",
}


def call_names(tree: ast.AST) -> set[str]:
    return {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}


@pytest.mark.parametrize("text", HOSTILE)
def test_reproduce_py_keeps_hostile_values_in_string_literals(text: str) -> None:
    source = render("reproduce.py.j2", paper=hostile_paper(text), logbook_id=text)
    tree = ast.parse(source)
    kinds = [type(node).__name__ for node in tree.body]
    module = ["Expr", "Import", "Import", "ImportFrom", "Assign", "Assign"]
    assert kinds == [*module, "FunctionDef", "FunctionDef", "If"]
    assert call_names(tree) == ALLOWED_CALLS  # no __import__, no os.system
    constants = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
    }
    assert constants == {"PAPER": text, "TITLE": text}  # read back exactly
    outputs = next(
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "outputs"
    )
    assert isinstance(outputs, ast.Dict)
    assert [ast.literal_eval(k) for k in outputs.keys if k] == ["C1", text]
    # each claim's number is written with its own unit and per (issue 28)
    for entry in outputs.values:
        assert isinstance(entry, ast.Dict)
        calls = [v for v in entry.values if isinstance(v, ast.Call)]
        assert [ast.unparse(c.func) for c in calls] == ["measured"]
        assert [ast.literal_eval(a) for a in calls[0].args] == [None, text]
        assert [(k.arg, ast.literal_eval(k.value)) for k in calls[0].keywords] == [("per", text)]
    for line in source.splitlines():  # comments stay one printable line each
        if line.lstrip().startswith("#"):
            assert line.isprintable()


def test_the_generated_script_runs_without_running_the_title(tmp_path: Path) -> None:
    script = tmp_path / "reproduce.py"
    script.write_text(render("reproduce.py.j2", paper=hostile_paper(PWN), logbook_id="a-1"))
    out = tmp_path / "results" / "metrics.json"
    subprocess.run(
        [sys.executable, str(script), "--out", str(out)], cwd=tmp_path, check=True, timeout=30
    )
    assert not (tmp_path / "PWNED").exists()
    assert out.read_text().startswith("{")


LOGBOOK_KEYS = {"logbook", "code", "reproduce", "results"}
RESULT_KEYS = {"claim", "setup", "self_assessment", "measurements", "notes"}


@pytest.mark.parametrize("text", HOSTILE)
def test_logbook_yaml_has_exactly_the_template_keys(text: str) -> None:
    yaml_text = render(
        "logbook.yaml.j2",
        schema_url=text,
        reference=text,
        paper=hostile_paper(text),
        logbook_id=text,
        contributor=text,
        agent=text,
    )
    data = parse_yaml(yaml_text, "logbooks/x/y.yaml").data
    assert set(data) == LOGBOOK_KEYS
    head = data["logbook"]
    assert set(head) == {"id", "paper", "claims_version", "contributor", "agent"}
    assert head["id"] == head["paper"] == head["claims_version"] == text
    assert head["contributor"] == {"github": text, "hf": None}
    assert head["agent"] == {"name": text, "human_in_loop": True}
    assert data["code"] == {"path": text + "/"}
    assert [set(r) for r in data["results"]] == [RESULT_KEYS, RESULT_KEYS]
    assert [r["claim"] for r in data["results"]] == ["C1", text]
    assert all(r["measurements"] == [] and r["notes"] is None for r in data["results"])
    comments = [line for line in yaml_text.splitlines() if line.lstrip().startswith("#")]
    assert all(line.isprintable() for line in comments)
    assert not any(ch in yaml_text for ch in "\u202e\u202c\u2066\u2069\x85\u2028")  # escaped


@pytest.mark.parametrize("text", HOSTILE)
def test_paper_yaml_has_exactly_the_template_keys(text: str) -> None:
    yaml_text = render(
        "paper.yaml.j2",
        schema_url=text,
        reference=text,
        paper_id=text,
        title=text,
        venue=text,
        openreview=text,
    )
    data = parse_yaml(yaml_text, "claims/x/y.yaml").data
    assert set(data) == {"paper", "claims_version", "claims"}
    assert set(data["paper"]) == {
        "id",
        "title",
        "venue",
        "links",
        "authors",
        "released",
        "tags",
    }
    assert data["paper"]["title"] == data["paper"]["venue"] == text
    assert data["paper"]["links"]["openreview"] == text
    assert len(data["claims"]) == 1


@pytest.mark.parametrize("text", [t for t in HOSTILE if t.isprintable()])
def test_new_paper_keeps_printable_hostile_titles_as_data(tmp_path: Path, text: str) -> None:
    _, yaml_text = new_paper(tmp_path, "Hx01", text, "ICML 2026")
    paper = to_model(parse_yaml(yaml_text, "claims/icml2026/Hx01.yaml"), PaperFile)
    assert paper.paper.title == text


@pytest.mark.parametrize("text", [t for t in HOSTILE if not t.isprintable()])
def test_new_paper_refuses_line_breaks_controls_and_bidi_in_titles(
    tmp_path: Path, text: str
) -> None:
    with pytest.raises(ReproauditError) as info:
        new_paper(tmp_path, "Hx01", text, "ICML 2026")
    assert "paper.title" in str(info.value.problems[0].field)
    assert "must be one line of plain text" in info.value.problems[0].message


def test_new_paper_then_new_logbook_end_to_end(tmp_path: Path) -> None:
    """The attack from the issue: the title of a paper file runs at `check`."""
    runner = CliRunner()
    made = runner.invoke(cli, ["new", "paper", "Hx01", "--title", PWN, "--repo", str(tmp_path)])
    assert made.exit_code == 0, made.output
    made = runner.invoke(
        cli,
        [
            "new",
            "logbook",
            "Hx01",
            "--id",
            "eve-1",
            "--contributor",
            "eve",
            "--repo",
            str(tmp_path),
        ],
    )
    assert made.exit_code == 0, made.output
    folder = tmp_path / "logbooks" / "Hx01" / "eve-1"
    logbook = parse_yaml((tmp_path / "logbooks/Hx01/eve-1.yaml").read_text(), "x.yaml")
    to_model(logbook, Logbook)
    subprocess.run(
        [sys.executable, "reproduce.py", "--out", "results/metrics.json"],
        cwd=folder,
        check=True,
        timeout=30,
    )
    assert not (folder / "PWNED").exists() and not (tmp_path / "PWNED").exists()
    assert "__import__" in (folder / "reproduce.py").read_text()  # kept, as a string


ONE_LINE_FIELDS = [
    ("paper", "title"),
    ("paper", "venue"),
    ("claims", 0, "anchor"),
    ("claims", 0, "target", "metric"),
    ("claims", 0, "target", "unit"),
    ("claims", 0, "target", "per"),
    ("claims", 0, "regime", "parameter"),
]


@pytest.mark.parametrize("where", ONE_LINE_FIELDS, ids=lambda w: ".".join(map(str, w)))
@pytest.mark.parametrize("bad", ["a\\nb", "a\\u202Eb", "a\\x1bb", "a\\tb", "a\\u2028b"])
def test_one_line_fields_refuse_breaks_controls_and_bidi(where: tuple, bad: str) -> None:
    paper = {
        "paper": {"id": "Hx01", "title": "T", "venue": "V"},
        "claims_version": 1,
        "claims": [
            {
                "id": "C1",
                "statement": "S.",
                "anchor": "Table 1",
                "kind": "empirical",
                "target": {"metric": "m", "form": "at_least", "value": 1, "unit": "s", "per": "x"},
                "regime": {"parameter": "k", "from": 1, "to": 10},
            }
        ],
    }
    node = paper
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = "__BAD__"
    text = json.dumps(paper, indent=1).replace('"__BAD__"', f'"{bad}"')  # JSON is YAML
    with pytest.raises(ReproauditError) as info:
        to_model(parse_yaml(text, "claims/v/Hx01.yaml"), PaperFile)
    problem = info.value.problems[0]
    assert problem.field == ".".join(f"[{k}]" if isinstance(k, int) else k for k in where).replace(
        ".[", "["
    )
    assert problem.line is not None
    assert "must be one line of plain text" in problem.message


SAFE_FILTERS = {"q", "id", "comment", "oneline", "pystr", "pycomment"}


@pytest.mark.parametrize("name", ["logbook.yaml.j2", "paper.yaml.j2", "reproduce.py.j2"])
def test_every_value_in_a_template_goes_through_an_escaping_filter(name: str) -> None:
    """Read the template's syntax tree: no `{{ value }}` reaches the output unfiltered."""
    from jinja2 import nodes

    env = _env()
    source = env.loader.get_source(env, name)[0]
    unfiltered = [
        f"line {expr.lineno}: {source.splitlines()[expr.lineno - 1].strip()[:80]}"
        for output in env.parse(source).find_all(nodes.Output)
        for expr in output.nodes
        if not isinstance(expr, nodes.TemplateData)
        and not (isinstance(expr, nodes.Filter) and expr.name in SAFE_FILTERS)
    ]
    assert unfiltered == [], f"{name}: values without an escaping filter: {unfiltered}"


def test_the_starter_writes_numbers_the_judge_reads_with_their_units(tmp_path: Path) -> None:
    """Issue 28: the starter's outputs carry each number's unit, per and scale, and the judge
    reads them so (a number filled in, the script run, its outputs judged)."""
    from reproaudit.judge.rules import Rerun, judge_claim
    from reproaudit.models import Result

    claims = [
        {"id": "C1", "statement": "Fast.", "anchor": "T1", "kind": "efficiency",
         "target": {"metric": "t", "form": "at_most", "value": 52, "unit": "ms",
                    "per": "trajectory", "tolerance": {"rel": 0.1}}},
        {"id": "C2", "statement": "Accurate.", "anchor": "T2", "kind": "empirical",
         "target": {"metric": "acc", "form": "at_least", "value": 0.9,
                    "scale": {"n_test": 20000}}},
    ]  # fmt: skip
    paper = PaperFile.model_validate(
        {"paper": {"id": "Hx01", "title": "T", "venue": "V"}, "claims_version": 1, "claims": claims}
    )
    script = render("reproduce.py.j2", paper=paper, logbook_id="a-1")
    script = script.replace("measured(None, 'ms'", "measured(40.0, 'ms'", 1)
    script = script.replace(
        "measured(None, 'dimensionless', at={'n_test': None}",
        "measured(0.93, 'dimensionless', at={'n_test': 100}",
        1,
    )
    (tmp_path / "reproduce.py").write_text(script)
    out = tmp_path / "results" / "metrics.json"
    subprocess.run([sys.executable, "reproduce.py", "--out", str(out)], cwd=tmp_path, check=True)
    outputs = json.loads(out.read_text())
    assert outputs["C1"]["t"] == {"value": 40.0, "unit": "ms", "per": "trajectory"}
    rerun = Rerun("passed", outputs)
    for claim, want in zip(paper.claims, [("verified", []), ("toy", ["scale_short"])], strict=True):
        metric = claim.target.metric
        result = Result.model_validate(
            {"claim": claim.id, "setup": "full",
             "measurements": [{"metric": metric, "source": f"outputs:/{claim.id}/{metric}"}]}
        )  # fmt: skip
        j = judge_claim(claim, result, rerun)
        assert (j.verdict, j.flags) == want, j.evidence
