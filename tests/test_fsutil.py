"""atomic_write: whole files only, and readable by a web server running as another user."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reproaudit.fsutil import atomic_write, current_umask


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_written_files_follow_the_umask_not_mkstemp(tmp_path: Path, mask: int, mode: int) -> None:
    old = os.umask(mask)
    try:
        assert current_umask() == mask
        atomic_write(tmp_path / "a.txt", "hello")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == mode
    assert (tmp_path / "a.txt").read_text() == "hello"


def test_no_overwrite_keeps_the_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "b.txt"
    atomic_write(target, b"first")
    with pytest.raises(FileExistsError):
        atomic_write(target, b"second", overwrite=False)
    assert target.read_bytes() == b"first"
    assert [p.name for p in tmp_path.iterdir()] == ["b.txt"]  # no temporary file left
