"""Every output option writes through the one writer: no command ever replaces a device.

``ci validate-pr --out /dev/null``, run as root as CI runs it, once renamed a regular
root-only file over ``/dev/null``, and every sandbox on the machine failed after it. Here
each output option is pointed at a device node the test makes in its own folder (with
``/dev/null``'s numbers; the machine's ``/dev/null`` is never touched), a FIFO with a reader
and a socket: a file option writes into the device or FIFO in place, refuses the socket,
and a folder option refuses all three, each left as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from tests.gitutil import branch_from_main, git
from tests.test_fsutil import fifo_reader, needs_root, null_device

PAPER = "Tq7mV2pLx0"
SHA = "a" * 40


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def pr_checkout(mini_repo: Path) -> Path:
    """The mini repository with a contributor's branch that adds a logbook."""
    branch_from_main(mini_repo, "contrib")
    book = mini_repo / "logbooks" / PAPER
    text = (book / "ann-1.yaml").read_text().replace("ann-1", "zoe-1")
    (book / "zoe-1.yaml").write_text(text.replace("github: ann", "github: zoe"))
    shutil.copytree(book / "ann-1", book / "zoe-1")
    git(mini_repo, "add", "-A")
    git(mini_repo, "commit", "-qm", "add a logbook")
    return mini_repo


def validate_pr(repo: Path, out: Path):
    return invoke(
        "ci", "validate-pr", "--base", "main", "--pr", "1", "--sha", SHA, "--out", str(out),
        "--repo", str(repo), "--format", "text",
    )  # fmt: skip


def assert_untouched(node: Path, before: os.stat_result) -> None:
    after = os.lstat(node)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert (after.st_ino, after.st_rdev, after.st_mode) == (
        before.st_ino,
        before.st_rdev,
        before.st_mode,
    )
    assert sorted(os.listdir(node.parent)) == [node.name]  # no temporary file beside it


@needs_root
def test_validate_pr_out_dev_null_as_root_leaves_the_device_a_device(
    pr_checkout: Path, tmp_path: Path
) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    null = null_device(dev)
    before = os.lstat(null)
    result = validate_pr(pr_checkout, null)
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(f"wrote {null}: 1 logbook(s) judged, 0 error(s)\n")
    assert_untouched(null, before)


def test_validate_pr_out_a_fifo_hands_the_artifact_to_its_reader(
    pr_checkout: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe" / "artifact"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    before = os.lstat(fifo)
    # the control run to a file gives the artifact's exact size, so the reader knows its end
    validate_pr(pr_checkout, tmp_path / "artifact.json")
    expected = (tmp_path / "artifact.json").read_bytes()
    thread, got, opened = fifo_reader(fifo, len(expected))
    assert opened.wait(60)
    result = validate_pr(pr_checkout, fifo)
    assert result.exit_code == 0, result.output
    thread.join(60)
    assert json.loads(b"".join(got)) == json.loads(expected)
    assert_untouched(fifo, before)


def test_validate_pr_out_a_socket_is_refused_and_kept(pr_checkout: Path, tmp_path: Path) -> None:
    path = tmp_path / "run" / "sock"
    path.parent.mkdir()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        before = os.lstat(path)
        result = validate_pr(pr_checkout, path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"cannot write {path}: it is a socket; outputs replace")
    assert_untouched(path, before)


FOLDER_OPTIONS = {
    "build --out": ("build", "--out", "{node}", "--repo", "{repo}"),
    "export --out": ("export", "--out", "{node}", "--repo", "{repo}"),
    "schema --out": ("schema", "--out", "{node}"),
    "publish --folder": ("publish", "--repo-id", "o/d", "--dry-run", "--folder", "{node}",
                         "--repo", "{repo}"),
    "reproduce --out": ("reproduce", f"logbooks/{PAPER}/ann-1.yaml", "--out", "{node}",
                        "--sandbox", "none", "--repo", "{repo}"),
    "ci reproduce-pr --into": ("ci", "reproduce-pr", "--repo-name", "o/r", "--pr", "1",
                               "--sha", SHA, "--stage", "fetch", "--out", "{repo}/o",
                               "--into", "{node}/files", "--repo", "{repo}"),
    "ci reproduce-pr --out": ("ci", "reproduce-pr", "--repo-name", "o/r", "--pr", "1",
                              "--sha", SHA, "--out", "{node}", "--into", "{repo}/../in",
                              "--repo", "{repo}"),
}  # fmt: skip


@needs_root
@pytest.mark.parametrize("option", FOLDER_OPTIONS)
def test_a_folder_option_naming_a_device_is_refused_before_any_work(
    option: str, mini_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    dev = tmp_path / "dev"
    dev.mkdir()
    null = null_device(dev)
    before = os.lstat(null)
    args = [a.format(node=null, repo=mini_repo) for a in FOLDER_OPTIONS[option]]
    result = invoke(*args)
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"cannot write {null}: it is a character device, not a folder\n"
        "  hint: give a folder, or a new path\n"
    )
    assert_untouched(null, before)


@needs_root
def test_a_record_folder_below_out_that_is_a_device_is_never_renamed_away(
    mini_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``reproduce --out DIR``: DIR/<paper>/<logbook> is replaced whole, only when a folder."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out = tmp_path / "out"
    (out / PAPER).mkdir(parents=True)
    null = null_device(out / PAPER, "ann-1")
    before = os.lstat(null)
    result = invoke(
        "reproduce", f"logbooks/{PAPER}/ann-1.yaml", "--out", str(out), "--sandbox", "none",
        "--repo", str(mini_repo),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(
        f"cannot write {null}: it is a character device, not a record folder: never replaced"
    )
    assert_untouched(null, before)
