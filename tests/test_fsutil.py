"""atomic_write: whole files only, and readable by a web server running as another user;
TreeWriter: a staging tree written plainly, never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reproaudit.fsutil import TreeWriter, atomic_write, current_umask


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


def test_tree_writer_writes_nested_files_and_makes_each_folder(tmp_path: Path) -> None:
    writer = TreeWriter(tmp_path / "site")
    writer.write("papers/P1/index.html", "<p>é</p>\n")
    writer.write("papers/P1/feed.xml", b"<feed/>")
    writer.write("top.txt", "top")
    writer.write("papers/P1/index.html", "again")  # a second write replaces the first
    assert (tmp_path / "site/papers/P1/index.html").read_bytes() == b"again"
    assert (tmp_path / "site/papers/P1/feed.xml").read_bytes() == b"<feed/>"
    assert (tmp_path / "site/top.txt").read_text(encoding="utf-8") == "top"
    writer.write("papers/P2/index.html", "<p>é</p>\n".encode())
    assert (tmp_path / "site/papers/P2/index.html").read_text(encoding="utf-8") == "<p>é</p>\n"


def test_tree_writer_never_writes_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", encoding="utf-8")
    (tmp_path / "site/papers").mkdir(parents=True)
    (tmp_path / "site/papers/index.html").symlink_to(outside)
    writer = TreeWriter(tmp_path / "site")
    with pytest.raises(OSError):
        writer.write("papers/index.html", "overwritten")
    assert outside.read_text(encoding="utf-8") == "keep"
    writer.write("papers/other.html", "fine")  # the control: a plain file beside it
    assert (tmp_path / "site/papers/other.html").read_text(encoding="utf-8") == "fine"
