"""A trackio logbook as a reproaudit logbook: one result per "Claim k" page.

People and agents who reproduce a paper with trackio (``trackio logbook
page "Claim 1: ..."``, ``trackio logbook run -- ...``) already keep a record
per claim. This importer turns each page titled "Claim <k>: ..." into the
result for claim ``C<k>``, with the page's notes, runs (command, exit code,
duration, output tail) and other cells kept as readable evidence in ``notes``.

What it does not do, on purpose:

- It reads no numbers off the pages: a measurement needs a metric, a unit and
  ideally a pointer into re-run outputs, which prose does not give reliably.
  The judge therefore sees these results as notes only until someone adds
  ``measurements`` (and ``code``/``reproduce`` so CI can re-run them).
- ``self_assessment`` is set only when a verdict cell says plainly that the
  claim holds or does not ("**claim 1 holds**", "Verdict: falsified"); any
  hedge ("approximately reproduced") leaves it out.
- Re-importing rewrites the whole file from the logbook. The logbook id is
  derived from the contributor and the workspace's creation time, so the same
  logbook always lands in the same file, and edits made to that file by hand
  are replaced: keep the trackio logbook as the source of truth, or stop
  re-importing once you edit the YAML.

Over 400 lines because reading the workspace safely, mapping pages to results and the
ownership rules of a re-import are one import; the page parser is ``trackio_format.py``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from pathlib import Path
from typing import Any

from .. import layout
from .. import problems as P
from ..errors import InputError, ReproauditError
from ..loader import load_document, parse_yaml, to_model
from ..models import GITHUB_PATTERN, Logbook, PaperFile
from ..problems import Problem
from ..repo import Corpus
from ..validate import check_file
from ._yaml import block, check_round_trip, clip, comment, q
from .trackio_format import Cell, Page, Workspace, read_workspace

SCHEMA_URL = "../../schemas/logbook.schema.json"
MAX_NOTES = 6000  # characters of notes per result
MAX_CELL = 800  # characters per cell in the notes
OUTPUT_LINES = 8  # last lines of a run's output kept
MAX_VERDICT_CHARS = 5_000  # of a cell, read for a plainly stated verdict
MAX_VERDICT_MATCHES = 32

# Each `\s*` is followed by a different literal, so matching never backtracks quadratically.
_CLAIM_PAGE = re.compile(r"^\s*(?:claim\s*(?:#\s*)?c?|c)(\d{1,6})\b", re.IGNORECASE)
_VERDICT_TITLE = re.compile(r"verdict|conclusion|result|summary|outcome", re.IGNORECASE)
_HOLDS = re.compile(
    r"\bclaim(?:\s+c?(\d{1,6}))?\s+(?:holds|is\s+(?:verified|reproduced|replicated|confirmed))\b",
    re.IGNORECASE,
)
_FAILS = re.compile(
    r"\bclaim(?:\s+c?(\d{1,6}))?\s+(?:does\s+not\s+hold|doesn't\s+hold|fails"
    r"|is\s+(?:falsified|refuted|not\s+(?:reproduced|replicated|confirmed)))\b",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"\bverdict\s*[:=]\s*[*_`]*\s*(verified|falsified|toy|inconclusive)\b", re.IGNORECASE
)
_HEDGE = re.compile(
    r"\b(?:approx\w*|partial\w*|partly|rough\w*|mostly|largely|nearly|almost|somewhat|likely"
    r"|probabl\w*|possibl\w*|seems?|appears?|arguabl\w*|not|no|never|if|unless|only|but"
    r"|except|although|however|unclear|whether|will|would|should|may|might|could|expect\w*"
    r"|hope\w*|plan\w*)\b|n't|\?",
    re.IGNORECASE,
)
_SPACE_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+\Z")
_ARXIV_URL = re.compile(r"^(?:https?://)?(?:www\.)?(?:export\.)?arxiv\.org/(?:abs|pdf)/")
_OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w.-]+)")


def import_trackio(
    workspace: Path, repo: Path, *, paper: str | None = None, contributor: str | None = None
) -> tuple[Path, str]:
    """Turn the trackio logbook in ``workspace`` into a logbook of ``repo``.

    Returns the path ``<repo>/logbooks/<paper>/<logbook>.yaml`` and the YAML
    text, already checked against the schema; nothing is written. The paper is
    ``paper`` or the one the logbook's metadata names (an OpenReview id, or an
    arXiv id matched against the papers' ``links.arxiv``). Raises
    ``InputError`` with every problem found.
    """
    source = read_workspace(workspace)
    problems: list[Problem] = []
    shown = Path(workspace).as_posix()
    if not contributor or not contributor.strip():
        problems.append(
            Problem(
                P.IMPORT_NEEDS_INPUT,
                shown,
                None,
                None,
                "a trackio logbook does not say who wrote it",
                "pass your GitHub handle: --contributor <github>",
            )
        )
    elif not re.fullmatch(GITHUB_PATTERN, contributor):
        problems.append(
            Problem(
                P.INVALID_VALUE,
                shown,
                None,
                None,
                f"{contributor!r} is not a GitHub handle",
                "pass the handle as on github.com (letters, digits and '-')",
            )
        )
    claim_pages = [
        (int(m[1]), page) for page in source.pages if (m := _CLAIM_PAGE.match(page.title))
    ]
    if not claim_pages:
        titles = ", ".join(repr(p.title) for p in source.pages) or "none"
        problems.append(
            Problem(
                P.IMPORT_NOTHING_FOUND,
                (source.root / "logbook" / "pages").as_posix(),
                None,
                None,
                f'no page is titled "Claim <k>: ..." (pages: {titles})',
                'give each claim its own page: trackio logbook page "Claim 1: <what it says>"',
            )
        )
    paper_file: PaperFile | None = None
    try:
        paper_file = _resolve_paper(Corpus(repo), source, paper)
    except InputError as exc:
        problems += exc.problems
    if paper_file is not None:
        problems += _unknown_claims(paper_file, claim_pages)
    if problems or paper_file is None or not contributor:
        raise InputError(problems)
    meta = paper_file.paper
    logbook_id = _logbook_id(contributor, source)
    rel = layout.logbook_rel(meta.id, logbook_id)
    data = _logbook_data(source, paper_file, logbook_id, contributor, claim_pages)
    for literal in (True, False):
        text = _render(data, source.title, literal)
        if check_round_trip(text, rel, data):
            break
    else:  # pragma: no cover - quoted scalars always read back
        raise AssertionError(f"rendered {rel} does not read back as written")
    to_model(parse_yaml(text, rel), Logbook)
    check_owner(Path(repo), rel, contributor)
    return Path(repo) / rel, text


def check_owner(repo: Path, rel: str, contributor: str) -> None:
    """Raise unless ``rel`` is absent or a logbook of ``contributor`` (case-insensitive).

    A re-import updates one's own logbook; it never overwrites someone else's,
    nor a file it cannot read the owner of (a symlink, broken YAML).
    """
    path = repo / rel
    if not os.path.lexists(path):
        return
    owner = None
    if not path.is_symlink() and path.is_file():
        try:
            doc = load_document(path, rel)
        except ReproauditError:
            doc = None
        logbook = doc.data.get("logbook") if doc is not None else None
        contributor_of = logbook.get("contributor") if isinstance(logbook, dict) else None
        if isinstance(contributor_of, dict) and isinstance(contributor_of.get("github"), str):
            owner = contributor_of["github"]
    if owner is not None and owner.lower() == contributor.lower():
        return
    whose = f"belongs to {owner!r}" if owner else "exists and names no contributor it can read"
    raise InputError(
        Problem(
            P.IMPORT_NOT_YOURS,
            rel,
            None,
            "logbook.contributor.github",
            f"{rel} {whose}, not {contributor!r}: an import never overwrites it",
            "check --contributor; to add your own work, import your own trackio logbook",
        )
    )


# --- which paper, which claims ----------------------------------------------


def _resolve_paper(corpus: Corpus, source: Workspace, given: str | None) -> PaperFile:
    meta_path = (source.root / "metadata.json").as_posix()
    info = source.paper
    url = str(info.get("url") or "")
    openreview = info.get("openreview_id") or _first(_OPENREVIEW, url)
    arxiv = info.get("arxiv_id") or (url if "arxiv.org/" in url else None)
    if given:
        paper_id, origin = given, "--paper"
    elif isinstance(openreview, str) and openreview:
        paper_id, origin = openreview, f"paper.openreview_id in {meta_path}"
    elif isinstance(arxiv, str) and arxiv:
        paper_id, origin = _paper_by_arxiv(corpus, arxiv, meta_path), meta_path
    else:
        raise InputError(
            Problem(
                P.IMPORT_NEEDS_INPUT,
                meta_path,
                None,
                "paper",
                "the logbook does not name the paper it reproduces",
                'pass --paper <paper id>, or add "paper": {"arxiv_id": "..."} to metadata.json',
            )
        )
    rels = corpus.paper_rels.get(paper_id, [])
    if not rels:
        raise InputError(
            Problem(
                P.UNKNOWN_PAPER,
                meta_path if origin != "--paper" else "claims/",
                None,
                None,
                f"there is no paper {paper_id!r} under claims/ (from {origin})",
                "check the id, or ask a maintainer to add the paper first",
            )
        )
    if len(rels) > 1:
        raise InputError(
            Problem(
                P.DUPLICATE_ID,
                rels[0],
                None,
                "paper.id",
                f"paper {paper_id} has several files: {', '.join(rels)}",
                "a paper id is unique across venues; keep one file",
            )
        )
    # the paper file must validate (its id matches its name...) before a logbook points at it
    found = [p for p in check_file(corpus, corpus.by_rel[rels[0]]) if p.is_error]
    if found:
        raise InputError(found)
    loaded = corpus.load(corpus.by_rel[rels[0]])
    assert loaded.model is not None  # check_file loaded it
    return loaded.model


def _paper_by_arxiv(corpus: Corpus, arxiv: str, meta_path: str) -> str:
    wanted = _arxiv_key(arxiv)
    matches = sorted(
        model.paper.id
        for _, model in corpus.papers()
        if model.paper.links.arxiv and _arxiv_key(model.paper.links.arxiv) == wanted
    )
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(
            Problem(
                P.UNKNOWN_PAPER,
                meta_path,
                None,
                "paper.arxiv_id",
                f"no paper under claims/ has links.arxiv {arxiv!r}",
                f'add `arxiv: "{wanted}"` to the paper\'s links, or pass --paper <paper id>',
            )
        )
    raise InputError(
        Problem(
            P.IMPORT_NEEDS_INPUT,
            meta_path,
            None,
            "paper.arxiv_id",
            f"several papers have links.arxiv {arxiv!r}: {', '.join(matches)}",
            "pass --paper with the one this logbook reproduces",
        )
    )


def _arxiv_key(text: str) -> str:
    """``2406.99999`` for ``arXiv:2406.99999v2``, ``https://arxiv.org/abs/2406.99999`` ..."""
    key = _ARXIV_URL.sub("", text.strip().lower()).removeprefix("arxiv:")
    return re.sub(r"v\d+$", "", key.removesuffix(".pdf").rstrip("/"))


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    return match[1] if match else None


