"""Environment scrubbing, the one copy of the rule: contributor code sees no credentials.

Two forms. ``scrubbed_env`` is an allow-list for re-runs reproaudit starts
itself: a fixed, small environment. ``drop_secrets`` filters an environment
reproaudit does not control (a job image's own ``PATH`` and friends must
survive) by removing anything named like a credential. Standard library and
Python 3.8 syntax only: the job runner ships this file's text.
"""

from __future__ import annotations

import re

SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|CREDENTIAL|API_KEY|ACCESS_KEY|AUTH|COOKIE|PRIVATE", re.IGNORECASE
)


def scrubbed_env(path: str, home: str, tmpdir: str, extra=None) -> dict:
    """The allow-listed environment of a re-run, whatever the caller's environment holds;
    ``extra`` adds e.g. ``PYTHONPATH`` (never a name that looks like a secret)."""
    env = {
        "PATH": path,
        "HOME": home,
        "TMPDIR": tmpdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for name, value in (extra or {}).items():
        if not SECRET_NAME.search(name):
            env[name] = value
    return env


def drop_secrets(env) -> dict:
    """``env`` without any variable named like a credential."""
    return {k: v for k, v in env.items() if not SECRET_NAME.search(k)}
