"""A new contributor's path, scripted from the docs alone, on a fresh clone.

`task` -> `new logbook` -> code -> a sweep-based logbook for a bounded claim and a
falsification, written only with fields the data-file reference names -> `check`
-> commit -> `ci validate-pr` and `build`. Nothing but the contributor's own files
may appear in `git status`: `build`, `check` and `validate-pr` judge in memory.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml
from click.testing import CliRunner

from reproaudit.cli import cli
from tests.conftest import needs_bwrap
from tests.gitutil import git

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "scripts/reproaudit/site/docs/reference/data-files.md"
PAPER = "Kp4rT9vQ2x"
BOOK = f"logbooks/{PAPER}/walker-1.yaml"

SCRIPT = '''\
"""Simulate the additive term over cache sizes and the consistency ratio."""
import argparse
import json
import math
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, required=True)
args = parser.parse_args()
ks = [2, 8, 32, 128, 512]
measured = [round(0.8 + 0.01 * math.sin(k), 4) for k in ks]  # flat: a constant term
outputs = {
    "C1": {"sweep": {"values": ks, "measured": measured}},
    "C2": {"competitive_ratio": 1.5},
}
args.out.parent.mkdir(parents=True, exist_ok=True)
args.out.write_text(json.dumps(outputs))
'''


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def status(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def field_paths(node: object, prefix: str = "") -> set[str]:
    """Every field path a document uses, in the reference's notation (`results[].claim`)."""
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            out.add(path)
            if key != "at":  # `at` maps parameter names to values: names are data
                out |= field_paths(value, path)
    elif isinstance(node, list):
        for item in node:
            out |= field_paths(item, prefix + "[]")
    return out


@needs_bwrap
def test_a_new_contributor_follows_the_docs_and_nothing_is_written_behind_their_back(
    tmp_path: Path,
) -> None:
    cli_page = (ROOT / "scripts/reproaudit/site/docs/reference/cli.md").read_text()
    for command in ("task", "new logbook", "check", "ci validate-pr", "build", "judge"):
        assert f"## `reproaudit {command}`" in cli_page  # only documented commands below
    repo = tmp_path / "clone"
    for name in ("claims", "logbooks", "verdicts", "reruns"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("results"))
    # one logbook without a verdict file: build must judge it in memory, not write it
    (repo / "verdicts/Kp4rT9vQ2x/bob-paging-1.yaml").unlink()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")

    brief = run("task", PAPER, "--repo", str(repo)).output
    assert "### C1 (theoretical) — Theorem 3.2" in brief and "data-files.md" in brief
    new = run("new", "logbook", PAPER, "--id", "walker-1", "--contributor", "walker",
              "--repo", str(repo))  # fmt: skip
    assert new.exit_code == 0, new.output
    (repo / f"logbooks/{PAPER}/walker-1/reproduce.py").write_text(SCRIPT)

    book = yaml.safe_load((repo / BOOK).read_text())
    results = {r["claim"]: r for r in book["results"]}
    results["C1"].update(
        self_assessment="verified",
        sweep={"parameter": "k", "metric": "additive_term", "source": "outputs:/C1/sweep"},
    )
    results["C2"].update(
        self_assessment="falsified",
        measurements=[
            {"metric": "competitive_ratio", "value": 1.5, "unit": "dimensionless",
             "at": {"k": 8}, "source": "outputs:/C2/competitive_ratio"}
        ],
        falsification={
            "argument": "With perfect predictions the marking phase still evicts a page "
            "that is requested next, so it pays more faults than OPT.",
            "counterexample": "k = 8, the cyclic sequence 1..9 repeated; see reproduce.py",
        },
    )  # fmt: skip
    book["results"] = [results["C1"], results["C2"]]
    (repo / BOOK).write_text(yaml.safe_dump(book, sort_keys=False))
    reference = REFERENCE.read_text()
    unknown = [p for p in sorted(field_paths(book)) if f"| `{p}` |" not in reference]
    assert not unknown, f"fields the reference does not name: {unknown}"

    checked = run("check", BOOK, "--repo", str(repo))
    assert checked.exit_code == 0, checked.output
    out = checked.output
    assert out.startswith(
        "status=ok Valid, 2 claims still empty: 1 logbook checked in your working copy"
    )
    assert "  C1  verified (pending)" in out
    assert "  C2  falsified (pending)" in out and "(re-run)" in out
    assert "Local re-run: passed" in out
    assert status(repo).splitlines() == [  # only what the contributor wrote
        f"?? logbooks/{PAPER}/walker-1.yaml",
        f"?? logbooks/{PAPER}/walker-1/reproduce.py",
    ]

    git(repo, "checkout", "-qb", "walker")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "walker-1")
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    committed = run("check", BOOK, "--no-rerun", "--repo", str(repo))
    assert f"checked at {head[:12]}" in committed.output  # committed: the header names HEAD
    assert "No re-run: these verdicts are provisional" in " ".join(committed.output.split())
    artifact = tmp_path / "artifact.json"
    validated = run("ci", "validate-pr", "--base", "main", "--pr", "3", "--sha", head,
                    "--out", str(artifact), "--repo", str(repo))  # fmt: skip
    assert validated.exit_code == 0, validated.output
    assert "1 logbook(s) judged, 0 error(s)" in validated.output
    built = run("build", "--paper", PAPER, "--out", str(tmp_path / "site"), "--repo", str(repo))
    assert built.exit_code == 0, built.output
    assert "judged first, in memory" in built.output
    assert (tmp_path / "site/papers/Kp4rT9vQ2x/index.html").is_file()
    assert status(repo) == ""  # check, validate-pr and build wrote nothing into the clone
    assert not (repo / "verdicts/Kp4rT9vQ2x/bob-paging-1.yaml").exists()
    assert not (repo / "verdicts/Kp4rT9vQ2x/walker-1.yaml").exists()
    # only `judge` writes verdicts/
    judged = run("judge", "--mode", "rules", "--paper", PAPER, "--repo", str(repo))
    assert judged.exit_code == 0, judged.output
    assert (repo / "verdicts/Kp4rT9vQ2x/walker-1.yaml").is_file()
