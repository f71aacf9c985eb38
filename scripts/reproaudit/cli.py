"""The ``reproaudit`` command line: parse options, call the library, set the exit code.

Exit codes: 0 success, 1 invalid input or a failed check, 2 a usage error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .fsutil import atomic_write
from .problems import Problem, ReproauditError, format_problems, summary_line

repo_option = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The audit repository (holds claims/, logbooks/, verdicts/).",
)


def _fail(exc: ReproauditError) -> None:
    click.echo(str(exc), err=True)
    raise SystemExit(1)


def _corpus_gate(repo: Path, strict: bool) -> None:
    """With --strict, fail (a line per file) on what validate rejects; else say what is left out."""
    from .corpus_check import check_corpus

    check = check_corpus(repo)
    if check.ok:
        return
    if strict:
        for line in check.lines():
            click.echo(line, err=True)
        click.echo(f"--strict: {len(check.by_file())} file(s) with problems", err=True)
        raise SystemExit(1)
    click.echo(check.summary(), err=True)


strict_option = click.option(
    "--strict",
    is_flag=True,
    help="Fail, one line per file, on anything `validate` would report.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="reproaudit")
def cli() -> None:
    """Audit a conference's papers claim by claim: claims, logbooks, verdicts, site."""


@cli.command()
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
    from .validate import validate_repo

    if not repo.is_dir():
        raise click.UsageError(f"--repo {repo} is not a directory")
    report = validate_repo(repo, paths, changed_from)
    if fmt == "json":
        click.echo(format_problems(report.problems, "json"))
    else:
        if report.problems:
            click.echo(format_problems(report.problems, fmt))
        if fmt == "text":
            click.echo(summary_line(report.problems, report.checked))
    raise SystemExit(0 if report.ok else 1)


@cli.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder to write <kind>.schema.json files to [default: <repo>/schemas].",
)
@click.option("--check", is_flag=True, help="Exit 1 if the files on disk are out of date.")
@repo_option
def schema(out: Path | None, check: bool, repo: Path) -> None:
    """Write JSON Schemas of the paper, logbook, verdict and reviews files.

    Editors use them to complete and check YAML: put
    `# yaml-language-server: $schema=../../schemas/logbook.schema.json` on a file's first line.
    """
    from .reference import schema_files

    out = out or repo / "schemas"
    stale = []
    for rel, text in schema_files().items():
        path = out / Path(rel).name
        if not check:
            atomic_write(path, text)
            click.echo(f"wrote {path}")
        elif not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(str(path))
    if stale:
        hint = "\n  hint: run `reproaudit schema` and commit the result"
        click.echo(f"out of date: {', '.join(stale)}{hint}", err=True)
        raise SystemExit(1)


@cli.command()
@click.option("--paper", help="Judge only this paper's logbooks.")
@click.option("--logbook", help="Judge only logbooks with this id.")
@click.option(
    "--mode",
    type=click.Choice(["rules", "llm", "auto"]),
    default="auto",
    show_default=True,
    help="auto = llm when REPROAUDIT_JUDGE_BASE_URL is set.",
)
@click.option(
    "--reruns",
    type=click.Path(file_okay=False, path_type=Path),
    help="Re-run records: DIR/<paper>/<logbook>/{outputs,run}.json.",
)
@click.option(
    "--samples",
    type=click.IntRange(1, 15),
    default=3,
    show_default=True,
    help="LLM samples per logbook; the verdict is their majority.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 512),
    default=8,
    show_default=True,
    help="LLM requests in flight at once.",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop the whole run after SECONDS: logbooks not judged by then are left for next time.",
)
@repo_option
def judge(
    paper: str | None,
    logbook: str | None,
    mode: str,
    reruns: Path | None,
    samples: int,
    concurrency: int,
    deadline: float | None,
    repo: Path,
) -> None:
    """Judge logbooks and write verdicts/<paper>/<logbook>.yaml.

    A verdict whose inputs are unchanged (same input_sha256) is not recomputed,
    unless the LLM failed on it (llm_failed, or fewer answers than a quorum).
    Exits 1 when any verdict is llm_failed or the run stopped early, 130 on Ctrl-C.
    LLM settings: REPROAUDIT_JUDGE_BASE_URL, REPROAUDIT_JUDGE_MODEL, REPROAUDIT_JUDGE_API_KEY.
    """
    from .judge.llm import JudgeSetupError, make_judge
    from .judge.run import JudgeBusy, describe_summary, judge_repo

    try:
        judge_ = make_judge(mode, samples=samples)
    except JudgeSetupError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        summary = judge_repo(
            repo,
            judge_,
            reruns=reruns,
            paper=paper,
            logbook=logbook,
            concurrency=concurrency,
            deadline=deadline,
        )
    except KeyboardInterrupt:
        click.echo("interrupted: verdicts written so far are kept; nothing half-written", err=True)
        raise SystemExit(130) from None
    except JudgeBusy as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(1) from None
    if summary.problems:
        click.echo(format_problems(summary.problems, "text"), err=True)
    click.echo(describe_summary(summary, judge_.mode))
    raise SystemExit(1 if summary.problems or not summary.complete else 0)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
