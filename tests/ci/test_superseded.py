"""The pull request's one bot comment drops what a re-run superseded: once the judge has
verdicts of a passed re-run of a logbook at the head, the report's verdicts of it, on the
numbers the logbook typed (``inconclusive ... missing_outputs``), leave the comment,
whichever of the two steps posts last. What no re-run backs stays."""

from __future__ import annotations

import json

from reproaudit.ci import sticky
from reproaudit.ci.flow import post_verdicts
from reproaudit.ci.report import publish_report
from reproaudit.report.artifact import load_artifact
from tests.ci.conftest import HEAD, PR

PAPER = "Kp4rT9vQ2x"
PENDING_ROW = "| C2 | inconclusive *(pending)* | missing_outputs | the re-run wrote no value |"


def artifact(head: str = HEAD, logbooks: tuple[str, ...] = ("carol-paging-1",)):
    verdicts = [
        {
            "paper": PAPER,
            "logbook": name,
            "numbers": "self_reported",
            "claims": [
                {
                    "claim": "C2",
                    "verdict": "inconclusive",
                    "flags": ["missing_outputs"],
                    "evidence": "the re-run wrote no value",
                }
            ],
        }
        for name in logbooks
    ]
    data = {
        "schema": "reproaudit-pr-result/1",
        "pr": PR,
        "head_sha": head,
        "files": [f"logbooks/{PAPER}/{name}.yaml" for name in logbooks],
        "outside": [],
        "problems": [],
        "verdicts": verdicts,
    }
    return load_artifact(json.dumps(data).encode(), pr=PR, head_sha=head)


def body(github_api) -> str:
    (comment,) = github_api.comments[PR]
    assert sticky.parse(comment["body"]) is not None  # still one well-formed comment
    return comment["body"]


def test_a_passed_rerun_supersedes_the_reports_verdicts_of_that_logbook(client, github_api) -> None:
    github_api.pulls[PR]["changed_files"] = 1
    publish_report(artifact(), github=client(), repo=github_api.repo)
    assert PENDING_ROW in body(github_api)
    # the control: a judge without a re-run leaves the report's verdicts where they are
    post_verdicts(client(), github_api.repo, PR, "## verdicts (rules judge)\n", "rules",
                  sha=HEAD, reran=[])  # fmt: skip
    assert PENDING_ROW in body(github_api)
    # the re-run passed: its verdicts replace the report's, in either order
    verified = f"## verdicts (rules judge)\n\n### `{PAPER}/carol-paging-1` (re-run passed)\n"
    post_verdicts(client(), github_api.repo, PR, verified, "rules", sha=HEAD,
                  reran=[f"{PAPER}/carol-paging-1"])  # fmt: skip
    text = body(github_api)
    assert PENDING_ROW not in text and "Verdicts for" not in text and "(re-run passed)" in text
    publish_report(artifact(), github=client(), repo=github_api.repo)  # report.yml again
    assert PENDING_ROW not in body(github_api)
    # a new head: its report is not the one the re-run judged
    publish_report(artifact("1" * 40), github=client(), repo=github_api.repo)
    assert PENDING_ROW in body(github_api)


def test_a_logbook_no_rerun_backs_keeps_its_verdicts(client, github_api) -> None:
    """Two logbooks; the cpu one re-ran, the GPU one awaits /reproduce: only the first's
    report verdicts go."""
    github_api.pulls[PR]["changed_files"] = 2
    both = artifact(logbooks=("carol-paging-1", "carol-gpu-1"))
    publish_report(both, github=client(), repo=github_api.repo)
    post_verdicts(client(), github_api.repo, PR, "## verdicts\n", "rules", sha=HEAD,
                  reran=[f"{PAPER}/carol-paging-1"])  # fmt: skip
    text = body(github_api)
    assert f"Verdicts for `` {PAPER}/carol-gpu-1 ``" in text
    assert f"Verdicts for `` {PAPER}/carol-paging-1 ``" not in text
    assert text.count(PENDING_ROW) == 1
