"""Drafting a paper's claims with the judge's LLM endpoint, for a maintainer to review.

The paper's text (pypdf for PDFs) goes to the model as fenced, untrusted data
with a budget; the reply must be JSON whose claims validate against the same
models as a hand-written paper file, or the request is repeated a bounded
number of times. Nothing is written unless the whole draft validates.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from . import layout
from . import problems as P
from .boundedjson import loads
from .errors import EndpointError, InputError, ReproauditError, SettingError
from .layout import RESERVED_HINT, reserved_message
from .llm.settings import LlmSettings, truncate
from .loader import parse_yaml, to_model
from .models import ID_PATTERN, PaperFile, check_one_line
from .problems import Problem
from .scaffold import slug

PROMPT_VERSION = 1
TEXT_BUDGET = 60_000
ATTEMPTS = 3
MAX_CLAIMS = 30
MAX_PAPER_BYTES = 64 * 1024 * 1024  # of the file given
MAX_PDF_PAGES = 200  # read at most this many pages, and stop once the budget is full
MAX_STREAM_BYTES = 8 * 1024 * 1024  # one decompressed PDF stream
MAX_PARSING_WORK = 200_000  # operators and operands in one content stream
MAX_PAGE_CONTENT = 512 * 1024  # decompressed content of one page (about 2 s of parsing)
MAX_CONTENT_TOTAL = 2 * 1024 * 1024  # of all pages read: the work per paper is bounded
MAX_FORM_CALLS = 200  # form XObjects drawn per page
MAX_REPLY_CHARS = 1_000_000  # of one model reply
MAX_FIELD_CHARS = 4_000  # of one string in a drafted claim
MAX_VENUE_CHARS = 200
SUFFIXES = (".pdf", ".md", ".txt")


def check_arguments(
    paper_path: Path, paper_id: str, venue: str, title: str | None
) -> list[Problem]:
    """Every problem with the command's arguments, found before any model is called."""
    problems = []

    def bad(field: str, message: str, hint: str | None = None) -> None:
        problems.append(Problem(P.INVALID_VALUE, field, None, None, message, hint))

    if not re.fullmatch(ID_PATTERN, paper_id):
        bad(
            "--paper-id",
            f"{paper_id[:80]!r} is not a paper id",
            "use letters, digits, '.', '_' and '-' (at most 64), e.g. the OpenReview id",
        )
    elif (why := reserved_message("paper", paper_id)) is not None:
        problems.append(Problem(P.RESERVED_ID, "--paper-id", None, None, why, RESERVED_HINT))
    for option, value in (("--venue", venue), ("--title", title)):
        if value is None:
            continue
        try:
            check_one_line(value)
        except ValueError as exc:
            bad(option, str(exc))
        else:
            if not value.strip():
                bad(option, "is empty")
    if len(venue) > MAX_VENUE_CHARS:
        bad("--venue", f"is {len(venue)} characters long (at most {MAX_VENUE_CHARS})")
    problems += _file_problems(paper_path)
    return problems


def _file_problems(path: Path) -> list[Problem]:
    rel = str(path)
    if path.suffix.lower() not in SUFFIXES:
        return [
            Problem(
                P.INVALID_VALUE,
                rel,
                None,
                None,
                f"{path.suffix or 'no extension'}: give a .pdf, .md or .txt",
            )
        ]
    try:
        info = os.stat(path)
    except OSError:
        return [Problem(P.INVALID_VALUE, rel, None, None, "no such file")]
    if not stat.S_ISREG(info.st_mode):
        return [Problem(P.INVALID_VALUE, rel, None, None, "not a regular file (a FIFO or device?)")]
    if info.st_size > MAX_PAPER_BYTES:
        return [
            Problem(
                P.FILE_TOO_LARGE,
                rel,
                None,
                None,
                f"{P.human_size(info.st_size)}, over the {P.human_size(MAX_PAPER_BYTES)} limit",
            )
        ]
    return []


def read_paper_text(path: Path, budget: int = TEXT_BUDGET) -> str:
    """The text of a PDF (its text layer), Markdown or plain-text paper, up to ``budget``.

    A PDF is read page by page and reading stops once ``budget`` characters
    are in hand or ``MAX_PDF_PAGES`` pages are read; pypdf's limits keep each
    stream under ``MAX_STREAM_BYTES`` and each page's parsing under
    ``MAX_PARSING_WORK``, and a page over them is skipped. Text files are read
    up to what the budget can hold.
    """
    rel = str(path)
    found = _file_problems(path)
    if found:
        raise InputError(found)
    if path.suffix.lower() == ".pdf":
        text, skipped = _pdf_text(path, budget)
        if len(text.split()) < 20:
            if skipped:
                why = (
                    f"no text could be read: {skipped} page(s) were over the limits for one "
                    f"page (content over {P.human_size(MAX_PAGE_CONTENT)}, a stream over "
                    f"{P.human_size(MAX_STREAM_BYTES)} or over {MAX_PARSING_WORK:,} "
                    "operations) and were skipped"
                )
                hint = "pass the paper's text as .md or .txt"
            else:
                why = "the PDF has no text layer (a scan?)"
                hint = "run OCR first (e.g. ocrmypdf), or pass the paper as .md or .txt"
            raise InputError(Problem(P.INVALID_VALUE, rel, None, None, why, hint))
        return text
    with open(path, "rb") as handle:  # a regular file, checked above
        raw = handle.read(budget * 4 + 4)  # UTF-8 takes at most 4 bytes a character
    return raw.decode("utf-8", errors="replace")


