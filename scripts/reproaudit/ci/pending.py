"""The pending area: what a pull request's thread and re-runs produce, kept off the default
branch until the pull request is merged.

One rule: an untrusted, unmerged input never lands where a publishing gate reads it.
The default branch is what ``validate``, ``stats --strict`` and ``build --strict`` read
(and what the site and the dataset publish); a re-run record of a logbook it does not
hold, or a review of one, fails them for everyone. So every re-run record a store job
checks and every review or author answer a command records goes first to one bot-owned
branch, ``reproaudit/pending`` (it shares no history with the default branch), under
its pull request's number::

    README.md                                     what this branch is
    pr-<n>/reruns/<paper>/<logbook>/run.json      a checked re-run record (and outputs.json)
    pr-<n>/verdicts/<paper>/reviews.yaml          reviews and author answers, as on main

``promote`` moves each entry on to the default branch (through ``ci push``'s fetch,
re-apply and retry) when that branch can take it, and removes it here:

- a re-run record when the default branch holds the logbook with exactly the bytes
  the record re-ran (logbook, write-up, code tree, requirements: the judge's own
  currency check, on the branch's tip): in practice, once the pull request is merged;
- a review or answer when GitHub says the pull request is merged and the default
  branch holds its logbook and claim.

Entries of an open pull request stay. A merged pull request's entries that cannot
move (a record of an earlier push, an answer whose logbook or claim is gone) are
dropped, and so is everything of a pull request closed without merging once it has
been closed for ``KEEP_CLOSED`` (a pull request reopened before then finds its
answers). ``promote`` runs in ``site.yml`` before the judge, and right after each
write here (``ci push reruns|review``), so an entry that arrives after the merge moves
at once. Nothing here is published; the branch is data, read with the same limits
as any re-run record.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .. import layout
from ..errors import GitError, GitHubError, ReproauditError
from ..fsutil import atomic_write
from ..gitrun import run_git
from ..loader import MAX_DATA_BYTES, parse_yaml, to_model
from ..models import Review, ReviewsFile
from ..rerun_files import LIMITS
from ..rerun_inputs import GitTree
from ..scratch import held_dir, temp_root
from .binding import parse_time
from .changes import auth_env
from .github import GitHub
from .prfiles import tree_entries
from .push import Apply, OpenPull, PushResult, apply_records, apply_review, push_change

if TYPE_CHECKING:
    from ..repo import Corpus

PENDING_BRANCH = "reproaudit/pending"
KEEP_CLOSED = timedelta(days=30)
README = "README.md"
_PR_FOLDER = re.compile(r"pr-([1-9][0-9]{0,9})")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
README_TEXT = """\
# reproaudit/pending

Written by the reproaudit bot; do not edit by hand, do not merge.

Re-run records and the reviews and author answers of pull requests that are not merged
yet, one folder per pull request (`pr-<number>/`, laid out as on the default branch).
Nothing here is published. The site workflow moves each entry onto the default branch
once its pull request is merged (a record only when the merged logbook is the one it
re-ran), and removes what a merged pull request left that cannot move, and everything of a
pull request closed without merging, 30 days after it was closed.
"""


def pr_folder(pr: int) -> str:
    return f"pr-{pr}"


# --- writing: what ci push does with a pull request's records and answers -----------------


def with_readme(apply: Apply) -> Apply:
    """``apply`` on the pending branch, adding its README when the branch has none yet."""

    def wrapped(work: Path) -> list[str]:
        paths = apply(work)
        if paths and not (work / README).is_file():
            atomic_write(work / README, README_TEXT)
            paths = [README, *paths]
        return paths

    return wrapped


def store_pending(
    repo_dir: Path,
    apply: Apply,
    message: str,
    *,
    remote: str = "origin",
    branch: str = PENDING_BRANCH,
) -> PushResult:
    """Commit a pull request's records or answer to the pending branch (made if missing)."""
    return push_change(
        repo_dir, with_readme(apply), message, remote=remote, branch=branch, create=True
    )


def pending_records(source: Path, pr: int) -> Apply:
    return apply_records(source, under=pr_folder(pr))


