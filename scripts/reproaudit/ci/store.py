"""``reproaudit ci store-reruns``: take from an untrusted artifact only the records it should.

The re-run job ran contributor code, so its artifact is untrusted data. A
record is stored under ``reruns/<paper>/<logbook>/`` only when

- the pull request passes the ownership rule at the approved commit, checked as
  the report checks it (``ownership.rule_pull``: the permissions API, the base
  and head git trees): a pull request that fails it stores nothing;
- the logbook is one the pull request changes (its YAML, write-up or code), by
  those same trees, not by the artifact;
- its ``run.json`` passes the one model (``models.RunRecord``) and is current
  for the logbook's inputs at the approved commit (``judge.inputs.record_currency``,
  the judge's own check): the logbook, write-up, code tree and requirements
  hashes recomputed here from git objects, and ``outputs.json`` (if any) the
  file ``outputs_sha256`` names, within the judge's size and depth limits.

Each stored folder is replaced whole. Every refusal is reported with its reason;
nothing of a refused record is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..beneath import read_capped
from ..errors import InputError, ReproauditError
from ..judge.inputs import (
    MAX_OUTPUTS_BYTES,
    MAX_RUN_BYTES,
    check_json_shape,
    load_json,
    record_currency,
)
from ..loader import parse_yaml, to_model
from ..models import Logbook, RunRecord
from ..reproduce.record import replace_folder
from ..rerun_inputs import GitTree, InputHashes, TreeRefused, inputs_at_commit
from .changes import auth_env
from .flow import verify_head
from .github import GitHub
from .ownership import rule_pull

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
    github: GitHub,
    repo_name: str,
    pr: int,
    sha: str,
    artifact: Path,
    repo: Path,
    *,
    git_dir: Path,
) -> StoreReport:
    """Validate the artifact's records against the PR at ``sha`` and store the good ones.

    ``git_dir`` is a clone of the repository (the commits are fetched into it as
    objects); ``repo`` is where ``reruns/`` is written.
    """
    verify_head(github, repo_name, pr, sha)
    pulled = rule_pull(github, repo_name, pr, sha, git_dir)
    refusal = pulled.refusal()
    changed = {_key(rel) for rel in pulled.logbooks()}
    report = StoreReport()
    groups = _record_groups(Path(artifact), changed, pr, report)
    if refusal is not None:
        failed = f"pull request {pr} fails the ownership rule ({refusal}); nothing is stored"
        report.refused += [(f"{p}/{lb}/run.json", failed) for p, lb in sorted(groups)]
        return report
    for key in sorted(changed - set(groups)):
        report.missing.append(f"reruns/{key[0]}/{key[1]}")
    with GitTree(git_dir, sha, env=auth_env(os.environ.get("GITHUB_TOKEN"))) as tree:
        for (paper, logbook), files in sorted(groups.items()):
            why, payload = check_record(files, _inputs(tree, paper, logbook))
            if why:
                report.refused.append((f"{paper}/{logbook}/run.json", why))
                continue
            replace_folder(Path(repo) / "reruns" / paper / logbook, payload)
            report.stored.append(f"reruns/{paper}/{logbook}")
    return report


def _key(rel: str) -> tuple[str, str]:
    parts = rel.split("/")  # logbooks/<paper>/<logbook>.yaml
    return parts[1], parts[2].removesuffix(".yaml")


def _record_groups(
    root: Path, changed: set[tuple[str, str]], pr: int, report: StoreReport
) -> dict[tuple[str, str], dict[str, Path]]:
    """The artifact's record files by logbook; anything else is refused with its reason."""
    groups: dict[tuple[str, str], dict[str, Path]] = {}
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
    return groups


def _inputs(tree: GitTree, paper: str, logbook: str) -> InputHashes | str:
    """The logbook's input hashes at the approved commit, or why they cannot be known."""
    rel = f"logbooks/{paper}/{logbook}.yaml"
    try:
        raw = tree.read(rel)
        if raw is None:
            return "the logbook does not exist at the approved commit"
        book = to_model(parse_yaml(raw.decode("utf-8"), rel), Logbook)
    except (ReproauditError, TreeRefused, UnicodeDecodeError) as exc:
        return f"the logbook at the approved commit cannot be read: {exc}"
    return inputs_at_commit(tree, paper, logbook, book)


def check_record(
    files: dict[str, Path], inputs: InputHashes | str
) -> tuple[str | None, dict[str, bytes]]:
    """(why it is refused, {}) or (None, the files to store) for one record folder."""
    if "run.json" not in files:
        return "outputs.json without a run.json", {}
    if isinstance(inputs, str):
        return inputs, {}
    run_bytes, why = _read(files["run.json"], MAX_RUN_BYTES, f"{MAX_RUN_BYTES >> 10} KiB")
    if why:
        return f"run.json {why}", {}
    raw, why = load_json(run_bytes)
    if why:
        return f"run.json {why}", {}
    try:
        RunRecord.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "run.json"
        return f"run.json: {loc}: {first['msg']}", {}
    outputs = files.get("outputs.json")
    data = None
    if outputs is not None:
        data, why = _read(outputs, MAX_OUTPUTS_BYTES, f"{MAX_OUTPUTS_BYTES >> 20} MiB")
        if why:
            return f"outputs.json {why}", {}
    currency = record_currency(raw, inputs, data)
    if not currency.current:
        return f"not current at the approved commit: {currency.why}", {}
    payload = {"run.json": run_bytes}
    if data is not None:
        why = check_json_shape(data)
        if why:
            return f"outputs.json {why}", {}
        payload["outputs.json"] = data
    return None, payload


def _read(path: Path, limit: int, shown_limit: str) -> tuple[bytes, str | None]:
    """An artifact file through the one reader: (bytes, None) or (b"", why it is refused)."""
    try:
        got = read_capped(path.parent, path.name, limit)
    except InputError as exc:  # a link or a special file
        return b"", exc.problems[0].message
    if got is None:
        return b"", "is missing"
    if len(got.raw) > limit:
        return b"", f"is over {shown_limit}"
    return got.raw, None
