"""Drafting a paper's claims with the judge's LLM endpoint, for a maintainer to review.

The paper's text (pypdf for PDFs) goes to the model as fenced, untrusted data
with a budget; the reply must be JSON whose claims validate against the same
models as a hand-written paper file, or the request is repeated a bounded
number of times. Nothing is written unless the whole draft validates.
"""

from __future__ import annotations

import json
import secrets
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .judge.llm import LlmSettings, truncate
from .loader import parse_yaml, to_model
from .models import PaperFile
from .problems import Problem, ReproauditError
from .scaffold import slug

PROMPT_VERSION = 1
TEXT_BUDGET = 60_000
ATTEMPTS = 3
MAX_CLAIMS = 30


def read_paper_text(path: Path) -> str:
    """The text of a PDF (its text layer), Markdown or plain-text paper."""
    rel = str(path)
    if not path.is_file():
        raise ReproauditError(Problem("invalid_value", rel, None, None, "no such file"))
    if path.suffix.lower() == ".pdf":
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        try:
            reader = PdfReader(str(path))
            text = "\n\n".join((page.extract_text() or "") for page in reader.pages)
        except (PdfReadError, ValueError, OSError) as exc:
            raise ReproauditError(
                Problem("invalid_value", rel, None, None, f"cannot read the PDF: {exc}")
            ) from None
        if len(text.split()) < 20:
            raise ReproauditError(
                Problem(
                    "invalid_value",
                    rel,
                    None,
                    None,
                    "the PDF has no text layer (a scan?)",
                    "run OCR first (e.g. ocrmypdf), or pass the paper as .md or .txt",
                )
            )
        return text
    if path.suffix.lower() in (".md", ".txt"):
        return path.read_text(encoding="utf-8", errors="replace")
    raise ReproauditError(
        Problem(
            "invalid_value",
            rel,
            None,
            None,
            f"{path.suffix or 'no extension'}: give a .pdf, .md or .txt",
        )
    )


def _prompt() -> str:
    return (
        resources.files("reproaudit.judge")
        .joinpath("prompts", f"extract.v{PROMPT_VERSION}.system.md")
        .read_text(encoding="utf-8")
    )


def draft_document(reply: Any, paper_id: str, venue: str, title: str | None) -> dict[str, Any]:
    """A paper-file mapping from the model's reply; raises ValueError when it is not one."""
    if not isinstance(reply, dict) or not isinstance(reply.get("claims"), list):
        raise ValueError('the reply has no "claims" list')
    claims = []
    for i, item in enumerate(reply["claims"][:MAX_CLAIMS], 1):
        if not isinstance(item, dict):
            raise ValueError(f"claim {i} is not an object")
        claim = {"id": f"C{i}"}
        for key in ("statement", "anchor", "kind", "target", "regime"):
            if item.get(key) is not None:
                claim[key] = item[key]
        claims.append(claim)
    if not claims:
        raise ValueError("the reply lists no claim")
    name = title or str(reply.get("title") or "").strip() or paper_id
    doc = {
        "paper": {"id": paper_id, "title": name, "venue": venue},
        "claims_version": 1,
        "claims": claims,
    }
    PaperFile.model_validate(doc)
    return doc


def extract_claims(
    paper_path: Path,
    paper_id: str,
    *,
    venue: str = "ICML 2026",
    title: str | None = None,
    settings: LlmSettings | None = None,
    client: Any = None,
) -> tuple[str, str]:
    """(relative path of the paper file, its YAML text), drafted by the model and validated."""
    settings = settings or LlmSettings.from_env()
    if not settings.configured and client is None:
        raise ReproauditError(
            Problem(
                "invalid_value",
                "REPROAUDIT_JUDGE_BASE_URL",
                None,
                None,
                "no LLM endpoint configured",
                "set REPROAUDIT_JUDGE_BASE_URL (and the model and key)",
            )
        )
    text = truncate(read_paper_text(paper_path), TEXT_BUDGET).replace("\x00", "")
    if client is None:
        from openai import OpenAI

        client = OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "unused",
            max_retries=4,
            timeout=300,
        )
    problems = []
    for _ in range(ATTEMPTS):
        nonce = secrets.token_hex(8)
        while nonce in text:
            nonce = secrets.token_hex(8)
        messages = [
            {"role": "system", "content": _prompt().replace("{nonce}", nonce)},
            {"role": "user", "content": f"<<<PAPER {nonce}\n{text}\nPAPER {nonce}>>>"},
        ]
        from openai import OpenAIError

        try:
            raw = client.post(
                "/chat/completions",
                cast_to=str,
                body={
                    "model": settings.model,
                    "messages": messages,
                    "response_format": {"type": "json_object"},
                    "temperature": 0.2,
                },
            )
            content = json.loads(raw)["choices"][0]["message"]["content"]
            doc = draft_document(json.loads(content), paper_id, venue, title)
        except OpenAIError as exc:
            raise ReproauditError(
                Problem("invalid_value", "LLM endpoint", None, None, f"the endpoint failed: {exc}")
            ) from None
        except (ValueError, KeyError, IndexError, TypeError, ValidationError) as exc:
            problems.append(str(exc).splitlines()[0][:300])
            continue
        rel = f"claims/{slug(venue)}/{paper_id}.yaml"
        body = (
            "# Drafted by `reproaudit extract` from the paper's text: a maintainer must check\n"
            "# every claim, anchor and target before this file is merged.\n"
            + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
        )
        to_model(parse_yaml(body, rel), PaperFile)
        return rel, body
    raise ReproauditError(
        Problem(
            "invalid_value",
            "LLM reply",
            None,
            None,
            f"the model's replies were not valid claims after {ATTEMPTS} tries: {problems[-1]}",
            "try another model, or write the paper file with `reproaudit new paper`",
        )
    )
