"""A pull request's tree, played for real: links, .gitattributes, dot-files, submodules,
and a directory link merged on main, each beside an honest pull request that passes.

Every repository here is a real git repository with real trees; the fetch reads
git objects and writes into a new folder; nothing stands in for git.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reproaudit.ci.changes import tree_changes
from reproaudit.ci.prfiles import fetch_pr_files
from reproaudit.errors import ReproauditError
from reproaudit.pathrule import tree_problems
from tests.gitutil import git

PAPER = "Kp4rT9vQ2x"
PAPER_FILE = (
    "paper:\n  id: Kp4rT9vQ2x\n  title: Paging\n  venue: ICML 2026\n"
    "claims_version: 1\nclaims:\n  - {id: C1, statement: s, anchor: Thm 1, kind: theoretical}\n"
)


def logbook(handle: str, ident: str) -> str:
    return (
        f"logbook:\n  id: {ident}\n  paper: {PAPER}\n  claims_version: 1\n"
        f"  contributor: {{github: {handle}}}\n"
        f"code: {{path: {ident}/}}\n"
        "reproduce:\n  command: python run.py\n  hardware: cpu\n  timeout: 1m\n"
        "  outputs: out.json\n"
        "results: []\n"
    )


def sha_of(repo: Path, ref: str = "HEAD") -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", ref], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: a paper and bob's logbook; the test then commits its PR on branch ``pr``."""
    root = tmp_path / "checkout"
    (root / "claims" / "icml2026").mkdir(parents=True)
    (root / "claims" / "icml2026" / f"{PAPER}.yaml").write_text(PAPER_FILE)
    (root / "scripts").mkdir()
    (root / "scripts" / "job.py").write_text("print('the job')\n")
    book = root / "logbooks" / PAPER
    (book / "bob-1").mkdir(parents=True)
    (book / "bob-1.yaml").write_text(logbook("bob", "bob-1"))
    (book / "bob-1" / "run.py").write_text("print('bob')\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "main")
    git(root, "checkout", "-qb", "pr")
    return root


def commit(repo: Path, message: str = "pr") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return sha_of(repo)


def honest(repo: Path) -> dict[str, bytes]:
    """carol's YAML, write-up and code folder (an executable script, a nested file)."""
    book = repo / "logbooks" / PAPER
    files = {
        f"logbooks/{PAPER}/carol-1.yaml": logbook("carol", "carol-1").encode(),
        f"logbooks/{PAPER}/carol-1.md": b"# How I re-ran it\n",
        f"logbooks/{PAPER}/carol-1/run.py": b"print('carol')\n",
        f"logbooks/{PAPER}/carol-1/lib/util.py": b"X = 1\n",
    }
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    (book / "carol-1" / "run.py").chmod(0o755)
    return files


def problems_of(repo: Path, head: str) -> list[tuple[str, str, str]]:
    return [(p.code, p.path, p.message) for p in tree_problems(tree_changes(repo, "main", head))]


def test_an_honest_pr_passes_and_is_fetched_intact(repo, tmp_path):
    files = honest(repo)
    head = commit(repo)
    assert problems_of(repo, head) == []
    into = tmp_path / "pr-files"
    written = fetch_pr_files(repo, sha_of(repo, "main"), head, into, with_code=True)
    assert sorted(written) == sorted(files)
    for rel, data in files.items():
        assert (into / rel).read_bytes() == data
    assert os.access(into / f"logbooks/{PAPER}/carol-1/run.py", os.X_OK)
    assert not os.access(into / f"logbooks/{PAPER}/carol-1/lib/util.py", os.X_OK)
    assert not (into / "claims").exists() and not (into / "scripts").exists()


def test_a_symlinked_writeup_is_refused_on_the_tree(repo, tmp_path):
    honest(repo)
    writeup = repo / "logbooks" / PAPER / "carol-1.md"
    writeup.unlink()
    writeup.symlink_to("/proc/self/environ")
    head = commit(repo)
    assert problems_of(repo, head) == [
        (
            "not_a_logbook_file",
            f"logbooks/{PAPER}/carol-1.md",
            "is a symbolic link (git mode 120000): it points anywhere on the machine that "
            "checks it out",
        )
    ]
    with pytest.raises(ReproauditError) as caught:
        fetch_pr_files(repo, sha_of(repo, "main"), head, tmp_path / "into", with_code=True)
    assert f"logbooks/{PAPER}/carol-1.md" in str(caught.value)
    assert not (tmp_path / "into").exists()  # refused before anything is written


def test_a_link_in_the_code_folder_and_a_submodule_are_refused(repo, tmp_path):
    honest(repo)
    (repo / "logbooks" / PAPER / "carol-1" / "data").symlink_to("/etc")
    head = commit(repo)
    sub = "0123456789abcdef0123456789abcdef01234567"
    vendored = f"logbooks/{PAPER}/carol-1/vendored"
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sub},{vendored}")
    git(repo, "commit", "-qm", "a submodule")  # a gitlink: no file on disk to add
    head = sha_of(repo)
    found = {(code, path): why for code, path, why in problems_of(repo, head)}
    assert found[("not_a_logbook_file", f"logbooks/{PAPER}/carol-1/data")].startswith(
        "is a symbolic link (git mode 120000)"
    )
    assert found[("not_a_logbook_file", f"logbooks/{PAPER}/carol-1/vendored")].startswith(
        "is a submodule (git mode 160000)"
    )
    assert len(found) == 2  # the regular files beside them pass


