"""The collector around a long load (``repo.loaded_then_frozen_gc``): paused while loading,
what was loaded kept out of later scans, and everything handed back at the end."""

from __future__ import annotations

import gc
import weakref

import pytest

from reproaudit.repo import loaded_then_frozen_gc


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
