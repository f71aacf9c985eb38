"""The ``ci`` group: what the GitHub workflows run (each step is tested offline).

One name per concept: ``--repo-name OWNER/NAME`` is the GitHub repository,
``--pr`` the pull request, ``--sha`` its head commit, ``--event`` a workflow_run
event file, ``--payload`` an issue_comment event file, ``--post`` "send it to GitHub".
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..problems import format_problems
from .options import (
    backend_option,
    mode_option,
    pr_option,
    repo_name_option,
    repo_option,
    samples_option,
    sandbox_option,
    sha_option,
)

event_option = click.option(
    "--event",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The workflow_run event (GITHUB_EVENT_PATH): the trusted PR number and head SHA "
    "come from it.",
)
payload_option = click.option(
    "--payload",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The issue_comment event (GITHUB_EVENT_PATH).",
)


def _event_or_pr(event: Path | None, pr: int | None, sha: str | None) -> None:
    if event is None and (pr is None or sha is None):
        raise click.UsageError("give --event, or both --pr and --sha")


@click.group()
def ci() -> None:
    """What the GitHub workflows run (each step is tested offline)."""


@ci.command("command")
@payload_option
@click.option("--dry-run", is_flag=True, help="Send nothing but GETs; write nothing.")
@click.option(
    "--offline",
    is_flag=True,
    help="No network at all: decide from the payload and --repo, a local clone of the pull "
    "request (HEAD is its head); print what the real run would do.",
)
@click.option(
    "--base",
    metavar="REF",
    help="With --offline: the default branch in the clone [default: origin/<default branch>].",
)
@click.option(
    "--default-backend",
    type=click.Choice(["local", "hf-jobs"]),
    default="local",
    show_default=True,
    help="Where /reproduce runs when it names no backend (vars.REPROAUDIT_REPRODUCE_BACKEND): "
    "the approval says so, with each logbook's hardware, timeout and cost.",
)
@repo_option
def ci_command(
    payload: Path, dry_run: bool, offline: bool, base: str | None, default_backend: str, repo: Path
) -> None:
    """Decide and carry out a slash command from a PR comment; print it as JSON.

    A refusal is a handled event (exit 0): the JSON says why, and the reply says it in the thread.

    Example: reproaudit ci command --payload event.json --offline --base origin/main
    """
    import json

    from ..ci.commands import handle_comment

    if base and not offline:
        raise click.UsageError("--base goes with --offline")
    outcome = handle_comment(
        payload, repo, dry_run=dry_run, offline=offline, base=base, default_backend=default_backend
    )
    data = outcome.to_json()
    if offline:
        from ..ci.offline import CAVEATS, describe

        data |= {"offline": True, "would": describe(data, default_backend), "caveats": CAVEATS}
    click.echo(json.dumps(data, indent=2))


@ci.command("validate-pr")
@click.option("--base", required=True, metavar="REF", help="The base branch, e.g. origin/main.")
@pr_option(required=True)
@sha_option(required=True)
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
    sha: str,
    out: Path,
    allow_outside: bool,
    author: str | None,
    association: str,
    fmt: str,
    repo: Path,
) -> None:
    """Validate a PR's changes, judge its logbooks (rules) and write the result artifact."""
    from ..ci.validation import validate_pr_to

    done = validate_pr_to(
        repo,
        base,
        pr,
        sha,
        out,
        allow_outside=allow_outside,
        author=author,
        association=association,
    )
    if done.problems:
        click.echo(format_problems(done.problems, fmt))
    for path in done.outside:
        click.echo(f"::error file={path}::contributions may only change files under logbooks/")
    click.echo(f"wrote {out}: {done.judged} logbook(s) judged, {done.errors} error(s)")
    raise SystemExit(1 if done.errors else 0)


@ci.command("report")
@click.option("--artifact", type=click.Path(dir_okay=False, path_type=Path), required=True)
@event_option
@pr_option()
@sha_option()
@click.option("--repo-name", metavar="OWNER/NAME", help="The GitHub repository (for --post).")
@click.option("--post", is_flag=True, help="Post the sticky comment and a check run.")
@click.option(
    "--git",
    "git_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="A clone to compare the base and head trees in (fetching them as objects only).",
)
def ci_report(
    artifact: Path,
    event: Path | None,
    pr: int | None,
    sha: str | None,
    repo_name: str | None,
    post: bool,
    git_dir: Path | None,
) -> None:
    """Check the result artifact (untrusted) and render the PR report, or --post it."""
    from ..ci.events import pr_target
    from ..ci.github import GitHub
    from ..ci.report import publish_report, render_comment, rerun_plans
    from ..ci.steps import load_artifact_file
    from ..repo import Corpus

    _event_or_pr(event, pr, sha)
    if post and not repo_name:
        raise click.UsageError("--post needs --repo-name OWNER/NAME")
    github = GitHub.from_env()
    checked = load_artifact_file(artifact, *pr_target(github, event, pr, sha))
    if not post:  # offline: the re-run plans from the clone's objects, when there is one
        plans = rerun_plans(checked, github=None, repo="", repo_dir=git_dir) if git_dir else []
        click.echo(render_comment(checked, reruns=plans), nl=False)
        return
    assert repo_name is not None  # --post without it was refused above
    corpus = Corpus(git_dir) if git_dir else None  # the base branch's paper files, read once
    result = publish_report(checked, github=github, repo=repo_name, repo_dir=git_dir, corpus=corpus)
    click.echo(
        f"{'updated' if result['updated'] else 'posted'} the report on PR {checked.pr} "
        f"({'valid' if result['ok'] else 'problems'})"
    )


