"""Contributor and maintainer tools: import, extract, review."""

from __future__ import annotations

from pathlib import Path

import click

from .options import emit, repo_option, stdout_option


@click.group("import")
def import_() -> None:
    """Turn work done elsewhere into reproaudit files (Trackio logbooks, PaperBench rubrics)."""


@import_.command("trackio")
@click.argument("workspace", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--paper", help="The paper id, when the logbook's metadata does not name it.")
@click.option("--contributor", help="Your GitHub handle (an unpublished logbook has none).")
@stdout_option
@repo_option
def import_trackio_cmd(
    workspace: Path, paper: str | None, contributor: str | None, stdout: bool, repo: Path
) -> None:
    """Import a Trackio logbook as logbooks/<paper>/<id>.yaml (re-importing updates it)."""
    from ..importers import import_trackio, write_import

    path, text = import_trackio(workspace, repo, paper=paper, contributor=contributor)
    if stdout:
        click.echo(text, nl=False)
        return
    existed = path.exists()
    write_import(path, text)
    click.echo(f"{'updated' if existed else 'wrote'} {path}")


@import_.command("paperbench")
@click.argument("rubric", type=click.Path(exists=True, path_type=Path))
@click.option("--paper-id", required=True, help="The id for the paper file.")
@click.option("--venue", default="ICML 2024", show_default=True)
@click.option("--title", help="The title, when config.yaml beside the rubric has none.")
@stdout_option
@repo_option
def import_paperbench_cmd(
    rubric: Path, paper_id: str, venue: str, title: str | None, stdout: bool, repo: Path
) -> None:
    """Import a PaperBench rubric as a paper file: one claim per Result Analysis leaf."""
    from ..importers import import_paperbench

    rel, text = import_paperbench(rubric, paper_id=paper_id, venue=venue, title=title)
    emit({repo / rel: text}, stdout)


@click.command()
@click.argument("paper", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--paper-id", required=True, help="The id for the paper file (OpenReview id).")
@click.option("--venue", default="ICML 2026", show_default=True)
@click.option("--title", help="Use this title rather than the model's reading of it.")
@stdout_option
@repo_option
def extract(
    paper: Path, paper_id: str, venue: str, title: str | None, stdout: bool, repo: Path
) -> None:
    """Draft a paper file's claims from PAPER (.pdf, .md, .txt) with the LLM endpoint.

    Uses REPROAUDIT_JUDGE_BASE_URL / _MODEL / _API_KEY. A maintainer reviews the draft in a PR.
    """
    from ..extract import extract_claims

    rel, text = extract_claims(
        paper, paper_id, venue=venue, title=title, repo=None if stdout else repo
    )
    emit({repo / rel: text}, stdout)


@click.group()
def review() -> None:
    """Human review tools for claims no script can judge."""


@review.command("pairs")
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where judgements go [default: FOLDER/judgements.csv].",
)
@click.option("--port", type=int, default=8765, show_default=True)
def review_pairs_cmd(folder: Path, out: Path | None, port: int) -> None:
    """Judge image pairs blind in the browser: FOLDER/a/ and FOLDER/b/ hold the images.

    Serves on 127.0.0.1 only. Sides and order are drawn afresh each session and never
    served; each judgement is saved at once to a CSV beside the images, which records
    which folder showed on which side (do not open it while judging).
    """
    import contextlib

    from ..review_pairs import Session, make_server

    session = Session.open(folder, out)
    server = make_server(session, port)
    click.echo(
        f"{len(session.pairs)} pairs, {len(session.judgements)} judged; open "
        f"http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops); "
        f"saving to {session.out}"
    )
    with contextlib.suppress(KeyboardInterrupt), server:
        server.serve_forever()


COMMANDS = [import_, extract, review]
