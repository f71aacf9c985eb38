"""``reproaudit check``: everything CI does to one logbook, on the contributor's machine.

Validation, the local re-run (for ``hardware: cpu``, or when asked), the rules
judge, and the same report the pull request's comment will show, rendered by the
same code. The judge runs on a temporary copy, so the contributor's clone gets no
verdict file (a contribution may only change ``logbooks/``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from . import layout
from .ci.report import SCHEMA, Artifact, artifact_verdict, render_comment
from .judge.run import judge_repo
from .problems import Problem, ReproauditError
from .repo import Corpus
from .reproduce import WrittenRecord, reproduce_logbook
from .validate import validate_repo


@dataclass
class CheckResult:
    comment: str
    ok: bool
    rerun: WrittenRecord | None


def _head(repo: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "0" * 40
    return out if len(out) == 40 else "0" * 40


def check_logbook(
    repo: Path, logbook: Path | str, *, rerun: bool | None = None, sandbox: str | None = None
) -> CheckResult:
    repo = Path(repo).resolve()
    path = Path(logbook)
    if not path.is_absolute():
        # relative to the repository when it names a file there, else to the working folder
        path = repo / path if (repo / path).exists() else Path.cwd() / path
    try:
        rel = path.resolve().relative_to(repo).as_posix()
    except ValueError:
        raise ReproauditError(
            Problem("misplaced_file", str(logbook), None, None, f"not inside the repository {repo}")
        ) from None
    data = layout.classify(rel)
    if data is None or data.kind != "logbook":
        raise ReproauditError(
            Problem(
                "misplaced_file",
                rel,
                None,
                None,
                "not a logbook: give logbooks/<paper>/<logbook>.yaml",
            )
        )
    paper_id, logbook_id = data.key
    report = validate_repo(repo, [rel])
    verdicts = []
    record = None
    if report.ok:
        book = Corpus(repo).logbook(paper_id, logbook_id)
        runnable = book is not None and book.code is not None and book.reproduce is not None
        wanted = (
            rerun
            if rerun is not None
            else bool(runnable and book.reproduce and book.reproduce.hardware == "cpu")
        )
        with tempfile.TemporaryDirectory(prefix="reproaudit-check-") as tmp:
            reruns = Path(tmp) / "reruns"
            if wanted:
                record = reproduce_logbook(repo, rel, backend="local", out=reruns, sandbox=sandbox)
            copy = Path(tmp) / "repo"
            paper_rel = Corpus(repo).paper_rels[paper_id][0]
            for part in (paper_rel, rel, layout.writeup_rel(paper_id, logbook_id)):
                if (repo / part).is_file():
                    (copy / part).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(repo / part, copy / part)
            judge_repo(
                copy,
                mode="rules",
                reruns=reruns if record else None,
                paper=paper_id,
                logbook=logbook_id,
            )
            verdict = Corpus(copy).verdict(paper_id, logbook_id)
            if verdict is not None:
                verdicts.append(artifact_verdict(verdict))
    artifact = Artifact.model_validate(
        {
            "schema": SCHEMA,
            "pr": 1,
            "head_sha": _head(repo),
            "files": [rel],
            "outside": [],
            "problems": [asdict(p) for p in report.problems],
            "verdicts": verdicts,
        }
    )
    comment = render_comment(artifact)
    if record is not None:
        where = f"exit code {record.exit_code}" if record.exit_code is not None else "no exit code"
        comment += (
            f"\nLocal re-run: {record.status} in {record.duration_s:.1f} s ({where}); "
            "CI re-runs it again after a maintainer's `/reproduce`.\n"
        )
        if record.sandbox == "none":
            comment += (
                "\n**NOT SANDBOXED**: the re-run ran unconfined on this machine "
                "(`--sandbox none`); CI always runs it in a sandbox.\n"
            )
    ok = artifact.ok and (record is None or record.status == "passed")
    return CheckResult(comment, ok, record)
