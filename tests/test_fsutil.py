"""atomic_write: whole files only, and readable by a web server running as another user;
TreeWriter: a staging tree written plainly, never through a link, one writer per path."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reproaudit.errors import InputError
from reproaudit.fsutil import TreeWriter, Writer, atomic_write, current_umask


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
    assert (tmp_path / "site/papers/P1/index.html").read_text(encoding="utf-8") == "<p>é</p>\n"
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


def _named(rel: str, at: str) -> Writer:
    """Writers as a site names them: a logbook page blames its logbook's id when the
    path it shares is the logbook's folder."""
    if rel.endswith("/index.html") and rel.count("/") == 3 and at.count("/") == 2:
        return Writer(f"the page {rel}", f"logbooks/{rel.split('/')[2]}.yaml", "logbook.id")
    return Writer(f"the file {rel}")


@pytest.mark.parametrize(
    ("first", "second", "blamed"),
    [
        # a file where another writer's folder is, either way round
        ("papers/P/feed.xml/index.html", "papers/P/feed.xml", "logbooks/feed.xml.yaml"),
        ("papers/P/feed.xml", "papers/P/feed.xml/index.html", "logbooks/feed.xml.yaml"),
        # deeper: the file is a folder further up the other's path
        ("papers/P", "papers/P/x/index.html", "papers/P/x/index.html"),
        # one path twice
        ("badges/P.svg", "badges/P.svg", "badges/P.svg"),
    ],
)
def test_tree_writer_refuses_a_second_writer_naming_both(
    tmp_path: Path, first: str, second: str, blamed: str
) -> None:
    writer = TreeWriter(tmp_path / "site", _named)
    writer.write("papers/other/index.html", "the control: beside them, fine")
    writer.write(first, "first")
    with pytest.raises(InputError) as caught:
        writer.write(second, "second")
    (problem,) = caught.value.problems
    assert problem.code == "path_collision" and problem.path == blamed
    assert f"the page {first}" in problem.message or f"the file {first}" in problem.message
    assert f"the page {second}" in problem.message or f"the file {second}" in problem.message
    assert (problem.field == "logbook.id") == blamed.startswith("logbooks/")
    # nothing of the second writer was written, the first is whole
    on_disk = tmp_path / "site" / first
    assert on_disk.is_dir() or on_disk.read_text(encoding="utf-8") == "first"
    assert not (tmp_path / "site" / second).is_file() or first == second


def test_a_claimed_path_names_its_writer_and_is_left_alone(tmp_path: Path) -> None:
    """What mkdocs wrote is claimed, not written: a generated file over it is refused,
    naming the claimed writer."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site/feed.xml").write_text("hand-written", encoding="utf-8")
    writer = TreeWriter(tmp_path / "site")
    writer.claim("feed.xml", Writer("the repository's own site/feed.xml", "site/feed.xml"))
    writer.write("feed2.xml", "the control")
    with pytest.raises(InputError) as caught:
        writer.write("feed.xml", "<feed/>")
    (problem,) = caught.value.problems
    assert problem.path == "site/feed.xml" and problem.field is None
    assert problem.message == (
        "the repository's own site/feed.xml and the file feed.xml would be one path on the "
        "site (feed.xml)"
    )
    assert (tmp_path / "site/feed.xml").read_text(encoding="utf-8") == "hand-written"
