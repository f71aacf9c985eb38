"""The bytes a re-run depends on, hashed on the host: logbook, write-up, code tree, requirements.

One definition for the three places that need it: ``reproaudit reproduce``
writes these hashes into ``run.json`` before and apart from the sandbox; the
judge recomputes them from the working tree, and ``ci store-reruns`` from the
git tree at the approved commit. A record whose hashes differ from the
current ones re-ran other bytes (``judge.inputs.record_currency`` says which).

The code tree's hash covers, for every file under the code folder, its path
(relative to the folder), its mode (``100755`` when executable, else
``100644``: git's two file modes) and the SHA-256 of its bytes, one line each,
sorted by path. A symbolic link, submodule, FIFO or device in the folder is
refused, never followed: a PR may hold only regular files there. A
``code: {repo, commit}`` logbook binds the repository and the full commit,
which name the tree exactly.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import layout
from .errors import GitError
from .gitrun import cat_file_batch, run_git
from .listing import Listing
from .models import Logbook

if TYPE_CHECKING:
    from .repo import Corpus

CHUNK = 1 << 20


class TreeRefused(Exception):
    """A code tree that cannot be hashed: a link, a non-regular file, no folder at all."""


@dataclass(frozen=True)
class InputHashes:
    """The current hashes of what a logbook's re-run ran; ``refused`` says why one is missing."""

    logbook_sha256: str | None
    writeup_sha256: str | None
    code_sha256: str | None
    requirements_sha256: str | None
    refused: str | None = None  # why the code tree or requirements could not be hashed


