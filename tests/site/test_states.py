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
import shutil
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from reproaudit.site import words
from reproaudit.site.build import build_site
from tests.site.axe import serious_axe_findings
from tests.site.conftest import NOW

ATOM = "{http://www.w3.org/2005/Atom}"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
browser_only = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"
)

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
    "Stoytyped01": (
        "toy",
        ["toy_setup", "not_rerun"],
        None,
        None,
        "toy, not re-run",
        "Toy only, not re-run",
    ),
    # rules version 4: a claim for every k, verified on k = 2..512 (issue 28)
    "Swithin0001": (
        "verified",
        [],
        None,
        None,
        "verified, within the tested range",
        "Fully reproduced, within the tested range",
    ),
    # issue 28: who decided (the claim has no target: only a model can judge it)
    "Smodel00001": (
        "verified",
        [],
        None,
        None,
        "model-judged, verified",
        "Inconclusive, with model-judged claims",
    ),
    "Smodel2nd01": (
        "verified",
        [],
        None,
        None,
        "verified, model-judged, confirmed by a second model",
        "Fully reproduced",
    ),
    "Soldllm0001": (
        "verified",
        [],
        None,
        None,
        "model-judged, verified",
        "Inconclusive, with model-judged claims",
    ),
    "Sdisagree01": (
        "verified",
        ["llm_disagrees"],
        None,
        None,
        "verified",
        "Fully reproduced",
    ),
}
# what a verdict says beyond its flags, per paper (rules version 4: how far it held)
HELD = "held for k = 2..512; claimed for all k >= 2"
MORE = {
    "Swithin0001": ", within_tested_range: true, scope: {regime: {parameter: k, "
    "tested: {from: 2, to: 512}, claimed: {from: 2, to: null}}}",
}
LLM = "{mode: llm, model: glm, prompt_version: 4, samples: 3, samples_answered: 3}"
# paper id -> (judge, more fields of the claim's verdict, decided_by and second as shown)
EXTRA: dict[str, tuple[str, str, str | None, str | None]] = {
    "Smodel00001": (LLM, ", decided_by: model", "model", None),
    "Smodel2nd01": (
        LLM,
        ", decided_by: model, second_opinion: {model: other, verdict: verified}",
        "model",
        "verified",
    ),
    # a verdict file of a judge before prompt version 4: no decided_by, read as the model's
    "Soldllm0001": (LLM.replace("version: 4", "version: 3"), "", "model", None),
    "Sdisagree01": (
        LLM,
        ", decided_by: rules, llm_opinion: {model: glm, verdict: falsified, reason: no}",
        "rules",
        None,
    ),
}
RULES = "{mode: rules, model: null, prompt_version: null, samples: 1}"


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
        judge, more, _, _ = EXTRA.get(paper, (RULES, "", None, None))
        (root / "verdicts" / paper / f"{logbook}.yaml").write_text(
            f"paper: {paper}\nlogbook: {logbook}\ninput_sha256: {'a' * 64}\n"
            f"judge: {judge}\n"
            f"judged_at: '2026-12-01T10:{n:02d}:00Z'\n"
            f"claims:\n  - {{claim: C1, verdict: {verdict}, evidence: numbers, "
            f"flags: [{', '.join(flags)}]{more}{MORE.get(paper, '')}}}\n",
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
    # how far a verified held, beside its chip on both pages (only where it is range-limited)
    assert (f"({HELD})" in cell) == (f"({HELD})" in heading) == (paper in MORE)
    # the badge
    badge = ET.fromstring((site / "badges" / f"{paper}.svg").read_bytes())
    assert badge.get("aria-label") == f"reproaudit: {paper_label.lower()}"
    # drawn as the chips are: an outline when nobody re-ran the numbers, else filled
    value = badge.findall("{http://www.w3.org/2000/svg}rect")[1]
    waiting = "not_rerun" in flags
    assert (value.get("fill") == "#fff" and value.get("stroke-dasharray") is not None) == waiting
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
    _, _, decided_by, second = EXTRA.get(paper, (RULES, "", None, None))
    shown = words.claim_state(
        verdict,
        flags,
        "confirmed" if review == "confirm" else "under_review",
        answer,
        decided_by,
        second,
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
    within = words.claim_state("verified", [], within=True)
    assert within.label == "verified, within the tested range"
    assert words.claim_state("toy", [], within=True).label == "toy"  # qualifies a verified only
    assert words.fold_state("verified", [within]).label == "verified, within the tested range"
    plain = words.claim_state("verified")
    assert words.fold_state("verified", [within, plain]).label == "verified"  # one held fully
    assert words.paper_state("fully_reproduced", [within], within=True).label == (
        "Fully reproduced, within the tested range"
    )
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


# --- in the browser: how each state is drawn ------------------------------------------------

LOOK = """e => { const s = getComputedStyle(e);
  return [s.backgroundColor, s.borderTopStyle, s.fontStyle, s.color]; }"""
PALETTES = (("light", "default"), ("dark", "slate"))


@pytest.fixture(scope="module")
def site_url(site: Path) -> Iterator[str]:
    from tests.site.test_browser import serving

    with serving(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from tests.site.test_browser import headless_chromium

    with headless_chromium() as chromium:
        yield chromium


def _palette(browser: object, scheme: str, palette: str, width: int = 1366) -> object:
    phone = width < 500
    context = browser.new_context(
        viewport={"width": width, "height": 900},
        color_scheme=scheme,
        is_mobile=phone,
        has_touch=phone,
    )
    context.wanted_palette = palette
    return context


def _open(context: object, url: str) -> object:
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(url)
    page.wait_for_function(
        "want => document.body.getAttribute('data-md-color-scheme') === want",
        arg=context.wanted_palette,
    )
    return page


@browser_only
@pytest.mark.parametrize(("scheme", "palette"), PALETTES)
def test_a_verdict_nobody_re_ran_is_an_outline_and_each_state_looks_its_own(
    browser: object, site_url: str, scheme: str, palette: str
) -> None:
    """The claim's chip and the paper's outcome, as Chromium draws them: a verdict from numbers
    nobody re-ran (and one awaiting a re-run) is an outline on the page's own background, never
    filled like a re-run verdict; states that differ in kind look different."""
    context = _palette(browser, scheme, palette)
    claim, paper = {}, {}
    for case in sorted(CASES):
        page = _open(context, f"{site_url}papers/{case}/")
        claim[case] = page.locator('td[data-label="Outcome"] a.ra-chip').evaluate(LOOK)
        paper[case] = page.locator(".ra-meta a.ra-bucket").evaluate(LOOK)
    context.close()
    for case, (_, flags, *_rest) in CASES.items():
        unrerun = "not_rerun" in flags
        for look in (claim[case], paper[case]):
            filled = look[0] not in ("rgba(0, 0, 0, 0)", "transparent")
            assert filled != unrerun, (case, look)
            assert (look[1] != "solid" and look[1] != "none") == unrerun, (case, look)
    # the words differ, and so does the look: re-run against not, decided against waiting
    pairs = [
        ("Sverified01", "Stypedonly1"),
        ("Stoy0000001", "Stoytyped01"),
        ("Sinconclus1", "Sawaiting01"),
        ("Sverified01", "Sreview0001"),
        ("Sreview0001", "Sconfirmed1"),
        ("Stypedonly1", "Sawaiting01"),
    ]
    for a, b in pairs:
        assert claim[a] != claim[b], (a, b, claim[a])


@browser_only
@pytest.mark.parametrize("width", [1366, 390])
def test_every_state_reads_at_4_5_to_1_with_no_serious_axe_finding(
    browser: object, site_url: str, width: int
) -> None:
    """axe on the pages that show every state (each paper, the list, the home page's newest
    verdicts, the meaning page), light and dark: a chip's words keep their contrast whatever
    state and qualifier it combines."""
    paths = [f"papers/{case}/" for case in sorted(CASES)]
    paths += ["", "browse/a-z/", "meaning/", "papers/"]
    assert serious_axe_findings(browser, width, [site_url + p for p in paths]) == []


CHIPS_OF_ROWS = """() => Object.fromEntries([...document.querySelectorAll('#ra-papers tbody tr')]
  .map(tr => [tr.querySelector('td a').getAttribute('href').split('/').filter(Boolean).pop(),
              (c => [c.className, c.href, c.textContent])(tr.querySelector('a.ra-bucket'))]))"""


@browser_only
def test_the_papers_list_draws_each_outcome_as_its_static_rows_do(
    browser: object, site_url: str
) -> None:
    """The rows the script builds from the JSON slices (here after a sort) carry the same
    chip, words and meaning link as the rows written into the page."""
    still = browser.new_context(java_script_enabled=False)
    page = still.new_page()
    page.goto(site_url + "papers/")
    written = page.evaluate(CHIPS_OF_ROWS)
    still.close()
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "papers/")
    page.select_option("#ra-sort", "newest")
    page.wait_for_url("**sort=newest")
    page.locator("#ra-count").filter(has_text=f"{len(CASES)} of {len(CASES)} papers").wait_for()
    built = page.evaluate(CHIPS_OF_ROWS)
    context.close()
    assert set(written) == set(CASES)
    assert built == written
    assert "ra-bucket--not_rerun" in built["Stypedonly1"][0]  # control: a case that differs
    assert built["Sawaiting01"][1].endswith("#state-awaiting")
