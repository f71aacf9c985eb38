"""One pipeline: each file is read once per run, judging writes nothing, writing is apart.

The read counts patch ``io.open`` (what ``Path.read_bytes`` and ``open`` use) and
``os.open`` (what the one reader, ``beneath``, uses) and count opens per file
while the judge, then the site's loader, work on a copy of the example repository.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reproaudit.judge.cases import RulesJudge
from reproaudit.judge.run import (
    JudgeSummary,
    VerdictDoc,
    iter_cases,
    judge_corpus,
    judge_repo,
    write_verdicts,
)
from reproaudit.judge.types import CaseItem
from reproaudit.repo import Corpus
from reproaudit.site.data import load_site_data

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for name in ("claims", "logbooks", "reruns", "verdicts"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, repo: Path) -> Counter[str]:
    """Opens of files inside ``repo``, by repository-relative path."""
    counts: Counter[str] = Counter()
    real = io.open

    def counting(file, *args, **kwargs):
        try:
            rel = Path(file).resolve().relative_to(repo.resolve())
        except (TypeError, ValueError):
            rel = None
        if rel is not None:
            counts[rel.as_posix()] += 1
        return real(file, *args, **kwargs)

    real_os_open = os.open

    def counting_os_open(path, flags, *args, dir_fd=None, **kwargs):
        """The one reader (``beneath``) opens files relative to a folder's descriptor."""
        if not flags & os.O_DIRECTORY:
            where = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd is not None else "."
            try:
                rel = (Path(where) / path).resolve().relative_to(repo.resolve())
            except (TypeError, ValueError, OSError):
                rel = None
            if rel is not None:
                counts[rel.as_posix()] += 1
        return real_os_open(path, flags, *args, dir_fd=dir_fd, **kwargs)

    monkeypatch.setattr(io, "open", counting)
    monkeypatch.setattr(builtins, "open", counting)
    monkeypatch.setattr(os, "open", counting_os_open)
    return counts


def _data_files(repo: Path) -> set[str]:
    tops = ("claims", "logbooks", "reruns", "verdicts")
    return {
        p.relative_to(repo).as_posix()
        for top in tops
        for p in (repo / top).rglob("*")
        if p.is_file()
        and p.suffix in {".yaml", ".md", ".json"}
        and (top != "logbooks" or p.parent.parent == repo / "logbooks")  # not code folders
    }


def test_a_judge_run_reads_each_file_once(repo: Path, opened: Counter[str]) -> None:
    shutil.rmtree(repo / "verdicts")
    summary = judge_repo(repo, RulesJudge(), reruns=repo / "reruns", judged_at=NOW)
    assert len(summary.judged) >= 5 and not summary.problems
    read = {rel: n for rel, n in opened.items() if not rel.startswith("verdicts/")}
    assert read, "the counter saw no reads: the patch is not on the read path"
    assert {rel: n for rel, n in read.items() if n > 1} == {}
    # every logbook, write-up and re-run record was read (and only once)
    wanted = {r for r in _data_files(repo) if r.startswith(("logbooks/", "reruns/"))}
    assert wanted <= set(read)


def test_the_site_loader_reads_each_file_once(repo: Path, opened: Counter[str]) -> None:
    corpus = Corpus(repo)
    summary = JudgeSummary()
    docs = list(
        judge_corpus(corpus, RulesJudge(), summary, reruns=repo / "reruns", only_missing=True)
    )
    corpus.add_verdicts({d.rel: d.model() for d in docs})
    data = load_site_data(corpus, NOW)
    assert data.verdicts and data.writeups and data.reruns
    assert {rel: n for rel, n in opened.items() if n > 1} == {}
    assert {r for r in _data_files(repo) if r.startswith(("verdicts/", "logbooks/"))} <= set(opened)


def test_judging_returns_documents_and_writes_nothing(repo: Path) -> None:
    shutil.rmtree(repo / "verdicts")
    summary = JudgeSummary()
    docs = list(judge_corpus(Corpus(repo), RulesJudge(), summary, judged_at=NOW))
    assert docs and all(isinstance(d, VerdictDoc) for d in docs)
    assert not (repo / "verdicts").exists()
    assert sorted(summary.judged) == sorted(d.rel for d in docs)
    written = write_verdicts(repo, docs)
    assert written == [d.rel for d in docs]
    for doc in docs:
        assert (repo / doc.rel).read_text(encoding="utf-8") == doc.text()
        assert doc.model().paper == doc.content["paper"]


def test_iter_cases_yields_typed_items(repo: Path) -> None:
    (repo / "logbooks" / "orphan").mkdir()
    (repo / "logbooks" / "orphan" / "x-1.yaml").write_text("not: [valid\n", encoding="utf-8")
    items = list(iter_cases(Corpus(repo), RulesJudge().config()))
    assert items and all(isinstance(i, CaseItem) for i in items)
    for item in items:
        # exactly one outcome per logbook
        assert (item.case is not None) + bool(item.problems) + item.current == 1
    bad = [i for i in items if i.rel == "verdicts/orphan/x-1.yaml"]
    assert len(bad) == 1 and bad[0].problems and bad[0].case is None


def test_build_site_never_writes_verdicts(repo: Path) -> None:
    from reproaudit.site.build import build_site

    shutil.rmtree(repo / "verdicts")
    build_site(repo, repo / "_site", now=NOW, search=False)
    assert not (repo / "verdicts").exists()