@ci.command("pr-author")
@click.option(
    "--event",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The workflow_run event of validate (GITHUB_EVENT_PATH).",
)
def ci_pr_author(event: Path) -> None:
    """Print `login=<the pull request author's login>` for $GITHUB_OUTPUT.

    rerun.yml runs one automatic re-run at a time per contributor with it: the login comes
    from the API (trusted), never from a branch name.
    """
    from ..ci.events import pr_author
    from ..ci.github import GitHub

    click.echo(f"login={pr_author(GitHub.from_env(), event)}")


@ci.command("judge-pr")
@repo_name_option
@event_option
@pr_option()
@sha_option()
@mode_option
@click.option(
    "--reruns",
    type=click.Path(file_okay=False, path_type=Path),
    help="Re-run records of the PR's logbooks: DIR/<paper>/<logbook>/{outputs,run}.json.",
)
@samples_option
@click.option("--post", is_flag=True, help="Post (or update) the verdicts comment.")
@click.option(
    "--mentions-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the plan of author mentions here (only when a re-run-backed verdict "
    "falsifies a claim), for `ci push mentions` in a job that may write.",
)
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
    mentions_out: Path | None,
    repo: Path,
) -> None:
    """Fetch a PR's logbooks as data (never its code), judge them, and comment.

    Runs with base-branch code; the judge key is read from the environment of this step only.
    """
    from ..ci.events import pr_target
    from ..ci.github import GitHub
    from ..ci.judging import judge_pull_request
    from ..judge.llm import make_judge

    _event_or_pr(event, pr, sha)
    judge = make_judge(mode, samples=samples)  # before any network call
    github = GitHub.from_env()
    number, head = pr_target(github, event, pr, sha)
    body = judge_pull_request(
        github, repo_name, number, head, repo, judge, reruns=reruns, post=post,
        mentions_out=mentions_out,
    )  # fmt: skip
    click.echo(body, nl=False)


@ci.command("dispatch")
@click.option(
    "--outcome",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The JSON printed by `reproaudit ci command`.",
)
@payload_option
@click.option("--ref", default="main", show_default=True, help="Branch whose workflow runs.")
@click.option(
    "--default-backend",
    type=click.Choice(["local", "hf-jobs"]),
    default="local",
    show_default=True,
    help="Where /reproduce runs when it names no backend (vars.REPROAUDIT_REPRODUCE_BACKEND).",
)
def ci_dispatch(outcome: Path, payload: Path, ref: str, default_backend: str) -> None:
    """Start reproduce.yml for an approved /reproduce or /rejudge."""
    from ..ci.steps import dispatch_for

    click.echo(dispatch_for(outcome, payload, ref, default_backend))