@strict_option
@repo_option
def stats(as_json: bool, strict: bool, repo: Path) -> None:
    """Print the headline table: papers per bucket, claims per fold.

    Reads verdict files as they are; it never judges.
    """
    import json

    _corpus_gate(repo, strict)
    from .fold import fold, format_stats
    from .fold import stats as headline
    from .records import load_tables
    from .repo import Corpus

    tables = load_tables(Corpus(repo))
    table = headline(*fold(tables.verdicts, tables.reviews))
    click.echo(json.dumps(table, indent=2) if as_json else format_stats(table))


@cli.command()
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
    from .site.build import build_site

    _corpus_gate(repo, strict)
    try:
        report = build_site(repo, out, papers=list(papers) or None, site_url=site_url)
    except ReproauditError as exc:
        _fail(exc)
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


@cli.command()
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
    """Write the claims x verdicts table as CSV, Parquet and/or JSON Lines."""
    from .export import FORMATS, corpus_frame, write_export

    _corpus_gate(repo, strict)
    frame = corpus_frame(repo)
    for path in write_export(frame, out, formats or FORMATS):
        click.echo(f"wrote {path} ({len(frame)} rows)")


@cli.command()
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
    from .publish import publish_dataset

    try:
        result = publish_dataset(repo, repo_id, token=token, dry_run=dry_run, folder=folder)
    except ReproauditError as exc:
        _fail(exc)
    click.echo(result)


@cli.group()
def ci() -> None:
    """What the GitHub workflows run (each step is tested offline)."""


@ci.command("command")
@click.option(
    "--payload",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The issue_comment event (GITHUB_EVENT_PATH).",
)
@click.option("--dry-run", is_flag=True, help="Send nothing but GETs; write nothing.")
@repo_option
def ci_command(payload: Path, dry_run: bool, repo: Path) -> None:
    """Decide and carry out a slash command from a PR comment; print it as JSON.

    A refusal is a handled event (exit 0): the JSON says why, and the reply says it in the thread.
    """
    import json

    from .ci.commands import carry_out, dispatch, parse_event
    from .ci.github import GitHub

    try:
        event_data = json.loads(payload.read_text(encoding="utf-8"))
        github = GitHub.from_env(read_only=dry_run)
        outcome = dispatch(event_data, github, repo, dry_run=dry_run)
        if not dry_run and outcome.command is not None:
            carry_out(outcome, parse_event(event_data), github, repo)
    except ReproauditError as exc:
        _fail(exc)
    except ValueError as exc:
        _fail(ReproauditError(f"{payload}: not JSON: {exc}"))
    click.echo(json.dumps(outcome.to_json(), indent=2))


