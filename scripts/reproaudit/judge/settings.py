"""How a run is judged: the mode (rules or llm) and, for llm, the client; decided once here.

``judge``, ``ci judge-pr`` and anything else that judges resolve ``--mode`` through
``judge_setup``, so ``auto`` means the same everywhere and ``llm`` never falls back
silently to a default endpoint (api.openai.com) when no base URL is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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


@dataclass(frozen=True)
class JudgeSetup:
    """What ``judge_repo`` needs to know about the judge: mode, client, model, prompt."""

    mode: str
    llm: Any
    model: str
    prompt_version: int
    samples: int

    def options(self) -> dict[str, Any]:
        """Keyword arguments for ``judge_repo`` / ``ci.flow.judge_pr``."""
        return {
            "mode": self.mode,
            "llm": self.llm,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "samples": self.samples,
        }


def judge_setup(mode: str, samples: int, env: Mapping[str, str] | None = None) -> JudgeSetup:
    """Resolve ``mode`` from the environment's LLM settings; build the client for llm."""
    from .llm import PROMPT_VERSION, LlmJudge, LlmSettings

    settings = LlmSettings.from_env(dict(env) if env is not None else None)
    mode = resolve_mode(mode, settings)
    llm = LlmJudge(settings, samples) if mode == "llm" else None
    return JudgeSetup(mode, llm, settings.model, PROMPT_VERSION, samples)


def default_reruns(repo: Path, reruns: Path | None) -> Path | None:
    """The re-run records to judge with: ``reruns`` if given, else ``<repo>/reruns`` if present.

    Re-run records are an input of the judge (DESIGN.md), so a plain ``judge``
    in a checkout uses the committed ones.
    """
    if reruns is not None:
        return reruns
    folder = Path(repo) / "reruns"
    return folder if folder.is_dir() else None
