"""The JSON Schemas of the data files, written where editors find them (``reproaudit schema``)."""

from __future__ import annotations

import json
from pathlib import Path

from .fsutil import atomic_write, output_folder
from .models import json_schemas


def schema_files() -> dict[str, str]:
    """``schemas/<kind>.schema.json`` -> its text, as committed in the repository."""
    return {
        f"schemas/{name}.schema.json": json.dumps(body, indent=2, sort_keys=True) + "\n"
        for name, body in json_schemas().items()
    }


def sync_schemas(out: Path, *, check: bool = False) -> tuple[list[Path], list[Path]]:
    """Write the schema files into ``out`` (or, with ``check``, only compare them).

    Returns (written, stale): with ``check`` nothing is written and ``stale``
    lists the files that are missing or differ from the code.
    """
    written: list[Path] = []
    stale: list[Path] = []
    if not check:
        output_folder(out)
    for rel, text in schema_files().items():
        path = Path(out) / Path(rel).name
        if not check:
            atomic_write(path, text)
            written.append(path)
        elif not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
    return written, stale
