"""Whole commands read each repository file once and scan each folder once.

Each command runs in-process through the click CLI on a repository built here: a
generated conference (``benchmarks/corpus.py``) with the example site repository
on top (write-ups, re-run records, reviews, code folders). Every way a file is
opened (``io.open``/``open``, which ``Path.read_text``/``read_bytes`` use, and
``os.open``, which the one reader ``beneath`` uses relative to a folder's
descriptor) and every way a folder is listed (``os.scandir``, which globbing and
``os.walk`` use, and ``os.listdir``, which ``Path.iterdir`` uses) is counted by
repository-relative path. A command that builds a second ``Corpus``, or a library
function that re-reads what its caller loaded, shows up as a count of two.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarks.corpus import generate_corpus
from reproaudit.cli import cli
from tests.gitutil import git

SITE = Path(__file__).resolve().parent / "data" / "repos" / "site"
BOOK = "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml"


class Reads:
    """Opens of files and listings of folders inside ``root``, by relative path."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.files: Counter[str] = Counter()
        self.folders: Counter[str] = Counter()

    def rel(self, path: object, dir_fd: int | None = None) -> str | None:
        if isinstance(path, int):  # a descriptor: the folder or file it is open on
            where = Path(os.readlink(f"/proc/self/fd/{path}"))
        elif isinstance(path, (str, bytes, os.PathLike)):
            given = Path(os.fsdecode(path))
            base = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd is not None else os.getcwd()
            where = given if given.is_absolute() else Path(base) / given
        else:
            return None
        try:
            rel = Path(os.path.normpath(where)).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if rel == ".git" or rel.startswith(".git/") else rel

    def twice(self) -> dict[str, dict[str, int]]:
        return {
            "files": {r: n for r, n in sorted(self.files.items()) if n > 1},
            "folders": {r: n for r, n in sorted(self.folders.items()) if n > 1},
        }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A generated conference (with verdicts) and the example site repository over it."""
    root = tmp_path / "repo"
    generate_corpus(root, papers=24, logbooks=20, claims_total=90, verdicts=True, seed=3)
    shutil.copytree(SITE, root, dirs_exist_ok=True)
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, repo: Path) -> Reads:
    return count_reads(monkeypatch, repo)


def count_reads(monkeypatch: pytest.MonkeyPatch, repo: Path) -> Reads:
    """Count, from now on, every open and listing under ``repo``."""
    seen = Reads(repo)
    real_open, real_os_open = io.open, os.open
    real_scandir, real_listdir = os.scandir, os.listdir

    def counting_open(file, *args, **kwargs):
        if (rel := seen.rel(file)) is not None:
            seen.files[rel] += 1
        return real_open(file, *args, **kwargs)

    def counting_os_open(path, flags, *args, dir_fd=None, **kwargs):
        if not flags & os.O_DIRECTORY and (rel := seen.rel(path, dir_fd)) is not None:
            seen.files[rel] += 1
        return real_os_open(path, flags, *args, dir_fd=dir_fd, **kwargs)

    def counting_scandir(path="."):
        if (rel := seen.rel(path)) is not None:
            seen.folders[rel] += 1
        return real_scandir(path)

    def counting_listdir(path="."):
        if (rel := seen.rel(path)) is not None:
            seen.folders[rel] += 1
        return real_listdir(path)

    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    monkeypatch.setattr(os, "scandir", counting_scandir)
    monkeypatch.setattr(os, "listdir", counting_listdir)
    return seen


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def data_files(repo: Path) -> set[str]:
    """The data files, write-ups and re-run records a whole-corpus command must read."""
    return {
        p.relative_to(repo).as_posix()
        for top in ("claims", "logbooks", "verdicts", "reruns")
        for p in (repo / top).rglob("*")
        if p.is_file()
        and p.suffix in {".yaml", ".md", ".json"}
        and len(p.relative_to(repo).parts) <= 3  # not the files of code folders
    }


def test_the_counter_sees_every_reader(repo: Path, reads: Reads) -> None:
    """The control: each way of reading a file or a folder is counted (once per call)."""
    from reproaudit.beneath import read_capped

    (repo / BOOK).read_text(encoding="utf-8")
    read_capped(repo, BOOK, 1 << 20)
    list((repo / "claims").iterdir())
    list((repo / "logbooks").glob("*"))
    with os.scandir(repo / "verdicts"):
        pass
    assert reads.files == {BOOK: 2}
    assert reads.folders == {"claims": 1, "logbooks": 1, "verdicts": 1}


def test_validate_reads_each_file_once(repo: Path, reads: Reads) -> None:
    run("validate", "--repo", str(repo))
    assert reads.twice() == {"files": {}, "folders": {}}
    assert {r for r in data_files(repo) if r.endswith(".yaml")} <= set(reads.files)


def test_check_reads_each_file_once(repo: Path, reads: Reads) -> None:
    run("check", BOOK, "--no-rerun", "--repo", str(repo))
    assert reads.twice() == {"files": {}, "folders": {}}
    assert BOOK in reads.files


def test_check_with_a_rerun_reads_each_file_once(repo: Path, reads: Reads) -> None:
    """``check --rerun`` re-runs through the command's one ``Corpus``: the logbook, its
    write-up and the folders are read once. The code folder alone is read twice, by
    design: hashed on the host to bind the record, then copied into the re-run's own
    folder (checked for links first: a third listing, no read)."""
    out = run("check", BOOK, "--rerun", "--sandbox", "bwrap", "--repo", str(repo))
    assert "Local re-run: passed" in out
    code = BOOK.removesuffix(".yaml")
    assert reads.twice() == {"files": {f"{code}/sweep.py": 2}, "folders": {code: 3}}
    assert {BOOK, f"{code}.md"} <= set(reads.files)


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_task_reads_each_file_once(repo: Path, reads: Reads, fmt: list[str]) -> None:
    """``task`` builds its brief, its data and the starter logbook from one ``Corpus``."""
    run("task", "Kp4rT9vQ2x", *fmt, "--repo", str(repo))
    assert reads.twice() == {"files": {}, "folders": {}}
    assert "claims/icml2026/Kp4rT9vQ2x.yaml" in reads.files


@pytest.mark.parametrize("command", ["stats", "build"])
def test_the_fitness_check_and_the_command_read_each_file_once(
    repo: Path, reads: Reads, tmp_path: Path, command: str
) -> None:
    out = ["--out", str(tmp_path / "site")] if command == "build" else []
    run(command, *out, "--repo", str(repo))
    assert reads.twice() == {"files": {}, "folders": {}}
    assert data_files(repo) - {"README.md"} <= set(reads.files)


def test_export_reads_each_file_once(repo: Path, reads: Reads, tmp_path: Path) -> None:
    run("export", "--format", "csv", "--out", str(tmp_path / "export"), "--repo", str(repo))
    assert reads.twice() == {"files": {}, "folders": {}}


def test_ci_validate_pr_reads_each_file_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    base = git(repo, "rev-parse", "HEAD").strip()
    book = repo / BOOK
    book.write_text(book.read_text(encoding="utf-8") + "# a change\n", encoding="utf-8")
    git(repo, "commit", "-qam", "carol's change")
    head = git(repo, "rev-parse", "HEAD").strip()
    seen = count_reads(monkeypatch, repo)
    run(
        "ci", "validate-pr", "--base", base, "--pr", "7", "--sha", head,
        "--out", str(tmp_path / "artifact.json"), "--format", "text", "--repo", str(repo),
    )  # fmt: skip
    assert seen.twice() == {"files": {}, "folders": {}}
    assert BOOK in seen.files


def test_judge_pr_judges_in_memory_and_writes_nothing(tmp_path: Path) -> None:
    """``ci judge-pr``'s comment comes from verdicts judged in memory: no file in its view."""
    from reproaudit.ci.flow import judge_pr
    from reproaudit.judge.cases import RulesJudge

    view = tmp_path / "pr"
    shutil.copytree(SITE, view, ignore=shutil.ignore_patterns("verdicts", "reruns"))
    before = sorted(p.relative_to(view) for p in view.rglob("*"))
    body = judge_pr(view, [("Kp4rT9vQ2x", "carol-paging-1")], RulesJudge()).body
    assert "### `` Kp4rT9vQ2x/carol-paging-1 `` (no re-run)" in body
    assert "| C1 | inconclusive | growth_detected, not_rerun | typed numbers would falsify" in body
    assert sorted(p.relative_to(view) for p in view.rglob("*")) == before  # nothing written