def _pdf_text(path: Path, budget: int) -> tuple[str, int]:
    """The text of the first pages up to ``budget``, and how many pages were skipped."""
    import pypdf
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    limits = {
        "zlib_maximum_output_length": MAX_STREAM_BYTES,
        "lzw_maximum_output_length": MAX_STREAM_BYTES,
        "run_length_maximum_output_length": MAX_STREAM_BYTES,
        "brotli_maximum_output_length": MAX_STREAM_BYTES,
        "array_based_stream_maximum_output_length": MAX_STREAM_BYTES,
        "jbig2_maximum_output_length": MAX_STREAM_BYTES,
        "maximum_declared_stream_length": MAX_STREAM_BYTES,
        "image_maximum_buffer_size": MAX_STREAM_BYTES,
        "stream_decoding_work_maximum_length": 4 * MAX_STREAM_BYTES,
        "stream_parsing_work_maximum_count": MAX_PARSING_WORK,
        "xform_maximum_invocations_per_extraction": MAX_FORM_CALLS,
    }
    configure = getattr(pypdf, "apply_configuration", None)  # pypdf >= 7
    parts: list[str] = []
    total = skipped = content_total = 0
    with configure(**limits) if configure else contextlib.nullcontext():
        try:
            reader = PdfReader(str(path))
            for number, page in enumerate(reader.pages, 1):
                if number > MAX_PDF_PAGES or total >= budget:
                    break
                try:
                    contents = page.get_contents()
                    size = len(contents.get_data()) if contents is not None else 0
                    if size > MAX_PAGE_CONTENT:
                        raise ValueError("content over the limit for one page")
                    content_total += size
                    if content_total > MAX_CONTENT_TOTAL:
                        break  # enough work for one paper: send what was read
                    text = page.extract_text() or ""
                except (PyPdfError, ValueError, KeyError, TypeError, RecursionError):
                    skipped += 1  # a page over the limits (or broken) is skipped, not fatal
                    continue
                parts.append(text[: budget - total + 1])
                total += len(parts[-1])
        except (PyPdfError, ValueError, OSError, RecursionError) as exc:
            raise InputError(
                Problem(P.INVALID_VALUE, str(path), None, None, f"cannot read the PDF: {exc}")
            ) from None
    return "\n\n".join(parts), skipped


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
    _check_sizes(reply)
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


def _check_sizes(reply: Any) -> None:
    """Refuse any string in the reply longer than ``MAX_FIELD_CHARS`` (a 20 MB title...)."""
    stack = [("reply", reply)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
            raise ValueError(f"{where} is {len(value)} characters (at most {MAX_FIELD_CHARS})")
        if isinstance(value, dict):
            stack += [(f"{where}.{k}", v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(f"{where}[{i}]", v) for i, v in enumerate(value)]


def draft_path(paper_id: str, venue: str) -> str:
    """Where the drafted paper file goes, relative to the repository."""
    return layout.paper_rel(slug(venue), paper_id)


def extract_claims(
    paper_path: Path,
    paper_id: str,
    *,
    venue: str = "ICML 2026",
    title: str | None = None,
    settings: LlmSettings | None = None,
    client: Any = None,
    repo: Path | None = None,
) -> tuple[str, str]:
    """(relative path of the paper file, its YAML text), drafted by the model and validated.

    With ``repo``, a paper file already there is refused before the model is called
    (a refused write must not cost a request).
    """
    problems = check_arguments(paper_path, paper_id, venue, title)
    if problems:
        raise InputError(problems)
    if repo is not None and (Path(repo) / draft_path(paper_id, venue)).exists():
        raise ReproauditError(
            f"{Path(repo) / draft_path(paper_id, venue)} already exists; not overwriting it",
            "pick another --paper-id, use --stdout to print the draft, or delete the file first",
        )
    settings = settings or LlmSettings.from_env()
    if not settings.configured and client is None:
        raise SettingError(
            "no LLM endpoint configured",
            "set REPROAUDIT_JUDGE_BASE_URL (and the model and key)",
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
    failures = []
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
            if len(raw) > MAX_REPLY_CHARS:
                raise ValueError(f"the reply is {len(raw)} characters (at most {MAX_REPLY_CHARS})")
            content = loads(raw, max_chars=MAX_REPLY_CHARS)["choices"][0]["message"]["content"]
            doc = draft_document(loads(content), paper_id, venue, title)  # depth bounded
        except OpenAIError as exc:
            raise EndpointError(f"the LLM endpoint failed: {exc}") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            failures.append(f"{where}: {first['msg']}"[:300])
            continue
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            failures.append(str(exc).splitlines()[0][:300])
            continue
        rel = draft_path(paper_id, venue)
        body = (
            "# Drafted by `reproaudit extract` from the paper's text: a maintainer must check\n"
            "# every claim, anchor and target before this file is merged.\n"
            + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
        )
        to_model(parse_yaml(body, rel), PaperFile)
        return rel, body
    raise EndpointError(
        f"the model's replies were not valid claims after {ATTEMPTS} tries: {failures[-1]}",
        "try another model, or write the paper file with `reproaudit new paper`",
    )
