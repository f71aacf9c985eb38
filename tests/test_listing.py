"""``Listing``: each folder listed once, walked as ``os.walk`` walks it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reproaudit.listing import Listing


def _tree(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f.py").write_text("x\n")
    (root / "a" / ".hidden").write_text("x\n")
    (root / "outside").mkdir()
    (root / "outside" / "secret").write_text("x\n")
    (root / "a" / "link").symlink_to(root / "outside")  # listed, never entered
    os.mkfifo(root / "a" / "fifo")


def test_walk_is_what_os_walk_yields(tmp_path: Path) -> None:
    _tree(tmp_path)
    want = [(d, sorted(ds), sorted(fs)) for d, ds, fs in os.walk(tmp_path / "a")]
    got = [(d, ds, fs) for d, ds, fs in Listing().walk(tmp_path / "a")]
    assert sorted(got) == sorted(want)
    assert all("secret" not in fs for _, _, fs in got)


def test_each_folder_is_listed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    listed: list[str] = []
    real = os.scandir

    def counting(path="."):
        listed.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    listing = Listing()
    first = [e.name for e in listing.entries(tmp_path / "a")]
    list(listing.walk(tmp_path / "a"))
    list(listing.walk(f"{tmp_path}/a/"))  # the same folder, spelt differently
    assert first == [".hidden", "b", "fifo", "link"]
    assert sorted(listed) == sorted([f"{tmp_path}/a", f"{tmp_path}/a/b"])


def test_a_missing_folder_raises_each_time(tmp_path: Path) -> None:
    listing = Listing()
    for _ in range(2):
        with pytest.raises(FileNotFoundError):
            listing.entries(tmp_path / "nope")
    assert list(listing.walk(tmp_path / "nope")) == []
