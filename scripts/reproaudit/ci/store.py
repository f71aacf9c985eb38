"""``reproaudit ci store-reruns``: take from an untrusted artifact only the records it should.

The re-run job ran contributor code, so its artifact is untrusted data. A
record is stored under ``reruns/<paper>/<logbook>/`` only when the logbook is
one this pull request changes (asked of the GitHub API, not of the artifact),
its ``run.json`` passes the one model (``models.RunRecord``), its
``logbook_sha256`` is the hash of the logbook's bytes at the approved commit,
and ``outputs.json`` (if any) is the file ``outputs_sha256`` names, within the
judge's size and depth limits. Each stored folder is replaced whole. Every
refusal is reported with its reason; nothing of a refused record is written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..beneath import read_capped
from ..errors import ReproauditError
from ..judge.inputs import MAX_OUTPUTS_BYTES, MAX_RUN_BYTES, check_json_shape, load_json
from ..models import RunRecord
from ..reproduce.record import replace_folder
from .flow import pr_logbooks, verify_head
from .github import GitHub

RECORD_FILES = ("run.json", "outputs.json")
IGNORED_FILES = ("log.txt",)


@dataclass
class StoreReport:
    stored: list[str] = field(default_factory=list)  # reruns/<paper>/<logbook>
    refused: list[tuple[str, str]] = field(default_factory=list)  # (artifact path, why)
    missing: list[str] = field(default_factory=list)  # changed logbooks without a record

    def lines(self) -> list[str]:
        out = [f"stored {rel}" for rel in self.stored]
        out += [f"refused {path}: {why}" for path, why in self.refused]
        out += [f"no re-run record for {rel}" for rel in self.missing]
        out.append(f"{len(self.stored)} record(s) stored, {len(self.refused)} file(s) refused")
        return out


def store_reruns(
    github: GitHub, repo_name: str, pr: int, sha: str, artifact: Path, repo: Path
) -> StoreReport:
    """Validate the artifact's records against the PR at ``sha`` and store the good ones."""
    verify_head(github, repo_name, pr, sha)
    changed = set(pr_logbooks(github.pull_files(repo_name, pr)))
    report = StoreReport()
    groups: dict[tuple[str, str], dict[str, Path]] = {}
    root = Path(artifact)
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            continue
        parts = rel.split("/")
        if path.is_symlink() or not path.is_file():
            report.refused.append((rel, "not a regular file (a link?)"))
        elif len(parts) != 3 or parts[2] not in RECORD_FILES + IGNORED_FILES:
            report.refused.append((rel, "not <paper>/<logbook>/{run,outputs}.json"))
        elif (parts[0], parts[1]) not in changed:
            report.refused.append((rel, f"pull request {pr} does not change that logbook"))
        elif parts[2] in RECORD_FILES:
            groups.setdefault((parts[0], parts[1]), {})[parts[2]] = path
    for key in sorted(changed - set(groups)):
        report.missing.append(f"reruns/{key[0]}/{key[1]}")
    for (paper, logbook), files in sorted(groups.items()):
        where = f"{paper}/{logbook}/run.json"
        text = github.file_text(repo_name, f"logbooks/{paper}/{logbook}.yaml", sha)
        logbook_bytes = None if text is None else text.encode("utf-8")
        why, payload = check_record(files, logbook_bytes)
        if why:
            report.refused.append((where, why))
            continue
        replace_folder(Path(repo) / "reruns" / paper / logbook, payload)
        report.stored.append(f"reruns/{paper}/{logbook}")
    return report


def check_record(
    files: dict[str, Path], logbook_bytes: bytes | None
) -> tuple[str | None, dict[str, bytes]]:
    """(why it is refused, None) or (None, the files to store) for one record folder."""
    if "run.json" not in files:
        return "outputs.json without a run.json", {}
    if logbook_bytes is None:
        return "the logbook does not exist at the approved commit", {}
    run_bytes, why = _read(files["run.json"], MAX_RUN_BYTES, f"{MAX_RUN_BYTES >> 10} KiB")
    if why:
        return f"run.json {why}", {}
    raw, why = load_json(run_bytes)
    if why:
        return f"run.json {why}", {}
    try:
        record = RunRecord.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "run.json"
        return f"run.json: {loc}: {first['msg']}", {}
    if record.logbook_sha256 != hashlib.sha256(logbook_bytes).hexdigest():
        return "logbook_sha256 is not the hash of the logbook at the approved commit", {}
    payload = {"run.json": run_bytes}
    outputs = files.get("outputs.json")
    if outputs is None:
        if record.outputs_sha256 is not None:
            return "run.json names an outputs_sha256 but there is no outputs.json", {}
        return None, payload
    data, why = _read(outputs, MAX_OUTPUTS_BYTES, f"{MAX_OUTPUTS_BYTES >> 20} MiB")
    if why:
        return f"outputs.json {why}", {}
    if hashlib.sha256(data).hexdigest() != record.outputs_sha256:
        return "outputs.json does not match the outputs_sha256 of run.json", {}
    why = check_json_shape(data)
    if why:
        return f"outputs.json {why}", {}
    payload["outputs.json"] = data
    return None, payload


def _read(path: Path, limit: int, shown_limit: str) -> tuple[bytes, str | None]:
    """An artifact file through the one reader: (bytes, None) or (b"", why it is refused)."""
    try:
        got = read_capped(path.parent, path.name, limit)
    except ReproauditError as exc:
        return b"", exc.problems[0].message if exc.problems else str(exc)
    if got is None:
        return b"", "is missing"
    if len(got.raw) > limit:
        return b"", f"is over {shown_limit}"
    return got.raw, None
