"""PR-thread commands: payloads in GitHub's documented shapes, a local GitHub API."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from reproaudit.ci.commands import carry_out, dispatch, parse_event
from reproaudit.cli import cli
from reproaudit.report.markdown_text import plain
from reproaudit.site.build import build_site
from tests.ci import payloads
from tests.ci.conftest import HEAD, PR, ROOT


def run(event, github, repo, dry_run=False):
    outcome = dispatch(event, github, repo, dry_run=dry_run)
    if not dry_run:
        carry_out(outcome, parse_event(event), github, repo)
    return outcome


def test_a_command_on_a_plain_issue_is_refused(
    comment_event, client, base_repo, github_api
) -> None:
    event = comment_event("/reproduce", number=1, on_pr=False)
    outcome = run(event, client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "not_a_pull_request")
    assert github_api.comments[1][0]["body"] == "Commands work on pull requests only."


def test_an_edited_comment_is_never_executed(comment_event, client, base_repo) -> None:
    event = comment_event("/review confirm C1", action="edited")
    outcome = run(event, client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "edited")
    assert "Post the command again" in outcome.reply
    assert not (base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").exists()


def test_a_maintainer_confirms_a_falsification(
    comment_event, client, base_repo, github_api, tmp_path
) -> None:
    event = comment_event("/review confirm C1 the counterexample in Lemma 4.3 checks out")
    outcome = run(event, client(), base_repo)
    assert outcome.allowed and outcome.command == "review"
    assert outcome.record == {
        "claim": "C1",
        "logbook": "carol-paging-1",
        "kind": "review",
        "stance": "confirm",
        "by": "maint",
        "at": event["comment"]["created_at"],
        "link": event["comment"]["html_url"],
        "text": "the counterexample in Lemma 4.3 checks out",
        "paper": "Kp4rT9vQ2x",
    }
    assert github_api.comments[PR][0]["body"].startswith(
        "Recorded: maint confirms the falsification of `C1`"
    )
    saved = yaml.safe_load((base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").read_text())
    assert saved["reviews"][0]["stance"] == "confirm"
    # the site shows it as confirmed, no longer "under review"
    out = build_site(base_repo, tmp_path / "site").out
    page = (out / "papers/Kp4rT9vQ2x/index.html").read_text()
    assert "falsification confirmed by a maintainer" in page
    assert "claimed falsification, under review" not in page


def test_a_stranger_posing_as_author_is_refused(comment_event, client, base_repo) -> None:
    outcome = run(
        comment_event("/author disagree C1 our bound is fine", "ivandermeer-fake"),
        client(),
        base_repo,
    )
    assert (outcome.allowed, outcome.reason) == (False, "not_author")
    assert "ivandermeer-fake is not one of them" in outcome.reply


def test_a_listed_author_answers(comment_event, client, base_repo) -> None:
    outcome = run(
        comment_event(
            "/author fixed C1 see https://github.com/x/y/commit/abc and thanks @everyone <b>!</b>",
            "IvanDerMeer",
        ),
        client(),
        base_repo,
    )
    assert outcome.allowed
    assert outcome.record["kind"] == "author_response"
    assert outcome.record["link"] == "https://github.com/x/y/commit/abc"
    saved = yaml.safe_load((base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").read_text())
    assert saved["reviews"][0]["by"] == "IvanDerMeer"


def test_a_misspelt_stance_gets_a_suggestion(comment_event, client, base_repo) -> None:
    outcome = run(comment_event("/review confrim C1"), client(), base_repo)
    assert outcome.reply == (
        "Did you mean `confirm`? Type `/review confirm C1 [why]` or `/review reject C1 [why]`."
    )
    outcome = run(comment_event("/author disagre C1 no", "ivandermeer"), client(), base_repo)
    assert outcome.reply.startswith("Did you mean `disagree`? Type `/author agree C1 ...`")


def test_fixed_needs_a_link(comment_event, client, base_repo) -> None:
    outcome = run(comment_event("/author fixed C1 we fixed it", "ivandermeer"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "usage")


def test_reproduce_from_a_stranger_is_refused(comment_event, client, base_repo, github_api) -> None:
    outcome = run(comment_event("/reproduce", "reader"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "not_allowed")
    assert "needs write permission on this repository, and reader has read" in outcome.reply
    outcome = run(comment_event("/reproduce", "nobody-at-all"), client(), base_repo)
    assert "nobody-at-all has none" in outcome.reply  # 404 from the permissions API


def test_reproduce_names_one_commit_by_all_40_hex_digits(comment_event, client, base_repo) -> None:
    outcome = run(comment_event(f"/reproduce {HEAD}"), client(), base_repo)
    assert outcome.allowed and outcome.head_sha == HEAD
    assert outcome.logbooks == ["Kp4rT9vQ2x/carol-paging-1"]
    assert f"at commit `{HEAD}`" in outcome.reply
    # a prefix is 28 bits for /reproduce 9f1c2ab: a colliding commit can be computed
    for prefix in (HEAD[:7], HEAD[:12], HEAD[:39]):
        outcome = run(comment_event(f"/reproduce {prefix}"), client(), base_repo)
        assert (outcome.allowed, outcome.reason) == (False, "bad_sha")
        assert "all 40 hex digits" in outcome.reply
    outcome = run(comment_event("/reproduce " + "0123456789" * 4), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_moved")
    assert f"`/reproduce {HEAD}`" in outcome.reply


def test_reproduce_approves_a_head_pushed_before_the_comment(
    comment_event, client, base_repo
) -> None:
    outcome = run(
        comment_event("/reproduce", created_at="2026-07-21T10:00:00Z"), client(), base_repo
    )
    assert outcome.allowed and outcome.head_sha == HEAD


def test_reproduce_refuses_a_head_pushed_after_the_comment(
    comment_event, client, base_repo, github_api
) -> None:
    # the maintainer read the PR at 08:00; the head's validate run was created at 09:00
    event = comment_event("/reproduce", created_at="2026-07-21T08:00:00Z")
    outcome = run(event, client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_moved")
    assert outcome.head_sha is None
    assert outcome.reply == (
        f"Not approved: the head of this pull request, `{HEAD}`, was pushed after your "
        "comment was written, so it may not be the commit you reviewed. If it is, type "
        f"`/reproduce {HEAD}`."
    )
    assert github_api.comments[PR][-1]["body"] == outcome.reply


def test_reproduce_is_conservative_when_the_push_time_is_unknown(
    comment_event, client, base_repo, github_api
) -> None:
    github_api.runs.clear()  # no run for this head; commit dates are whatever the pusher wrote
    github_api.timelines[PR] = [payloads.committed(HEAD, "2020-01-01T00:00:00Z")]
    outcome = run(comment_event("/reproduce"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_unconfirmed")
    assert f"`/reproduce {HEAD}`" in outcome.reply
    assert run(comment_event(f"/reproduce {HEAD}"), client(), base_repo).allowed


def test_a_force_push_after_the_comment_cancels_the_approval(
    comment_event, client, base_repo, github_api
) -> None:
    # back to an old head with an early run, by a force push after the comment
    github_api.timelines[PR] = [payloads.force_pushed("2026-07-21T10:00:05Z")]
    outcome = run(comment_event("/reproduce"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_moved")
    assert "a rewrite of the branch (head_ref_force_pushed) after your comment" in outcome.reply
    github_api.timelines[PR] = [payloads.force_pushed("2026-07-21T09:59:00Z")]
    assert run(comment_event("/reproduce"), client(), base_repo).allowed


def test_review_binds_to_the_logbook_the_pr_held_at_the_comment(
    comment_event, client, base_repo, github_api
) -> None:
    # a push after the comment moved the head: nothing is recorded, whatever it holds now
    github_api.runs[0]["created_at"] = "2026-07-21T10:00:01Z"
    outcome = run(comment_event("/review reject C1 weak"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_moved")
    assert "post the command again" in outcome.reply
    outcome = run(comment_event("/author agree C1 fair", "IvanDerMeer"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_moved")
    assert not (base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").exists()


def test_a_push_while_the_command_is_read_is_caught(
    comment_event, client, base_repo, github_api
) -> None:
    def push_during_the_files_read(method: str, path: str) -> None:
        if path.endswith("/files"):
            github_api.pulls[PR]["head"]["sha"] = "f" * 40

    github_api.after.append(push_during_the_files_read)
    outcome = run(comment_event("/review confirm C1"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_moved")
    assert outcome.reply.startswith(f"Not recorded: the head moved to `{'f' * 40}`")


def test_review_names_the_logbook_when_the_pr_holds_several(
    comment_event, client, base_repo, github_api
) -> None:
    github_api.files[PR].append("logbooks/Kp4rT9vQ2x/bob-paging-1.yaml")
    outcome = run(comment_event("/review confirm C1"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "ambiguous")
    assert "`bob-paging-1:C1`, `carol-paging-1:C1`" in outcome.reply
    outcome = run(
        comment_event("/review confirm carol-paging-1:C1 checks out"), client(), base_repo
    )
    assert outcome.allowed and outcome.record["logbook"] == "carol-paging-1"
    assert outcome.record["text"] == "checks out"


def test_review_is_only_for_a_claimed_falsification(
    comment_event, client, base_repo, github_api
) -> None:
    # carol's C2 is judged toy and her falsification section is about C1 only
    outcome = run(comment_event("/review confirm C2"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "not_falsified")
    assert outcome.reply.startswith(
        "There is no falsification of `C2` in `carol-paging-1` to review"
    )
    assert not (base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").exists()
    # with no recorded verdict, the falsification section of the logbook at the head counts
    (base_repo / "verdicts/Kp4rT9vQ2x/carol-paging-1.yaml").unlink()
    rel = "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml"
    github_api.contents[(rel, HEAD)] = (ROOT / rel).read_text()
    assert run(comment_event("/review reject C1 no"), client(), base_repo).allowed
    assert run(comment_event("/review reject C3 no"), client(), base_repo).reason == "not_falsified"


def test_shell_metacharacters_are_data(comment_event, client, base_repo, tmp_path) -> None:
    marker = tmp_path / "pwned"
    outcome = run(
        comment_event(f"/review confirm C1;touch$IFS{marker} `id` $(id)"), client(), base_repo
    )
    assert (outcome.allowed, outcome.reason) == (False, "usage")
    assert not marker.exists()
    assert "`` C1;touch$IFS" in outcome.reply  # shown as inline code, not run
    outcome = run(comment_event("/reproduce $(touch /tmp/x)"), client(), base_repo)
    assert outcome.reason == "usage" and "`` $(touch ``" in outcome.reply  # not a backend
    outcome = run(comment_event("/reproduce hf-jobs $(touch /tmp/x)"), client(), base_repo)
    assert outcome.reason == "bad_sha"


def test_unknown_command_and_help(comment_event, client, base_repo) -> None:
    outcome = run(comment_event("/frobnicate now"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "unknown")
    assert (
        outcome.reply
        == "`` /frobnicate `` is not a command. Type `/help` for the ones you can use here."
    )
    outcome = run(comment_event("/reveiw confirm C1"), client(), base_repo)
    assert outcome.reply == (
        "`` /reveiw `` is not a command. Did you mean `/review`? "
        "Type `/help` for the ones you can use here."
    )
    stranger = run(comment_event("/help", "reader"), client(), base_repo)
    assert "/reproduce" not in stranger.reply and "/author" in stranger.reply
    maintainer = run(comment_event("/help"), client(), base_repo)
    assert "/reproduce" in maintainer.reply and "/review" in maintainer.reply


@pytest.mark.parametrize(
    "body",
    [
        "To re-run it, a maintainer types:\n\n```\n/reproduce\n```\n",
        "~~~markdown\n/review reject C1\n~~~",
        "Example:\n\n    /reproduce\n",
        "> /review confirm C1\n\nquoting the earlier comment",
        "> > /rejudge",
        "type `/reproduce` when ready",
        "`/reproduce`\n`/rejudge`",
        "<!--\n/reproduce\n-->",
        "<details>\n/reproduce\n</details>",
    ],
)
def test_commands_in_code_quotes_and_html_are_not_run(
    body, comment_event, client, base_repo, github_api
) -> None:
    outcome = run(comment_event(body), client(), base_repo)
    assert (outcome.command, outcome.reason) == (None, "not_a_command")
    assert github_api.writes() == []


def test_a_command_after_an_explanation_runs(comment_event, client, base_repo) -> None:
    body = "I checked the sweep.\n\n```\n/rejudge\n```\n\n/reproduce " + HEAD
    outcome = run(comment_event(body), client(), base_repo)
    assert outcome.command == "reproduce" and outcome.allowed


def test_bots_and_plain_comments_are_ignored(comment_event, client, base_repo, github_api) -> None:
    assert run(comment_event("looks good to me"), client(), base_repo).command is None
    bot = run(comment_event("/reproduce", "reproaudit[bot]", user_type="Bot"), client(), base_repo)
    assert (bot.allowed, bot.reason, bot.reply) == (False, "bot", None)
    assert github_api.writes() == []


def test_dry_run_sends_nothing_but_gets(
    comment_event, base_repo, github_api, tmp_path, monkeypatch
) -> None:
    payload = tmp_path / "event.json"
    payload.write_text(json.dumps(comment_event("/review reject C1 not convincing")))
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    result = CliRunner().invoke(
        cli, ["ci", "command", "--payload", str(payload), "--repo", str(base_repo), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output)
    assert outcome["allowed"] and outcome["record"]["stance"] == "reject"
    assert github_api.writes() == []
    assert not (base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").exists()
    # and for real: the reply is posted and the record written
    result = CliRunner().invoke(
        cli, ["ci", "command", "--payload", str(payload), "--repo", str(base_repo)]
    )
    assert result.exit_code == 0, result.output
    assert github_api.writes() == [("POST", f"/repos/Codertocat/Hello-World/issues/{PR}/comments")]
    assert (base_repo / "verdicts/Kp4rT9vQ2x/reviews.yaml").is_file()


def test_the_client_retries_and_paginates(comment_event, client, base_repo, github_api) -> None:
    github_api.fail_first = 2
    github_api.files[PR] = [f"logbooks/Kp4rT9vQ2x/carol-paging-1/f{i}.py" for i in range(5)] + [
        "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml"
    ]
    outcome = run(comment_event("/rejudge"), client(), base_repo)
    assert outcome.allowed and outcome.logbooks == ["Kp4rT9vQ2x/carol-paging-1"]
    file_pages = [p for m, p, _ in github_api.requests if p.endswith("/files")]
    assert len(file_pages) == 3  # 6 files, 2 per page, following Link headers


def test_text_shown_back_is_neutralised() -> None:
    shown = plain("@octocat <script>x</script> | #12 `code` " + "a" * 2000)
    assert "@octocat" not in shown and "<script>" not in shown
    assert "\\|" in shown and "#12" not in shown
    assert len(shown) < 1200


def test_reproduce_is_refused_on_a_pr_failing_the_ownership_rule(
    comment_event, client, base_repo, github_api
) -> None:
    # mallory's PR changes carol's logbook (carol-lin owns it at base and head)
    github_api.pulls[PR] = payloads.pull(PR, author="mallory", changed_files=3)
    text = (ROOT / "logbooks/Kp4rT9vQ2x/carol-paging-1.yaml").read_text()
    for ref in (payloads.BASE, HEAD):
        github_api.contents[("logbooks/Kp4rT9vQ2x/carol-paging-1.yaml", ref)] = text
    outcome = run(comment_event("/reproduce"), client(), base_repo)
    assert (outcome.allowed, outcome.reason, outcome.head_sha) == (False, "not_owner", None)
    assert outcome.reply == (
        f"Not approved: this pull request fails the ownership rule at `{HEAD}` "
        "(logbooks/Kp4rT9vQ2x/carol-paging-1.yaml: this logbook belongs to carol-lin (its "
        "contributor.github), and the pull request is by mallory). A pull request may change "
        "only files under `logbooks/` and only its author's own logbooks, so its re-run "
        "records could not be stored. Once the report's check passes, type `/reproduce` again."
    )
    assert github_api.comments[PR][-1]["body"] == outcome.reply
    assert not run(comment_event(f"/reproduce {HEAD}"), client(), base_repo).allowed
    # a PR by a contributor that also touches the workflows fails the rule too
    github_api.pulls[PR] = payloads.pull(PR, author="carol-lin", changed_files=4)
    github_api.files[PR].append(".github/workflows/site.yml")
    outcome = run(comment_event("/reproduce"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "not_owner")
    assert "carol-lin may change only files under logbooks/, and it changes" in outcome.reply
    # control: carol's own PR of her own logbook is approved
    github_api.files[PR].pop()
    github_api.pulls[PR] = payloads.pull(PR, author="carol-lin", changed_files=3)
    assert run(comment_event("/reproduce"), client(), base_repo).allowed


def test_a_fast_forward_to_another_prs_commit_is_not_approved(
    comment_event, client, base_repo, github_api
) -> None:
    # PR 8 (branch evil) held HEAD since 09:00; after the maintainer's comment at 10:00 on PR 7,
    # PR 7's branch is fast-forwarded to HEAD. GitHub now lists PR 7 in PR 8's run too.
    github_api.runs[:] = [
        payloads.workflow_run(
            HEAD, created_at="2026-07-21T09:00:00Z", pulls=(8, PR), head_ref="evil"
        )
    ]
    outcome = run(comment_event("/reproduce"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_unconfirmed")
    assert outcome.reply == (
        f"Not approved: the head of this pull request, `{HEAD}`, may have been pushed after "
        "your comment: no workflow run of this pull request dates it, so it may not be the "
        f"commit you reviewed. If it is, type `/reproduce {HEAD}`."
    )
    # PR 7's own run of the push comes after the comment
    github_api.runs.append(payloads.workflow_run(HEAD, created_at="2026-07-21T10:02:00Z"))
    assert run(comment_event("/reproduce"), client(), base_repo).reason == "head_moved"
    # the maintainer who did review that commit names it in full
    outcome = run(comment_event(f"/reproduce {HEAD}"), client(), base_repo)
    assert outcome.allowed and outcome.head_sha == HEAD


def test_an_author_answers_on_a_pull_request_from_a_fork(
    comment_event, client, base_repo, github_api
) -> None:
    """A fork's runs list no pull request: the fork's own run of its branch dates the head."""
    fork = "carol-lin/Hello-World"
    github_api.pulls[PR] = payloads.pull(PR, author="carol-lin", changed_files=3, head_repo=fork)
    github_api.runs[:] = [payloads.workflow_run(HEAD, pulls=(), head_repo=fork)]
    outcome = run(comment_event("/author disagree C1 it holds", "ivandermeer"), client(), base_repo)
    assert outcome.allowed, outcome.reply
    assert (outcome.record["stance"], outcome.pr) == ("disagree", PR)
    assert "kept with this pull request until the pull request is merged" in outcome.reply
    outcome = run(comment_event("/review reject C1 not shown"), client(), base_repo)
    assert outcome.allowed, outcome.reply
    # control: a run of another fork's branch of the same name dates nothing
    github_api.runs[:] = [payloads.workflow_run(HEAD, pulls=(), head_repo="mallory/Hello-World")]
    outcome = run(comment_event("/author agree C1 fine", "ivandermeer"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_unconfirmed")


def test_an_undated_head_is_githubs_delay_and_the_full_sha_records_at_once(
    comment_event, client, base_repo, github_api
) -> None:
    github_api.runs.clear()  # GitHub has not created the head's run yet
    outcome = run(comment_event("/author disagree C1 it holds", "ivandermeer"), client(), base_repo)
    assert (outcome.allowed, outcome.reason) == (False, "head_unconfirmed")
    assert outcome.reply == (
        "Not recorded yet, and not because of anything you did: GitHub has not yet recorded a "
        f"workflow run for the head `{HEAD}` of this pull request (which is how the bot tells "
        "when a commit was pushed), so the bot cannot tell whether that commit is the one you "
        f"read. This is GitHub's delay. If `{HEAD}` is the commit you read, post "
        f"`` /author disagree C1 {HEAD} `` followed by your text, and it is recorded at once; "
        "otherwise post the command again once this pull request's checks have started "
        "(usually within a few minutes)."
    )
    assert github_api.comments[PR][-1]["body"] == outcome.reply
    said = run(
        comment_event(f"/author disagree C1 {HEAD.upper()} it holds", "ivandermeer"),
        client(),
        base_repo,
    )
    assert said.allowed and said.record["text"] == "it holds"  # the SHA is not the answer
    review = run(comment_event(f"/review confirm C1 {HEAD}"), client(), base_repo)
    assert review.allowed and review.record["text"] is None
    # a full SHA that is not the head is refused with the head to look at
    other = "0123456789" * 4
    moved = run(comment_event(f"/review confirm C1 {other} yes"), client(), base_repo)
    assert (moved.allowed, moved.reason) == (False, "head_moved")
    assert moved.reply == (
        f"Not recorded: the head of this pull request is now `{HEAD}`, not `` {other} ``: it "
        f"moved after you looked. Look at the new commits, then post "
        f"`` /review confirm C1 {HEAD} `` with your text."
    )
    # a short hex word is text, never a SHA
    short = run(
        comment_event(f"/author agree C1 {HEAD[:12]} ok", "ivandermeer"), client(), base_repo
    )
    assert (short.allowed, short.reason) == (False, "head_unconfirmed")
