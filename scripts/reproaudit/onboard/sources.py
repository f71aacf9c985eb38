"""Where a venue's accepted papers come from: OpenReview API v2, or a CSV / JSONL list.

Both give ``PaperRecord``s, the metadata a paper file is written from. The
listing is untrusted data: every string is checked to be one line of plain text
(the abstract may span lines), ids must be paper ids, URLs http(s); a record
that fails is reported by where it came from (note id, or file and line) and
left out, never half-used.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from .. import problems as P
from ..boundedjson import loads
from ..errors import InputError, SettingError
from ..layout import RESERVED_HINT, reserved_message
from ..models import ID_PATTERN, check_one_line
from ..problems import Problem
from .http import Polite, Unavailable, describe

MAX_LIST_BYTES = 64 * 1024 * 1024
MAX_ABSTRACT = 10_000
PAGE_SIZE = 1000  # OpenReview API v2's largest page
MAX_PAGES = 200  # 200,000 notes: far more than any venue has
TRACKS = ("oral", "spotlight", "poster")
# Words in a decision that mean the paper is not in the proceedings.
_NOT_ACCEPTED = re.compile(r"withdrawn|reject|submitted to|desk", re.I)
_ARXIV = re.compile(
    r"^(?:arxiv:)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)$", re.I
)

LISTING_CHARS = 64 * 1024 * 1024  # one page of notes (abstracts included), bounded


@dataclass(frozen=True)
class Author:
    name: str
    openreview: str | None = None


@dataclass(frozen=True)
class PaperRecord:
    """One accepted paper as a venue lists it; ``origin`` says where, for messages."""

    id: str
    title: str
    origin: str
    authors: tuple[Author, ...] = ()
    abstract: str | None = None
    keywords: tuple[str, ...] = ()
    track: str | None = None
    license: str | None = None
    arxiv: str | None = None
    pdf: str | None = None
    openreview: str | None = None
    code: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def fingerprint(self) -> dict[str, Any]:
        """Everything the paper file is written from, as plain data (hashed for idempotence)."""
        return {
            "id": self.id,
            "title": self.title,
            "authors": [[a.name, a.openreview] for a in self.authors],
            "abstract": self.abstract,
            "keywords": list(self.keywords),
            "track": self.track,
            "license": self.license,
            "arxiv": self.arxiv,
            "pdf": self.pdf,
            "openreview": self.openreview,
            "code": self.code,
        }


def track_of(venue: str) -> str | None:
    """oral, spotlight or poster from a decision string such as 'ICLR 2025 Oral'."""
    words = set(re.findall(r"[a-z]+", venue.lower()))
    return next((t for t in TRACKS if t in words), None)


def venue_name(venue: str) -> str:
    """'ICLR 2025 Oral' -> 'ICLR 2025': the venue without its track."""
    kept = [w for w in venue.split() if w.lower() not in TRACKS]
    return " ".join(kept).strip() or venue.strip()


def accepted(venue: str | None) -> bool:
    return bool(venue) and not _NOT_ACCEPTED.search(venue or "")


def _one_line(value: Any, where: str, name: str, problems: list[Problem]) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        problems.append(Problem(P.INVALID_VALUE, where, None, name, "must be text"))
        return None
    text = " ".join(value.split())  # line breaks in a title are layout, not content
    try:
        check_one_line(text)
    except ValueError as exc:
        problems.append(Problem(P.INVALID_VALUE, where, None, name, str(exc)))
        return None
    return text


def _url(value: Any, where: str, name: str, problems: list[Problem]) -> str | None:
    text = _one_line(value, where, name, problems)
    if text and not re.match(r"^https?://[^\s/$.?#][^\s]*$", text):
        problems.append(
            Problem(P.INVALID_VALUE, where, None, name, f"{text[:80]!r} is not an http(s) URL")
        )
        return None
    return text


def _abstract(value: Any, where: str, problems: list[Problem]) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        problems.append(Problem(P.INVALID_VALUE, where, None, "abstract", "must be text"))
        return None
    cleaned = "".join(ch for ch in value if ch in "\n\t" or ch.isprintable() or ch == " ")
    cleaned = cleaned.replace("\t", " ").strip()
    if len(cleaned) > MAX_ABSTRACT:
        cleaned = cleaned[:MAX_ABSTRACT].rsplit(" ", 1)[0] + " ..."
    return cleaned or None


def _arxiv(value: Any, where: str, problems: list[Problem]) -> str | None:
    text = _one_line(value, where, "arxiv", problems)
    if text is None:
        return None
    text = re.sub(r"^https?://arxiv\.org/(?:abs|pdf)/", "", text).removesuffix(".pdf")
    m = _ARXIV.match(text)
    if not m:
        problems.append(
            Problem(P.INVALID_VALUE, where, None, "arxiv", f"{text[:40]!r} is not an arXiv id")
        )
        return None
    return m.group(1)


def make_record(raw: dict[str, Any], origin: str, problems: list[Problem]) -> PaperRecord | None:
    """A record from plain fields (one list row or one OpenReview note, already unwrapped)."""
    found: list[Problem] = []
    paper_id = raw.get("id")
    if not isinstance(paper_id, str) or not re.fullmatch(ID_PATTERN, paper_id):
        found.append(
            Problem(
                P.INVALID_VALUE,
                origin,
                None,
                "id",
                f"{str(paper_id)[:80]!r} is not a paper id",
                "letters, digits, '.', '_' and '-' (at most 64), e.g. the OpenReview id",
            )
        )
    elif (why := reserved_message("paper", paper_id)) is not None:
        found.append(Problem(P.RESERVED_ID, origin, None, "id", why, RESERVED_HINT))
    title = _one_line(raw.get("title"), origin, "title", found)
    if not title and not any(p.field == "title" for p in found):
        found.append(Problem(P.MISSING_FIELD, origin, None, "title", "the paper has no title"))
    authors = []
    ids = raw.get("authorids") or []
    names = raw.get("authors") or []
    if isinstance(names, str):
        names = [n for n in re.split(r"\s*;\s*|\s+and\s+", names) if n.strip()]
    if not isinstance(names, list):
        found.append(Problem(P.INVALID_VALUE, origin, None, "authors", "must be a list of names"))
        names = []
    for i, item in enumerate(names):
        if isinstance(item, dict):
            name, profile = item.get("name"), item.get("openreview")
        else:
            name, profile = item, ids[i] if isinstance(ids, list) and i < len(ids) else None
        name = _one_line(name, origin, f"authors[{i}]", found)
        profile = _one_line(profile, origin, f"authors[{i}].openreview", found)
        if name:
            # OpenReview lists a profile id (~First_Last1) or an e-mail for authors without one:
            # an address is personal data, never copied into a public file.
            authors.append(Author(name, profile if profile and profile.startswith("~") else None))
    keywords = raw.get("keywords") or []
    if isinstance(keywords, str):
        keywords = [k for k in re.split(r"\s*[;,]\s*", keywords) if k]
    kept_keywords = tuple(
        k
        for i, kw in enumerate(keywords[:50] if isinstance(keywords, list) else [])
        if (k := _one_line(kw, origin, f"keywords[{i}]", found))
    )
    track = _one_line(raw.get("track"), origin, "track", found)
    if track is not None:
        track = track.lower()
        if track not in TRACKS:
            found.append(
                Problem(
                    P.INVALID_VALUE,
                    origin,
                    None,
                    "track",
                    f"{track!r}: use oral, spotlight or poster",
                )
            )
            track = None
    record = PaperRecord(
        id=str(paper_id),
        title=title or "",
        origin=origin,
        authors=tuple(authors),
        abstract=_abstract(raw.get("abstract"), origin, found),
        keywords=kept_keywords,
        track=track,
        license=_one_line(raw.get("license"), origin, "license", found),
        arxiv=_arxiv(raw.get("arxiv"), origin, found),
        pdf=_url(raw.get("pdf"), origin, "pdf", found),
        openreview=_url(raw.get("openreview"), origin, "openreview", found),
        code=_url(raw.get("code"), origin, "code", found),
    )
    problems += found
    return None if any(p.field in ("id", "title") for p in found) else record


# --- a CSV or JSONL list ----------------------------------------------------------

LIST_COLUMNS = (
    "id",
    "title",
    "authors",
    "abstract",
    "arxiv",
    "pdf",
    "keywords",
    "track",
    "license",
    "openreview",
    "code",
)


def read_list(path: Path) -> tuple[list[PaperRecord], list[Problem]]:
    """Records from a CSV (a header row naming the columns) or JSONL file (one object a line).

    Columns: id, title, authors (``;``-separated in CSV; in JSONL a list of names
    or of ``{name, openreview}``), abstract, arxiv, pdf, and optionally keywords,
    track, license, openreview, code. Unknown columns are refused with their name.
    """
    rel = str(path)
    try:
        with open(path, "rb") as handle:
            if not os.path.isfile(path):
                raise InputError(Problem(P.INVALID_VALUE, rel, None, None, "not a regular file"))
            raw = handle.read(MAX_LIST_BYTES + 1)
    except OSError as exc:
        raise InputError(
            Problem(P.INVALID_VALUE, rel, None, None, f"cannot read: {exc.strerror}")
        ) from None
    if len(raw) > MAX_LIST_BYTES:
        raise InputError(
            Problem(P.FILE_TOO_LARGE, rel, None, None, f"over {P.human_size(MAX_LIST_BYTES)}")
        )
    text = raw.decode("utf-8-sig", errors="replace")
    problems: list[Problem] = []
    records = []
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        rows = _jsonl_rows(text, rel, problems)
    elif path.suffix.lower() == ".csv":
        rows = _csv_rows(text, rel, problems)
    else:
        raise InputError(
            Problem(
                P.INVALID_VALUE,
                rel,
                None,
                None,
                f"{path.suffix or 'no extension'}: give a .csv or .jsonl list",
            )
        )
    for line, row in rows:
        unknown = sorted(set(row) - set(LIST_COLUMNS))
        if unknown:
            hint = P.did_you_mean(unknown[0], LIST_COLUMNS)
            problems.append(
                Problem(
                    P.UNKNOWN_FIELD,
                    rel,
                    line,
                    unknown[0],
                    f"unknown column {unknown[0]!r}",
                    f"did you mean {hint!r}?" if hint else f"columns: {', '.join(LIST_COLUMNS)}",
                )
            )
            continue
        found: list[Problem] = []
        record = make_record(row, f"{rel}:{line}", found)
        problems += [dataclasses.replace(p, path=rel, line=line) for p in found]
        if record:
            records.append(record)
    return records, problems


def _jsonl_rows(text: str, rel: str, problems: list[Problem]) -> Iterator[tuple[int, dict]]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = loads(line)
        except ValueError as exc:
            problems.append(Problem(P.INVALID_VALUE, rel, number, None, f"not JSON: {exc}"))
            continue
        if not isinstance(row, dict):
            problems.append(
                Problem(P.INVALID_VALUE, rel, number, None, "each line must be a JSON object")
            )
            continue
        yield number, row


def _csv_rows(text: str, rel: str, problems: list[Problem]) -> Iterator[tuple[int, dict]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    for row in reader:
        if None in row:
            problems.append(
                Problem(P.INVALID_VALUE, rel, reader.line_num, None, "more cells than columns")
            )
            continue
        yield reader.line_num, {k.strip(): v for k, v in row.items() if k and v not in (None, "")}


# --- OpenReview API v2 ---------------------------------------------------------------


@dataclass
class Listing:
    """What a venue listing gave: the accepted records, and what was left out and why."""

    records: list[PaperRecord]
    skipped: dict[str, int]
    problems: list[Problem]
    requests: int
    venue: str | None  # the venue's display name from the notes ('ICLR 2025')


def openreview_token(api_url: str, http: Polite, env: dict[str, str] | None = None) -> str | None:
    """A token from OPENREVIEW_TOKEN, or a login with OPENREVIEW_USERNAME / _PASSWORD, or None.

    Accepted papers of a public venue are readable without one.
    """
    env = dict(os.environ if env is None else env)
    if env.get("OPENREVIEW_TOKEN"):
        return env["OPENREVIEW_TOKEN"]
    user, password = env.get("OPENREVIEW_USERNAME"), env.get("OPENREVIEW_PASSWORD")
    if not user or not password:
        return None
    try:
        response = http.request("POST", f"{api_url}/login", json={"id": user, "password": password})
    except Unavailable as exc:
        raise SettingError(f"cannot log in to OpenReview: {exc}", _LATER) from None
    except httpx.HTTPError as exc:
        raise SettingError(f"cannot reach OpenReview at {api_url}: {describe(exc)}") from None
    if response.status_code != 200:
        raise SettingError(
            f"OpenReview login failed (HTTP {response.status_code}) for OPENREVIEW_USERNAME",
            "check OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD, or set OPENREVIEW_TOKEN",
        )
    try:
        return str(loads(response.content)["token"])
    except (ValueError, KeyError, TypeError):
        raise SettingError("OpenReview login answered without a token") from None


_LATER = (
    "the server or the network failed, not the venue id; run the same command again later "
    "(nothing was written)"
)
_ACCOUNT = (
    "the venue needs an account: set OPENREVIEW_TOKEN, or OPENREVIEW_USERNAME and "
    "OPENREVIEW_PASSWORD"
)
_STATUS_HINTS = {
    400: "check the venue id (e.g. ICLR.cc/2025/Conference) and --api-url",
    401: _ACCOUNT,
    403: _ACCOUNT,
    404: "check --api-url: it should be OpenReview API v2 (https://api2.openreview.net)",
}


def _value(content: dict[str, Any], key: str) -> Any:
    item = content.get(key)
    return item.get("value") if isinstance(item, dict) else None


def note_record(
    note: dict[str, Any], venue_id: str, site_url: str, problems: list[Problem]
) -> tuple[PaperRecord | None, str | None, str | None]:
    """(record, why it was skipped, the decision string) for one API v2 note."""
    raw_content = note.get("content")
    content: dict[str, Any] = raw_content if isinstance(raw_content, dict) else {}
    venue = _value(content, "venue")
    venue = venue if isinstance(venue, str) else None
    if _value(content, "venueid") != venue_id:
        return None, "other venue id (withdrawn, rejected or not decided)", venue
    if not accepted(venue):
        return None, "withdrawn or rejected", venue
    note_id = note.get("forum") or note.get("id")
    pdf = _value(content, "pdf")
    if isinstance(pdf, str) and pdf.startswith("/"):
        pdf = site_url + pdf
    raw = {
        "id": note_id,
        "title": _value(content, "title"),
        "authors": _value(content, "authors"),
        "authorids": _value(content, "authorids"),
        "abstract": _value(content, "abstract"),
        "keywords": _value(content, "keywords"),
        "track": track_of(venue or ""),
        "license": note.get("license"),
        "pdf": pdf,
        "openreview": f"{site_url}/forum?id={note_id}" if isinstance(note_id, str) else None,
        "code": _value(content, "code")
        if str(_value(content, "code") or "").startswith("http")
        else None,
    }
    record = make_record(raw, f"OpenReview note {str(note_id)[:64]}", problems)
    return record, None if record else "invalid metadata", venue


def list_openreview(
    venue_id: str,
    http: Polite,
    *,
    api_url: str,
    site_url: str = "https://openreview.net",
    token: str | None = None,
    page_size: int = PAGE_SIZE,
) -> Listing:
    """Every accepted paper of ``venue_id``: ``GET /notes?content.venueid=...`` page by page."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    records: list[PaperRecord] = []
    skipped: dict[str, int] = {}
    problems: list[Problem] = []
    venues: dict[str, int] = {}
    seen: set[str] = set()
    requests = 0
    for page in range(MAX_PAGES):
        params = {"content.venueid": venue_id, "limit": page_size, "offset": page * page_size}
        where = f"(content.venueid={venue_id}, offset {page * page_size})"
        try:
            response = http.request("GET", f"{api_url}/notes", params=params, headers=headers)
        except Unavailable as exc:
            raise SettingError(f"cannot list the venue's papers: {exc} {where}", _LATER) from None
        except httpx.HTTPError as exc:
            raise SettingError(
                f"cannot reach OpenReview at {api_url}: {describe(exc)}",
                "check --api-url and the network; nothing was written",
            ) from None
        requests += http.last_attempts
        if response.status_code != 200:
            raise SettingError(
                f"OpenReview ({urlsplit(api_url).netloc}) answered HTTP {response.status_code} "
                f"to GET /notes {where}",
                _STATUS_HINTS.get(
                    response.status_code, _LATER if response.status_code >= 500 else None
                )
                or _STATUS_HINTS[400],
            )
        try:
            doc = loads(response.content, max_chars=LISTING_CHARS)
            notes = doc["notes"]
            if not isinstance(notes, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise SettingError(f"{api_url}/notes did not answer an API v2 note list") from None
        for note in notes:
            if not isinstance(note, dict):
                continue
            record, why, venue = note_record(note, venue_id, site_url, problems)
            if record is None:
                skipped[why or "invalid"] = skipped.get(why or "invalid", 0) + 1
                continue
            if record.id in seen:
                continue  # a page boundary that moved under us
            seen.add(record.id)
            records.append(record)
            if venue:
                name = venue_name(venue)
                venues[name] = venues.get(name, 0) + 1
        count = doc.get("count")
        if len(notes) < page_size or (isinstance(count, int) and (page + 1) * page_size >= count):
            break
    venue = max(venues, key=lambda v: venues[v]) if venues else None
    return Listing(records, skipped, problems, requests, venue)
