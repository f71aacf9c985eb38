"""atomic_write: whole files only, readable by a web server running as another user, and
never renamed over what is not a regular file (a device, FIFO or socket: played for real, on
nodes the tests make); output folders: never a non-folder, never through a link;
TreeWriter: a staging tree written plainly, never through a link, one writer per path."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from reproaudit.errors import InputError, StorageError
from reproaudit.fsutil import (
    TreeWriter,
    Writer,
    atomic_write,
    current_umask,
    held_folder,
    output_folder,
)


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


# -- outputs never replace what is not a regular file ------------------------------------

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="making a device node (os.mknod) needs root, as CI runs"
)


def null_device(folder: Path, name: str = "null") -> Path:
    """A character device with /dev/null's numbers, made by the test in its own folder:
    the machine's /dev/null is never touched."""
    path = folder / name
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path


def fifo_reader(fifo: Path, size: int) -> tuple[threading.Thread, list[bytes], threading.Event]:
    """A thread holding ``fifo`` open to read (set ``opened`` once it is) until ``size`` bytes."""
    got: list[bytes] = []
    opened = threading.Event()

    def read() -> None:
        # O_RDWR: opened at once, without a writer (Linux); then every read blocks for bytes
        fd = os.open(fifo, os.O_RDWR)
        opened.set()
        try:
            total = 0
            while total < size:
                chunk = os.read(fd, 65536)
                got.append(chunk)
                total += len(chunk)
        finally:
            os.close(fd)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, got, opened


@needs_root
def test_a_character_device_is_written_in_place_never_renamed_over(tmp_path: Path) -> None:
    dev = null_device(tmp_path)
    before = os.lstat(dev)
    atomic_write(dev, "x" * 200_000)
    after = os.lstat(dev)
    assert stat.S_ISCHR(after.st_mode) and after.st_mode == before.st_mode
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert sorted(os.listdir(tmp_path)) == ["null"]  # no temporary file beside it
    # through a link, as /dev/stdout is one: written into the device, the link kept
    (tmp_path / "stdout").symlink_to(dev)
    atomic_write(tmp_path / "stdout", b"through the link")
    assert os.readlink(tmp_path / "stdout") == str(dev)
    assert os.lstat(dev).st_ino == before.st_ino
    # never over existing work: scaffolding refuses the device as it refuses a file
    with pytest.raises(FileExistsError):
        atomic_write(dev, "new", overwrite=False)


def test_a_fifo_with_a_reader_gets_every_byte_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = os.urandom(300_000)  # more than a pipe holds: the writer must block, then go on
    thread, got, opened = fifo_reader(fifo, len(data))
    assert opened.wait(60)
    atomic_write(fifo, data)
    thread.join(60)
    assert b"".join(got) == data
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


def test_a_fifo_nobody_reads_is_refused_at_once_never_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    raised: list[BaseException] = []

    def write() -> None:
        try:
            atomic_write(fifo, "nobody reads this")
        except BaseException as exc:  # handed to the test
            raised.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(120)  # a hang guard, not a time limit: a blocking open never returns
    assert not thread.is_alive(), "atomic_write waited for a reader"
    assert [str(e) for e in raised] == [
        f"cannot write {fifo}: it is a FIFO no program is reading\n"
        "  hint: start the program that reads it first, or pick another path"
    ]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(StorageError) as err:
            atomic_write(path, "x")
    assert str(err.value) == (
        f"cannot write {path}: it is a socket; outputs replace regular files only, and write "
        "in place only into a character device (as /dev/null) or a FIFO\n"
        "  hint: pick another path"
    )
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["sock"]


@needs_root
def test_a_block_device_is_refused_never_opened(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    os.mknod(disk, stat.S_IFBLK | 0o600, os.makedev(7, 250))  # a loop device number
    with pytest.raises(StorageError, match="it is a block device; outputs replace"):
        atomic_write(disk, "x")
    assert stat.S_ISBLK(os.lstat(disk).st_mode)


def test_a_link_to_a_file_is_neither_replaced_nor_written_through(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("keep")
    (tmp_path / "out.json").symlink_to(kept)
    with pytest.raises(StorageError) as err:
        atomic_write(tmp_path / "out.json", "new")
    assert str(err.value) == (
        f"cannot write {tmp_path / 'out.json'}: it is a symbolic link (to {kept}); an output "
        "never replaces a link nor writes through one to anything but a device or FIFO\n"
        f"  hint: give the path it points to ({kept}), or remove the link"
    )
    assert kept.read_text() == "keep" and (tmp_path / "out.json").is_symlink()
    (tmp_path / "folder").mkdir()
    with pytest.raises(StorageError, match="it is a folder"):
        atomic_write(tmp_path / "folder", "x")
    atomic_write(kept, "replaced")  # the control: the file itself is replaced whole
    assert kept.read_text() == "replaced"


def test_output_folders_refuse_what_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "pipe")
    for name in ("file", "pipe", "file/below"):
        with pytest.raises(StorageError, match="not a folder"):
            output_folder(tmp_path / name)
    assert (tmp_path / "file").read_text() == "x"
    assert output_folder(tmp_path / "new" / "deep") == tmp_path / "new" / "deep"
    (tmp_path / "linked").symlink_to(tmp_path / "new")  # a link the user names is followed
    assert output_folder(tmp_path / "linked").is_dir()


def test_a_held_folder_never_goes_through_a_link_below_its_top(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "paper").symlink_to(outside)
    with pytest.raises(StorageError) as err, held_folder(tmp_path / "out", ["paper"]):
        pass
    assert str(err.value).startswith(
        f"cannot write {tmp_path / 'out' / 'paper'}: it is a symbolic link, not a folder"
    )
    with held_folder(tmp_path / "out", ["other"]) as held:
        # the folder held open is written, whatever its path names meanwhile
        (tmp_path / "out" / "other").rename(tmp_path / "out" / "moved")
        (tmp_path / "out" / "other").symlink_to(outside)
        (held / "file").write_text("here")
    assert (tmp_path / "out" / "moved" / "file").read_text() == "here"
    assert list(outside.iterdir()) == []


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
