"""How a run is judged: the mode (rules or llm) and, for llm, the client; decided once here.

``judge``, ``ci judge-pr`` and anything else that judges build their judge with
``judge.llm.make_judge``, which resolves ``--mode`` here, so ``auto`` means the same
everywhere and ``llm`` never falls back silently to a default endpoint (api.openai.com)
when no base URL is set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from .. import layout
from ..errors import UsageError

MODES = ("rules", "llm", "auto")


class _Endpoint(Protocol):
    @property
    def configured(self) -> bool: ...


def resolve_mode(mode: str, settings: _Endpoint) -> str:
    """``rules`` or ``llm``: ``auto`` is llm exactly when an endpoint is configured.

    ``llm`` without ``REPROAUDIT_JUDGE_BASE_URL`` is refused rather than sent to
    the client library's default endpoint.
    """
    if mode not in MODES:
        raise UsageError(f"--mode {mode!r}: use one of {', '.join(MODES)}")
    if mode == "auto":
        return "llm" if settings.configured else "rules"
    if mode == "llm" and not settings.configured:
        raise UsageError(
            "--mode llm needs REPROAUDIT_JUDGE_BASE_URL (an OpenAI-compatible "
            "endpoint); use --mode rules to judge offline"
        )
    return mode


def default_reruns(repo: Path, reruns: Path | None) -> Path | None:
    """The re-run records to judge with: ``reruns`` if given, else ``<repo>/reruns`` if present.

    Re-run records are an input of the judge (DESIGN.md), so a plain ``judge``
    in a checkout uses the committed ones.
    """
    if reruns is not None:
        return reruns
    folder = Path(repo) / layout.RERUNS_DIR
    return folder if folder.is_dir() else None