@ci.command("validate-pr")
@click.option("--base", required=True, metavar="REF", help="The base branch, e.g. origin/main.")
@click.option("--pr", type=click.IntRange(min=1), required=True)
@click.option("--head-sha", required=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--allow-outside", is_flag=True, help="Maintainers' PRs may touch other folders.")
@click.option("--author", metavar="LOGIN", help="The PR's author: apply the ownership rule.")
@click.option(
    "--association",
    default="NONE",
    show_default=True,
    help="The author's author_association (OWNER, MEMBER, COLLABORATOR...).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github"]),
    default="github",
    show_default=True,
    help="How problems are also printed (annotations in Actions).",
)
@repo_option
def ci_validate_pr(
    base: str,
    pr: int,
    head_sha: str,
    out: Path,
    allow_outside: bool,
    author: str | None,
    association: str,
    fmt: str,
    repo: Path,
) -> None:
    """Validate a PR's changes, judge its logbooks (rules) and write the result artifact."""
    import json

    from .ci.ownership import author_from_association
    from .ci.report import validate_pr

    who = author_from_association(author, association) if author else None
    try:
        artifact = validate_pr(repo, base, pr, head_sha, allow_outside=allow_outside, author=who)
    except ReproauditError as exc:
        _fail(exc)
    atomic_write(out, json.dumps(artifact, indent=1) + "\n")
    problems = [Problem(**p) for p in artifact["problems"]]
    if problems:
        click.echo(format_problems(problems, fmt))
    for path in artifact["outside"]:
        click.echo(f"::error file={path}::contributions may only change files under logbooks/")
    errors = sum(p.is_error for p in problems) + len(artifact["outside"])
    click.echo(f"wrote {out}: {len(artifact['verdicts'])} logbook(s) judged, {errors} error(s)")
    raise SystemExit(1 if errors else 0)