def test_dot_files_and_files_out_of_place_are_refused(repo):
    honest(repo)
    (repo / "logbooks" / ".gitignore").write_text("*.tmp\n")
    (repo / "logbooks" / PAPER / "carol-1" / ".env").write_text("A=1\n")
    (repo / "logbooks" / PAPER / "carol-1" / ".cache").mkdir()
    (repo / "logbooks" / PAPER / "carol-1" / ".cache" / "x").write_text("x\n")
    (repo / "logbooks" / PAPER / "notes.txt").write_text("n\n")
    (repo / "logbooks" / "README.md").write_text("r\n")
    head = commit(repo)
    found = {path: why for _, path, why in problems_of(repo, head)}
    assert found == {
        "logbooks/.gitignore": "a dot-file (.gitignore): git and other tools read such files "
        "as settings (a .gitattributes re-encodes other contributors' logbooks)",
        f"logbooks/{PAPER}/carol-1/.env": found[f"logbooks/{PAPER}/carol-1/.env"],
        f"logbooks/{PAPER}/carol-1/.cache/x": found[f"logbooks/{PAPER}/carol-1/.cache/x"],
        f"logbooks/{PAPER}/notes.txt": "not a logbook file: not <paper>/<id>.yaml, "
        "<paper>/<id>.md or inside <paper>/<id>/",
        "logbooks/README.md": "not a logbook file: not <paper>/<id>.yaml, <paper>/<id>.md or "
        "inside <paper>/<id>/",
    }
    assert found[f"logbooks/{PAPER}/carol-1/.cache/x"].startswith("inside a dot-folder (.cache)")