@ci.command("push")
@click.argument("kind", type=click.Choice(["review", "reruns", "verdicts", "mentions"]))
@click.option(
    "--from",
    "source",
    type=click.Path(exists=True, path_type=Path),
    required=True,
    help="review: the outcome JSON of `ci command`; reruns, verdicts: a folder of them.",
)
@click.option("--message", required=True, help="The commit message.")
@click.option("--remote", default="origin", show_default=True)
@click.option(
    "--branch", default="main", show_default=True, help="The default branch (the site's)."
)
@event_option
@pr_option()
@click.option(
    "--pending-branch",
    default="reproaudit/pending",
    show_default=True,
    help="Where reruns and reviews wait for their pull request's merge.",
)
@click.option(
    "--repo-name",
    metavar="OWNER/NAME",
    help="The GitHub repository: whether a pull request is merged, and where to open a pull "
    "request when the default branch refuses the change.",
)
@click.option("--fallback-branch", help="Its branch [default: reproaudit/<kind>-<run id>].")
@click.option(
    "--dispatch",
    "dispatch_workflow",
    metavar="WORKFLOW",
    help="After a push to the default branch, start this workflow (e.g. site.yml) on it: "
    "GitHub starts no workflow for a push made with GITHUB_TOKEN.",
)
@repo_option
def ci_push(
    kind: str,
    source: Path,
    message: str,
    remote: str,
    branch: str,
    event: Path | None,
    pr: int | None,
    pending_branch: str,
    repo_name: str | None,
    fallback_branch: str | None,
    dispatch_workflow: str | None,
    repo: Path,
) -> None:
    """Commit verdicts to the default branch, or a pull request's re-run records (reruns) or
    review (the outcome's pull request) to the pending branch: fetch, re-apply, retry.

    Each attempt applies the change to the branch as it is now, so two jobs at once
    never lose either change; what the default branch refuses goes to a pull request.
    Re-run records and reviews wait on the pending branch until their pull request is
    merged (`ci promote`, run here for that pull request: a merged one's move at once).
    """
    from ..ci.authors import record_mentions
    from ..ci.pending import PendingPush
    from ..ci.push import PushResult
    from ..ci.steps import push_from

    if dispatch_workflow and not repo_name:
        raise click.UsageError("--dispatch needs --repo-name OWNER/NAME")
    if kind == "mentions" and not repo_name:
        raise click.UsageError("mentions are posted: give --repo-name OWNER/NAME")
    if kind == "reruns" and event is None and pr is None:
        raise click.UsageError(
            "re-run records wait under their pull request: give --pr N or --event"
        )
    if kind != "reruns" and (event is not None or pr is not None):
        raise click.UsageError(f"--pr and --event go with reruns ({kind} knows its own)")
    if event is not None:
        from ..ci.events import pr_target
        from ..ci.github import GitHub

        pr = pr_target(GitHub.from_env(), event, None, None)[0]

    run_id = os.environ.get("GITHUB_RUN_ID", "local")
    result: PushResult | PendingPush | None
    if kind == "mentions":  # the ledger first, then the mention (authors.py)
        assert repo_name is not None
        result = record_mentions(
            source,
            repo,
            message,
            repo_name=repo_name,
            remote=remote,
            branch=branch,
            fallback_branch=fallback_branch or f"reproaudit/mentions-{run_id}",
        )
    else:
        result = push_from(
            kind,
            source,
            repo,
            message,
            remote=remote,
            branch=branch,
            repo_name=repo_name,
            fallback_branch=fallback_branch,
            run_id=run_id,
            pr=pr,
            pending_branch=pending_branch,
        )
    if result is None:
        click.echo("no review or author response to record")
        return
    if isinstance(result, PushResult):
        where = f" ({result.url})" if result.url else ""
        click.echo(f"{result.status} after {result.attempts} attempt(s): {result.message}{where}")
        pushed = result.status == "pushed"
    else:
        for line in result.lines():
            click.echo(line)
        pushed = result.main_pushed
    if dispatch_workflow and pushed:
        from ..ci.flow import dispatch_workflow as start
        from ..ci.github import GitHub

        assert repo_name is not None
        click.echo(start(GitHub.from_env(), repo_name, dispatch_workflow, branch))


@ci.command("promote")
@click.option("--remote", default="origin", show_default=True)
@click.option(
    "--branch", default="main", show_default=True, help="The default branch (the site's)."
)
@click.option(
    "--pending-branch",
    default="reproaudit/pending",
    show_default=True,
    help="Where re-run records and reviews wait for their pull request's merge.",
)
@pr_option()
@click.option(
    "--repo-name",
    metavar="OWNER/NAME",
    help="The GitHub repository: whether each pull request is merged (without it no review "
    "moves and nothing is dropped), and where to open a pull request when the default branch "
    "refuses the change.",
)
@click.option("--fallback-branch", help="Its branch [default: reproaudit/promote-<run id>].")
@click.option(
    "--dispatch",
    "dispatch_workflow",
    metavar="WORKFLOW",
    help="After a push to the default branch, start this workflow (e.g. site.yml) on it.",
)
@repo_option
def ci_promote(
    remote: str,
    branch: str,
    pending_branch: str,
    pr: int | None,
    repo_name: str | None,
    fallback_branch: str | None,
    dispatch_workflow: str | None,
    repo: Path,
) -> None:
    """Move onto the default branch what the pending branch holds for merged pull requests.

    A re-run record moves when the default branch holds the logbook bytes it re-ran, a
    review or author answer when GitHub says its pull request is merged and the default
    branch holds its logbook and claim. What moved, what a merged pull request left that
    cannot move, and what a pull request closed unmerged 30 days ago left, is removed from
    the pending branch. Every line says what became of one entry, and why.

    Example: reproaudit ci promote --repo-name org/audit --branch main
    """
    from ..ci.github import GitHub
    from ..ci.pending import promote

    if dispatch_workflow and not repo_name:
        raise click.UsageError("--dispatch needs --repo-name OWNER/NAME")
    github = GitHub.from_env() if repo_name else None

    def open_pull(head: str, title: str, body: str) -> str:
        assert github is not None and repo_name is not None
        return github.create_pull(repo_name, title, head, branch, body)

    report = promote(
        repo,
        github=github,
        repo_name=repo_name,
        remote=remote,
        branch=branch,
        pending_branch=pending_branch,
        only=pr,
        fallback_branch=fallback_branch
        or f"reproaudit/promote-{os.environ.get('GITHUB_RUN_ID', 'local')}",
        open_pull=open_pull if github is not None else None,
    )
    for line in report.lines():
        click.echo(line)
    if dispatch_workflow and report.main is not None and report.main.status == "pushed":
        from ..ci.flow import dispatch_workflow as start

        assert github is not None and repo_name is not None
        click.echo(start(github, repo_name, dispatch_workflow, branch))


