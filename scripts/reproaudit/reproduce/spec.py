"""What to re-run: a logbook's code source and command, checked before anything runs.

Both backends start from a ``RunSpec``. The checks repeat what ``validate``
does (a logbook reaching ``reproduce`` may never have been validated) and add
what only matters when running: the command must split into an argument list.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import layout
from .. import problems as P
from ..beneath import copy_folder, read_file
from ..errors import InputError, ReproauditError
from ..loader import load_model
from ..logbook_arg import resolve_logbook
from ..models import Code, Logbook, Reproduce, parse_duration
from ..problems import Problem
from .confine import clean_logbook_path, escaping_links, inside

if TYPE_CHECKING:
    from ..repo import Corpus

MAX_CODE_FILE_BYTES = 64 * 1024 * 1024  # one file of a code folder, as the re-run copies it
MAX_REQUIREMENTS_BYTES = 256 * 1024


@dataclass(frozen=True)
class RunSpec:
    """One logbook's re-run: where its code is, what to run, for how long."""

    paper: str
    logbook: str
    rel: str  # logbooks/<paper>/<logbook>.yaml
    code: Code
    reproduce: Reproduce
    argv: list[str]
    timeout_s: int

    @property
    def code_subdir(self) -> str | None:
        """``code.path`` as a repository-relative folder, or None for a repo+commit logbook."""
        if self.code.path is None:
            return None
        return layout.in_paper_logbooks(self.paper, clean_code_path(self))


def load_spec(
    repo: Path, logbook_path: str | Path, here: Path | None = None, corpus: Corpus | None = None
) -> RunSpec:
    """Load a logbook and check it can be re-run; raise ``ReproauditError`` when not.

    ``corpus``: the command's one ``Corpus`` of ``repo`` (``check``), whose read of the
    logbook is used instead of reading it again."""
    rel, paper, logbook = resolve_logbook(repo, logbook_path, here, corpus=corpus)
    book = load_logbook(repo, rel, corpus)
    if book.logbook.paper != paper or book.logbook.id != logbook:
        raise InputError(
            Problem(
                P.ID_PATH_MISMATCH,
                rel,
                None,
                "logbook.id",
                f"the file says {book.logbook.paper}/{book.logbook.id} but lives at {rel}",
                "make logbook.paper and logbook.id match the path",
            )
        )
    if book.code is None or book.reproduce is None:
        missing = [
            name for name, v in (("code", book.code), ("reproduce", book.reproduce)) if v is None
        ]
        raise InputError(
            Problem(
                P.NOTHING_TO_RUN,
                rel,
                None,
                missing[0],
                f"nothing to re-run: the logbook has no {' and '.join(missing)}",
                "add `code` (a path or a repo and commit) and `reproduce` (command, hardware, "
                "timeout, outputs)",
            )
        )
    try:
        argv = shlex.split(book.reproduce.command)
    except ValueError as exc:
        argv, why = [], f"cannot be split into arguments: {exc}"
    else:
        why = "is empty"
    if not argv:
        raise InputError(
            Problem(
                P.BAD_COMMAND,
                rel,
                None,
                "reproduce.command",
                f"{book.reproduce.command!r} {why}",
                "commands run without a shell: close the quotes, or put shell syntax in a script",
            )
        )
    spec = RunSpec(
        paper,
        logbook,
        rel,
        book.code,
        book.reproduce,
        argv,
        parse_duration(book.reproduce.timeout),
    )
    if spec.code.path is not None:
        clean_code_path(spec)
    requirements_file(repo, spec)
    return spec


def load_logbook(repo: Path, rel: str, corpus: Corpus | None = None) -> Logbook:
    """The logbook at ``rel``, from ``corpus`` when given (read once), else from disk;
    ``InputError`` naming the file when it does not validate."""
    if corpus is None:
        return load_model(Path(repo) / rel, Logbook, rel)
    path = corpus.by_rel.get(rel)
    loaded = corpus.load(path) if path is not None else None
    if loaded is None:
        return load_model(Path(repo) / rel, Logbook, rel)  # says why it cannot be read
    if loaded.model is None:
        raise InputError(loaded.problems)
    return loaded.model


