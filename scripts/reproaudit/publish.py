"""Publish the corpus to the Hugging Face Hub as a dataset (``huggingface_hub``).

The export (Parquet, CSV, JSON Lines) and a dataset card are written to a
folder first; ``upload_folder`` then sends that folder in one commit. With
``dry_run`` nothing leaves the machine.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .export import BASENAME, FORMATS, corpus_frame, write_export
from .fold import stats_from_buckets
from .fsutil import atomic_write
from .problems import Problem, ReproauditError


def dataset_card(repo_id: str, rows: int, papers: int, table: dict) -> str:
    buckets = "\n".join(f"| {k} | {v} |" for k, v in table["buckets"].items())
    return f"""---
license: cc-by-4.0
pretty_name: reproaudit claims and verdicts
configs:
  - config_name: default
    data_files: {BASENAME}.parquet
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
a paper). `claim_fold` and `paper_bucket` are the folded outcomes.

| paper bucket | papers |
|---|---|
{buckets}

Files: `{BASENAME}.parquet`, `{BASENAME}.csv`, `{BASENAME}.jsonl`.
"""


def publish_dataset(
    root: Path,
    repo_id: str,
    *,
    token: str | None = None,
    dry_run: bool = False,
    folder: Path | None = None,
) -> str:
    """Write the export and card, then upload them (unless ``dry_run``); return a summary."""
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise ReproauditError(
            Problem("invalid_value", "--repo-id", None, None, f"{repo_id!r} is not ORG/NAME")
        )
    frame = corpus_frame(root)
    folder = Path(folder or tempfile.mkdtemp(prefix="reproaudit-publish-"))
    write_export(frame, folder, FORMATS)
    buckets = frame.drop_duplicates("paper")["paper_bucket"].value_counts().to_dict()
    table = stats_from_buckets({k: v for k, v in buckets.items() if k != "untested"})
    atomic_write(
        folder / "README.md", dataset_card(repo_id, len(frame), frame["paper"].nunique(), table)
    )
    names = sorted(p.name for p in folder.iterdir())
    if dry_run:
        return f"dry run: would upload {', '.join(names)} from {folder} to datasets/{repo_id}"
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
        raise ReproauditError(
            Problem(
                "invalid_value",
                "--repo-id",
                None,
                None,
                f"the Hub refused the upload: {exc}",
                "check HF_TOKEN has write access to the dataset",
            )
        ) from None
    return f"uploaded {', '.join(names)} to datasets/{repo_id}: {commit}"