def _unknown_claims(paper: PaperFile, claim_pages: list[tuple[int, Page]]) -> list[Problem]:
    known = [c.id for c in paper.claims]
    out = []
    for k, page in claim_pages:
        if paper.claim(f"C{k}") is None:
            out.append(
                Problem(
                    P.UNKNOWN_CLAIM,
                    page.path.as_posix(),
                    1,
                    None,
                    f"page {page.title!r} is about claim C{k}, which paper {paper.paper.id} "
                    f"does not have (it has {', '.join(known) or 'no claims'})",
                    "retitle the page after the claim it checks (`Claim <k>: ...` for C<k>), "
                    "or ask for the claim to be added to the paper file",
                )
            )
    return out


def _logbook_id(contributor: str, source: Workspace) -> str:
    """``<contributor>-trackio-<8 hex>``, stable for one workspace.

    The hash is of the workspace's ``created_at`` (written once by ``trackio
    logbook open``; kept when it is published), else of its first cell id,
    else of its title: never of anything a later command changes.
    """
    first_cell = next((c.header.get("id") for p in source.pages for c in p.cells), None)
    identity = source.metadata.get("created_at") or first_cell or source.title or "untitled"
    digest = hashlib.sha256(f"trackio\0{identity}".encode()).hexdigest()[:8]
    return f"{handle_slug(contributor)}-trackio-{digest}"