def pending_review(record: dict[str, Any], pr: int) -> Apply:
    return apply_review(record, under=pr_folder(pr))


# --- reading the pending branch -----------------------------------------------------------


@dataclass(frozen=True)
class PendingRecord:
    pr: int
    paper: str
    logbook: str
    files: dict[str, Path]  # run.json, outputs.json: the copies read from the branch

    @property
    def rel(self) -> str:
        return layout.rerun_rel(self.paper, self.logbook)

    def label(self) -> str:
        return f"the re-run record of {self.paper}/{self.logbook}"


@dataclass(frozen=True)
class PendingAnswer:
    pr: int
    paper: str
    record: dict[str, Any]  # one entry of reviews.yaml, as JSON

    def label(self) -> str:
        what = "review" if self.record["kind"] == "review" else "author answer"
        return (
            f"the {what} of {self.paper}/{self.record['logbook']}:{self.record['claim']} "
            f"by {self.record['by']}"
        )


@dataclass
class Pending:
    """What the pending branch holds at ``tip`` (None: there is no such branch yet)."""

    tip: str | None
    records: list[PendingRecord] = field(default_factory=list)
    answers: list[PendingAnswer] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # paths that are no entry, with why

    def prs(self) -> list[int]:
        return sorted({r.pr for r in self.records} | {a.pr for a in self.answers})


def read_pending(repo_dir: Path, into: Path, *, remote: str, branch: str) -> Pending:
    """Fetch the pending branch into ``repo_dir`` and read its entries (records copied into
    the folder ``into``). A path that is not an entry is listed in ``ignored``, never read."""
    env = {**os.environ, **auth_env(os.environ.get("GITHUB_TOKEN"))}
    ref = f"refs/heads/{branch}"
    fetch = ("fetch", "--no-tags", "--quiet", "--end-of-options", remote, ref)
    done = run_git(repo_dir, *fetch, env=env, check=False, text=True)
    if done.returncode != 0:
        if "couldn't find remote ref" in done.stderr.lower():
            return Pending(None)
        raise GitError(f"git fetch {remote} {ref} failed: {done.stderr.strip()[-300:]}")
    tip = run_git(repo_dir, "rev-parse", "FETCH_HEAD", env=env, text=True).stdout.strip()
    pending = Pending(tip)
    with GitTree(repo_dir, tip, env=env) as tree:
        records: dict[tuple[int, str, str], dict[str, Path]] = {}
        for mode, rel in tree_entries(repo_dir, tip, ["."]):
            parts = rel.split("/")
            if rel == README:
                continue
            number = _PR_FOLDER.fullmatch(parts[0])
            if mode not in ("100644", "100755") or number is None:
                pending.ignored.append(f"{rel}: not an entry of a pr-<number>/ folder")
                continue
            pr, inner = int(number.group(1)), parts[1:]
            if (
                len(inner) == 4
                and inner[0] == layout.RERUNS_DIR
                and inner[3] in LIMITS
                and all(_ID.fullmatch(x) for x in inner[1:3])
            ):
                data = _capped(tree, rel, LIMITS[inner[3]])
                if data is None:
                    pending.ignored.append(f"{rel}: larger than {LIMITS[inner[3]]} bytes")
                    continue
                copy = Path(into) / rel
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(data)
                records.setdefault((pr, inner[1], inner[2]), {})[inner[3]] = copy
            elif (
                len(inner) == 3
                and inner[0] == "verdicts"
                and inner[2] == layout.REVIEWS_NAME
                and _ID.fullmatch(inner[1])
            ):
                why = _read_answers(tree, rel, pr, inner[1], pending)
                if why:
                    pending.ignored.append(f"{rel}: {why}")
            else:
                pending.ignored.append(f"{rel}: not a re-run record or reviews.yaml")
        for (pr, paper, logbook), files in sorted(records.items()):
            pending.records.append(PendingRecord(pr, paper, logbook, files))
    return pending


def _capped(tree: GitTree, rel: str, limit: int) -> bytes | None:
    data = tree.read(rel)
    return data if data is not None and len(data) <= limit else None


