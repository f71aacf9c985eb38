"""Commands that show or publish the corpus: stats, build, export, publish."""

from __future__ import annotations

from pathlib import Path

import click

from .options import corpus_gate, repo_option, strict_option


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
@strict_option
@repo_option
def stats(as_json: bool, strict: bool, repo: Path) -> None:
    """Print the headline table: papers per bucket, claims per fold.

    Reads verdict files as they are; it never judges.
    """
    import json

    from ..export import headline_stats
    from ..fold import format_stats

    table = headline_stats(corpus_gate(repo, strict))
    click.echo(json.dumps(table, indent=2) if as_json else format_stats(table))


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the site goes [default: <repo>/_site].",
)
@click.option(
    "--paper",
    "papers",
    multiple=True,
    metavar="P",
    help="Build only this paper's pages (and what they link to); repeatable.",
)
@click.option(
    "--site-url",
    metavar="URL",
    help="Where the site is published (absolute links in badges, feeds, sitemap) "
    "[default: site_url in mkdocs.yml].",
)
@click.option("--serve", is_flag=True, help="Then serve the site on http://127.0.0.1:8000/.")
@click.option("--port", type=int, default=8000, show_default=True)
@strict_option
@repo_option
def build(
    out: Path | None,
    papers: tuple[str, ...],
    site_url: str | None,
    serve: bool,
    port: int,
    strict: bool,
    repo: Path,
) -> None:
    """Build the public site with mkdocs-material (strict).

    Logbooks without a verdict are judged in memory, offline (rules mode); nothing is
    written into verdicts/ (only `reproaudit judge` writes there).
    """
    from ..site.build import build_site

    corpus = corpus_gate(repo, strict)
    report = build_site(repo, out, papers=list(papers) or None, site_url=site_url, corpus=corpus)
    times = ", ".join(f"{name} {sec:.1f} s" for name, sec in report.seconds.items())
    click.echo(
        f"built {report.pages} pages and {report.files} files into {report.out} "
        f"({report.judged} logbook(s) judged first, in memory; {times})"
    )
    if serve:
        _serve(report.out, port)


def _serve(folder: Path, port: int) -> None:
    import contextlib
    import functools
    import http.server

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        click.echo(f"serving {folder} on http://127.0.0.1:{port}/ (Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


@click.command()
@click.option(
    "--format",
    "formats",
    type=click.Choice(["csv", "parquet", "jsonl"]),
    multiple=True,
    help="Repeatable [default: all three].",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("export"),
    show_default=True,
)
@strict_option
@repo_option
def export(formats: tuple[str, ...], out: Path, strict: bool, repo: Path) -> None:
    """Write the claims x verdicts table as gzipped CSV, Parquet and/or gzipped JSON Lines.

    The files the site's downloads and the Hub dataset publish: claims-verdicts.csv.gz,
    claims-verdicts.parquet, claims-verdicts.jsonl.gz (pandas and DuckDB read them as they are).
    """
    from ..export import FORMATS, corpus_frame, write_export

    frame = corpus_frame(corpus_gate(repo, strict))
    for path in write_export(frame, out, formats or FORMATS):
        click.echo(f"wrote {path} ({len(frame)} rows)")


@click.command()
@click.option("--repo-id", required=True, metavar="ORG/NAME", help="The Hub dataset to update.")
@click.option("--dry-run", is_flag=True, help="Write the folder and say what would be uploaded.")
@click.option("--token", envvar="HF_TOKEN", help="Hub token [env: HF_TOKEN].")
@click.option(
    "--folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the files here and keep them [default: a temporary folder, removed].",
)
@repo_option
def publish(
    repo_id: str, dry_run: bool, token: str | None, folder: Path | None, repo: Path
) -> None:
    """Publish the export and a dataset card to a Hugging Face Hub dataset."""
    from ..publish import publish_dataset

    click.echo(publish_dataset(repo, repo_id, token=token, dry_run=dry_run, folder=folder))


COMMANDS = [stats, build, export, publish]