def sha256_of(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def commit_sha256(repo: str, commit: str) -> str:
    """The code hash of a ``code: {repo, commit}`` logbook: the pair names the tree."""
    return hashlib.sha256(f"git {repo} {commit}\n".encode()).hexdigest()


def tree_lines_sha256(entries: Iterable[tuple[str, bool, str]]) -> str:
    """The code tree's hash from (relative path, executable, SHA-256 of the bytes) entries."""
    digest = hashlib.sha256()
    for rel, executable, data in sorted(entries):
        mode = "100755" if executable else "100644"
        digest.update(f"{mode} {data} {rel}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def folder_tree_sha256(folder: Path, listing: Listing | None = None) -> str:
    """The code tree's hash of a folder on this machine; ``TreeRefused`` on a link or device.

    Nothing is followed: the folder itself and every entry are checked with
    ``lstat``, and each file is opened with ``O_NOFOLLOW`` and checked again.
    ``listing``: the run's one listing of each folder (``Corpus.listing``).
    """
    listing = listing or Listing()
    top = os.lstat(folder) if os.path.lexists(folder) else None
    if top is None or not stat.S_ISDIR(top.st_mode):
        raise TreeRefused(f"{folder} is not a folder")
    entries: list[tuple[str, bool, str]] = []
    pending = [(Path(folder), "")]
    while pending:
        here, prefix = pending.pop()
        for entry in listing.entries(here):
            rel = prefix + entry.name
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                pending.append((Path(entry.path), rel + "/"))
            elif stat.S_ISREG(info.st_mode):
                entries.append((rel, bool(info.st_mode & 0o100), _file_sha256(entry.path)))
            else:
                kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
                raise TreeRefused(f"{rel} in the code folder is {kind}")
    return tree_lines_sha256(entries)


def _file_sha256(path: str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TreeRefused(f"{path} is not a regular file")
        digest = hashlib.sha256()
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def _clean(raw: str, logbook: str) -> str | None:
    from .reproduce.confine import clean_logbook_path  # the package imports this module

    return clean_logbook_path(raw, logbook)


def code_rel(book: Logbook, paper: str, logbook: str) -> str | None:
    """``logbooks/<paper>/<code.path>`` of a ``code.path`` logbook, or None (no such path)."""
    if book.code is None or book.code.path is None:
        return None
    clean = _clean(book.code.path, logbook)
    return None if clean is None else layout.in_paper_logbooks(paper, clean)


def requirements_rel(book: Logbook, paper: str, logbook: str) -> str | None:
    """``logbooks/<paper>/<reproduce.requirements>``, or None when there is none or it leaves."""
    if book.reproduce is None or book.reproduce.requirements is None:
        return None
    clean = _clean(book.reproduce.requirements, logbook)
    return None if clean is None else layout.in_paper_logbooks(paper, clean)


def inputs_in_folder(
    root: Path,
    paper: str,
    logbook: str,
    book: Logbook,
    logbook_bytes: bytes | None,
    writeup_bytes: bytes | None,
    listing: Listing | None = None,
) -> InputHashes:
    """The current hashes of a logbook in a working tree (the judge, ``reproduce``).

    ``listing``: the run's one listing of each folder (``Corpus.listing``)."""
    root = Path(root)

    def folder_code(rel: str) -> str:
        _no_link_above(root, rel)
        return folder_tree_sha256(root / rel, listing)

    code, refused = _code_sha256(book, paper, logbook, folder_code, (TreeRefused, OSError))
    requirements = None
    if book.reproduce is not None and book.reproduce.requirements is not None:
        rel = requirements_rel(book, paper, logbook)
        try:
            if rel is None:
                raise TreeRefused("reproduce.requirements leaves the logbook's folder")
            _no_link_above(root, rel)
            requirements = _file_sha256(str(root / rel))
        except (TreeRefused, OSError) as exc:
            refused = refused or f"the requirements file cannot be hashed: {exc}"
    return InputHashes(
        sha256_of(logbook_bytes), sha256_of(writeup_bytes), code, requirements, refused
    )


def _code_sha256(
    book: Logbook,
    paper: str,
    logbook: str,
    hash_tree: Callable[[str], str],
    errors: tuple[type[Exception], ...],
) -> tuple[str | None, str | None]:
    """``code_sha256`` and why it is missing: a pinned commit's hash, else ``hash_tree(rel)``
    of code.path (a working tree or a commit's objects), ``errors`` turned into the reason."""
    if book.code is None:
        return None, None
    if book.code.path is None:
        return commit_sha256(str(book.code.repo), str(book.code.commit)), None
    rel = code_rel(book, paper, logbook)
    try:
        if rel is None:
            raise TreeRefused(f"code.path {book.code.path!r} leaves the logbook's folder")
        return hash_tree(rel), None
    except errors as exc:
        return None, f"the code tree cannot be hashed: {exc}"


def _no_link_above(root: Path, rel: str) -> None:
    """Refuse a path whose folders (below ``root``) include a symbolic link."""
    here = Path(root)
    for part in Path(rel).parts[:-1]:
        here = here / part
        if here.is_symlink():
            raise TreeRefused(f"{here.relative_to(root)} is a symbolic link")


def read_inputs(root: Path, paper: str, logbook: str, book: Logbook) -> InputHashes:
    """``inputs_in_folder`` reading the logbook and write-up itself (``reproduce``)."""
    from .beneath import read_file  # the one reader: no link, no special file, capped
    from .repo import MAX_BLOB_BYTES

    root = Path(root)
    logbook_bytes = read_file(root, layout.logbook_rel(paper, logbook), MAX_BLOB_BYTES)
    writeup_bytes = read_file(root, layout.writeup_rel(paper, logbook), MAX_BLOB_BYTES)
    return inputs_in_folder(root, paper, logbook, book, logbook_bytes, writeup_bytes)


def current_inputs(
    corpus: Corpus, paper_id: str, logbook_id: str, book: Logbook, raw: bytes | None
) -> InputHashes:
    """The current hashes of what a re-run of this logbook must have run (on this host),
    hashed once per corpus: the fitness check, the judge and the site's staleness share them."""
    cached = corpus.inputs.get((paper_id, logbook_id))
    if cached is None:
        writeup = corpus.writeup(paper_id, logbook_id)
        cached = inputs_in_folder(
            corpus.root,
            paper_id,
            logbook_id,
            book,
            raw,
            writeup.raw if writeup else None,
            corpus.listing,
        )
        corpus.inputs[(paper_id, logbook_id)] = cached
    return cached


# --- at a commit, from git objects (ci store-reruns) --------------------------------------


class GitTree:
    """Files of one commit read from git objects (no checkout): listing, bytes, hashes.

    One ``git cat-file --batch`` process serves every read; names are data (split on
    NUL, never given to a shell).
    """

    def __init__(self, repo_dir: Path, commit: str, env: dict[str, str] | None = None) -> None:
        self.repo_dir, self.commit = Path(repo_dir), commit
        self._env = {**os.environ, **(env or {})}  # credentials for blobs fetched on demand
        self._proc = cat_file_batch(repo_dir, self._env)

    def _ls_tree(self, *args: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
        try:
            return run_git(
                self.repo_dir, "ls-tree", *args, env=self._env, timeout=timeout, check=False
            )
        except GitError as exc:  # git missing or too slow: the tree cannot be read
            raise TreeRefused(str(exc)) from None

    def entries(self, folder: str) -> list[tuple[str, str, str]]:
        """(mode, object id, path relative to ``folder``) of everything under ``folder``."""
        folder = folder.rstrip("/")
        done = self._ls_tree(
            "-r", "-z", "--full-tree", self.commit, "--", folder + "/", timeout=300
        )
        if done.returncode != 0:
            raise TreeRefused(done.stderr.decode("utf-8", "replace").strip()[-300:])
        out = []
        prefix = folder.rstrip("/") + "/"
        for item in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if not item:
                continue
            meta, path = item.split("\t", 1)
            mode, _kind, oid = meta.split()
            out.append((mode, oid, path[len(prefix) :]))
        return out

    def _object(self, name: str, sink: hashlib._Hash | None = None) -> bytes | None:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        if "\n" in name or "\r" in name:
            return None
        self._proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:  # "<name> missing"
            return None
        kind, size = header[1], int(header[2])
        chunks = []
        left = size
        while left:
            chunk = self._proc.stdout.read(min(CHUNK, left))
            if not chunk:
                raise TreeRefused("git cat-file ended early")
            left -= len(chunk)
            if sink is not None:
                sink.update(chunk)
            else:
                chunks.append(chunk)
        self._proc.stdout.read(1)  # the newline after the contents
        if kind != b"blob":
            return None
        return b"" if sink is not None else b"".join(chunks)

    def mode(self, rel: str) -> str | None:
        """The git mode of one path at the commit, or None when it is not there."""
        done = self._ls_tree("-z", "--full-tree", self.commit, "--", rel, timeout=120)
        item = done.stdout.decode("utf-8", "surrogateescape").split("\0")[0]
        return item.split()[0] if done.returncode == 0 and "\t" in item else None

    def read(self, rel: str) -> bytes | None:
        """A regular file's bytes at the commit; None when absent; a link is refused."""
        mode = self.mode(rel)
        if mode is None:
            return None
        if mode not in ("100644", "100755"):
            raise TreeRefused(f"{rel} is not a regular file at {self.commit[:12]} (mode {mode})")
        return self._object(f"{self.commit}:{rel}")

    def tree_sha256(self, folder: str) -> str:
        """The code tree's hash of ``folder`` at the commit (same definition as on disk)."""
        entries = []
        listed = self.entries(folder)
        if not listed:
            raise TreeRefused(f"{folder} is not a folder at {self.commit[:12]}")
        for mode, oid, rel in listed:
            if mode not in ("100644", "100755"):
                what = {"120000": "a symbolic link", "160000": "a submodule"}.get(mode, mode)
                raise TreeRefused(f"{rel} in the code folder is {what}")
            digest = hashlib.sha256()
            self._object(oid, digest)
            entries.append((rel, mode == "100755", digest.hexdigest()))
        return tree_lines_sha256(entries)

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=60)

    def __enter__(self) -> GitTree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def inputs_at_commit(tree: GitTree, paper: str, logbook: str, book: Logbook) -> InputHashes:
    """The hashes of a logbook's inputs at ``tree.commit``, from git objects alone."""
    logbook_bytes = tree.read(layout.logbook_rel(paper, logbook))
    try:
        writeup_bytes = tree.read(layout.writeup_rel(paper, logbook))
    except TreeRefused as exc:
        return InputHashes(sha256_of(logbook_bytes), None, None, None, f"the write-up: {exc}")
    code, refused = _code_sha256(book, paper, logbook, tree.tree_sha256, (TreeRefused,))
    requirements = None
    if book.reproduce is not None and book.reproduce.requirements is not None:
        rel = requirements_rel(book, paper, logbook)
        try:
            data = tree.read(rel) if rel is not None else None
            if data is None:
                raise TreeRefused("reproduce.requirements is not a file in the logbook's folder")
            requirements = sha256_of(data)
        except TreeRefused as exc:
            refused = refused or f"the requirements file cannot be hashed: {exc}"
    return InputHashes(
        sha256_of(logbook_bytes), sha256_of(writeup_bytes), code, requirements, refused
    )
