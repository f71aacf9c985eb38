"""``reproaudit ci store-reruns``: take from an untrusted artifact only the records it should.

The re-run job ran contributor code, so its artifact is untrusted data. A
record is stored under ``reruns/<paper>/<logbook>/`` of the staging folder (which
``ci push reruns`` keeps on the pending branch until the pull request is merged:
``ci/pending.py``) only when

- the pull request passes the ownership rule at the approved commit, checked as
  the report checks it (``ownership.rule_pull``: the permissions API, the base
  and head git trees): a pull request that fails it stores nothing;
- the logbook is one the pull request changes (its YAML, write-up or code), by
  those same trees, not by the artifact;
- its ``run.json`` passes the one model (``models.RunRecord``), is not a
  ``host_error`` (the runner's machine could not run anything: not the logbook's
  result, never stored over one), and is current
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

from .. import layout
from ..beneath import read_capped
from ..errors import InputError, ReproauditError
from ..judge.inputs import record_currency
from ..layout import OUTPUTS_JSON, RECORD_FILES, RUN_JSON
from ..loader import parse_yaml, to_model
from ..models import Logbook
from ..reproduce.record import HOST_ERROR_SAYS, replace_folder
from ..rerun_files import LIMITS, read_outputs_json, read_run_json
from ..rerun_inputs import GitTree, InputHashes, TreeRefused, inputs_at_commit
from .changes import auth_env
from .flow import verify_head
from .github import GitHub
from .ownership import rule_pull

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
    changed = {key for rel in pulled.logbooks() if (key := layout.logbook_key(rel))}
    report = StoreReport()
    groups = _record_groups(Path(artifact), changed, pr, report)
    if refusal is not None:
        failed = f"pull request {pr} fails the ownership rule ({refusal}); nothing is stored"
        report.refused += [(f"{p}/{lb}/{RUN_JSON}", failed) for p, lb in sorted(groups)]
        return report
    for key in sorted(changed - set(groups)):
        report.missing.append(layout.rerun_rel(*key))
    with GitTree(git_dir, sha, env=auth_env(os.environ.get("GITHUB_TOKEN"))) as tree:
        for (paper, logbook), files in sorted(groups.items()):
            why, payload = check_record(files, logbook_inputs(tree, paper, logbook))
            if why:
                report.refused.append((f"{paper}/{logbook}/{RUN_JSON}", why))
                continue
            replace_folder(Path(repo) / layout.rerun_rel(paper, logbook), payload, top=repo)
            report.stored.append(layout.rerun_rel(paper, logbook))
    return report


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


def logbook_inputs(
    tree: GitTree, paper: str, logbook: str, *, where: str = "the approved commit"
) -> InputHashes | str:
    """The logbook's input hashes at ``tree``'s commit (``where``, in messages), or why
    they cannot be known."""
    rel = layout.logbook_rel(paper, logbook)
    try:
        raw = tree.read(rel)
        if raw is None:
            return f"the logbook does not exist at {where}"
        book = to_model(parse_yaml(raw.decode("utf-8"), rel), Logbook)
    except (ReproauditError, TreeRefused, UnicodeDecodeError) as exc:
        return f"the logbook at {where} cannot be read: {exc}"
    return inputs_at_commit(tree, paper, logbook, book)


def check_record(
    files: dict[str, Path], inputs: InputHashes | str, *, where: str = "the approved commit"
) -> tuple[str | None, dict[str, bytes]]:
    """(why it is refused, {}) or (None, the files to store) for one record folder; the
    record must be current for ``inputs``, the logbook's at ``where``."""
    if RUN_JSON not in files:
        return f"{OUTPUTS_JSON} without a {RUN_JSON}", {}
    if isinstance(inputs, str):
        return inputs, {}
    run_bytes, why = _read(files[RUN_JSON])
    if why:
        return why, {}
    run = read_run_json(run_bytes)  # the judge's reader: its limits, its model
    if run.raw is None or run.run is None:
        return run.why, {}
    if run.run.status == "host_error":
        return (
            f"{HOST_ERROR_SAYS} ({run.run.host_error}): no re-run of the logbook to store; "
            "fix the runner, then /reproduce again",
            {},
        )
    outputs = files.get(OUTPUTS_JSON)
    data = None
    if outputs is not None:
        data, why = _read(outputs)
        why = why or read_outputs_json(data)[1]
        if why:
            return why, {}
    currency = record_currency(run.raw, inputs, data)
    if not currency.current:
        return f"not current at {where}: {currency.why}", {}
    payload = {RUN_JSON: run_bytes}
    if data is not None:
        payload[OUTPUTS_JSON] = data
    return None, payload


def _read(path: Path) -> tuple[bytes, str | None]:
    """An artifact file through the one reader, capped at its record limit (one byte over
    shows it is too large): (bytes, None) or (b"", why it is refused)."""
    try:
        got = read_capped(path.parent, path.name, LIMITS[path.name])
    except InputError as exc:  # a link or a special file
        return b"", f"{path.name} {exc.problems[0].message}"
    if got is None:
        return b"", f"{path.name} is missing"
    return got.raw, None