@ci.command("report")
@click.option("--artifact", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option(
    "--event",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The workflow_run event: the trusted PR number and head SHA come from it.",
)
@click.option("--pr", type=click.IntRange(min=1), help="Instead of --event.")
@click.option("--head-sha", help="Instead of --event.")
@click.option(
    "--post",
    "repo_name",
    metavar="OWNER/NAME",
    help="Post the sticky comment and a check run to this repository.",
)
@click.option(
    "--git",
    "git_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="A clone to compare the base and head trees in (fetching them as objects only).",
)
@click.option(
    "--team",
    envvar="REPROAUDIT_MAINTAINERS_TEAM",
    metavar="ORG/TEAM",
    help="Members of this team are maintainers too [env: REPROAUDIT_MAINTAINERS_TEAM].",
)
def ci_report(
    artifact: Path,
    event: Path | None,
    pr: int | None,
    head_sha: str | None,
    repo_name: str | None,
    git_dir: Path | None,
    team: str | None,
) -> None:
    """Check the result artifact (untrusted) and render or post the PR report."""
    import json

    from .ci.github import GitHub
    from .ci.report import load_artifact, pr_of_workflow_run, publish_report, render_comment

    try:
        github = GitHub.from_env()
        if event is not None:
            pr, head_sha = pr_of_workflow_run(json.loads(event.read_text("utf-8")), github)
        if pr is None or head_sha is None:
            raise click.UsageError("give --event, or both --pr and --head-sha")
        checked = load_artifact(artifact.read_bytes(), pr=pr, head_sha=head_sha)
        if repo_name:
            result = publish_report(
                checked, github=github, repo=repo_name, repo_dir=git_dir, team=team or None
            )
            click.echo(
                f"{'updated' if result['updated'] else 'posted'} the report on PR {pr} "
                f"({'valid' if result['ok'] else 'problems'})"
            )
        else:
            click.echo(render_comment(checked), nl=False)
    except ReproauditError as exc:
        _fail(exc)


def _pr_target(github, event: Path | None, pr: int | None, sha: str | None) -> tuple[int, str]:
    import json

    from .ci.report import pr_of_workflow_run

    if event is not None:
        return pr_of_workflow_run(json.loads(event.read_text("utf-8")), github)
    if pr is None or sha is None:
        raise click.UsageError("give --event, or both --pr and --sha")
    return pr, sha


@ci.command("judge-pr")
@click.option("--repo-name", required=True, metavar="OWNER/NAME")
@click.option(
    "--event",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A workflow_run event giving the PR and head SHA.",
)
@click.option("--pr", type=click.IntRange(min=1))
@click.option("--sha", help="The approved head SHA; the job refuses a head that moved.")
@click.option(
    "--mode", type=click.Choice(["rules", "llm", "auto"]), default="auto", show_default=True
)
@click.option("--reruns", type=click.Path(file_okay=False, path_type=Path))
@click.option("--samples", type=click.IntRange(1, 15), default=3, show_default=True)
@click.option("--post", is_flag=True, help="Post (or update) the verdicts comment.")
@repo_option
def ci_judge_pr(
    repo_name: str,
    event: Path | None,
    pr: int | None,
    sha: str | None,
    mode: str,
    reruns: Path | None,
    samples: int,
    post: bool,
    repo: Path,
) -> None:
    """Fetch a PR's logbooks as data (never its code), judge them, and comment.

    Runs with base-branch code; the judge key is read from the environment of this step only.
    """
    from .ci.flow import fetch_pr_logbooks, judge_pr, post_sticky, pr_logbooks, verify_head
    from .ci.github import GitHub
    from .judge.llm import PROMPT_VERSION, JudgeSetupError, LlmSettings, make_judge

    try:
        judge_ = make_judge(mode, samples=samples)  # before any network call
    except JudgeSetupError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        github = GitHub.from_env()
        number, head = _pr_target(github, event, pr, sha)
        verify_head(github, repo_name, number, head)
        books = pr_logbooks(fetch_pr_logbooks(github, repo_name, number, head, repo))
        body = judge_pr(
            repo,
            books,
            mode=judge_.mode,
            llm=judge_ if judge_.mode == "llm" else None,
            reruns=reruns,
            model=LlmSettings.from_env().model,
            prompt_version=PROMPT_VERSION,
            samples=samples,
        )
        if post:
            post_sticky(github, repo_name, number, body)
        click.echo(body, nl=False)
    except ReproauditError as exc:
        _fail(exc)


@ci.command("dispatch")
@click.option(
    "--outcome",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The JSON printed by `reproaudit ci command`.",
)
@click.option("--payload", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--ref", default="main", show_default=True, help="Branch whose workflow runs.")
def ci_dispatch(outcome: Path, payload: Path, ref: str) -> None:
    """Start reproduce.yml for an approved /reproduce or /rejudge."""
    import json

    from .ci.commands import parse_event
    from .ci.flow import dispatch_run, read_outcome
    from .ci.github import GitHub

    try:
        event = parse_event(json.loads(payload.read_text("utf-8")))
        done = dispatch_run(GitHub.from_env(), event.repo, ref, read_outcome(outcome), event.number)
    except ReproauditError as exc:
        _fail(exc)
    click.echo(done)


@ci.command("push")
@click.argument("kind", type=click.Choice(["review", "reruns", "verdicts"]))
@click.option(
    "--from",
    "source",
    type=click.Path(exists=True, path_type=Path),
    required=True,
    help="review: the outcome JSON of `ci command`; reruns, verdicts: a folder of them.",
)
@click.option("--message", required=True, help="The commit message.")
@click.option("--remote", default="origin", show_default=True)
@click.option("--branch", default="main", show_default=True, help="The branch to commit to.")
@click.option(
    "--repo-name",
    metavar="OWNER/NAME",
    help="Where to open a pull request when the branch refuses the change.",
)
@click.option("--fallback-branch", help="Its branch [default: reproaudit/<kind>-<run id>].")
@repo_option
def ci_push(
    kind: str,
    source: Path,
    message: str,
    remote: str,
    branch: str,
    repo_name: str | None,
    fallback_branch: str | None,
    repo: Path,
) -> None:
    """Commit a review, re-run records or verdicts to the branch: fetch, re-apply, retry.

    Each attempt applies the change to the branch as it is now, so two jobs at once
    never lose either change; what the branch refuses goes to a pull request.
    """
    import json
    import os

    from .ci import push as pushing
    from .ci.github import GitHub

    try:
        if kind == "review":
            outcome = json.loads(source.read_text("utf-8"))
            record = outcome.get("record") if isinstance(outcome, dict) else None
            if not (isinstance(outcome, dict) and outcome.get("allowed") and record):
                click.echo("no review or author response to record")
                return
            apply = pushing.apply_review(record)
        elif kind == "reruns":
            apply = pushing.apply_records(source)
        else:
            apply = pushing.apply_verdicts(source)
        open_pull = None
        if repo_name:
            github = GitHub.from_env()

            def open_pull(head: str, title: str, body: str) -> str:
                return github.create_pull(repo_name, title, head, branch, body)

        result = pushing.push_change(
            repo,
            apply,
            message,
            remote=remote,
            branch=branch,
            fallback_branch=fallback_branch
            or f"reproaudit/{kind}-{os.environ.get('GITHUB_RUN_ID', 'local')}",
            open_pull=open_pull,
        )
    except (ReproauditError, ValueError) as exc:
        _fail(exc if isinstance(exc, ReproauditError) else ReproauditError(f"{source}: {exc}"))
    where = f" ({result.url})" if result.url else ""
    click.echo(f"{result.status} after {result.attempts} attempt(s): {result.message}{where}")


@cli.command()
@click.argument("paper", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--paper-id", required=True, help="The id for the paper file (OpenReview id).")
@click.option("--venue", default="ICML 2026", show_default=True)
@click.option("--title", help="Use this title rather than the model's reading of it.")
@click.option("--stdout", is_flag=True, help="Print the draft instead of writing it.")
@repo_option
def extract(
    paper: Path, paper_id: str, venue: str, title: str | None, stdout: bool, repo: Path
) -> None:
    """Draft a paper file's claims from PAPER (.pdf, .md, .txt) with the LLM endpoint.

    Uses REPROAUDIT_JUDGE_BASE_URL / _MODEL / _API_KEY. A maintainer reviews the draft in a PR.
    """
    from .extract import extract_claims

    try:
        rel, text = extract_claims(paper, paper_id, venue=venue, title=title)
    except ReproauditError as exc:
        _fail(exc)
    _emit({repo / rel: text}, stdout)


@cli.command()
@click.argument("logbook", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--backend", type=click.Choice(["local", "hf-jobs"]), default="local", show_default=True
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("reruns"),
    show_default=True,
    help="Writes OUT/<paper>/<logbook>/{outputs,run}.json.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "docker", "none"]),
    default=None,
    help="local: where the command runs [default: the safest available; none is never "
    "the default and is refused in CI].",
)
@click.option("--source-repo-url", help="hf-jobs, code in the audit repo: its clone URL.")
@click.option("--source-sha", help="hf-jobs, code in the audit repo: the commit to run.")
@click.option("--namespace", help="hf-jobs: the user or org the job runs under.")
@repo_option
def reproduce(
    logbook: Path,
    backend: str,
    out: Path,
    sandbox: str | None,
    source_repo_url: str | None,
    source_sha: str | None,
    namespace: str | None,
    repo: Path,
) -> None:
    """Re-run LOGBOOK's command and write the re-run record the judge reads (--reruns).

    local: in a sandbox (bwrap: no network, no view of this machine's processes, bounded
    processes, memory and bytes written; docker on GPU runners), no shell, a scrubbed
    environment, the logbook's timeout, capped output.
    hf-jobs: Hugging Face Jobs with an allowed flavor; no token is passed into the job.
    """
    from .reproduce import describe_record, reproduce_logbook

    try:
        record = reproduce_logbook(
            repo,
            logbook,
            backend=backend,
            out=out,
            sandbox=sandbox,
            source_repo_url=source_repo_url,
            source_sha=source_sha,
            namespace=namespace,
        )
    except ReproauditError as exc:
        _fail(exc)
    click.echo(describe_record(record))
    raise SystemExit(0 if record.status == "passed" else 1)


@ci.command("reproduce-pr")
@click.option("--repo-name", required=True, metavar="OWNER/NAME")
@click.option("--pr", type=click.IntRange(min=1), required=True)
@click.option("--sha", required=True, help="The approved head SHA; a moved head is refused.")
@click.option(
    "--backend", type=click.Choice(["local", "hf-jobs"]), default="local", show_default=True
)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "docker", "none"]),
    default=None,
    help="local backend [default: the safest available; none is refused in CI].",
)
@click.option(
    "--stage",
    type=click.Choice(["all", "fetch", "run"]),
    default="all",
    show_default=True,
    help="fetch: check the head and fetch the files (needs GITHUB_TOKEN); run: re-run what "
    "fetch wrote (give it no token); all: both, dropping the token before running.",
)
@repo_option
def ci_reproduce_pr(
    repo_name: str,
    pr: int,
    sha: str,
    backend: str,
    out: Path,
    sandbox: str | None,
    stage: str,
    repo: Path,
) -> None:
    """Re-run every logbook of a PR at the approved commit (fetched as files, no secrets).

    No token is in the environment while contributor code runs: the workflow runs
    `--stage fetch` with the token and `--stage run` without it.
    """
    import os

    from .ci.flow import drop_tokens, fetch_for_rerun, fetched_logbooks
    from .ci.github import GitHub
    from .reproduce import describe_record, reproduce_logbook

    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
    try:
        if stage in ("all", "fetch"):
            books = fetch_for_rerun(GitHub.from_env(), repo_name, pr, sha, repo)
            if stage == "fetch":
                click.echo(f"{len(books)} logbook(s) fetched at {sha[:12]}")
                return
        books = fetched_logbooks(repo, pr, sha)
        api = None
        if backend == "hf-jobs":  # its client keeps the token; no contributor code runs here
            from huggingface_hub import HfApi

            api = HfApi(token=os.environ.get("HF_TOKEN") or None)
        drop_tokens(os.environ)
        failed = 0
        for paper_id, logbook_id in books:
            record = reproduce_logbook(
                repo,
                f"logbooks/{paper_id}/{logbook_id}.yaml",
                backend=backend,
                out=out,
                sandbox=sandbox,
                api=api,
                source_repo_url=f"{server}/{repo_name}",
                source_sha=sha,
            )
            failed += record.status != "passed"
            click.echo(f"{paper_id}/{logbook_id}: {describe_record(record)}")
    except ReproauditError as exc:
        _fail(exc)
    click.echo(f"{len(books)} logbook(s) re-run, {failed} not passed")


