"""Publish the corpus to the Hugging Face Hub as a dataset (``huggingface_hub``).

The export (Parquet, gzipped CSV and JSON Lines) and a dataset card are written to a
folder first; ``upload_folder`` then sends that folder in one commit. With
``dry_run`` nothing leaves the machine.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from .errors import EndpointError, SettingError
from .export import DATA_LICENSE, FORMATS, corpus_frame, file_name, write_export
from .fold import stats_from_buckets
from .fsutil import atomic_write


def dataset_card(repo_id: str, rows: int, papers: int, table: dict) -> str:
    buckets = "\n".join(f"| {k} | {v} |" for k, v in table["buckets"].items())
    files = ", ".join(f"`{file_name(fmt)}`" for fmt in FORMATS)
    csv, jsonl = file_name("csv"), file_name("jsonl")
    return f"""---
license: {DATA_LICENSE[1]}
pretty_name: reproaudit claims and verdicts
configs:
  - config_name: default
    data_files: {file_name("parquet")}
tags:
  - reproducibility
  - peer-review
---

# {repo_id}

Claims of {papers} papers and the verdicts of their reproduction logbooks, as judged by
reproaudit: one row per (paper, claim, logbook), {rows} rows. Claims that nobody has judged
yet appear once, with empty logbook fields.

Verdicts are `verified`, `falsified`, `toy` or `inconclusive`; `flags` (separated by `;`)
say what the deterministic checks found, `review` holds a maintainer's adjudication, and
`counted` marks the rows that the per-claim fold counts (each contributor's latest logbook on
a paper). `decided_by` says who decided a verdict: `rules` (on the re-run's numbers; every
claim with a target) or `model` (a language model alone, on a claim without one:
"model-judged"); `second_opinion` is a second, independently configured model's verdict on
it, and `counts_as` what the fold counts the row as (`model_judged` until that second model
agrees or a maintainer confirms it; `conflict` for an unresolved `judge_conflict`).
`claim_fold` and `paper_bucket` are the folded outcomes (a claim fold may be `model_judged`).
`within_tested_range` marks a `verified` that holds only within the range tested (a claim
for every value of a parameter, checked over a finite sweep), `tested_range` says it in words
("held for k = 2..512; claimed for all k >= 2"), and `claim_within_tested_range` and
`paper_within_tested_range` carry it into the folds: such a paper is fully reproduced within
the tested range only.

| paper bucket | papers |
|---|---|
{buckets}

Files: {files}. The CSV and JSON Lines are gzipped; pandas, DuckDB and `datasets` read
them as they are (`pd.read_csv("{csv}")`, `pd.read_json("{jsonl}", lines=True)`).
"""


# The Hub's rule for a repo id, ASCII only and anchored at both ends (`$` would allow "\n").
_REPO_ID = re.compile(r"[A-Za-z0-9_.-]{1,96}/[A-Za-z0-9_.-]{1,96}")


def check_repo_id(repo_id: str) -> None:
    """Raise unless ``repo_id`` is a Hub dataset id ORG/NAME; checked before anything is written."""
    shown = repo_id[:100]
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        reason = f"{shown!r} is not ORG/NAME"
    elif not _REPO_ID.fullmatch(repo_id):
        reason = f"{shown!r} may hold only letters, digits, '-', '_' and '.' around one '/'"
    else:
        from huggingface_hub.errors import HFValidationError
        from huggingface_hub.utils import validate_repo_id

        try:
            validate_repo_id(repo_id)  # the Hub's own rules: no '--' or '..', no '.git' end...
            return
        except HFValidationError as exc:
            reason = f"{shown!r} is not a Hub repo id: {str(exc).splitlines()[0]}"
    raise SettingError(
        f"--repo-id: {reason}", "give the dataset as ORG/NAME, e.g. audit-org/icml2026"
    )


def publish_dataset(
    root: Path,
    repo_id: str,
    *,
    token: str | None = None,
    dry_run: bool = False,
    folder: Path | None = None,
) -> str:
    """Write the export and card, then upload them (unless ``dry_run``); return a summary.

    Without ``folder`` the files go to a temporary folder that is removed
    afterwards, whatever happens; with it they are kept there.
    """
    check_repo_id(repo_id)
    if folder is not None:
        return _publish(root, repo_id, Path(folder), token, dry_run, kept=True)
    with tempfile.TemporaryDirectory(prefix="reproaudit-publish-") as temp:
        return _publish(root, repo_id, Path(temp), token, dry_run, kept=False)


def _publish(
    root: Path, repo_id: str, folder: Path, token: str | None, dry_run: bool, kept: bool
) -> str:
    frame = corpus_frame(root)
    write_export(frame, folder, FORMATS)
    buckets = frame.drop_duplicates("paper")["paper_bucket"].value_counts()
    table = stats_from_buckets({str(k): int(n) for k, n in buckets.items() if k != "untested"})
    atomic_write(
        folder / "README.md", dataset_card(repo_id, len(frame), frame["paper"].nunique(), table)
    )
    names = sorted(p.name for p in folder.iterdir())
    if dry_run:
        if kept:
            return f"dry run: would upload {', '.join(names)} from {folder} to datasets/{repo_id}"
        return (
            f"dry run: would upload {', '.join(names)} to datasets/{repo_id} "
            f"({len(frame)} rows; written to a temporary folder, now removed: "
            "keep them with --folder DIR)"
        )
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True)
        commit = api.upload_folder(
            folder_path=str(folder),
            repo_id=repo_id,
            repo_type="dataset",
            commit_message=f"reproaudit export: {len(frame)} rows",
        )
    except HfHubHTTPError as exc:
        raise EndpointError(
            f"the Hub refused the upload: {exc}", "check HF_TOKEN has write access to the dataset"
        ) from None
    return f"uploaded {', '.join(names)} to datasets/{repo_id}: {commit}"
