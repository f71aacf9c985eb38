"""One helper runs git (``gitrun.py``): one failure shape, argv only, names as data.

Six hand-written helpers once raised ``GitError``, ``ReproauditError`` or
``CalledProcessError`` for the same failure, some naming ``git -c`` as the
command. These tests run real git on real repositories.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reproaudit.ci.changes import tree_changes
from reproaudit.ci.prfiles import tree_entries
from reproaudit.errors import GitError
from reproaudit.gitrun import git_or_none, run_git
from reproaudit.rerun_inputs import GitTree, TreeRefused
from reproaudit.validate import git_changed
from tests.gitutil import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "logbooks/P1").mkdir(parents=True)
    (root / "logbooks/P1/a.yaml").write_text("a: 1\n")
    # a hostile name: read as an option it would write a file, as a pathspec it is data
    (root / "logbooks/P1/--output=owned").write_text("x\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def test_a_failure_names_the_git_command_and_its_stderr(repo: Path) -> None:
    with pytest.raises(GitError) as err:
        run_git(repo, "rev-parse", "--verify", "nosuchref^{commit}", hint="fetch it first")
    text = str(err.value)
    assert text.startswith("git rev-parse --verify nosuchref^{commit} failed: fatal:")
    assert "hint: fetch it first" in text
    ok = run_git(repo, "rev-parse", "HEAD", text=True)  # the control: same helper, a good ref
    assert len(ok.stdout.strip()) == 40


def test_each_caller_raises_the_same_kind_naming_the_subcommand(repo: Path) -> None:
    """``tree_changes`` passes ``-c core.quotePath=false`` first: the message names ``diff``."""
    with pytest.raises(GitError, match=r"^git -c core\.quotePath=false diff .* failed: fatal"):
        tree_changes(repo, "main", "0" * 40)
    with pytest.raises(GitError, match=r"^git ls-tree .* failed: fatal"):
        tree_entries(repo, "0" * 40, ["logbooks"])
    with GitTree(repo, "0" * 40) as tree, pytest.raises(TreeRefused, match="fatal"):
        tree.entries("logbooks")


def test_optional_git_is_none_outside_a_checkout(tmp_path: Path, repo: Path) -> None:
    assert git_or_none(tmp_path / "nowhere", "rev-parse", "HEAD") is None
    assert (git_or_none(repo, "rev-parse", "HEAD") or "").strip() == git(repo, "rev-parse", "HEAD")


def test_hostile_names_stay_data(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    listed = [path for _mode, path in tree_entries(repo, head, ["logbooks/P1/--output=owned"])]
    assert listed == ["logbooks/P1/--output=owned"]
    assert not (repo / "owned").exists()
    with GitTree(repo, head) as tree:
        assert tree.read("logbooks/P1/--output=owned") == b"x\n"


def test_validate_changed_from_an_option_like_ref_is_a_git_error(repo: Path) -> None:
    """``--changed-from`` goes after ``--end-of-options``: never read as a git option."""
    with pytest.raises(GitError, match="cannot list changes since '--output=owned2'"):
        git_changed(repo, "--output=owned2")
    assert not (repo / "owned2").exists()
    git_changed(repo, "main")  # the control