def _read_answers(tree: GitTree, rel: str, pr: int, paper: str, pending: Pending) -> str | None:
    """Add the reviews of one pending reviews.yaml to ``pending``; why it cannot be read."""
    data = _capped(tree, rel, MAX_DATA_BYTES)
    if data is None:
        return f"larger than {MAX_DATA_BYTES} bytes"
    try:
        reviews = to_model(parse_yaml(data.decode("utf-8"), rel), ReviewsFile)
    except (ReproauditError, UnicodeDecodeError) as exc:
        return f"not a reviews file: {str(exc)[:200]}"
    for review in reviews.reviews:
        pending.answers.append(PendingAnswer(pr, paper, review.model_dump(mode="json")))
    return None


# --- what GitHub says about each pull request ---------------------------------------------


@dataclass(frozen=True)
class PullState:
    state: Literal["open", "merged", "closed", "unknown"]
    closed_at: datetime | None = None


def pull_states(github: GitHub | None, repo: str | None, prs: list[int]) -> dict[int, PullState]:
    """Open, merged or closed (and since when), per pull request; unknown without the API
    or when GitHub does not answer for one."""
    states = {}
    for pr in prs:
        if github is None or repo is None:
            states[pr] = PullState("unknown")
            continue
        try:
            pull = github.pull(repo, pr)
        except GitHubError:
            states[pr] = PullState("unknown")
            continue
        if pull.get("merged"):
            states[pr] = PullState("merged", parse_time(pull.get("merged_at")))
        elif pull.get("state") == "closed":
            states[pr] = PullState("closed", parse_time(pull.get("closed_at")))
        else:
            states[pr] = PullState("open")
    return states


# --- moving entries on --------------------------------------------------------------------


Fate = Literal["moved", "kept", "dropped"]
FATES: tuple[Fate, ...] = ("moved", "kept", "dropped")


@dataclass(frozen=True)
class Decision:
    entry: PendingRecord | PendingAnswer
    fate: Fate
    why: str

    def line(self) -> str:
        return f"{self.fate} {self.entry.label()} (pull request #{self.entry.pr}): {self.why}"


@dataclass
class PromoteReport:
    decisions: list[Decision] = field(default_factory=list)
    main: PushResult | None = None
    pending: PushResult | None = None
    ignored: list[str] = field(default_factory=list)

    def moved(self) -> list[Decision]:
        return [d for d in self.decisions if d.fate == "moved"]

    def lines(self) -> list[str]:
        out = [d.line() for d in self.decisions]
        out += [f"ignored {path}" for path in self.ignored]
        for where, result in (("default branch", self.main), ("pending branch", self.pending)):
            if result is not None:
                url = f" ({result.url})" if result.url else ""
                out.append(
                    f"{where}: {result.status} after {result.attempts} attempt(s): "
                    f"{result.message}{url}"
                )
        counts = {fate: sum(d.fate == fate for d in self.decisions) for fate in FATES}
        out.append(
            f"{counts['moved']} moved to the default branch, {counts['kept']} kept pending, "
            f"{counts['dropped']} dropped"
        )
        return out


def _closed_long_ago(state: PullState, now: datetime) -> bool:
    return state.closed_at is not None and now - state.closed_at > KEEP_CLOSED


def _not_moving(state: PullState, now: datetime, why: str) -> tuple[Fate, str]:
    """What becomes of an entry that cannot move now, given its pull request's state."""
    if state.state == "merged":
        return "dropped", f"the pull request is merged, but {why}"
    if state.state == "closed":
        if _closed_long_ago(state, now):
            return (
                "dropped",
                f"the pull request was closed without merging over {KEEP_CLOSED.days} days ago",
            )
        return "kept", (
            f"the pull request is closed without merging; kept {KEEP_CLOSED.days} days "
            "in case it is reopened"
        )
    if state.state == "open":
        return "kept", f"the pull request is open ({why})"
    return "kept", f"GitHub did not say whether the pull request is merged ({why})"


