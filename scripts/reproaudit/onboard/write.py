"""Paper files as ``onboard`` writes them, and how it tells its own from a person's edit.

A drafted file carries ``review.generated_sha256``: the SHA-256 of the file's
text as generated, with that value zeroed. Reading a file back, the same
computation says whether anyone changed a byte since (status set to
``reviewed``, a claim fixed, a comment added): such a file is never
overwritten. ``review.inputs_sha256`` says what the draft was made from, so an
unchanged paper is recognised without a request.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..fsutil import atomic_write
from ..loader import parse_yaml, to_model
from ..models import PaperFile
from .cache import storage_failure
from .sources import PaperRecord

FORMAT_VERSION = 1  # of what onboard writes; a new one redrafts nothing, it rewrites metadata
ZERO = "0" * 64
_GENERATED = re.compile(r"^(\s*generated_sha256:\s*)'?([0-9a-f]{64})'?\s*$", re.M)
MAX_FILE_BYTES = 1024 * 1024
HEADER = (
    "# Drafted by `reproaudit onboard` from the venue's listing and the paper's text.\n"
    "# A maintainer checks every claim, anchor and target against the paper, then sets\n"
    "# review.status to reviewed; until then the site lists this paper apart as a draft.\n"
    "# Once edited, onboard never overwrites this file.\n"
)


def inputs_hash(record: PaperRecord, venue: str, drafted_by: str) -> str:
    """What a draft depends on: the listing's metadata, the venue, the model and prompt."""
    doc = {
        "format": FORMAT_VERSION,
        "venue": venue,
        "by": drafted_by,
        "paper": record.fingerprint(),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def paper_document(
    record: PaperRecord,
    venue: str,
    claims: list[dict[str, Any]],
    review: dict[str, Any],
    code: str | None = None,
) -> dict[str, Any]:
    links = {
        "openreview": record.openreview,
        "arxiv": record.arxiv,
        "pdf": record.pdf,
    }
    meta: dict[str, Any] = {
        "id": record.id,
        "title": record.title,
        "venue": venue,
        "links": {k: v for k, v in links.items() if v},
        "authors": [
            {"name": a.name, **({"openreview": a.openreview} if a.openreview else {})}
            for a in record.authors
        ],
    }
    if record.code or code:
        meta["released"] = {"code": record.code or code}
    if record.track in ("oral", "spotlight"):
        meta["tags"] = {record.track: True}
    for key, value in (
        ("abstract", record.abstract),
        ("keywords", list(record.keywords) or None),
        ("track", record.track),
        ("license", record.license),
    ):
        if value:
            meta[key] = value
    return {"paper": meta, "claims_version": 1, "claims": claims, "review": review}


def render(doc: dict[str, Any], rel: str) -> str:
    """The file's text with ``review.generated_sha256`` filled in, validated before returning."""
    doc["review"]["generated_sha256"] = ZERO
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml: ~20x the pure-Python speed
    body = HEADER + yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    m = _GENERATED.search(body)
    assert m is not None  # the line was just written
    text = body[: m.start(2)] + digest + body[m.end(2) :]
    to_model(parse_yaml(text, rel), PaperFile)  # raises InputError: never write an invalid file
    return text


@dataclass(frozen=True)
class Existing:
    """What is at a paper file's path now."""

    kind: str  # absent | generated | edited
    review: dict[str, Any] | None = None
    claims: list[dict[str, Any]] | None = None


def generated_unchanged(text: str) -> bool:
    """True when ``text`` is exactly what onboard generated (its own hash matches)."""
    m = _GENERATED.search(text)
    if not m:
        return False
    zeroed = text[: m.start(2)] + ZERO + text[m.end(2) :]
    return hashlib.sha256(zeroed.encode("utf-8")).hexdigest() == m.group(2)


def read_existing(path: Path) -> Existing:
    """absent, generated (unchanged since onboard wrote it) or edited (anything else)."""
    try:
        if path.is_symlink() or (path.exists() and not path.is_file()):
            return Existing("edited")  # not ours to replace
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return Existing("absent")
    except OSError:
        return Existing("edited")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Existing("edited")
    if len(raw) > MAX_FILE_BYTES or not generated_unchanged(text):
        return Existing("edited")
    try:
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        return Existing("generated", doc.get("review") or {}, doc.get("claims") or [])
    except (yaml.YAMLError, AttributeError):
        return Existing("edited")


def write_paper(path: Path, text: str, *, replace: bool) -> bool:
    """Write ``text`` whole; with ``replace=False`` a file that appeared meanwhile wins (False)."""
    try:
        atomic_write(path, text, overwrite=replace)
    except FileExistsError:
        return False
    except OSError as exc:  # a full disk names the venue's folder
        raise storage_failure(exc, path, path.parent, "folder") from None
    return True


def clean_temp_files(folder: Path) -> int:
    """Remove temp files a killed run left (``.<name>.yaml.<random>.tmp``); how many."""
    removed = 0
    if folder.is_dir():
        for stray in folder.glob(".*.yaml.*.tmp"):
            if stray.is_file() and not stray.is_symlink():
                stray.unlink()
                removed += 1
    return removed
