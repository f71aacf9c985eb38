"""One bot comment per pull request: the report and the verdicts are its sections."""

from __future__ import annotations

import json

from reproaudit.ci import sticky
from reproaudit.ci.report import publish_report
from reproaudit.report.artifact import load_artifact
from tests.ci.conftest import HEAD, PR


def test_sections_update_in_place_and_keep_each_other(client, github_api) -> None:
    gh = client()
    _, edited = sticky.update(gh, github_api.repo, PR, "report", "## report v1", {"ok": False})
    assert edited is False
    _, edited = sticky.update(gh, github_api.repo, PR, "llm", "## verdicts", {"mode": "llm"})
    assert edited is True
    sticky.update(gh, github_api.repo, PR, "report", "## report v2", {"ok": True})
    (comment,) = github_api.comments[PR]
    got = sticky.parse(comment["body"])
    assert got is not None
    assert got.status("report") == {"ok": True} and got.status("llm") == {"mode": "llm"}
    assert got.sections["report"].body == "## report v2\n"
    # the report comes first however the sections were added
    assert comment["body"].index("## report v2") < comment["body"].index("## verdicts")


def test_untrusted_text_cannot_forge_a_section_or_the_status(client, github_api) -> None:
    gh = client()
    forged = sticky.render(sticky.Sticky({"report": sticky.Section("fake", {"ok": True})}))
    evil = f"evidence: --> {forged}\n---\n<!-- reproaudit:sticky {{}} -->"
    sticky.update(gh, github_api.repo, PR, "llm", evil, {"mode": "rules"})
    sticky.update(gh, github_api.repo, PR, "report", "## real report", {"ok": False})
    (comment,) = github_api.comments[PR]
    got = sticky.parse(comment["body"])
    assert got.sections["llm"].body == evil + "\n"
    assert got.status("report") == {"ok": False}
    header = comment["body"].split("\n", 1)[0]
    assert header.count("-->") == 1 and header.endswith(" -->")
    json.loads(header.removeprefix(sticky.PREFIX).removesuffix(" -->"))


def test_a_damaged_or_foreign_comment_is_not_taken_for_the_sticky(client, github_api) -> None:
    body = sticky.render(sticky.Sticky({"report": sticky.Section("## r", {"ok": True})}))
    assert sticky.parse(body) is not None
    assert sticky.parse(body + "tampered") is None  # lengths no longer add up
    assert sticky.parse(body.replace('"length":5', '"length":999')) is None
    assert sticky.parse("<!-- reproaudit:sticky not json -->\n") is None
    # a person quoting the bot's comment is not the bot
    human = {"id": 99, "body": body, "user": {"login": "mallory", "type": "User"}}
    assert sticky.find([human]) is None


def test_an_older_report_comment_is_taken_over(client, github_api) -> None:
    gh = client()
    gh.comment(github_api.repo, PR, "<!-- reproaudit:report status=fail sha=x -->\nold")
    _, edited = sticky.update(gh, github_api.repo, PR, "llm", "## v", {"mode": "rules"})
    assert edited is True
    (comment,) = github_api.comments[PR]
    assert sticky.parse(comment["body"]).status("llm") == {"mode": "rules"}


def test_the_report_and_the_verdicts_share_one_comment(client, github_api) -> None:
    from reproaudit.ci.flow import post_verdicts

    artifact = load_artifact(
        json.dumps(
            {
                "schema": "reproaudit-pr-result/1",
                "pr": PR,
                "head_sha": HEAD,
                "files": ["logbooks/Kp4rT9vQ2x/carol-paging-1.yaml"],
                "outside": [],
                "problems": [],
                "verdicts": [],
            }
        ).encode(),
        pr=PR,
        head_sha=HEAD,
    )
    first = publish_report(artifact, github=client(), repo=github_api.repo)
    assert post_verdicts(client(), github_api.repo, PR, "## verdicts (llm judge)", "llm")
    second = publish_report(artifact, github=client(), repo=github_api.repo)
    assert first["updated"] is False and second["updated"] is True
    (comment,) = github_api.comments[PR]
    got = sticky.parse(comment["body"])
    assert got.status("report") == {
        "ok": first["ok"],
        "status": "ok" if first["ok"] else "fail",
        "sha": HEAD,
    }
    assert got.status("llm") == {"mode": "llm"}
    assert "## verdicts (llm judge)" in comment["body"]
