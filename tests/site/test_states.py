"""One vocabulary of states on every surface (issue 21).

A corpus generated here holds one paper per state a claim can be in: verified, falsified
under review, falsified and confirmed, falsified and disputed by the authors, toy,
inconclusive, awaiting re-run, and an older verdict from numbers nobody re-ran. The site is
built once, and every surface that shows a state (the logbook's chip on the paper page and on
its own page, the claim's outcome chip, the paper's header line, its badge, the list of
papers, the home page's newest verdicts, both Atom feeds and the meaning page) must say the
same words, with a chip class of its own for each state.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from reproaudit.site import words
from reproaudit.site.build import build_site
from tests.site.conftest import NOW

ATOM = "{http://www.w3.org/2005/Atom}"

# paper id -> (verdict, flags, review stance, author stance, claim label, paper label)
CASES: dict[str, tuple[str, list[str], str | None, str | None, str, str]] = {
    "Sverified01": ("verified", [], None, None, "verified", "Fully reproduced"),
    "Sreview0001": (
        "falsified",
        ["growth_detected"],
        None,
        None,
        "falsified, under review",
        "Falsified, under review",
    ),
    "Sconfirmed1": (
        "falsified",
        [],
        "confirm",
        None,
        "falsified, confirmed",
        "Falsified, confirmed",
    ),
    "Sdisputed01": (
        "falsified",
        [],
        None,
        "disagree",
        "falsified, under review, disputed by the authors",
        "Falsified, under review, disputed by the authors",
    ),
    "Stoy0000001": ("toy", ["toy_setup"], None, None, "toy", "Toy only"),
    "Sinconclus1": ("inconclusive", ["unit_mismatch"], None, None, "inconclusive", "Inconclusive"),
    "Sawaiting01": (
        "inconclusive",
        ["not_rerun"],
        None,
        None,
        "awaiting re-run",
        "Awaiting re-run",
    ),
    "Stypedonly1": (
        "verified",
        ["not_rerun"],
        None,
        None,
        "verified, not re-run",
        "Fully reproduced, not re-run",
    ),
}


def write_corpus(root: Path) -> None:
    """One paper per state, each with one claim and one judged logbook."""
    for n, (paper, (verdict, flags, review, answer, _, _)) in enumerate(sorted(CASES.items())):
        who = f"person{n}"
        logbook = f"{who}-1"
        (root / "claims" / "conf").mkdir(parents=True, exist_ok=True)
        (root / "claims" / "conf" / f"{paper}.yaml").write_text(
            f"paper:\n  id: {paper}\n  title: A paper in state {paper}\n  venue: Conf 2026\n"
            f"  authors: [{{name: Ada Quinn, github: ada-{n}}}]\n"
            "claims_version: 1\nclaims:\n"
            "  - {id: C1, statement: It is fast., anchor: Table 1, kind: efficiency}\n",
            encoding="utf-8",
        )
        (root / "logbooks" / paper).mkdir(parents=True)
        (root / "logbooks" / paper / f"{logbook}.yaml").write_text(
            f"logbook:\n  id: {logbook}\n  paper: {paper}\n  claims_version: 1\n"
            f"  contributor: {{github: {who}}}\n"
            "results:\n  - {claim: C1, setup: full}\n",
            encoding="utf-8",
        )
        (root / "verdicts" / paper).mkdir(parents=True)
        (root / "verdicts" / paper / f"{logbook}.yaml").write_text(
            f"paper: {paper}\nlogbook: {logbook}\ninput_sha256: {'a' * 64}\n"
            "judge: {mode: rules, model: null, prompt_version: null, samples: 1}\n"
            f"judged_at: '2026-12-01T10:0{n}:00Z'\n"
            f"claims:\n  - {{claim: C1, verdict: {verdict}, evidence: numbers, "
            f"flags: [{', '.join(flags)}]}}\n",
            encoding="utf-8",
        )
        records = []
        if review:
            records.append(
                f"  - {{claim: C1, logbook: {logbook}, kind: review, stance: {review}, "
                "by: maintainer-mo, at: '2026-12-02T10:00:00Z'}"
            )
        if answer:
            records.append(
                f"  - {{claim: C1, logbook: {logbook}, kind: author_response, stance: {answer}, "
                f"by: ada-{n}, at: '2026-12-02T11:00:00Z', text: We disagree.}}"
            )
        if records:
            (root / "verdicts" / paper / "reviews.yaml").write_text(
                "reviews:\n" + "\n".join(records) + "\n", encoding="utf-8"
            )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("states") / "repo"
    write_corpus(root)
    report = build_site(root, root / "_site", now=NOW)
    return report.out


CHIP = re.compile(r'<a class="(ra-(?:chip|bucket) [^"]*)" href="[^"]*">([^<]*)</a>')


def read(path: Path) -> str:
    return html.unescape(path.read_text(encoding="utf-8"))


def between(page: str, start: str, end: str) -> str:
    """The part of ``page`` from ``start`` to the next ``end``."""
    at = page.index(start)
    return page[at : page.index(end, at)]


def chips(part: str) -> list[tuple[str, str]]:
    """(text, classes) of the chips in a piece of a page."""
    return [(label, css) for css, label in CHIP.findall(part)]


def state_class(label: str) -> str:
    """The chip class the vocabulary gives a claim's label."""
    for key, (base, _) in sorted(words.STATES.items(), key=lambda kv: -len(kv[1][0])):
        if label == base or label.startswith(base + ", "):
            return f"ra-chip--{key}"
    raise AssertionError(label)