def apply_promotion(
    pending: Pending,
    states: dict[int, PullState],
    now: datetime,
    decisions: list[Decision],
) -> Apply:
    """Write onto a fresh checkout of the default branch what may move there now, deciding
    (into ``decisions``, renewed at each attempt) the fate of every entry."""
    from ..repo import Corpus
    from ..reproduce.record import replace_folder
    from .commands import append_review
    from .store import check_record, logbook_inputs

    def apply(work: Path) -> list[str]:
        decisions.clear()
        tip = run_git(work, "rev-parse", "HEAD", text=True).stdout.strip()
        written: list[str] = []
        corpus = Corpus(work)  # the branch's papers, read once per attempt
        with GitTree(work, tip) as tree:
            for record in pending.records:
                where = "the default branch"
                inputs = logbook_inputs(tree, record.paper, record.logbook, where=where)
                why, payload = check_record(record.files, inputs, where=where)
                state = states.get(record.pr, PullState("unknown"))
                if why is None:
                    replace_folder(work / record.rel, payload)
                    written.append(record.rel)
                    decisions.append(
                        Decision(record, "moved", "the default branch holds the bytes it re-ran")
                    )
                else:
                    decisions.append(Decision(record, *_not_moving(state, now, why)))
            for answer in pending.answers:
                state = states.get(answer.pr, PullState("unknown"))
                why = _answer_blocked(tree, corpus, answer)
                if state.state != "merged" or why is not None:
                    decisions.append(
                        Decision(answer, *_not_moving(state, now, why or "it waits for the merge"))
                    )
                    continue
                try:
                    append_review(work, answer.record | {"paper": answer.paper})
                except ReproauditError as exc:
                    decisions.append(
                        Decision(answer, "kept", f"the default branch refuses it: {exc}")
                    )
                    continue
                written.append(layout.reviews_rel(answer.paper))
                decisions.append(Decision(answer, "moved", "the pull request is merged"))
        return sorted(set(written))

    return apply


def _answer_blocked(tree: GitTree, corpus: Corpus, answer: PendingAnswer) -> str | None:
    """Why the default branch cannot take this answer (its logbook or claim is missing)."""
    logbook = answer.record["logbook"]
    if tree.read(layout.logbook_rel(answer.paper, logbook)) is None:
        return f"the default branch has no logbook {answer.paper}/{logbook}"
    paper = corpus.paper(answer.paper)
    if paper is None or paper.claim(answer.record["claim"]) is None:
        return f"the default branch has no claim {answer.record['claim']} of paper {answer.paper}"
    return None


def apply_removal(pending: Pending, gone: list[Decision]) -> Apply:
    """Remove from a fresh checkout of the pending branch the entries that moved or were
    dropped, each only while it is still the copy that was read (a newer one stays)."""

    def apply(work: Path) -> list[str]:
        removed: list[str] = []
        answers: dict[str, list[dict[str, Any]]] = {}
        for decision in gone:
            entry = decision.entry
            folder = pr_folder(entry.pr)
            if isinstance(entry, PendingRecord):
                target = work / folder / entry.rel
                if _same_record(target, entry):
                    for name in layout.RECORD_FILES:
                        if (target / name).is_file():
                            (target / name).unlink()
                            removed.append(f"{folder}/{entry.rel}/{name}")
            else:
                rel = f"{folder}/{layout.reviews_rel(entry.paper)}"
                answers.setdefault(rel, []).append(entry.record)
        for rel, records in sorted(answers.items()):
            if _drop_reviews(work / rel, rel, records):
                removed.append(rel)
        return removed

    return apply


def _same_record(target: Path, entry: PendingRecord) -> bool:
    names = {p.name for p in target.iterdir()} if target.is_dir() else set()
    return names == set(entry.files) and all(
        (target / name).read_bytes() == path.read_bytes() for name, path in entry.files.items()
    )


def _drop_reviews(path: Path, rel: str, records: list[dict[str, Any]]) -> bool:
    """Remove ``records`` from one pending reviews.yaml (the file goes when it is empty)."""
    import yaml

    if not path.is_file():
        return False
    try:
        reviews = to_model(parse_yaml(path.read_text("utf-8"), rel), ReviewsFile)
    except ReproauditError:
        return False
    kept = [r.model_dump(mode="json") for r in reviews.reviews]
    left = [r for r in kept if Review.model_validate(r).model_dump(mode="json") not in records]
    if len(left) == len(kept):
        return False
    if not left:
        path.unlink()
        return True
    text = "# Appended by the reproaudit bot from pull-request commands; do not edit by hand.\n"
    atomic_write(
        path,
        text + yaml.safe_dump({"reviews": left}, sort_keys=False, allow_unicode=True, width=100),
    )
    return True


