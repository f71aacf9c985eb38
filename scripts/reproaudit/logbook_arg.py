"""A logbook named on the command line: its repository-relative path, paper and logbook.

One resolver for every command that takes a logbook path (``check``, ``reproduce``), so
they accept the same spellings and refuse the rest with the same hints.
"""

from __future__ import annotations

from pathlib import Path

from . import layout
from . import problems as P
from .errors import InputError
from .problems import Problem, did_you_mean
from .repo import Corpus, corpus_of


def resolve_logbook(
    repo: Path, logbook: Path | str, here: Path | None = None, *, corpus: Corpus | None = None
) -> tuple[str, str, str]:
    """(repository-relative path, paper id, logbook id), or a one-line error saying why not.

    ``here`` is the folder a relative path was typed in (the CLI's working folder); None
    reads relative paths against the repository only. ``corpus``: the command's one
    ``Corpus`` of ``repo`` (its layout scan names the papers and logbooks).
    """
    repo = Path(repo).resolve()
    path = Path(logbook)
    if not path.is_absolute() and here is not None:
        # relative to the repository when it names a file there, else to the working folder
        # (a missing file: wherever the path lands inside the repository)
        typed = here / path
        inside = typed.resolve().is_relative_to(repo)
        if (repo / path).exists() or not (typed.exists() or inside):
            path = repo / path
        else:
            path = typed
    elif not path.is_absolute():
        path = repo / path
    try:
        rel = path.resolve().relative_to(repo).as_posix()
    except ValueError:
        raise InputError(
            Problem(P.MISPLACED_FILE, str(logbook), None, None, f"not inside the repository {repo}")
        ) from None
    data = layout.classify(rel)
    if data is None or data.kind != "logbook":
        raise InputError(
            Problem(
                P.MISPLACED_FILE,
                rel,
                None,
                None,
                "not a logbook: give logbooks/<paper>/<logbook>.yaml",
            )
        )
    paper_id, logbook_id = data.key
    corpus = corpus_of(repo, corpus)
    if paper_id not in corpus.paper_rels:
        guess = did_you_mean(paper_id, corpus.paper_rels)
        hint = (
            f"did you mean logbooks/{guess}/{logbook_id}.yaml?"
            if guess
            else "logbooks live in logbooks/<paper id>/; `reproaudit task PAPER` lists a paper"
        )
        raise InputError(
            Problem(
                P.UNKNOWN_PAPER,
                rel,
                None,
                None,
                f"there is no paper {paper_id!r} under claims/",
                hint,
            )
        )
    if not path.is_file():
        known = corpus.logbook_keys.get(paper_id, [])
        guess = did_you_mean(logbook_id, known)
        hint = (
            f"did you mean {layout.logbook_rel(paper_id, guess)}?"
            if guess
            else f"start one with `reproaudit new logbook {paper_id} --id <you>-1 "
            "--contributor <github>`"
        )
        raise InputError(Problem(P.UNKNOWN_LOGBOOK, rel, None, None, "no such logbook file", hint))
    return rel, paper_id, logbook_id
