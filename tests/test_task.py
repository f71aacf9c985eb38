"""`reproaudit task` and `new`: the brief, as Markdown and JSON, with links to the docs."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.models import Logbook

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "scripts/reproaudit/site/docs/reference/data-files.md"
AGENTS = "scripts/reproaudit/site/docs/agents.md"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_task_ends_with_links_to_the_agents_page_and_the_field_reference(mini_repo: Path) -> None:
    out = invoke("task", "Tq7mV2pLx0", "--repo", str(mini_repo)).output
    assert out.rstrip().splitlines()[-4:] == [
        "## Read next",
        "",
        f"- For coding agents (what `check` detects, how to read its status): {AGENTS}",
        f"- Every field of a logbook, with its type and an example: {REFERENCE}",
    ]
    assert "status=ok or status=fail on its first line" in out
    assert "- Report it with `unit: ms, per: batch of 32`" in out
    # both pages exist where the links say
    assert (ROOT / REFERENCE).is_file() and (ROOT / AGENTS).is_file()


def test_links_go_to_the_site_when_mkdocs_names_its_url(mini_repo: Path) -> None:
    (mini_repo / "mkdocs.yml").write_text("site_url: https://audit.example.org/\n")
    out = invoke("task", "Tq7mV2pLx0", "--repo", str(mini_repo)).output
    assert out.rstrip().endswith("https://audit.example.org/reference/data-files/")
    assert "https://audit.example.org/agents/" in out


def test_task_json_is_the_same_brief_as_data(mini_repo: Path) -> None:
    result = invoke("task", "Tq7mV2pLx0", "--json", "--repo", str(mini_repo))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["paper"]["id"] == "Tq7mV2pLx0"
    assert [c["id"] for c in data["claims"]] == ["C1", "C2", "C3"]
    c2 = data["claims"][1]
    assert c2["target"]["per"] == "batch of 32" and c2["target"]["form"] == "at_most"
    assert data["claims"][2]["regime"] == {"parameter": "T", "from": 10.0, "to": None}
    assert data["existing_logbooks"] == ["logbooks/Tq7mV2pLx0/ann-1.yaml"]
    assert data["docs"] == {"agents": AGENTS, "data_files": REFERENCE}
    assert any("never trusted" in rule for rule in data["rules"])
    assert "status=fail" in data["status"]
    assert data["logbook_template"].startswith("# yaml-language-server")


def test_task_for_an_unknown_paper_suggests_the_closest(mini_repo: Path) -> None:
    result = invoke("task", "Tq7mV2pLxO", "--repo", str(mini_repo))
    assert result.exit_code == 1
    assert "there is no paper 'Tq7mV2pLxO'" in result.output
    assert "Tq7mV2pLx0" in result.output


def test_new_logbook_writes_per_for_rate_claims_and_links_the_reference(mini_repo: Path) -> None:
    result = invoke(
        "new", "logbook", "Tq7mV2pLx0", "--id", "zoe-1", "--contributor", "zoe",
        "--repo", str(mini_repo),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"every field, with its type and an example: {REFERENCE}" in result.output
    assert "reproaudit check logbooks/Tq7mV2pLx0/zoe-1.yaml" in result.output
    text = (mini_repo / "logbooks/Tq7mV2pLx0/zoe-1.yaml").read_text()
    assert "unit: ms, per: batch of 32, source:" in text
    assert '# sweep: {parameter: T, metric: regret, source: "outputs:/C3/sweep"}' in text
    assert f"# Every field, with its type and an example: {REFERENCE}" in text
    # the example measurement, uncommented, is a valid measurement with the claim's per
    import yaml

    line = next(x for x in text.splitlines() if "per: batch of 32" in x)
    example = yaml.safe_load(line.split("# e.g. ", 1)[1])
    book = yaml.safe_load(text)
    book["results"][1]["measurements"] = [example]
    assert Logbook.model_validate(book).results[1].measurements[0].per == "batch of 32"


def test_readme_links_the_agents_page_and_the_field_reference() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"({AGENTS})" in readme and f"({REFERENCE})" in readme
    for page in ("agents.md", "contribute.md"):
        text = (ROOT / "scripts/reproaudit/site/docs" / page).read_text(encoding="utf-8")
        assert "](reference/data-files.md)" in text


def test_agents_page_says_how_to_read_checks_status_and_its_options_exist() -> None:
    from reproaudit.cli import cli as group

    text = (ROOT / AGENTS).read_text(encoding="utf-8")
    assert "`status=fail` (exit 1)" in text and "`status=ok` (exit 0)" in text
    assert "It does **not** mean a claim is verified" in text
    assert "must start with `status=ok`" not in text  # the old, overstated wording
    check = group.commands["check"]
    options = {opt for param in check.params for opt in (*param.opts, *param.secondary_opts)}
    for flag in ("--rerun", "--no-rerun", "--format"):
        assert f"`{flag}" in text and flag in options
    assert "--json" in {o for p in group.commands["task"].params for o in p.opts}
