"""Commands about the data files: validate, schema, new, task."""

from __future__ import annotations

from pathlib import Path

import click

from ..problems import format_problems, summary_line
from .options import emit, repo_option, stdout_option


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--changed-from",
    metavar="REF",
    help="Check only files changed since REF (merge base), plus what refers to them.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="github prints ::error annotations for Actions.",
)
@repo_option
def validate(paths: tuple[str, ...], changed_from: str | None, fmt: str, repo: Path) -> None:
    """Check data files against the schema and against each other.

    With no PATHS, the whole repository. Example: reproaudit validate logbooks/06Nk3dJDMq
    """
    from ..validate import validate_repo

    if not repo.is_dir():
        raise click.UsageError(f"--repo {repo} is not a directory")
    report = validate_repo(repo, paths, changed_from, here=Path.cwd())
    if fmt == "json":
        click.echo(format_problems(report.problems, "json"))
    else:
        if report.problems:
            click.echo(format_problems(report.problems, fmt))
        if fmt == "text":
            click.echo(summary_line(report.problems, report.checked))
    raise SystemExit(0 if report.ok else 1)


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder to write <kind>.schema.json files to [default: <repo>/schemas].",
)
@click.option("--check", is_flag=True, help="Exit 1 if the files on disk are out of date.")
@repo_option
def schema(out: Path | None, check: bool, repo: Path) -> None:
    """Write JSON Schemas of the paper, logbook, verdict, reviews and mentions files.

    Editors use them to complete and check YAML: put
    `# yaml-language-server: $schema=../../schemas/logbook.schema.json` on a file's first line.
    """
    from ..schemas import sync_schemas

    written, stale = sync_schemas(out or repo / "schemas", check=check)
    for path in written:
        click.echo(f"wrote {path}")
    if stale:
        hint = "\n  hint: run `reproaudit schema` and commit the result"
        click.echo(f"out of date: {', '.join(map(str, stale))}{hint}", err=True)
        raise SystemExit(1)


@click.group()
def new() -> None:
    """Scaffold a paper file or a logbook that validates as it is."""


@new.command("paper")
@click.argument("paper_id")
@click.option("--title", required=True, help="The paper's title.")
@click.option("--venue", default="ICML 2026", show_default=True)
@stdout_option
@repo_option
def new_paper_cmd(paper_id: str, title: str, venue: str, stdout: bool, repo: Path) -> None:
    """Write claims/<venue>/PAPER_ID.yaml with one example claim to edit."""
    from ..scaffold import new_paper

    path, text = new_paper(repo, paper_id, title, venue)
    emit({path: text}, stdout)


@new.command("logbook")
@click.argument("paper_id")
@click.option("--id", "logbook_id", required=True, help="Logbook id, e.g. alice-paging-1.")
@click.option("--contributor", required=True, help="Your GitHub handle.")
@click.option(
    "--agent", default="claude-code", show_default=True, help="Coding agent used, or none."
)
@stdout_option
@repo_option
def new_logbook_cmd(
    paper_id: str, logbook_id: str, contributor: str, agent: str, stdout: bool, repo: Path
) -> None:
    """Write logbooks/PAPER_ID/<id>.yaml with a result entry for every claim."""
    from ..scaffold import new_logbook, next_steps

    emit(new_logbook(repo, paper_id, logbook_id, contributor, agent), stdout)
    if not stdout:
        click.echo(next_steps(repo, paper_id, logbook_id))


@click.command()
@click.argument("paper_id")
@click.option("--json", "as_json", is_flag=True, help="The same brief as JSON, for agents.")
@click.option(
    "--text",
    "as_text",
    is_flag=True,
    help="Print the paper's text (fetched once from arXiv or its PDF link, then cached).",
)
@click.option(
    "--cache",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The text cache [default: $REPROAUDIT_CACHE or ~/.cache/reproaudit].",
)
@click.option("--arxiv-url", default="https://arxiv.org", show_default=True, hidden=True)
@repo_option
def task(
    paper_id: str, as_json: bool, as_text: bool, cache: Path | None, arxiv_url: str, repo: Path
) -> None:
    """Print everything a coding agent needs to reproduce PAPER_ID, as Markdown.

    The brief has the abstract and says where the paper's text is cached; --text prints it.
    """
    import json

    from ..scaffold import task_brief, task_data

    if as_text:
        from ..onboard import Hosts, paper_text
        from ..onboard.cache import default_cache

        text, where, _ = paper_text(
            repo, paper_id, cache or default_cache(), hosts=Hosts(arxiv_url=arxiv_url.rstrip("/"))
        )
        click.echo(text)
        click.echo(f"(cached at {where})", err=True)
    elif as_json:
        click.echo(json.dumps(task_data(repo, paper_id, cache), indent=2, ensure_ascii=False))
    else:
        click.echo(task_brief(repo, paper_id, cache))


COMMANDS = [validate, schema, new, task]