@ci.command("reproduce-pr")
@repo_name_option
@event_option
@pr_option()
@sha_option()
@backend_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@sandbox_option
@click.option(
    "--stage",
    type=click.Choice(["all", "fetch", "run"]),
    default="all",
    show_default=True,
    help="fetch: check the head and fetch the files (needs GITHUB_TOKEN); run: re-run what "
    "fetch wrote (give it no token); all: both, dropping the token before running.",
)
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    help="A new folder outside the checkout for the PR's logbook files (fetch creates it, "
    "run reads it); required with --stage fetch or run [all: a temporary folder].",
)
@click.option(
    "--auto",
    "only_auto",
    is_flag=True,
    help="Re-run only the logbooks CI re-runs by itself (hardware cpu); say why for the rest.",
)
@repo_option
def ci_reproduce_pr(
    repo_name: str,
    event: Path | None,
    pr: int | None,
    sha: str | None,
    backend: str,
    out: Path,
    sandbox: str | None,
    stage: str,
    into: Path | None,
    only_auto: bool,
    repo: Path,
) -> None:
    """Re-run every logbook of a PR at the approved commit (fetched from git objects into
    a new folder of its own, never the checkout; no secrets while it runs).

    No token is in the environment while contributor code runs: the workflow runs
    `--stage fetch` with the token and `--stage run` without it. With `--event` (a
    workflow_run event of validate), the PR and head come from the event; the run stage
    then reads the PR number from what the fetch stage wrote, and needs no network.
    """
    from ..ci.events import head_of_workflow_run, pr_target
    from ..ci.rerun_pr import reproduce_pr

    _event_or_pr(event, pr, sha)
    if event is not None and stage == "run":
        number, head = None, head_of_workflow_run(event)
    elif event is not None:
        from ..ci.github import GitHub

        number, head = pr_target(GitHub.from_env(), event, None, None)
    else:
        assert pr is not None and sha is not None
        number, head = pr, sha
    lines = reproduce_pr(
        repo,
        repo_name,
        number,
        head,
        backend=backend,
        out=out,
        sandbox=sandbox,
        stage=stage,
        only_auto=only_auto,
        into=into,
    )
    for line in lines:
        click.echo(line)


@ci.command("store-reruns")
@click.option(
    "--artifact",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    required=True,
    help="The downloaded re-run artifact (untrusted): <paper>/<logbook>/{run,outputs}.json.",
)
@repo_name_option
@event_option
@pr_option()
@sha_option()
@click.option(
    "--post", is_flag=True, help="Also say in the PR's bot comment what was stored and refused."
)
@repo_option
@click.option(
    "--git",
    "git_dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    required=True,
    help="A clone to read the approved commit's trees in (fetching it as objects only).",
)
def ci_store_reruns(
    artifact: Path,
    repo_name: str,
    event: Path | None,
    pr: int | None,
    sha: str | None,
    post: bool,
    repo: Path,
    git_dir: Path,
) -> None:
    """Store the re-run records of a PR's logbooks under reruns/, refusing anything else.

    Only when the PR passes the ownership rule, for the logbooks it changes, and when each
    record binds those logbooks' bytes, write-up, code tree and requirements at the head.
    """
    from ..ci.events import pr_target
    from ..ci.github import GitHub
    from ..ci.report import post_store_report
    from ..ci.store import store_reruns

    _event_or_pr(event, pr, sha)
    github = GitHub.from_env()
    number, head = pr_target(github, event, pr, sha)
    report = store_reruns(github, repo_name, number, head, artifact, repo, git_dir=git_dir)
    for line in report.lines():
        click.echo(line)
    if post:
        post_store_report(github, repo_name, number, head, report, repo)
    raise SystemExit(1 if report.refused else 0)


COMMANDS = [ci]