@ci.command("store-reruns")
@click.option(
    "--artifact",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    required=True,
    help="The downloaded re-run artifact (untrusted): <paper>/<logbook>/{run,outputs}.json.",
)
@click.option("--repo-name", required=True, metavar="OWNER/NAME")
@click.option("--pr", type=click.IntRange(min=1), required=True)
@click.option("--sha", required=True, help="The approved head SHA the records must match.")
@repo_option
def ci_store_reruns(artifact: Path, repo_name: str, pr: int, sha: str, repo: Path) -> None:
    """Store the re-run records of a PR's logbooks under reruns/, refusing anything else."""
    from .ci.github import GitHub
    from .ci.store import store_reruns

    try:
        report = store_reruns(GitHub.from_env(), repo_name, pr, sha, artifact, repo)
    except ReproauditError as exc:
        _fail(exc)
    for line in report.lines():
        click.echo(line)
    raise SystemExit(1 if report.refused else 0)


@cli.command()
@click.argument("logbook", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--rerun/--no-rerun",
    default=None,
    help="Re-run the command locally [default: when hardware is cpu].",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="text for a terminal (colour on a TTY); markdown is the PR comment itself.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "docker", "none"]),
    default=None,
    help="Where the re-run runs [default: bwrap for cpu]; none runs it unconfined.",
)
@repo_option
def check(logbook: Path, rerun: bool | None, fmt: str, sandbox: str | None, repo: Path) -> None:
    """Everything CI will do to LOGBOOK, locally: validate, re-run, judge, the PR report.

    The first line starts with status=ok or status=fail; exit 1 on fail (a problem to
    fix, or a local re-run that failed or timed out). Writes nothing into the repository.
    """
    from .check import check_logbook
    from .ci.report import render_markdown
    from .report_text import render_terminal

    try:
        result = check_logbook(repo, logbook, rerun=rerun, sandbox=sandbox)
    except ReproauditError as exc:
        _fail(exc)
    if fmt == "markdown":
        click.echo(render_markdown(result.report), nl=False)
    else:
        colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        click.echo(render_terminal(result.report, colour=colour), nl=False, color=colour)
    raise SystemExit(0 if result.ok else 1)


