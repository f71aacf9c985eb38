"""Where the endpoint is, and how much untrusted text a prompt may carry.

The judge, ``onboard`` and ``extract`` read the same three variables, so one
endpoint configured once serves all three.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_MODEL = "zai-org/GLM-5.2"


@dataclass(frozen=True)
class LlmSettings:
    base_url: str | None
    model: str
    api_key: str | None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> LlmSettings:
        env = dict(os.environ if env is None else env)
        return cls(
            base_url=env.get("REPROAUDIT_JUDGE_BASE_URL") or None,
            model=env.get("REPROAUDIT_JUDGE_MODEL") or DEFAULT_MODEL,
            api_key=env.get("REPROAUDIT_JUDGE_API_KEY") or None,
        )

    @classmethod
    def second_from_env(cls, env: dict[str, str] | None = None) -> LlmSettings:
        """The second endpoint the judge asks on claims a model decided alone
        (``REPROAUDIT_JUDGE2_BASE_URL``, ``_MODEL``, ``_API_KEY``); not configured when
        its base URL is unset."""
        env = dict(os.environ if env is None else env)
        return cls(
            base_url=env.get("REPROAUDIT_JUDGE2_BASE_URL") or None,
            model=env.get("REPROAUDIT_JUDGE2_MODEL") or DEFAULT_MODEL,
            api_key=env.get("REPROAUDIT_JUDGE2_API_KEY") or None,
        )

    @property
    def configured(self) -> bool:
        return self.base_url is not None


def truncate(text: str, budget: int) -> str:
    """Cut ``text`` to ``budget`` characters, keeping head and tail, with a visible marker."""
    if len(text) <= budget:
        return text
    cut = len(text) - budget
    head = budget * 2 // 3
    return f"{text[:head]}\n[... {cut} characters truncated ...]\n{text[-(budget - head) :]}"