def promote(
    repo_dir: Path,
    *,
    github: GitHub | None,
    repo_name: str | None,
    remote: str = "origin",
    branch: str = "main",
    pending_branch: str = PENDING_BRANCH,
    only: int | None = None,
    now: datetime | None = None,
    fallback_branch: str | None = None,
    open_pull: OpenPull | None = None,
    sleep: Callable[[float], None] | None = None,
) -> PromoteReport:
    """Move onto ``branch`` what the pending branch holds that may go there now (of every
    pull request, or only of ``only``), then remove from the pending branch what moved or
    was dropped. Without ``github`` no answer moves (whether a pull request is merged is
    GitHub's to say) and nothing is dropped."""
    now = now or datetime.now(UTC)
    report = PromoteReport()
    extra: dict[str, Any] = {} if sleep is None else {"sleep": sleep}
    with held_dir(temp_root(), "reproaudit-pending-") as scratch:
        pending = read_pending(repo_dir, scratch, remote=remote, branch=pending_branch)
        report.ignored = pending.ignored
        if only is not None:
            pending.records = [r for r in pending.records if r.pr == only]
            pending.answers = [a for a in pending.answers if a.pr == only]
        if pending.tip is None or not pending.prs():
            return report
        states = pull_states(github, repo_name, pending.prs())
        decisions: list[Decision] = []
        prs = ", ".join(f"#{n}" for n in pending.prs())
        report.main = push_change(
            repo_dir,
            apply_promotion(pending, states, now, decisions),
            f"Move the re-run records and answers of merged pull requests onto {branch} ({prs})",
            remote=remote,
            branch=branch,
            fallback_branch=fallback_branch,
            open_pull=open_pull,
            **extra,
        )
        report.decisions = list(decisions)
        gone = [d for d in report.decisions if d.fate != "kept"]
        if report.main.status == "pull_request":
            gone = [d for d in gone if d.fate == "dropped"]  # moved only once that is merged
        if gone:
            report.pending = push_change(
                repo_dir,
                apply_removal(pending, gone),
                f"Remove what moved to {branch} or was dropped ({prs})",
                remote=remote,
                branch=pending_branch,
                **extra,
            )
    return report


# --- ci push reruns|review: write here, then move on what may go ---------------------------


@dataclass
class PendingPush:
    """What ``ci push reruns|review`` did: the write to the pending branch, then ``promote``."""

    stored: PushResult
    promoted: PromoteReport

    @property
    def main_pushed(self) -> bool:
        return self.promoted.main is not None and self.promoted.main.status == "pushed"

    def lines(self) -> list[str]:
        where = f" ({self.stored.url})" if self.stored.url else ""
        return [
            f"pending branch: {self.stored.status} after {self.stored.attempts} attempt(s): "
            f"{self.stored.message}{where}",
            *self.promoted.lines(),
        ]


def push_pending(
    apply: Apply,
    pr: int,
    repo_dir: Path,
    message: str,
    *,
    github: GitHub | None,
    repo_name: str | None,
    remote: str = "origin",
    branch: str = "main",
    pending_branch: str = PENDING_BRANCH,
    fallback_branch: str | None = None,
    open_pull: OpenPull | None = None,
) -> PendingPush:
    """Commit a pull request's records or answer to the pending branch, then promote that
    pull request's entries (those of a merged one move on at once)."""
    stored = store_pending(repo_dir, apply, message, remote=remote, branch=pending_branch)
    promoted = promote(
        repo_dir,
        github=github,
        repo_name=repo_name,
        remote=remote,
        branch=branch,
        pending_branch=pending_branch,
        only=pr,
        fallback_branch=fallback_branch,
        open_pull=open_pull,
    )
    return PendingPush(stored, promoted)