def handle_slug(contributor: str) -> str:
    """A GitHub handle as a logbook-id prefix, one handle to one prefix.

    Handles are letters, digits and '-', compared without case; a GitHub App's
    ``name[bot]`` becomes ``name_bot``, which no user handle can be (they have
    no '_'), so ``alice[bot]`` and ``alicebot`` never share a file.
    """
    lower = contributor.lower()
    if lower.endswith("[bot]"):
        return re.sub(r"[^a-z0-9-]", "", lower.removesuffix("[bot]")) + "_bot"
    return re.sub(r"[^a-z0-9-]", "", lower)


# --- the logbook --------------------------------------------------------------


def _logbook_data(
    source: Workspace,
    paper: PaperFile,
    logbook_id: str,
    contributor: str,
    claim_pages: list[tuple[int, Page]],
) -> dict[str, Any]:
    """The logbook as plain data, one result per claim in the paper's claim order."""
    head: dict[str, Any] = {
        "id": logbook_id,
        "paper": paper.paper.id,
        "claims_version": paper.claims_version,
        "contributor": {"github": contributor},  # a Space's owner may be an org: no `hf`
    }
    space = source.metadata.get("space_id") or source.manifest.get("space_id")
    if isinstance(space, str) and _SPACE_ID.match(space):  # published: link the Space
        head["trace"] = f"https://huggingface.co/spaces/{space}"
    pages: dict[str, list[Page]] = {}
    for k, page in claim_pages:
        pages.setdefault(f"C{k}", []).append(page)
    results = []
    for claim in paper.claims:
        if claim.id not in pages:
            continue
        k = int(claim.id[1:])
        result: dict[str, Any] = {"claim": claim.id}
        verdicts = {_page_verdict(page, k) for page in pages[claim.id]}
        if len(verdicts) == 1 and None not in verdicts:
            result["self_assessment"] = verdicts.pop()
        result["setup"] = "full"
        result["notes"] = _notes(pages[claim.id])
        results.append(result)
    return {"logbook": head, "results": results}