def test_a_gitattributes_is_refused_before_anything_re_encodes(repo, tmp_path):
    """In a checkout the attribute re-encodes bob's logbook; the tree rule refuses it first."""
    honest(repo)
    (repo / "logbooks" / PAPER / ".gitattributes").write_text(
        "bob-1.yaml working-tree-encoding=UTF-16LE\n"
    )
    git(repo, "add", f"logbooks/{PAPER}/.gitattributes", f"logbooks/{PAPER}/carol-1.yaml")
    git(repo, "commit", "-qm", "pr")  # bob's file untouched: only checkouts re-encode it
    head = sha_of(repo)
    # the attack is real: a fresh checkout of the PR holds other bytes than bob's blob
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "pr", str(repo), str(clone)], check=True)
    blob = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", f"{head}:logbooks/{PAPER}/bob-1.yaml"],
        capture_output=True,
        check=True,
    ).stdout
    assert (clone / "logbooks" / PAPER / "bob-1.yaml").read_bytes() != blob
    # the rule reads trees: refused, and the fetch writes nothing
    assert problems_of(repo, head) == [
        (
            "not_a_logbook_file",
            f"logbooks/{PAPER}/.gitattributes",
            "a dot-file (.gitattributes): git and other tools read such files as settings "
            "(a .gitattributes re-encodes other contributors' logbooks)",
        )
    ]
    with pytest.raises(ReproauditError, match=r"\.gitattributes"):
        fetch_pr_files(repo, sha_of(repo, "main"), head, tmp_path / "into", with_code=True)
    assert not (tmp_path / "into").exists()


def test_a_directory_link_merged_on_main_cannot_carry_a_later_fetch_into_the_checkout(
    repo, tmp_path
):
    """main holds logbooks/Zz -> ../scripts (merged before the rule); a later PR writes
    logbooks/Zz/... The fetch writes into its own folder from git objects: the checkout's
    scripts/ stay as they are, and so does the link."""
    git(repo, "checkout", "-q", "main")
    (repo / "logbooks" / "Zz").symlink_to("../scripts")
    main = commit(repo, "a link merged before the rule")
    git(repo, "checkout", "-qb", "later")
    (repo / "logbooks" / "Zz").unlink()
    book = repo / "logbooks" / "Zz"
    (book / "mallory-1").mkdir(parents=True)
    (book / "mallory-1.yaml").write_text(logbook("mallory", "mallory-1").replace(PAPER, "Zz"))
    (book / "mallory-1" / "job.py").write_text("print('replaced')\n")
    head = commit(repo, "writes through the link")
    # the job's checkout is main, with the link in place
    git(repo, "checkout", "-q", "main")
    assert (repo / "logbooks" / "Zz").is_symlink()
    before = {p.name: p.read_bytes() for p in (repo / "scripts").iterdir()}
    into = tmp_path / "pr-files"
    written = fetch_pr_files(repo, main, head, into, with_code=True)
    assert sorted(written) == ["logbooks/Zz/mallory-1.yaml", "logbooks/Zz/mallory-1/job.py"]
    assert {p.name: p.read_bytes() for p in (repo / "scripts").iterdir()} == before
    assert (into / "logbooks/Zz/mallory-1/job.py").read_text() == "print('replaced')\n"
    assert not (into / "logbooks" / "Zz").is_symlink()
    # and the fetch never writes inside the checkout, whatever folder it is given
    with pytest.raises(ReproauditError, match="a folder of its own"):
        fetch_pr_files(repo, main, head, repo / "logbooks" / "Zz" / "x", with_code=True)
    assert {p.name: p.read_bytes() for p in (repo / "scripts").iterdir()} == before


def test_a_link_already_on_main_inside_a_touched_logbook_refuses_the_fetch(repo, tmp_path):
    """bob's folder got a link before the rule; a PR that changes bob's YAML fetches his
    whole folder, and the link refuses it (nothing is followed or written)."""
    git(repo, "checkout", "-q", "main")
    (repo / "logbooks" / PAPER / "bob-1" / "secrets").symlink_to("/root")
    main = commit(repo, "link")
    git(repo, "checkout", "-qb", "bob-edit")
    (repo / "logbooks" / PAPER / "bob-1.yaml").write_text(logbook("bob", "bob-1") + "# edited\n")
    head = commit(repo)
    assert problems_of(repo, head) == []  # the PR itself changes only the YAML
    with pytest.raises(ReproauditError, match="bob-1/secrets: is a symbolic link"):
        fetch_pr_files(repo, main, head, tmp_path / "into", with_code=True)
    assert not (tmp_path / "into").exists()


