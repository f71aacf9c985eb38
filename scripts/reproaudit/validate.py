"""Checks across a whole repository, returning problems with file and line.

Each file is checked against its schema, then against the layout and the
files it refers to: a logbook's paper must exist and have the claims the
logbook reports on, ids must match paths, code must stay in the logbook's own
folder, and sizes must stay within limits. ``--changed-from`` narrows the
check to what a pull request changed plus the files that refer to those.

Over 400 lines because every cross-file rule is listed here in the order it runs; each
is a small function, and the shared safety rules (code confinement) live in their own modules.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import layout
from . import problems as P
from .errors import GitError
from .gitrun import run_git
from .layout import DataPath
from .listing import Listing
from .models import Logbook, MentionsFile, PaperFile, ReviewsFile, VerdictFile
from .pathrule import disk_problems
from .problems import Problem
from .repo import Corpus, corpus_of, paused_gc
from .reproduce.confine import clean_logbook_path, inside
from .units import scale_of

MAX_WRITEUP_BYTES = 256 * 1024
MAX_CODE_FILE_BYTES = 1024 * 1024
MAX_CODE_TOTAL_BYTES = 5 * 1024 * 1024
MAX_CHANGE_BYTES = 20 * 1024 * 1024


@dataclass
class Report:
    """What ``validate_repo`` found, and how many data files it checked."""

    problems: list[Problem] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return not any(p.is_error for p in self.problems)


def validate_repo(
    root: Path,
    paths: Iterable[str | Path] = (),
    changed_from: str | None = None,
    here: Path | None = None,
    *,
    corpus: Corpus | None = None,
) -> Report:
    """Validate the repository at ``root``: everything, some paths, or a change.

    ``here``: the folder relative ``paths`` were typed in (the CLI's working folder);
    None reads them against ``root`` only. ``corpus``: the command's one ``Corpus`` of
    ``root``, so that what validation reads is not read again by the next stage.
    """
    root = Path(root).resolve()
    corpus = corpus_of(root, corpus)
    report = Report()
    paths = list(paths)
    if not paths and changed_from is None:
        targets = list(corpus.files)
        report.problems.extend(_stray_problems(corpus.stray))
        report.problems.extend(disk_problems(root, listing=corpus.listing))
    else:
        rels: set[str] = set()
        for given in paths:
            rels |= _expand(root, corpus, given, here)
        if changed_from is not None:
            changed = git_changed(root, changed_from)
            report.problems.extend(_change_size(root, changed))
            rels |= set(changed)
            report.problems.extend(_stray_problems(r for r in changed if layout.misplaced(r)))
        report.problems.extend(
            disk_problems(root, _below(root, rels, corpus.listing), corpus.listing)
        )
        targets = _with_dependents(corpus, rels)
    with paused_gc():
        for target in targets:
            report.problems.extend(check_file(corpus, target))
    report.checked = len(targets)
    return report


def check_file(corpus: Corpus, path: DataPath) -> list[Problem]:
    """All problems of one data file: schema first, then references."""
    loaded = corpus.load(path, keep_doc=True)
    if loaded.model is None:
        return loaded.problems
    doc = loaded.doc
    assert doc is not None

    def problem(code: str, loc: tuple, message: str, hint: str | None = None) -> Problem:
        return Problem(code, path.rel, doc.line_of(loc), _field(loc), message, hint)

    checkers: dict[str, Callable[..., list[Problem]]] = {
        "paper": _check_paper,
        "logbook": _check_logbook,
        "verdict": _check_verdict,
        "reviews": _check_reviews,
        "mentions": _check_mentions,
    }
    checker = checkers[path.kind]
    return checker(corpus, path, loaded.model, problem)


def _field(loc: tuple) -> str | None:
    from .loader import field_path

    return field_path(loc) or None


# --- per kind ---------------------------------------------------------------

# Accelerators an efficiency claim's statement may name (hardware_unstated).
_GPU_NAMED = re.compile(
    r"\b(?:A100|H100|H200|B200|L40S|L40|L4|A10G|A10|T4|V100|P100|A6000|RTX ?\d{4}|TPU ?v?\d*)s?\b"
)


# What `reproaudit new paper` writes for a person to replace (templates/paper.yaml.j2).
PAPER_PLACEHOLDERS = {
    "author": "First Author",
    "statement": "One central, checkable claim of the paper, in one sentence.",
}


def _placeholders(paper: PaperFile, problem) -> list[Problem]:
    out = []
    for i, author in enumerate(paper.paper.authors):
        if author.name == PAPER_PLACEHOLDERS["author"]:
            out.append(
                problem(
                    P.PLACEHOLDER,
                    ("paper", "authors", i, "name"),
                    f"{author.name!r} is the template's placeholder",
                    "write the paper's authors as printed on it",
                )
            )
    for i, claim in enumerate(paper.claims):
        if claim.statement == PAPER_PLACEHOLDERS["statement"]:
            out.append(
                problem(
                    P.PLACEHOLDER,
                    ("claims", i, "statement"),
                    "the template's example claim is still here",
                    "write the paper's own claim (and its anchor and target), or delete it",
                )
            )
    return out


def _check_paper(corpus: Corpus, path: DataPath, paper: PaperFile, problem) -> list[Problem]:
    out = _placeholders(paper, problem)
    venue, stem = path.key
    if paper.paper.id != stem:
        out.append(
            problem(
                P.ID_PATH_MISMATCH,
                ("paper", "id"),
                f"paper id {paper.paper.id!r} does not match the file name {stem}.yaml",
                f"rename the file to claims/{venue}/{paper.paper.id}.yaml or fix the id",
            )
        )
    others = [r for r in corpus.paper_rels.get(stem, []) if r != path.rel]
    if others:
        out.append(
            problem(
                P.DUPLICATE_ID,
                ("paper", "id"),
                f"paper {stem} also has a file at {', '.join(others)}",
                "a paper id is unique across venues; keep one file",
            )
        )
    out.extend(_duplicates([c.id for c in paper.claims], "claims", "id", "claim id", problem))
    for i, claim in enumerate(paper.claims):
        target = claim.target
        if target and target.per is None and (hint := P.per_hint(target.unit)):
            out.append(_carries_per(problem, ("claims", i, "target", "unit"), target.unit, hint))
        named = _GPU_NAMED.search(claim.statement)
        if target and target.hardware is None and claim.kind == "efficiency" and named:
            out.append(
                problem(
                    P.HARDWARE_UNSTATED,
                    ("claims", i, "target"),
                    f"the statement names {named.group(0)} but the target states no hardware: "
                    "a re-run on any other hardware would count in full",
                    "add the hardware the paper measured on to the target, e.g. "
                    "hardware: a100-large (one of the reproduce.hardware names)",
                )
            )
        sizes = scale_of(claim.statement) if target and target.scale is None else {}
        sizes = {k: v for k, v in sizes.items() if not claim.regime or k != claim.regime.parameter}
        if sizes:
            shown = ", ".join(f"{name}: {size:g}" for name, size in sizes.items())
            out.append(
                problem(
                    P.SCALE_UNSTATED,
                    ("claims", i, "target"),
                    f"the statement names the evaluation's size ({shown}) but the target "
                    "states no scale: a re-run on a fraction of it would count in full",
                    f"add it to the target: scale: {{{shown}}}",
                )
            )
    for i, claim in enumerate(paper.claims):
        regime = claim.regime
        if (
            regime
            and regime.from_ is not None
            and regime.to is not None
            and regime.to < regime.from_
        ):
            out.append(
                problem(
                    P.INVALID_VALUE,
                    ("claims", i, "regime", "to"),
                    f"regime ends ({regime.to:g}) before it starts ({regime.from_:g})",
                )
            )
    return out


def _check_logbook(corpus: Corpus, path: DataPath, book: Logbook, problem) -> list[Problem]:
    out = []
    folder, stem = path.key
    meta = book.logbook
    if meta.id != stem:
        out.append(
            problem(
                P.ID_PATH_MISMATCH,
                ("logbook", "id"),
                f"logbook id {meta.id!r} does not match the file name {stem}.yaml",
                f"rename the file to logbooks/{folder}/{meta.id}.yaml or fix the id",
            )
        )
    if meta.paper != folder:
        if meta.paper not in corpus.paper_rels and folder in corpus.paper_rels:
            # a typo in logbook.paper, not a file in the wrong folder
            hint = f"did you mean {folder!r}? (the paper whose folder the logbook is in)"
        else:
            hint = f"move it to logbooks/{meta.paper}/ or fix logbook.paper"
        out.append(
            problem(
                P.ID_PATH_MISMATCH,
                ("logbook", "paper"),
                f"logbook is for paper {meta.paper!r} but lives in logbooks/{folder}/",
                hint,
            )
        )
    out.extend(
        _duplicates(
            [r.claim for r in book.results], "results", "claim", "result for claim", problem
        )
    )
    if meta.paper == folder or meta.paper in corpus.paper_rels:
        paper = _paper_or_problem(corpus, meta.paper, ("logbook", "paper"), problem, out)
    else:  # reported once above, with its did-you-mean
        paper = corpus.paper(folder)
    for i, result in enumerate(book.results):
        for j, m in enumerate(result.measurements):
            if m.per is None and (per_hint := P.per_hint(m.unit)):
                loc = ("results", i, "measurements", j, "unit")
                out.append(_carries_per(problem, loc, m.unit, per_hint))
    if paper is not None:
        have = paper.claims_version
        if meta.claims_version > have:
            out.append(
                problem(
                    P.CLAIMS_VERSION_AHEAD,
                    ("logbook", "claims_version"),
                    f"claims_version {meta.claims_version} does not exist; paper "
                    f"{meta.paper} is at version {have}",
                    f"set claims_version: {have}",
                )
            )
        elif meta.claims_version < have:
            out.append(
                problem(
                    P.CLAIMS_VERSION_STALE,
                    ("logbook", "claims_version"),
                    f"written against claims_version {meta.claims_version}; paper "
                    f"{meta.paper} is now at version {have}",
                    f"check the claims still match, then set claims_version: {have}",
                )
            )
        for i, result in enumerate(book.results):
            if paper.claim(result.claim) is None:
                out.append(
                    _unknown_claim(
                        problem, ("results", i, "claim"), result.claim, meta.paper, paper, corpus
                    )
                )
    if book.code is not None and book.code.path is not None:
        out.extend(
            _check_code_path(corpus.root, folder, stem, book.code.path, problem, corpus.listing)
        )
    if book.reproduce is not None:
        out.extend(_check_environment(corpus.root, folder, stem, book.reproduce, problem))
    writeup = corpus.root / layout.writeup_rel(folder, stem)
    if writeup.is_file() and writeup.stat().st_size > MAX_WRITEUP_BYTES:
        out.append(
            Problem(
                P.WRITEUP_TOO_LARGE,
                writeup.relative_to(corpus.root).as_posix(),
                None,
                None,
                f"write-up is {P.human_size(writeup.stat().st_size)}, over the "
                f"{P.human_size(MAX_WRITEUP_BYTES)} limit",
                "link figures and long logs instead of pasting them",
            )
        )
    return out


def _check_verdict(corpus: Corpus, path: DataPath, verdict: VerdictFile, problem) -> list[Problem]:
    out = []
    folder, stem = path.key
    if verdict.paper != folder or verdict.logbook != stem:
        out.append(
            problem(
                P.ID_PATH_MISMATCH,
                ("logbook",),
                f"verdict for {verdict.paper}/{verdict.logbook} lives at {path.rel}",
                "verdict files are written by `reproaudit judge`; re-run it",
            )
        )
    if corpus.logbook_path(folder, stem) is None:
        out.append(
            problem(
                P.UNKNOWN_LOGBOOK,
                ("logbook",),
                f"no logbook at {layout.logbook_rel(folder, stem)} for this verdict",
                "delete the verdict, or restore the logbook",
            )
        )
    paper = _paper_or_problem(corpus, verdict.paper, ("paper",), problem, out)
    if paper is not None:
        for i, item in enumerate(verdict.claims):
            if paper.claim(item.claim) is None:
                out.append(
                    _unknown_claim(
                        problem, ("claims", i, "claim"), item.claim, folder, paper, corpus
                    )
                )
        judged = {item.claim for item in verdict.claims}
        missing = [c.id for c in paper.claims if c.id not in judged]
        if missing and not out and _inputs_unchanged(corpus, verdict):
            out.append(
                problem(
                    P.VERDICT_INCOMPLETE,
                    ("claims",),
                    f"judges {len(judged)} of the {len(paper.claims)} claims of paper "
                    f"{folder}: no verdict for {_some(missing)}",
                    "the file was cut or edited; restore it from git history, or delete it "
                    "and run `reproaudit judge`",
                )
            )
    return out


def _inputs_unchanged(corpus: Corpus, verdict: VerdictFile) -> bool:
    """Whether the verdict's inputs are those it was judged on: then it must judge every
    claim of the paper. (A paper that gained a claim makes its verdicts stale instead.)"""
    from .judge.run import is_stale  # the judge's own hash; imported only when needed

    return not is_stale(corpus, verdict)


def _check_reviews(corpus: Corpus, path: DataPath, reviews: ReviewsFile, problem) -> list[Problem]:
    out: list[Problem] = []
    folder = path.key[0]
    paper = _paper_or_problem(corpus, folder, (), problem, out)
    for i, review in enumerate(reviews.reviews):
        if corpus.logbook_path(folder, review.logbook) is None:
            out.append(
                problem(
                    P.UNKNOWN_LOGBOOK,
                    ("reviews", i, "logbook"),
                    f"paper {folder} has no logbook {review.logbook!r}",
                    f"logbooks of this paper: {_some(corpus.logbook_keys.get(folder, []))}",
                )
            )
        if paper is not None and paper.claim(review.claim) is None:
            out.append(
                _unknown_claim(
                    problem, ("reviews", i, "claim"), review.claim, folder, paper, corpus
                )
            )
    return out


def _check_mentions(corpus: Corpus, path: DataPath, ledger: MentionsFile, problem) -> list[Problem]:
    """The ledger's paper exists; its entries name the logbooks and claims of pull requests,
    open or closed, which the default branch need not hold: the model checks their form."""
    out: list[Problem] = []
    _paper_or_problem(corpus, path.key[0], (), problem, out)
    return out


# --- helpers ----------------------------------------------------------------


def _carries_per(problem, loc: tuple, unit: str, hint: str) -> Problem:
    return problem(P.UNIT_CARRIES_PER, loc, f"unit {unit!r} carries what the number is per", hint)


def _paper_or_problem(
    corpus: Corpus, paper_id: str, loc: tuple, problem, out: list
) -> PaperFile | None:
    rels = corpus.paper_rels.get(paper_id, [])
    if not rels:
        close = P.did_you_mean(paper_id, corpus.paper_rels)
        out.append(
            problem(
                P.UNKNOWN_PAPER,
                loc,
                f"there is no paper {paper_id!r} under claims/",
                f"did you mean {close!r}?"
                if close
                else "check the id, or ask a maintainer to add the paper file first",
            )
        )
        return None
    return corpus.paper(paper_id)  # None when invalid or ambiguous: reported on the paper file


def _unknown_claim(
    problem, loc: tuple, claim: str, paper_id: str, paper: PaperFile, corpus: Corpus
) -> Problem:
    ids = [c.id for c in paper.claims]
    rel = corpus.paper_rels[paper_id][0]
    close = P.did_you_mean(claim, ids, cutoff=0.8)
    fix = f"use one of those ids, or ask for the claim to be added in {rel}"
    return problem(
        P.UNKNOWN_CLAIM,
        loc,
        f"{claim!r} is not a claim of paper {paper_id} (it has {_some(ids)})",
        f"did you mean {close!r}? Otherwise {fix}" if close else fix,
    )


def _some(items: list[str], most: int = 12) -> str:
    if not items:
        return "none"
    shown = ", ".join(items[:most])
    return shown + (f", and {len(items) - most} more" if len(items) > most else "")


def _duplicates(
    values: list[str], list_key: str, item_key: str, what: str, problem
) -> list[Problem]:
    out = []
    seen: dict[str, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            out.append(
                problem(
                    P.DUPLICATE_ID,
                    (list_key, i, item_key),
                    f"{what} {value!r} appears again (first at {list_key}[{seen[value]}])",
                    "each must appear once; merge the two entries",
                )
            )
        else:
            seen[value] = i
    return out


def _check_code_path(
    root: Path, paper: str, logbook: str, code_path: str, problem, listing: Listing
) -> list[Problem]:
    loc = ("code", "path")
    own = f"{logbook}/"
    clean = clean_logbook_path(code_path, logbook)
    if clean is None:
        return [
            problem(
                P.PATH_NOT_ALLOWED,
                loc,
                f"{code_path!r} is outside this logbook's own folder logbooks/{paper}/{own}",
                f"put the code in logbooks/{paper}/{own} and write `path: {own}`",
            )
        ]
    # resolve the paper folder, not the logbook folder: that one may itself be a link
    base = (root / layout.LOGBOOKS_DIR / paper).resolve() / logbook
    target = root / layout.in_paper_logbooks(paper, clean)
    if not target.exists():
        return [
            problem(
                P.MISSING_CODE_PATH,
                loc,
                f"{layout.in_paper_logbooks(paper, clean)} does not exist",
                "add the code to the pull request, or use `code: {repo: ..., commit: ...}`",
            )
        ]
    if not inside(str(target), str(base)) or not inside(str(base), str(base.parent)):
        return [
            problem(
                P.PATH_NOT_ALLOWED,
                loc,
                f"{code_path!r} is a link that leads outside logbooks/{paper}/{own}",
                "replace the link with the files themselves",
            )
        ]
    out = []
    total = 0
    for dirpath, dirnames, filenames in listing.walk(target):
        for name in sorted(filenames) + sorted(dirnames):
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink() and not inside(str(full), str(base)):
                out.append(
                    Problem(
                        P.PATH_NOT_ALLOWED,
                        rel,
                        None,
                        None,
                        "link leads outside the logbook's folder",
                        "replace the link with the file itself",
                    )
                )
                continue
            if name in filenames and full.is_file():
                size = full.stat().st_size
                total += size
                if size > MAX_CODE_FILE_BYTES:
                    out.append(
                        Problem(
                            P.WRITEUP_TOO_LARGE,
                            rel,
                            None,
                            None,
                            f"file is {P.human_size(size)}, over the "
                            f"{P.human_size(MAX_CODE_FILE_BYTES)} limit for code files",
                            "link large files (data, checkpoints) instead",
                        )
                    )
    if total > MAX_CODE_TOTAL_BYTES:
        out.append(
            problem(
                P.WRITEUP_TOO_LARGE,
                loc,
                f"the code folder holds {P.human_size(total)}, over the "
                f"{P.human_size(MAX_CODE_TOTAL_BYTES)} limit",
                "keep only the code; link data and checkpoints",
            )
        )
    return out


def _check_environment(root: Path, paper: str, logbook: str, reproduce, problem) -> list[Problem]:
    """The re-run's declared environment: requirements confined, the image pinned."""
    out = []
    req = reproduce.requirements
    if req is not None:
        clean = clean_logbook_path(req, logbook)
        base = (root / layout.LOGBOOKS_DIR / paper).resolve() / logbook
        path = root / layout.in_paper_logbooks(paper, clean or "")
        if clean is None or not inside(str(path), str(base)):
            out.append(
                problem(
                    P.REQUIREMENTS_NOT_ALLOWED,
                    ("reproduce", "requirements"),
                    f"{req!r} is outside this logbook's own folder logbooks/{paper}/{logbook}/",
                    f"put it at logbooks/{paper}/{logbook}/requirements.txt and write "
                    f"`requirements: {logbook}/requirements.txt`",
                )
            )
        elif not path.is_file():
            out.append(
                problem(
                    P.REQUIREMENTS_NOT_ALLOWED,
                    ("reproduce", "requirements"),
                    f"{layout.in_paper_logbooks(paper, clean)} is not a file",
                    "add the requirements file to the pull request, beside the logbook",
                )
            )
    image = reproduce.image
    if image and "@sha256:" not in image:
        out.append(
            problem(
                P.IMAGE_NOT_PINNED,
                ("reproduce", "image"),
                f"{image!r} is a tag: it may name other bytes by the time this is re-run",
                f"pin it by digest: {image}@sha256:<digest> "
                "(`docker buildx imagetools inspect` prints it)",
            )
        )
    return out


def _stray_problems(rels: Iterable[str]) -> list[Problem]:
    out = []
    for rel in rels:
        why = layout.misplaced(rel)
        if why == "yml":
            out.append(
                Problem(
                    P.WRONG_EXTENSION,
                    rel,
                    None,
                    None,
                    "only .yaml files are read; this one is ignored",
                    f"rename it to {rel[:-4]}.yaml",
                )
            )
        elif why:
            out.append(
                Problem(
                    P.MISPLACED_FILE,
                    rel,
                    None,
                    None,
                    "file is not where the layout expects data files",
                    why,
                )
            )
    return out


def _expand(root: Path, corpus: Corpus, given: str | Path, here: Path | None) -> set[str]:
    """Repository-relative data paths named by a path argument (file or folder)."""
    path = Path(given)
    if path.is_absolute():
        candidates = [path]
    else:
        candidates = [root / path] if here is None else [here / path, root / path]
    for candidate in candidates:
        if candidate.exists():
            try:
                rel = candidate.resolve().relative_to(root).as_posix()
            except ValueError:
                continue
            break
    else:
        rel = PurePosixPath(str(given).replace("\\", "/")).as_posix()
    if rel in ("", "."):
        return {f.rel for f in corpus.files}
    prefix = rel.rstrip("/") + "/"
    inside = {f.rel for f in corpus.files if f.rel.startswith(prefix)}
    return inside or {rel}


def _below(root: Path, rels: set[str], listing: Listing) -> list[str]:
    """The paths named (a logbook with its write-up and code folder), and for a folder
    every path under it (links not entered)."""
    named = set(rels)
    for rel in rels:
        data = layout.classify(rel)
        if data is not None and data.kind == "logbook":
            named |= {layout.writeup_rel(*data.key), layout.code_rel(*data.key)}
    out = []
    for rel in sorted(named):
        out.append(rel)
        folder = root / rel
        if folder.is_dir() and not folder.is_symlink():
            for dirpath, dirnames, filenames in listing.walk(folder):
                for name in dirnames + filenames:
                    out.append((Path(dirpath) / name).relative_to(root).as_posix())
    return out


def _owner(rel: str) -> str:
    """Map a write-up or code file to the logbook it belongs to."""
    parts = PurePosixPath(rel).parts
    if len(parts) >= 3 and parts[0] == layout.LOGBOOKS_DIR:
        if len(parts) == 3 and parts[2].endswith(".md"):
            return layout.logbook_rel(parts[1], parts[2][: -len(".md")])
        if len(parts) > 3:
            return layout.logbook_rel(parts[1], parts[2])
    return rel


def _with_dependents(corpus: Corpus, rels: set[str]) -> list[DataPath]:
    """The named data files plus every file that refers to one of them."""
    wanted: set[str] = set()
    for rel in {_owner(r) for r in rels}:
        data = layout.classify(rel)
        if data is None:
            continue
        if rel in corpus.by_rel:
            wanted.add(rel)
        if data.kind == "paper":
            paper_id = data.stem
            wanted.update(
                f.rel
                for f in corpus.files
                if f.kind in ("logbook", "verdict", "reviews", "mentions") and f.key[0] == paper_id
            )
            wanted.update(corpus.paper_rels.get(paper_id, []))  # duplicates of its id
        elif data.kind == "logbook":
            paper_id, logbook_id = data.key
            for dep in (layout.verdict_rel(paper_id, logbook_id), layout.reviews_rel(paper_id)):
                if dep in corpus.by_rel:
                    wanted.add(dep)
    return [corpus.by_rel[r] for r in sorted(wanted)]


def git_changed(root: Path, ref: str) -> list[str]:
    """Files changed since the merge base with ``ref``, including uncommitted and new ones.

    Git failing (not a checkout, an unknown ``ref``) is a ``GitError``: nothing can be
    validated, and the one handler says so once.
    """

    def git(*args: str) -> str:
        return run_git(root, *args, text=True).stdout

    try:
        base = git("merge-base", "--end-of-options", ref, "HEAD").strip()
        changed = git("diff", "--name-only", "--no-renames", "-z", base, "--").split("\0")
        untracked = git("ls-files", "--others", "--exclude-standard", "-z").split("\0")
    except GitError as exc:
        detail = str(exc).split(" failed: ", 1)[-1]
        raise GitError(
            f"cannot list changes since {ref!r}: {' '.join(detail.split())}",
            "run inside a git checkout and fetch the base branch first",
        ) from None
    return sorted({r for r in changed + untracked if r})


def _change_size(root: Path, rels: list[str]) -> list[Problem]:
    sizes = Counter({r: (root / r).stat().st_size for r in rels if (root / r).is_file()})
    total = sum(sizes.values())
    if total <= MAX_CHANGE_BYTES:
        return []
    biggest = sizes.most_common(1)[0][0]
    return [
        Problem(
            P.CHANGE_TOO_LARGE,
            biggest,
            None,
            None,
            f"the change adds up to {P.human_size(total)} (largest file here), over the "
            f"{P.human_size(MAX_CHANGE_BYTES)} limit",
            "split the submission, or link large material instead of committing it",
        )
    ]