def _render(data: dict[str, Any], title: str, literal: bool) -> str:
    head = data["logbook"]
    lines = [
        f"# yaml-language-server: $schema={SCHEMA_URL}",
        f'# Imported from the trackio logbook "{comment(title or "untitled", 60)}" by',
        "# `reproaudit import trackio`. Re-importing rewrites this file from the logbook,",
        "# dropping edits made here. No numbers were read off the pages and nothing here",
        "# can be re-run: add `measurements`, `code` and `reproduce` for the judge to check.",
        "logbook:",
        f"  id: {q(head['id'])}",
        f"  paper: {q(head['paper'])}",
        f"  claims_version: {head['claims_version']}",
        "  contributor:",
        *(f"    {key}: {q(value)}" for key, value in head["contributor"].items()),
    ]
    if "trace" in head:
        lines.append(f"  trace: {q(head['trace'])}")
    lines.append("results:" if data["results"] else "results: []")
    for result in data["results"]:
        lines.append(f"  - claim: {q(result['claim'])}")
        for key in ("self_assessment", "setup"):
            if key in result:
                lines.append(f"    {key}: {q(result[key])}")
        notes = block(result["notes"], 6) if literal else q(result["notes"])
        lines.append(f"    notes: {notes}")
    return "\n".join(lines) + "\n"


# --- what a page says ---------------------------------------------------------


def _page_verdict(page: Page, k: int) -> str | None:
    """The verdict a page states plainly about claim ``k``, or None.

    Reads the cells that give a verdict (pinned, or titled verdict,
    conclusion, result, ...), else the page's last note. Any hedge or negation
    in the sentence, or two different verdicts, gives None: a wrong
    self-assessment is worse than none.
    """
    notes = [c for c in page.cells if c.type == "markdown"]
    chosen = [c for c in notes if c.header.get("pinned") or _VERDICT_TITLE.search(c.title)]
    found: set[str] = set()
    budget = MAX_VERDICT_MATCHES  # each statement costs a scan of its sentence: bound them
    for cell in chosen or notes[-1:]:
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", cell.body[:MAX_VERDICT_CHARS]):
            for pattern, verdict in ((_HOLDS, "verified"), (_FAILS, "falsified"), (_LABEL, None)):
                for m in pattern.finditer(sentence):
                    if pattern is not _LABEL and m[1] is not None and int(m[1]) != k:
                        continue
                    budget -= 1
                    if budget < 0:
                        return None  # a page that says it this often does not say it plainly
                    rest = sentence[: m.start()] + sentence[m.end() :]
                    if _HEDGE.search(rest):
                        return None
                    found.add(verdict or m[1].lower())
    return found.pop() if len(found) == 1 else None