def test_the_validate_step_and_the_report_refuse_a_link_from_the_trees(repo):
    """``ci validate-pr`` (the PR's checkout) and the report's rule (git trees, base-branch
    code) both refuse the link, once each, naming it; the honest PR is valid."""
    from reproaudit.ci.ownership import Author, rule_pr
    from reproaudit.ci.validation import validate_pr

    honest(repo)
    head = commit(repo)
    clean = validate_pr(repo, "main", 7, head)
    assert [p for p in clean["problems"] if p["severity"] == "error"] == []
    (repo / "logbooks" / PAPER / "carol-1" / "data").symlink_to("/etc")
    head = commit(repo, "a link")
    artifact = validate_pr(repo, "main", 7, head)
    link = f"logbooks/{PAPER}/carol-1/data"
    assert [(p["code"], p["path"]) for p in artifact["problems"] if p["path"] == link] == [
        ("not_a_logbook_file", link)
    ]
    carol = Author("carol", maintainer=False, can_write=False, basis="test")
    ruling = rule_pr(tree_changes(repo, "main", head), carol, lambda side, rel: "carol")
    assert [(p.code, p.path) for p in ruling.problems] == [("not_a_logbook_file", link)]
    maintainer = Author("maint", maintainer=True, can_write=True, basis="test")
    ruling = rule_pr(tree_changes(repo, "main", head), maintainer, lambda side, rel: "carol")
    assert [(p.code, p.path) for p in ruling.problems] == [("not_a_logbook_file", link)]


def test_the_fetch_stage_cli_writes_beside_a_merged_link_not_through_it(repo, tmp_path, github_api):
    """`ci reproduce-pr --stage fetch` as reproduce.yml runs it, with main holding a
    directory link and the PR writing under it; the control is the same PR's logbook
    fetched intact into --into."""
    from click.testing import CliRunner

    from reproaudit.cli import cli
    from tests.ci.payloads import pull

    git(repo, "checkout", "-q", "main")
    (repo / "logbooks" / "Zz").symlink_to("../scripts")
    main = commit(repo, "a link merged before the rule")
    git(repo, "checkout", "-qb", "later")
    (repo / "logbooks" / "Zz").unlink()
    (repo / "logbooks" / "Zz" / "mallory-1").mkdir(parents=True)
    text = logbook("mallory", "mallory-1").replace(PAPER, "Zz")
    (repo / "logbooks" / "Zz" / "mallory-1.yaml").write_text(text)
    (repo / "logbooks" / "Zz" / "mallory-1" / "job.py").write_text("print('replaced')\n")
    head = commit(repo, "writes through the link")
    git(repo, "checkout", "-q", "main")
    github_api.pulls[7] = pull(7, head=head, base=main, author="mallory")
    before = (repo / "scripts" / "job.py").read_bytes()
    into = tmp_path / "pr-files"
    env = {"GITHUB_API_URL": github_api.url, "GITHUB_TOKEN": "ghs_x", "CI": "true"}
    args = ["ci", "reproduce-pr", "--repo-name", github_api.repo, "--pr", "7", "--sha", head]
    args += ["--out", str(tmp_path / "out"), "--repo", str(repo), "--stage", "fetch"]
    result = CliRunner(env=env).invoke(cli, [*args, "--into", str(into)])
    assert result.exit_code == 0, result.output
    assert (repo / "scripts" / "job.py").read_bytes() == before
    assert sorted(p.name for p in (repo / "scripts").iterdir()) == ["job.py"]
    assert (into / "logbooks/Zz/mallory-1.yaml").read_text() == text
    # a folder inside the checkout is refused, and nothing is written there
    inside = CliRunner(env=env).invoke(cli, [*args, "--into", str(repo / "logbooks/Zz/x")])
    assert inside.exit_code == 1 and "a folder of its own" in inside.output
    assert sorted(p.name for p in (repo / "scripts").iterdir()) == ["job.py"]
