"""docs/github-setup.md's checklist is held against the workflow files, both ways.

Every secret, variable, environment, runner label and permission a workflow names
has a checklist line (``- [ ] secret `NAME```...), and every checklist line names
something a workflow uses: a maintainer who ticks the list has set up exactly what
the workflows need.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
DOC = ROOT / "docs" / "github-setup.md"
KINDS = ("secret", "variable", "environment", "runner label", "permission")


def named_in_workflows() -> dict[str, set[str]]:
    """What the workflows name, by kind."""
    found: dict[str, set[str]] = {kind: set() for kind in KINDS}
    for path in WORKFLOWS:
        text = path.read_text()
        found["secret"] |= set(re.findall(r"secrets\.([A-Z0-9_]+)", text))
        found["variable"] |= set(re.findall(r"vars\.([A-Z0-9_]+)", text))
        for job in yaml.safe_load(text)["jobs"].values():
            env = job.get("environment")
            if env is not None:
                found["environment"].add(env["name"] if isinstance(env, dict) else env)
            runs_on = job["runs-on"]
            labels = runs_on if isinstance(runs_on, list) else [runs_on]
            for label in labels:
                # an expression names its labels as quoted strings
                quoted = re.findall(r"""["']([\w.-]+)["']""", label)
                found["runner label"] |= set(quoted) if "${{" in label else {label}
            for scope, level in (job.get("permissions") or {}).items():
                found["permission"].add(f"{scope}: {level}")
    found["runner label"] -= {"local", "hf-jobs"}  # compared inputs, not labels
    return found


def named_in_checklist() -> dict[str, set[str]]:
    text = DOC.read_text()
    checklist = text[text.index("## Checklist") : text.index("## What runs when")]
    found: dict[str, set[str]] = {kind: set() for kind in KINDS}
    pattern = re.compile(rf"({'|'.join(KINDS)}) `([^`]+)`")
    for line in checklist.split("\n- [ ] ")[1:]:
        # what an item sets up is named before its first colon outside backticks
        head = re.match(r"(?:[^`:]|`[^`]*`)*", line)
        assert head is not None
        for kind, name in pattern.findall(head.group(0)):
            found[kind].add(name)
    return found


def test_the_checklist_names_exactly_what_the_workflows_use() -> None:
    workflows, doc = named_in_workflows(), named_in_checklist()
    for kind in KINDS:
        assert workflows[kind] - doc[kind] == set(), f"{kind}s the checklist does not name"
        assert doc[kind] - workflows[kind] == set(), f"{kind}s no workflow uses"
    assert workflows["secret"] == {"REPROAUDIT_JUDGE_API_KEY", "HF_JOBS_TOKEN", "HF_TOKEN"}
    assert {"self-hosted", "gpu", "ubuntu-latest"} == workflows["runner label"]


def test_the_check_would_catch_a_new_secret(tmp_path: Path, monkeypatch) -> None:
    """The control: a workflow naming a secret the doc does not is reported."""
    extra = tmp_path / "extra.yml"
    extra.write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    environment: staging\n"
        "    steps:\n      - run: echo\n        env:\n          K: ${{ secrets.NEW_KEY }}\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "WORKFLOWS", [*WORKFLOWS, extra])
    missing = named_in_workflows()
    assert "NEW_KEY" in missing["secret"] - named_in_checklist()["secret"]
    assert "staging" in missing["environment"] - named_in_checklist()["environment"]


def test_the_maintainers_team_setting_is_gone() -> None:
    """It had no effect as wired (no token could read team membership): removed, not half-kept."""
    for path in [*WORKFLOWS, DOC, ROOT / "README.md"]:
        assert "REPROAUDIT_MAINTAINERS_TEAM" not in path.read_text(), path.name


def test_the_doc_says_where_unmerged_work_waits_and_when_it_moves() -> None:
    """The pending branch, its layout, who writes it and the job that moves it on are the
    workflows' and ``ci/pending.py``'s; the authors' guide says what the bot's reply says."""
    from reproaudit import layout
    from reproaudit.ci.pending import KEEP_CLOSED, PENDING_BRANCH, pr_folder

    text = " ".join(DOC.read_text().split())
    assert f"`{PENDING_BRANCH}`" in text
    assert pr_folder(7) == "pr-7"
    for rel in (layout.rerun_rel("<paper>", "<logbook>"), layout.reviews_rel("<paper>")):
        assert f"`pr-<n>/{rel}" in text, rel
    assert f"for {KEEP_CLOSED.days} days" in text and "30 days after it was closed" in text
    promoting = [
        (path.name, name)
        for path in WORKFLOWS
        for name, job in yaml.safe_load(path.read_text())["jobs"].items()
        if any("reproaudit ci promote" in s.get("run", "") for s in job.get("steps", []))
    ]
    assert promoting == [("site.yml", "pending")]
    assert "`site.yml`'s first job, `pending`" in text
    assert "on the site minutes later" not in text  # the promise an open pull request broke
    guide = " ".join((ROOT / "scripts/reproaudit/site/docs/authors.md").read_text().split())
    assert '"It is kept with this pull request until the pull request is merged"' in guide
    from types import SimpleNamespace

    from reproaudit.ci.commands import _when_shown

    open_pr = SimpleNamespace(merged=lambda: False)
    assert _when_shown(open_pr, "it is shown").startswith(  # type: ignore[arg-type]
        "It is kept with this pull request until the pull request is merged"
    )
