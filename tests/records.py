"""Re-run records as `ci store-reruns` writes them, bound to a logbook's current bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from reproaudit.errors import InputError
from reproaudit.loader import load_model
from reproaudit.models import Logbook
from reproaudit.rerun_inputs import InputHashes, read_inputs


def write_current_rerun(
    repo: Path,
    paper: str,
    logbook: str,
    status: str = "passed",
    log_tail: str | None = "done",
    *,
    outputs: bytes = b'{"ok": true}',
    duration_s: float = 5.0,
    invalid_ok: bool = False,
) -> None:
    """Write ``reruns/PAPER/LOGBOOK/{outputs,run}.json`` hashing the inputs as they are now.

    ``invalid_ok``: a logbook validate refuses still gets a record, binding its bytes
    alone (otherwise the refusal is raised). ``log_tail=None`` leaves the field out.
    """
    folder = repo / "reruns" / paper / logbook
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "outputs.json").write_bytes(outputs)
    rel = f"logbooks/{paper}/{logbook}.yaml"
    try:
        inputs = read_inputs(repo, paper, logbook, load_model(repo / rel, Logbook, rel))
    except InputError:
        if not invalid_ok:
            raise
        digest = hashlib.sha256((repo / rel).read_bytes()).hexdigest()
        inputs = InputHashes(digest, None, None, None)
    run = {
        "status": status,
        "exit_code": 0 if status == "passed" else 1,
        "duration_s": duration_s,
        "backend": "local",
        "sandbox": "bwrap",
        **({} if log_tail is None else {"log_tail": log_tail}),
        "logbook_sha256": inputs.logbook_sha256,
        "writeup_sha256": inputs.writeup_sha256,
        "code_sha256": inputs.code_sha256,
        "outputs_sha256": hashlib.sha256(outputs).hexdigest(),
        "environment": {"image_used": False, "requirements_sha256": inputs.requirements_sha256},
        "limits": {"wall_s": 60},
        "reproaudit_version": "0.1.0",
    }
    (folder / "run.json").write_text(json.dumps(run))