def clean_code_path(spec: RunSpec) -> str:
    """``code.path`` normalised, refused unless it starts in the logbook's own folder."""
    raw = spec.code.path or ""
    clean = clean_logbook_path(raw, spec.logbook)
    if clean is None:
        raise InputError(
            Problem(
                P.PATH_NOT_ALLOWED,
                spec.rel,
                None,
                "code.path",
                f"{raw!r} is outside this logbook's own folder "
                f"{layout.code_rel(spec.paper, spec.logbook)}/",
                f"put the code in {layout.code_rel(spec.paper, spec.logbook)}/ and write "
                f"`path: {spec.logbook}/`",
            )
        )
    return clean


def code_folder(repo: Path, spec: RunSpec) -> Path:
    """The checked-out code folder of a ``code.path`` logbook, re-checked against links.

    The folder and every link inside it must resolve within
    ``logbooks/<paper>/<logbook>/``: a re-run copies and executes what it holds.
    """
    rel = clean_code_path(spec)
    paper_dir = (Path(repo) / layout.LOGBOOKS_DIR / spec.paper).resolve()
    jail = paper_dir / spec.logbook
    folder = Path(repo) / layout.in_paper_logbooks(spec.paper, rel)

    def refuse(what: str) -> ReproauditError:
        return InputError(
            Problem(
                P.PATH_NOT_ALLOWED,
                spec.rel,
                None,
                "code.path",
                f"{what} leads outside {layout.code_rel(spec.paper, spec.logbook)}/",
                "replace links with the files themselves",
            )
        )

    if not folder.is_dir():
        raise InputError(
            Problem(
                P.MISSING_CODE_PATH,
                spec.rel,
                None,
                "code.path",
                f"{layout.in_paper_logbooks(spec.paper, rel)} is not a folder in {repo}",
                "add the code beside the logbook, or use `code: {repo: ..., commit: ...}`",
            )
        )
    if not inside(str(folder), str(jail)) or not inside(str(jail), str(paper_dir)):
        raise refuse(f"{rel!r}")
    links = escaping_links(str(folder), str(jail))
    if links:
        raise refuse(f"the link {links[0]!r}")
    return folder


def requirements_refused(spec: RunSpec, message: str, hint: str) -> InputError:
    """The error of a requirements file no backend installs, named at the logbook's field."""
    return InputError(
        Problem(P.REQUIREMENTS_NOT_ALLOWED, spec.rel, None, "reproduce.requirements", message, hint)
    )


def requirements_file(repo: Path, spec: RunSpec) -> Path | None:
    """The logbook's requirements file, confined to its own folder like its code; or None."""
    raw = spec.reproduce.requirements
    if raw is None:
        return None
    clean = clean_logbook_path(raw, spec.logbook)
    paper_dir = (Path(repo) / layout.LOGBOOKS_DIR / spec.paper).resolve()
    jail = paper_dir / spec.logbook
    path = Path(repo) / layout.in_paper_logbooks(spec.paper, clean or "")
    if clean is None or not inside(str(path), str(jail)) or not path.is_file():
        why = (
            "is not a file"
            if clean is not None and inside(str(path), str(jail))
            else ("is outside this logbook's own folder")
        )
        raise requirements_refused(
            spec,
            f"{raw!r} {why} logbooks/{spec.paper}/{spec.logbook}/",
            f"put it at logbooks/{spec.paper}/{spec.logbook}/requirements.txt and write "
            f"`requirements: {spec.logbook}/requirements.txt`",
        )
    return path


def requirements_bytes(repo: Path, spec: RunSpec) -> bytes | None:
    """The requirements file's bytes through the one reader (no link, capped), or None."""
    path = requirements_file(repo, spec)
    if path is None:
        return None
    rel = path.relative_to(Path(repo)).as_posix()
    data = read_file(Path(repo), rel, MAX_REQUIREMENTS_BYTES)
    if data is None:
        raise InputError(
            Problem(P.REQUIREMENTS_NOT_ALLOWED, spec.rel, None, "reproduce.requirements",
                    f"{rel} is not a file")
        )  # fmt: skip
    return data


def copy_code(repo: Path, spec: RunSpec, dest: Path) -> int:
    """Copy a ``code.path`` logbook's folder into the new folder ``dest``: regular files only.

    Checked first by ``code_folder``; then every file is read through the one
    reader, so a link anywhere in the folder (even one that stays inside it) or a
    FIFO is refused by name, never followed or copied.
    """
    code_folder(repo, spec)
    assert spec.code_subdir is not None
    return copy_folder(Path(repo), spec.code_subdir, dest, MAX_CODE_FILE_BYTES)
