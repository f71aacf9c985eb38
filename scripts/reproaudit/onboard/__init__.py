"""Onboarding a whole venue: its accepted papers to draft paper files, politely and resumably.

``sources`` lists the papers (OpenReview API v2, or a CSV / JSONL list),
``http`` spaces requests per host and honours 429s, ``fetch`` caches each
paper's PDF and text by hash outside the repository, ``draft`` asks the model
for claims with verbatim quotes, ``write`` renders files that know whether a
person edited them, ``state`` journals the run, and ``run`` puts them together.
The two entry points below are what ``reproaudit onboard`` calls.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError, SettingError
from ..llm.endpoint import Endpoint
from ..llm.halt import Halt
from ..llm.settings import LlmSettings
from ..problems import Problem
from .http import BACKOFF, RETRIES, Polite
from .run import Options, Progress, Result, onboard
from .sources import Listing, list_openreview, openreview_token, read_list


@dataclass(frozen=True)
class Hosts:
    """Where the outside services are, and how far apart requests to each must be."""

    api_url: str = "https://api2.openreview.net"
    site_url: str = "https://openreview.net"
    arxiv_url: str = "https://arxiv.org"
    arxiv_interval: float = 3.0
    venue_interval: float = 1.0
    max_wait: float = 120.0
    retries: int = RETRIES  # tries after the first for a reset, a 5xx or a cut reply
    backoff: float = BACKOFF  # seconds before the first retry, doubled each time


def _polite(hosts: Hosts, halt: Halt) -> Polite:
    from urllib.parse import urlsplit

    intervals = {
        urlsplit(hosts.arxiv_url).netloc: hosts.arxiv_interval,
        urlsplit(hosts.site_url).netloc: hosts.venue_interval,
    }
    return Polite(
        intervals=intervals,
        default_interval=hosts.venue_interval,
        max_wait=hosts.max_wait,
        halt=halt,
        retries=hosts.retries,
        backoff=hosts.backoff,
    )


def _endpoint(settings: LlmSettings, hosts: Hosts) -> Endpoint:
    if not settings.configured:
        raise SettingError(
            "no LLM endpoint configured to draft claims",
            "set REPROAUDIT_JUDGE_BASE_URL (and REPROAUDIT_JUDGE_MODEL, REPROAUDIT_JUDGE_API_KEY)",
        )
    return Endpoint(
        str(settings.base_url), settings.api_key, timeout=300.0, max_wait=hosts.max_wait
    )


def _run(
    repo: Path,
    listing: Listing,
    options: Options,
    settings: LlmSettings,
    http: Polite,
    halt: Halt,
    progress: Progress,
    hosts: Hosts,
) -> Result:
    endpoint = _endpoint(settings, hosts)
    progress.http = http
    progress.price = options.price
    try:
        result = onboard(
            repo,
            listing.records,
            replace(options, arxiv_url=hosts.arxiv_url),
            endpoint=endpoint,
            model=settings.model,
            http=http,
            halt=halt,
            progress=progress,
        )
    finally:
        endpoint.close()
    result.problems[:0] = listing.problems
    return result


def onboard_openreview(
    repo: Path,
    venue_id: str,
    options: Options,
    *,
    hosts: Hosts = Hosts(),
    settings: LlmSettings | None = None,
    progress: Progress | None = None,
    halt: Halt | None = None,
) -> tuple[Result, Listing]:
    """Onboard the accepted papers of OpenReview venue ``venue_id`` (ICLR.cc/2025/Conference)."""
    settings = settings or LlmSettings.from_env()
    _endpoint(settings, hosts).close()  # refuse before any request when no model is set
    halt = halt or Halt()
    progress = progress or Progress()
    http = _polite(hosts, halt)
    try:
        token = openreview_token(hosts.api_url, http)
        listing = list_openreview(
            venue_id, http, api_url=hosts.api_url, site_url=hosts.site_url, token=token
        )
        if not listing.records:
            raise SettingError(
                f"OpenReview lists no accepted paper with content.venueid={venue_id} "
                f"({sum(listing.skipped.values())} notes skipped)",
                "check the venue id, e.g. ICLR.cc/2025/Conference",
            )
        if not options.venue:
            options = replace(options, venue=listing.venue or venue_id.split("/")[0])
        return _run(repo, listing, options, settings, http, halt, progress, hosts), listing
    finally:
        http.close()


def onboard_list(
    repo: Path,
    path: Path,
    options: Options,
    *,
    hosts: Hosts = Hosts(),
    settings: LlmSettings | None = None,
    progress: Progress | None = None,
    halt: Halt | None = None,
) -> tuple[Result, Listing]:
    """Onboard the papers of a CSV or JSONL list (for venues not on OpenReview)."""
    settings = settings or LlmSettings.from_env()
    records, problems = read_list(path)
    errors = [p for p in problems if p.is_error]
    if errors and not records:
        raise InputError(errors)
    _endpoint(settings, hosts).close()
    if not options.venue:
        raise SettingError("a list needs --venue, e.g. --venue 'COLT 2026'")
    listing = Listing(records, {}, problems, 0, options.venue)
    halt = halt or Halt()
    http = _polite(hosts, halt)
    try:
        return _run(
            repo, listing, options, settings, http, halt, progress or Progress(), hosts
        ), listing
    finally:
        http.close()


def paper_text(
    root: Path, paper_id: str, cache: Path, *, hosts: Hosts = Hosts()
) -> tuple[str, Path, int]:
    """(text, where it is cached, requests sent) for ``task --text``: fetched once, then cached."""
    from ..repo import Corpus
    from ..scaffold import _require_paper
    from .cache import TextCache, cached_text_path, record_of
    from .fetch import FetchError, fetch_text

    paper = _require_paper(Corpus(root), paper_id)
    store = TextCache(cache)
    record = record_of(paper.paper)
    known = paper.review.text_sha256 if paper.review else None
    where = cached_text_path(store, record, known, hosts.arxiv_url)
    if where is not None:
        return where.read_text(encoding="utf-8"), where, 0
    if not (record.arxiv or record.pdf):
        raise SettingError(
            f"paper {paper_id} has no arXiv id and no PDF link, so its text cannot be fetched",
            "add links.arxiv or links.pdf to its paper file",
        )
    halt = Halt()
    http = _polite(hosts, halt)
    try:
        got = fetch_text(record, store, http, arxiv_url=hosts.arxiv_url)
    except FetchError as exc:
        raise SettingError(f"cannot fetch the text of {paper_id}: {exc}") from None
    finally:
        http.close()
    return got.text, store.text_path(got.text_sha256), got.requests


__all__ = [
    "Hosts",
    "Options",
    "Problem",
    "Progress",
    "Result",
    "onboard_list",
    "onboard_openreview",
    "paper_text",
]
