"""The code tree's hash: paths, modes and bytes; the same on disk and from git objects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reproaudit.rerun_inputs import GitTree, TreeRefused, folder_tree_sha256
from tests.gitutil import git


def make_tree(root: Path) -> Path:
    code = root / "code"
    (code / "sub").mkdir(parents=True)
    (code / "run.py").write_text("print('hello')\n")
    (code / "sub" / "data.csv").write_text("a,b\n1,2\n")
    tool = code / "tool.sh"
    tool.write_text("#!/bin/sh\necho hi\n")
    tool.chmod(0o755)
    return code


def test_bytes_paths_and_modes_each_change_the_hash(tmp_path: Path) -> None:
    code = make_tree(tmp_path)
    first = folder_tree_sha256(code)
    assert folder_tree_sha256(code) == first  # deterministic
    (code / "run.py").write_text("print('hello!')\n")
    changed = folder_tree_sha256(code)
    assert changed != first
    (code / "run.py").chmod(0o755)
    assert folder_tree_sha256(code) != changed  # the mode is bound too
    (code / "run.py").chmod(0o644)
    (code / "run.py").rename(code / "main.py")
    assert folder_tree_sha256(code) != changed  # and the path


def test_links_fifos_and_a_linked_folder_are_refused_never_followed(tmp_path: Path) -> None:
    code = make_tree(tmp_path)
    (code / "env").symlink_to("/proc/self/environ")
    with pytest.raises(TreeRefused, match="env in the code folder is a symbolic link"):
        folder_tree_sha256(code)
    (code / "env").unlink()
    os.mkfifo(code / "pipe")
    with pytest.raises(TreeRefused, match="pipe in the code folder is not a regular file"):
        folder_tree_sha256(code)  # returns at once: a FIFO is never opened
    (code / "pipe").unlink()
    (tmp_path / "elsewhere").symlink_to(code)
    with pytest.raises(TreeRefused, match="is not a folder"):
        folder_tree_sha256(tmp_path / "elsewhere")
    assert len(folder_tree_sha256(code)) == 64  # control: the clean tree hashes


def test_the_git_tree_hash_is_the_checkout_hash(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    code = make_tree(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "code")
    sha = git(repo, "rev-parse", "HEAD")
    with GitTree(repo, sha) as tree:
        assert tree.tree_sha256("code") == folder_tree_sha256(code)
        assert tree.read("code/run.py") == b"print('hello')\n"
        assert tree.read("code/absent.py") is None
    # a link committed into the folder is refused from git objects too
    (code / "link").symlink_to("/etc/passwd")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link")
    with GitTree(repo, git(repo, "rev-parse", "HEAD")) as tree:
        with pytest.raises(TreeRefused, match="link in the code folder is a symbolic link"):
            tree.tree_sha256("code")
        with pytest.raises(TreeRefused, match="is not a regular file"):
            tree.read("code/link")
