"""The collector around a long load (``repo.loaded_then_frozen_gc``): paused while loading,
what was loaded kept out of later scans, and everything handed back at the end; write-ups
looked for only where the scan's listing shows them, links still refused."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from reproaudit import repo
from reproaudit.repo import Corpus, loaded_then_frozen_gc


class Node:
    """A cycle the collector alone can free (reference counting cannot)."""

    def __init__(self) -> None:
        self.me = self


def make_cycle() -> weakref.ref:
    return weakref.ref(Node())


def test_paused_then_frozen_then_handed_back() -> None:
    assert gc.isenabled()
    with loaded_then_frozen_gc() as loaded:
        assert not gc.isenabled()
        before = make_cycle()  # loaded: frozen, so no collection frees it in the block
        loaded()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
        after = make_cycle()  # made after loading: the collector frees it as usual
        gc.collect()
        assert after() is None
        assert before() is not None
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert before() is None  # handed back: not leaked


def test_an_error_while_loading_restores_the_collector() -> None:
    with pytest.raises(RuntimeError), loaded_then_frozen_gc():
        raise RuntimeError("a file failed")
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    try:
        with loaded_then_frozen_gc() as loaded:
            loaded()
            assert not gc.isenabled()
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_write_up_the_listing_does_not_show_is_never_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "logbooks" / "P1"
    folder.mkdir(parents=True)
    for name in ("none", "plain", "linked"):
        (folder / f"{name}.yaml").write_text("logbook: {}\n", encoding="utf-8")
    (folder / "plain.md").write_text("# Notes\n", encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("not a write-up", encoding="utf-8")
    (folder / "linked.md").symlink_to(secret)
    corpus = Corpus(tmp_path)
    reads: list[Path] = []
    real = repo.read_blob
    monkeypatch.setattr(
        repo, "read_blob", lambda path, *a, **k: reads.append(Path(path)) or real(path, *a, **k)
    )
    assert corpus.writeup("P1", "none") is None
    assert corpus.sha256("logbooks/P1/none.md") is None
    assert corpus.refusal("logbooks/P1/none.md") == []
    assert reads == []  # absent from the listing: no open, no stat
    plain = corpus.writeup("P1", "plain")
    assert plain is not None and plain.text() == "# Notes\n"
    assert corpus.writeup("P1", "linked") is None  # listed, read through the one reader
    assert [p.code for p in corpus.refusal("logbooks/P1/linked.md")] == ["not_a_regular_file"]
    assert reads == [folder / "plain.md", folder / "linked.md"]
    (folder / "late.md").write_text("# Later\n", encoding="utf-8")
    assert corpus.writeup("P1", "late") is None  # the corpus is the scan's snapshot
    assert Corpus(tmp_path).writeup("P1", "late") is not None
