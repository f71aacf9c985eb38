"""A published number rests on a re-run of exactly the bytes it judges: a built site shows
re-run numbers only from a record that is current for the logbook as it is now.

The judge ignores a stored record whose input hashes no longer match the logbook
(``stale_rerun``), but the site once showed that record's numbers as re-run results
and its status as "passed". Each attack here stores a passed record, judges it, then
changes the logbook's bytes the way an attacker would after approval (a push of the
code folder only, an edit of the YAML), and builds the real site; the control builds
the same repository untouched.
"""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit.cli import cli
from reproaudit.site.build import build_site
from reproaudit.site.lists import FIELDS
from tests.records import write_current_rerun

PAPER, BOOK = "Tq7mV2pLx0", "ann-1"
NOW = datetime(2026, 12, 3, tzinfo=UTC)
RERUN_VALUE = "0.9637"  # what the re-run wrote; the logbook typed 0.912
SWEEP = {"values": [10, 100, 1000], "measured": [1.31, 1.37, 1.39]}


def stored_and_judged(repo: Path) -> Path:
    """ann-1 reading C1 and C3's sweep from its re-run, a passed record of its bytes stored,
    and the verdict the judge wrote from it (C1 verified by the re-run's number)."""
    book = repo / "logbooks" / PAPER / f"{BOOK}.yaml"
    book.write_text(
        book.read_text().replace(
            "measured: [1.1, 1.2, 1.2]}", 'measured: [1.1, 1.2, 1.2], source: "outputs:/C3/sweep"}'
        )
    )
    outputs = {"C1": {"accuracy": float(RERUN_VALUE)}, "C3": {"sweep": SWEEP}}
    write_current_rerun(repo, PAPER, BOOK, outputs=json.dumps(outputs).encode(), duration_s=41)
    done = CliRunner(env={"REPROAUDIT_JUDGE_BASE_URL": ""}).invoke(
        cli, ["judge", "--mode", "rules", "--repo", str(repo)]
    )
    assert done.exit_code == 0, done.output
    verdict = (repo / "verdicts" / PAPER / f"{BOOK}.yaml").read_text()
    assert "- claim: C1\n  verdict: verified" in verdict  # the record was current when judged
    return repo


def push_code_only(repo: Path) -> None:
    """After approval, a push that changes only the code folder (the verdict goes stale)."""
    (repo / "logbooks" / PAPER / BOOK / "run.py").write_text("print('other code')\n")


def edit_yaml_and_rejudge(repo: Path) -> None:
    """An edit of the logbook YAML, and the judge run again on it (the verdict is current:
    the judge set the record aside)."""
    book = repo / "logbooks" / PAPER / f"{BOOK}.yaml"
    book.write_text(book.read_text().replace("full held-out split", "whole held-out split"))
    done = CliRunner(env={"REPROAUDIT_JUDGE_BASE_URL": ""}).invoke(
        cli, ["judge", "--mode", "rules", "--repo", str(repo)]
    )
    assert done.exit_code == 0, done.output
    verdict = (repo / "verdicts" / PAPER / f"{BOOK}.yaml").read_text()
    assert "stale_rerun" in verdict and "not_rerun" in verdict


def built(repo: Path) -> tuple[str, str, str, list]:
    """(the logbook page, its results; its "Re-run" line; the paper's row in
    the papers list). The results are the measurement tables and sweeps: the evidence above
    them is the verdict's own text, which may name what an ignored record gave."""
    out = build_site(repo, repo / "_site", now=NOW, search=False).out
    page = (out / "papers" / PAPER / BOOK / "index.html").read_text()
    line = re.search(r"<dt>Re-run</dt><dd>(.*?)</dd>", page, re.S)
    assert line is not None
    rows = json.loads((out / "assets" / "papers" / "1.json").read_text())["rows"]
    row = next(r for r in rows if r[FIELDS.index("id")] == PAPER)
    results = page[page.index('<h2 id="results">') :]
    results = re.sub(r"<p><strong>Evidence:</strong>.*?</p>", "", results, flags=re.S)
    return page, results, html.unescape(re.sub(r"<[^>]+>", "", line[1])), row


def test_a_current_record_shows_its_numbers(mini_repo: Path) -> None:
    """The control: the re-run's numbers, its status and the re-run list state."""
    page, results, line, row = built(stored_and_judged(mini_repo))
    assert f'<span class="ra-value--rerun">{RERUN_VALUE}</span>' in results
    assert '<span class="ra-value--rerun">100→1.37</span>' in results
    assert line.startswith("passed on local in 41 s")
    assert "End of the re-run's log" in page
    assert row[FIELDS.index("rerun")] == "passed"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (push_code_only, "the code tree changed since the re-run (code_sha256 differs)"),
        (
            edit_yaml_and_rejudge,
            "the logbook YAML changed since the re-run (logbook_sha256 differs)",
        ),
    ],
)
def test_a_record_of_other_bytes_shows_no_numbers(mini_repo: Path, change, why: str) -> None:
    repo = stored_and_judged(mini_repo)
    change(repo)
    page, results, line, row = built(repo)
    assert RERUN_VALUE not in results and "1.37" not in results and "1.39" not in results
    assert "ra-value--rerun" not in results  # no number is marked as the re-run's
    assert '<span class="ra-value--typed">0.912</span>' in results
    assert not line.startswith("passed")
    assert line.startswith("awaiting re-run re-run record ignored: ")
    assert 'href="../../../meaning/#flag-stale_rerun"' in page  # the flag names its rule
    assert why in line and "none of its numbers are shown" in line
    assert "End of the re-run's log" not in page  # the log of a run of other bytes
    assert row[FIELDS.index("rerun")] == "awaiting"
    # the record itself stays published as data, for anyone who wants to check
    assert (repo / "_site" / "reruns" / PAPER / BOOK / "outputs.json").is_file()