@cli.group("import")
def import_() -> None:
    """Turn work done elsewhere into reproaudit files (Trackio logbooks, PaperBench rubrics)."""


@import_.command("trackio")
@click.argument("workspace", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--paper", help="The paper id, when the logbook's metadata does not name it.")
@click.option("--contributor", help="Your GitHub handle (an unpublished logbook has none).")
@click.option("--stdout", is_flag=True, help="Print instead of writing the file.")
@repo_option
def import_trackio_cmd(
    workspace: Path, paper: str | None, contributor: str | None, stdout: bool, repo: Path
) -> None:
    """Import a Trackio logbook as logbooks/<paper>/<id>.yaml (re-importing updates it)."""
    from .importers import import_trackio, write_import

    try:
        path, text = import_trackio(workspace, repo, paper=paper, contributor=contributor)
    except ReproauditError as exc:
        _fail(exc)
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
@click.option("--stdout", is_flag=True, help="Print instead of writing the file.")
@repo_option
def import_paperbench_cmd(
    rubric: Path, paper_id: str, venue: str, title: str | None, stdout: bool, repo: Path
) -> None:
    """Import a PaperBench rubric as a paper file: one claim per Result Analysis leaf."""
    from .importers import import_paperbench

    try:
        rel, text = import_paperbench(rubric, paper_id=paper_id, venue=venue, title=title)
    except ReproauditError as exc:
        _fail(exc)
    _emit({repo / rel: text}, stdout)


@cli.group()
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
@click.option("--seed", type=int, default=0, show_default=True, help="Left/right shuffle.")
def review_pairs_cmd(folder: Path, out: Path | None, port: int, seed: int) -> None:
    """Judge image pairs blind in the browser: FOLDER/a/ and FOLDER/b/ hold the images.

    Serves on 127.0.0.1 only; each judgement is saved at once to a CSV beside the images.
    """
    import contextlib

    from .review_pairs import Session, make_server

    try:
        session = Session.open(folder, out, seed)
    except ReproauditError as exc:
        _fail(exc)
    server = make_server(session, port)
    click.echo(
        f"{len(session.pairs)} pairs, {len(session.judgements)} judged; open "
        f"http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops); "
        f"saving to {session.out}"
    )
    with contextlib.suppress(KeyboardInterrupt), server:
        server.serve_forever()


@cli.group()
def new() -> None:
    """Scaffold a paper file or a logbook that validates as it is."""


@new.command("paper")
@click.argument("paper_id")
@click.option("--title", required=True, help="The paper's title.")
@click.option("--venue", default="ICML 2026", show_default=True)
@click.option("--stdout", is_flag=True, help="Print instead of writing the file.")
@repo_option
def new_paper_cmd(paper_id: str, title: str, venue: str, stdout: bool, repo: Path) -> None:
    """Write claims/<venue>/PAPER_ID.yaml with one example claim to edit."""
    from .scaffold import new_paper

    try:
        path, text = new_paper(repo, paper_id, title, venue)
    except ReproauditError as exc:
        _fail(exc)
    _emit({path: text}, stdout)


@new.command("logbook")
@click.argument("paper_id")
@click.option("--id", "logbook_id", required=True, help="Logbook id, e.g. alice-paging-1.")
@click.option("--contributor", required=True, help="Your GitHub handle.")
@click.option(
    "--agent", default="claude-code", show_default=True, help="Coding agent used, or none."
)
@click.option("--stdout", is_flag=True, help="Print instead of writing the file.")
@repo_option
def new_logbook_cmd(
    paper_id: str, logbook_id: str, contributor: str, agent: str, stdout: bool, repo: Path
) -> None:
    """Write logbooks/PAPER_ID/<id>.yaml with a result entry for every claim."""
    from .scaffold import new_logbook, next_steps

    try:
        files = new_logbook(repo, paper_id, logbook_id, contributor, agent)
    except ReproauditError as exc:
        _fail(exc)
    _emit(files, stdout)
    if not stdout:
        click.echo(next_steps(repo, paper_id, logbook_id))


def _emit(files: dict[Path, str], stdout: bool) -> None:
    """Print the first file, or write them all; never overwrite existing work."""
    if stdout:
        click.echo(next(iter(files.values())), nl=False)
        return
    existing = [path for path in files if path.exists()]
    if existing:
        click.echo(
            f"{existing[0]} already exists; not overwriting it\n"
            "  hint: pick another id, or use --stdout to print the template",
            err=True,
        )
        raise SystemExit(1)
    for path, text in files.items():
        atomic_write(path, text, overwrite=False)
        click.echo(f"wrote {path}")


@cli.command()
@click.argument("paper_id")
@click.option("--json", "as_json", is_flag=True, help="The same brief as JSON, for agents.")
@repo_option
def task(paper_id: str, as_json: bool, repo: Path) -> None:
    """Print everything a coding agent needs to reproduce PAPER_ID, as Markdown."""
    import json

    from .scaffold import task_brief, task_data

    try:
        if as_json:
            click.echo(json.dumps(task_data(repo, paper_id), indent=2, ensure_ascii=False))
        else:
            click.echo(task_brief(repo, paper_id))
    except ReproauditError as exc:
        _fail(exc)


def main() -> None:
    cli(prog_name="reproaudit")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