@pytest.mark.parametrize("paper", sorted(CASES))
def test_every_surface_says_the_same_words(site: Path, paper: str) -> None:
    verdict, flags, review, answer, claim_label, paper_label = CASES[paper]
    logbook = f"person{sorted(CASES).index(paper)}-1"
    page = read(site / "papers" / paper / "index.html")
    grid = between(page, '<table class="ra-table ra-grid">', "</table>")
    outcome = between(grid, '<td data-label="Outcome">', "</td>")
    cell = between(grid, f'<td data-label="{logbook}">', "</td>")
    # the claim's outcome chip and the logbook's chip in the grid
    for found in (chips(outcome), chips(cell)):
        assert [label for label, _ in found] == [claim_label]
        classes = found[0][1].split()
        assert state_class(claim_label) in classes
        # a verdict nobody re-ran is never drawn like one that was
        assert ("ra-chip--not_rerun" in classes) == claim_label.endswith("not re-run")
    # the paper's header line
    assert [label for label, _ in chips(between(page, '<p class="ra-meta">', "</p>"))] == [
        paper_label
    ]
    # the logbook's own page
    book = read(site / "papers" / paper / logbook / "index.html")
    heading = between(book, "<section>", "</h3>")
    assert [label for label, _ in chips(heading)] == [claim_label]
    # the badge
    badge = ET.fromstring((site / "badges" / f"{paper}.svg").read_bytes())
    assert badge.get("aria-label") == f"reproaudit: {paper_label.lower()}"
    # the static list of papers and the home page's newest verdicts
    listing = read(site / "browse" / "a-z" / "index.html")
    row = between(listing, f'href="../../papers/{paper}/"', "</tr>")
    assert [label for label, _ in chips(row)] == [paper_label]
    home = read(site / "index.html")
    newest = between(home, f">{logbook}</a>", "</tr>")
    assert [label for label, _ in chips(newest)] == [claim_label]
    if verdict == "falsified":  # the list of falsifications names the claim's state too
        listed = read(site / "falsifications" / "index.html")
        (row,) = [r for r in listed.split("<tr>") if f">{logbook}</a>" in r]
        assert f"(claim: {claim_label})" in row
    # both feeds
    for feed in (site / "feed.xml", site / "papers" / paper / "feed.xml"):
        titles = [
            e.findtext(f"{ATOM}title") or ""
            for e in ET.fromstring(feed.read_bytes()).findall(f"{ATOM}entry")
        ]
        assert f"A paper in state {paper}: logbook {logbook} (1 {claim_label})" in titles
    # the meaning page explains the state and each qualifier
    meaning = read(site / "meaning" / "index.html")
    shown = words.claim_state(
        verdict, flags, "confirmed" if review == "confirm" else "under_review", answer
    )
    entry = between(meaning, f'<dt id="{shown.anchor}">', "</dd>")
    assert chips(entry) == [] and f">{words.STATES[shown.key][0]}</span>" in entry
    for qualifier in shown.qualifiers:
        explained = between(meaning, f'<dt id="state-{qualifier}">', "</dt>")
        assert words.QUALIFIERS[qualifier][0] in explained


def test_the_meaning_page_names_every_state_of_the_vocabulary(site: Path) -> None:
    meaning = read(site / "meaning" / "index.html")
    for key, (label, explain) in words.STATES.items():
        entry = between(meaning, f'<dt id="state-{key}">', "</dd>")
        assert f'<span class="ra-chip ra-chip--{key}">{label}</span>' in entry
        assert explain in entry
    for key, (label, _) in words.QUALIFIERS.items():
        assert label in between(meaning, f'<dt id="state-{key}">', "</dt>")
    for phrase in (
        "awaiting re-run",
        "falsified, under review",
        "falsified, confirmed",
        "disputed by the authors",
        "not re-run",
        "never drawn like one that was",
    ):
        assert phrase in meaning


def test_the_vocabulary_maps_each_verdict_once() -> None:
    """Control: the function every surface calls, on its own."""
    assert words.claim_state("inconclusive", ["not_rerun"]).label == "awaiting re-run"
    assert words.claim_state("inconclusive", ["unit_mismatch"]).label == "inconclusive"
    assert words.claim_state("toy", ["not_rerun"]).label == "toy, not re-run"
    assert words.claim_state("falsified", [], "confirmed", "fixed").label == (
        "falsified, confirmed, fixed by the authors"
    )
    assert words.claim_state("verified", [], None, "disagree").label == "verified"  # no answer
    awaiting = [words.claim_state("inconclusive", ["not_rerun"])]
    assert words.paper_state("inconclusive", awaiting).label == "Awaiting re-run"
    assert words.fold_state("inconclusive", awaiting).label == "awaiting re-run"
    mixed = [words.claim_state("falsified", [], "confirmed"), words.claim_state("verified")]
    assert words.paper_state("mixed", mixed).label == "Mixed"  # confirmed names only "falsified"


def test_the_judge_rules_page_uses_the_same_words() -> None:
    """site/docs/verdicts-and-flags.md (hand-written) lists every state the site shows."""
    import reproaudit.site

    doc = Path(reproaudit.site.__file__).parent / "docs" / "verdicts-and-flags.md"
    table = between(doc.read_text(encoding="utf-8"), "| the site says | when |", "\n\n")
    said = {line.split("|")[1].strip() for line in table.splitlines()[2:]}
    for key, (label, _) in words.STATES.items():
        assert key == "untested" or label in said, label
    assert "..., not re-run" in said and "..., disputed by the authors" in said
