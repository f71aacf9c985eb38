"""``reproaudit onboard``: a venue's accepted papers to draft paper files, resumably."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .options import repo_option


def _common(func):
    options = [
        click.option(
            "--venue",
            default=None,
            help="The venue's name in the files, e.g. 'ICLR 2025' "
            "[default: from the listing; required for a list].",
        ),
        click.option(
            "--cache",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Where PDFs, texts and the run's journal go, outside the repository "
            "[default: $REPROAUDIT_CACHE or ~/.cache/reproaudit].",
        ),
        click.option(
            "--concurrency",
            type=click.IntRange(1, 256),
            default=8,
            show_default=True,
            help="Papers in progress at once (each host still gets one request at a time).",
        ),
        click.option(
            "--limit",
            type=click.IntRange(min=0),
            default=None,
            help="Draft at most this many papers in this run.",
        ),
        click.option(
            "--budget",
            type=click.IntRange(min=0),
            default=None,
            help="Model tokens this run may spend (prompt + reply); papers past it wait.",
        ),
        click.option(
            "--price",
            type=click.FloatRange(min=0),
            default=1.0,
            show_default=True,
            help="USD per million tokens, for the cost estimate shown.",
        ),
        click.option(
            "--refresh",
            is_flag=True,
            help="Ask again for PDFs fetched before (conditional requests).",
        ),
        click.option("--arxiv-url", default="https://arxiv.org", show_default=True),
        click.option(
            "--arxiv-interval",
            type=click.FloatRange(min=0),
            default=3.0,
            show_default=True,
            help="Seconds between two arXiv requests.",
        ),
        click.option(
            "--venue-interval",
            type=click.FloatRange(min=0),
            default=1.0,
            show_default=True,
            help="Seconds between two requests to the venue's site.",
        ),
        click.option(
            "--max-wait",
            type=click.FloatRange(min=0),
            default=120.0,
            show_default=True,
            help="Longest rate-limit wait; a paper that would wait longer is left for "
            "the next run.",
        ),
        click.option(
            "--retries",
            type=click.IntRange(min=0),
            default=3,
            show_default=True,
            help="Tries after the first for a download or listing page that failed "
            "(reset, HTTP 5xx, cut short).",
        ),
        click.option(
            "--backoff",
            type=click.FloatRange(min=0),
            default=2.0,
            show_default=True,
            help="Seconds before the first retry; doubled before each next one.",
        ),
        repo_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group()
def onboard() -> None:
    """Onboard a venue: list its accepted papers, fetch their text, draft claim files.

    Idempotent and resumable: re-running with unchanged inputs sends no request and
    changes no file; a file a person edited is never overwritten. Drafting uses
    REPROAUDIT_JUDGE_BASE_URL / _MODEL / _API_KEY.

    A download or listing page that fails in a way that may pass (a reset, HTTP 408, 500,
    502, 503 or 504, a reply or PDF cut short) is tried again --retries times, --backoff
    seconds later and twice as long each next time, within the run; what still fails is
    named by host, status and tries. A full disk stops the run and names the folder.
    """


def _options(kw: dict):
    from ..onboard import Hosts, Options
    from ..onboard.cache import default_cache

    options = Options(
        venue=kw["venue"] or "",
        cache=kw["cache"] or default_cache(),
        concurrency=kw["concurrency"],
        limit=kw["limit"],
        budget=kw["budget"],
        price=kw["price"],
        refresh=kw["refresh"],
    )
    hosts = dict(
        arxiv_url=kw["arxiv_url"].rstrip("/"),
        arxiv_interval=kw["arxiv_interval"],
        venue_interval=kw["venue_interval"],
        max_wait=kw["max_wait"],
        retries=kw["retries"],
        backoff=kw["backoff"],
    )
    if kw.get("api_url"):
        hosts.update(api_url=kw["api_url"].rstrip("/"), site_url=kw["site_url"].rstrip("/"))
    return options, Hosts(**hosts)


def _onboard(run, repo: Path, source, kw: dict) -> None:
    """Run ``run`` (one source's onboarding) with the shared options, progress on stderr."""
    from ..onboard import Progress

    options, hosts = _options(kw)
    result, listing = run(repo, source, options, hosts=hosts, progress=Progress(stream=sys.stderr))
    _report(result, listing)


def _report(result, listing) -> None:
    from ..problems import format_problems

    if result.problems:
        click.echo(format_problems(result.problems, "text"), err=True)
    c = result.progress.counts
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(listing.skipped.items()))
    click.echo(
        f"{c['written']} written, {c['unchanged']} unchanged, {c['edited']} edited by hand (kept), "
        f"{c['deferred']} deferred, {c['over_budget']} over budget, {c['failed']} failed, "
        f"{c['duplicate']} duplicate ids; {result.progress.dropped_quote} claims dropped "
        f"(quote not in the text), {result.progress.dropped_invalid} invalid"
        + (f"; listing skipped {skipped}" if skipped else "")
    )
    shown = sorted(result.failed.items())[:10]
    for paper, why in shown:
        click.echo(f"failed: {paper}: {why}", err=True)
    if len(result.failed) > len(shown):
        click.echo(f"... and {len(result.failed) - len(shown)} more failed", err=True)
    if result.stopped:
        click.echo(f"stopped: {result.stopped}", err=True)
    left = c["deferred"] + c["over_budget"] + c["failed"]
    if left or result.stopped:
        click.echo("run the same command again to continue", err=True)
        raise SystemExit(1)


@onboard.command("openreview")
@click.argument("venue_id")
@click.option(
    "--api-url",
    default="https://api2.openreview.net",
    show_default=True,
    help="OpenReview API v2 base URL.",
)
@click.option(
    "--site-url",
    default="https://openreview.net",
    show_default=True,
    help="OpenReview site, for forum links and PDFs.",
)
@_common
def onboard_openreview_cmd(venue_id: str, repo: Path, **kw) -> None:
    """Onboard VENUE_ID's accepted papers from OpenReview API v2 (withdrawn and rejected skipped).

    Example: reproaudit onboard openreview ICLR.cc/2025/Conference --venue 'ICLR 2025'

    Credentials, when the venue needs them: OPENREVIEW_TOKEN, or OPENREVIEW_USERNAME and
    OPENREVIEW_PASSWORD.
    """
    from ..onboard import onboard_openreview

    _onboard(onboard_openreview, repo, venue_id, kw)


@onboard.command("list")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_common
def onboard_list_cmd(file: Path, repo: Path, **kw) -> None:
    """Onboard the papers of a CSV or JSONL list: id, title, authors, abstract, arxiv, pdf.

    Example: reproaudit onboard list colt2026.csv --venue 'COLT 2026'
    """
    from ..onboard import onboard_list

    _onboard(onboard_list, repo, file, kw)


COMMANDS = [onboard]