def _notes(pages: list[Page]) -> str:
    """The pages as readable evidence, bounded to ``MAX_NOTES`` characters."""
    parts = []
    for page in pages:
        parts.append(f"From trackio page {_quoted(page.title)}.")
        parts += [clip(_describe(cell), MAX_CELL) for cell in page.cells]
    text = "\n\n".join(p for p in parts if p)
    text = "\n".join(line.rstrip() for line in text.expandtabs(4).split("\n"))
    if len(text) > MAX_NOTES:
        cut = text[:MAX_NOTES].rsplit("\n", 1)[0].rstrip()
        text = f"{cut}\n… (cut here; the full pages are in the trackio logbook)"
    return text.strip()


def _describe(cell: Cell) -> str:
    kind = cell.type
    if kind == "markdown":
        return _describe_note(cell)
    if kind == "code":
        return _describe_code(cell)
    if kind == "figure":
        raw = next((text for info, text in cell.fences() if info == "raw"), None)
        label = f"Figure {_quoted(cell.title)}"
        return f"{label}, raw data:\n{_indent(_tail(raw, 5, head=True))}" if raw else label
    if kind == "artifact":
        name = cell.header.get("path") or cell.header.get("artifact") or cell.title
        extra = [str(cell.header[k]) for k in ("artifact_type",) if cell.header.get(k)]
        if isinstance(cell.header.get("size"), int):
            extra.append(_size(cell.header["size"]))
        return f"Artifact: {name}" + (f" ({', '.join(extra)})" if extra else "")
    if kind == "dashboard":
        return f"Trackio dashboard: {cell.header.get('dashboard_project') or cell.title}"
    return f"{kind} cell {_quoted(cell.title)}"


def _describe_note(cell: Cell) -> str:
    body = cell.body.strip()
    first = re.sub(r"[*_`#>\[\]]", "", body.split("\n", 1)[0]).strip()
    auto = first.startswith(cell.title.rstrip("…").strip())  # trackio titled it from the body
    label = "Note" if auto else f"Note {_quoted(cell.title)}"
    if cell.header.get("pinned"):
        label += " (pinned)"
    return f"{label}: {_hang(body)}"


def _describe_code(cell: Cell) -> str:
    header = cell.header
    fences = cell.fences()
    output = next((text for info, text in fences if info == "output"), None)
    command = header.get("command")
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        exit_code, duration = header.get("exit_code"), header.get("duration_s")
        status = "Run" if exit_code in (0, None) else "Run failed"
        if cell.title and not cell.title.startswith("Run: "):  # not trackio's default title
            status += f" {_quoted(cell.title)}"
        how = "exit code not recorded" if exit_code is None else f"exit {exit_code}"
        if isinstance(duration, int | float):
            how += f", {duration:.1f} s"
        lines = [f"{status} ({how}): $ {shlex.join(command)}"]
        attached = [_attached_name(info) for info, _ in fences]
        if any(attached):
            lines.append("  attached: " + ", ".join(a for a in attached if a))
    else:
        language = header.get("language") or "code"
        code = next((text for info, text in fences if info and info != "output"), "")
        lines = [f"Code {_quoted(cell.title)} ({language}):", _indent(_tail(code, 3, head=True))]
    if output is not None:
        lines.append(_output(output))
    return "\n".join(line for line in lines if line)


def _attached_name(info: str) -> str | None:
    match = re.search(r"\btitle=(\S+)", info)
    return match[1] if match else None


def _output(text: str) -> str:
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    if not lines:
        return "  output: (none)"
    if len(lines) == 1:
        return f"  output: {clip(lines[0], 200)}"
    label = "output:"
    if len(lines) > OUTPUT_LINES:
        label = f"output (last {OUTPUT_LINES} of {len(lines)} lines):"
    return f"  {label}\n{_indent(_tail(text, OUTPUT_LINES), 4)}"


def _tail(text: str, n: int, head: bool = False) -> str:
    lines = [clip(line, 200) for line in text.rstrip("\n").split("\n")]
    if len(lines) <= n:
        return "\n".join(lines)
    if head:
        return "\n".join([*lines[:n], f"… ({len(lines) - n} more lines)"])
    return "\n".join(lines[-n:])


def _quoted(title: str) -> str:
    return f'"{title}"'


def _indent(text: str, by: int = 2) -> str:
    return "\n".join(" " * by + line if line else "" for line in text.split("\n"))


def _hang(text: str) -> str:
    """Continuation lines indented under their label."""
    return "\n".join(
        line if i == 0 or not line else "  " + line for i, line in enumerate(text.split("\n"))
    )


def _size(n: int) -> str:
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
