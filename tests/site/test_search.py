"""Search as readers use it, in headless Chromium: a typo still finds the page, a surname
finds the author's papers before contributors whose handle holds it, filters by kind and
outcome, every result reachable past the first ten, and falsification text found.

The site is the fixture with nine contributors named ``*-ferreyra`` (as a surname search
meets them) and 36 more logbooks on the paging paper, one a falsification."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from reproaudit.judge.cases import RulesJudge
from reproaudit.judge.run import judge_repo
from reproaudit.repo import Corpus
from reproaudit.site import context as ctx
from reproaudit.site import search_text
from reproaudit.site.build import build_site
from reproaudit.site.data import load_site_data
from reproaudit.site.search import query_files, served_bytes
from reproaudit.site.typos import tables
from tests.site.axe import serious_axe_findings
from tests.site.conftest import NOW, site_repo
from tests.site.test_browser import CHROMIUM, DESKTOP, headless_chromium, serving
from tests.site.test_typos import CASES, LONG, PAGES

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"
)
PAGING = "Kp4rT9vQ2x"
FERREYRA = "Hq3VbX0tLs"  # Lucia Ferreyra is an author
NAMESAKES = ["ana", "bruno", "chloe", "diego", "elena", "felix", "gina", "hugo", "ines"]
LISTED = "#ra-search-results li"
ARGUMENT = "the eviction bound collapses once the cache holds a quasiperiodic adversary"


def crowd(repo: Path) -> None:
    """Nine ``<name>-ferreyra`` contributors and 27 more, each with a logbook on the paging
    paper (a copy of bob's); the first one argues a falsification."""
    folder = repo / "logbooks" / PAGING
    template = (folder / "bob-paging-1.yaml").read_text(encoding="utf-8")
    handles = [f"{n}-ferreyra" for n in NAMESAKES] + [f"crowd{i:02d}" for i in range(27)]
    for i, handle in enumerate(handles):
        name = f"{handle}-paging-1"
        text = template.replace("bob-paging-1", name).replace("bnakamura", handle)
        if i == 0:
            text = re.sub(
                r"(\n    self_assessment: )\w+",
                rf"\1falsified\n    falsification: {{argument: {ARGUMENT}}}",
                text,
                count=1,
            )
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
        shutil.copytree(folder / "bob-paging-1", folder / name)


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    repo = site_repo(tmp_path_factory.mktemp("search"))
    crowd(repo)
    summary = judge_repo(repo, RulesJudge(), reruns=repo / "reruns", judged_at=NOW)
    assert not summary.problems  # verdict files: the tests read the same data as the build
    report = build_site(repo, repo / "_site", now=NOW)
    assert report.judged == 0
    with serving(report.out) as url:
        yield repo, url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    context.close()


def results(page: object, url: str) -> list[str]:
    """Site paths of the results listed, in order, after the status says they are in."""
    page.locator("#ra-search-status").filter(has_text=re.compile("result")).wait_for()
    links = page.locator("#ra-search-results li > a")
    return [
        h.split(url.split("//", 1)[1], 1)[-1]
        for h in links.evaluate_all("as => as.map(a => a.href)")
    ]


def search(page: object, url: str, query: str) -> list[str]:
    page.goto(f"{url}search/?{query}")
    return results(page, url)


def test_the_fixture_has_logbooks_of_the_crowd(crowded: tuple[Path, str]) -> None:
    repo, _ = crowded
    data = load_site_data(Corpus(repo), NOW)
    assert len(data.logbooks_of(PAGING)) == 2 + 36


@pytest.mark.parametrize("typed", ["Ferreyar", "Fereyra", "Ferreyyra", "Ferrayra"])
def test_one_typo_in_a_surname_still_finds_the_paper(
    page: object, crowded: tuple[Path, str], typed: str
) -> None:
    _, url = crowded
    found = search(page, url, f"q={typed}")
    assert found[0] == f"papers/{FERREYRA}/", found
    assert "\u201cferreyra\u201d" in page.locator("#ra-search-status").inner_text()
    assert page.errors == []


def test_a_typo_in_a_method_name_and_an_exact_word_together(
    page: object, crowded: tuple[Path, str]
) -> None:
    _, url = crowded
    found = search(page, url, "q=learnign+paging")  # "Learning-Augmented Paging"
    assert f"papers/{PAGING}/" in found[:3], found


def test_a_word_that_begins_an_indexed_word_is_not_corrected(
    page: object, crowded: tuple[Path, str]
) -> None:
    _, url = crowded
    found = search(page, url, "q=Ferrey")  # Pagefind finds "ferreyra" from its beginning
    assert "no exact match" not in page.locator("#ra-search-status").inner_text()
    assert found[0] == f"papers/{FERREYRA}/", found


def test_the_search_script_corrects_words_as_the_build_does(
    page: object, crowded: tuple[Path, str]
) -> None:
    from reproaudit.site.typos import shards_of, within_one, words_of

    _, url = crowded
    page.goto(url + "search/")
    page.wait_for_function("window.reproauditTypos !== undefined")
    files = tables(PAGES)
    js = "([w, f]) => window.reproauditTypos.corrections(w, f)"
    for typed, fixed in CASES:
        assert page.evaluate(js, [typed, files]) == fixed, typed
        assert page.evaluate("w => window.reproauditTypos.shardsOf(w)", typed) == shards_of(typed)
    for a, b in [("smith", "smtih"), ("paging", "gaping"), ("abc", "abcd"), ("abcd", "acd")]:
        assert page.evaluate("([a, b]) => window.reproauditTypos.withinOne(a, b)", [a, b]) == (
            within_one(a, b)
        )
    for query, words in LONG:
        assert page.evaluate("q => window.reproauditTypos.queryWords(q)", query) == words
    text = "The Near-Harmonic k=8 bound, 2026 Ferreyra's Müller"
    assert sorted(page.evaluate("t => window.reproauditTypos.wordsOf(t)", text)) == sorted(
        words_of(text)
    )


def test_a_surname_lists_the_authors_papers_before_contributors(
    page: object, crowded: tuple[Path, str]
) -> None:
    _, url = crowded
    found = _all(page, url, "q=Ferreyra")
    people = [i for i, u in enumerate(found) if u.startswith("people/")]
    assert found[0] == f"papers/{FERREYRA}/", found
    assert people, found  # the namesakes are found, after the paper
    assert all(i > found.index(f"papers/{FERREYRA}/") for i in people)


def test_a_title_word_ranks_above_the_same_word_in_claims(
    page: object, crowded: tuple[Path, str]
) -> None:
    repo, url = crowded
    data = load_site_data(Corpus(repo), NOW)
    word = "paging"
    in_title = {ctx.paper_url(p) for p, f in data.papers.items() if word in f.paper.title.lower()}
    papers = [u for u in search(page, url, f"q={word}&kind=paper")]
    assert in_title and set(papers[: len(in_title)]) == in_title, papers


@pytest.mark.parametrize("kind", ["paper", "logbook", "contributor", "page"])
def test_the_kind_filter_lists_only_that_kind(
    page: object, crowded: tuple[Path, str], kind: str
) -> None:
    repo, url = crowded
    found = _all(page, url, f"kind={kind}")  # no words: every page of the kind
    data = load_site_data(Corpus(repo), NOW)
    expected = {r.url for r in _records(data) if r.kind == kind}
    if kind == "page":
        assert found and all(not u.startswith(("papers/", "people/")) for u in found)
    else:
        assert set(found) == expected
    assert page.locator("#ra-search-kind").input_value() == kind


@pytest.mark.parametrize("outcome", list(search_text.OUTCOMES))
def test_the_outcome_filter_lists_the_pages_with_that_outcome(
    page: object, crowded: tuple[Path, str], outcome: str
) -> None:
    repo, url = crowded
    data = load_site_data(Corpus(repo), NOW)
    expected = {r.url for r in _records(data) if outcome in r.outcomes}
    found = _all(page, url, f"outcome={outcome}")
    assert set(found) == expected


def test_both_filters_with_words(page: object, crowded: tuple[Path, str]) -> None:
    repo, url = crowded
    data = load_site_data(Corpus(repo), NOW)
    outcome = "awaiting re-run"  # the crowd's logbooks were never re-run
    expected = {
        r.url
        for r in _records(data)
        if r.kind == "logbook" and outcome in r.outcomes and r.url.startswith(f"papers/{PAGING}/")
    }
    found = _all(page, url, f"q=paging&kind=logbook&outcome={outcome}")
    assert len(expected) >= 36 and set(found) == expected


def test_every_result_is_reachable_past_the_first_ten(
    page: object, crowded: tuple[Path, str]
) -> None:
    _, url = crowded
    page.goto(f"{url}search/?q=paging")
    status = page.locator("#ra-search-status")
    status.filter(has_text=re.compile("result")).wait_for()
    total = int(re.match(r"([\d,]+) results", status.inner_text())[1].replace(",", ""))
    assert total > 30
    items = page.locator("#ra-search-results li")
    assert items.count() == 10  # the first ten come with the count
    while page.locator("#ra-search-more").is_visible():
        before = items.count()
        page.click("#ra-search-more")
        page.wait_for_function(f"document.querySelectorAll('{LISTED}').length > {before}")
        # the keyboard goes on from the first new result
        assert page.evaluate("document.activeElement.closest('li') !== null")
    hrefs = page.locator("#ra-search-results li > a").evaluate_all("as => as.map(a => a.href)")
    assert len(hrefs) == total == len(set(hrefs))


def test_falsification_text_finds_the_logbook(page: object, crowded: tuple[Path, str]) -> None:
    _, url = crowded
    found = search(page, url, "q=" + "+".join(ARGUMENT.split()[2:6]))
    assert found[0] == f"papers/{PAGING}/ana-ferreyra-paging-1/", found


def test_filters_work_from_the_form_and_are_kept_in_the_address(
    page: object, crowded: tuple[Path, str]
) -> None:
    _, url = crowded
    page.goto(f"{url}search/?q=ferreyra")
    assert any(u.startswith("papers/") for u in results(page, url))
    page.select_option("#ra-search-kind", "contributor")
    page.wait_for_url(re.compile(r"kind=contributor"))
    page.locator("#ra-search-results li > a").first.wait_for()
    found = _all(page, url, "q=ferreyra&kind=contributor")
    assert found and all(u.startswith("people/") for u in found)
    assert page.locator("#ra-search-kind").input_value() == "contributor"


def _all(page: object, url: str, query: str) -> list[str]:
    page.goto(f"{url}search/?{query}")
    found = results(page, url)
    while page.locator("#ra-search-more").is_visible():
        page.click("#ra-search-more")
        page.wait_for_function(f"document.querySelectorAll('{LISTED}').length > {len(found)}")
        found = results(page, url)
    return found


def _records(data: object) -> list[search_text.Record]:
    return search_text.records(data, ctx.contributors_context(data))


@pytest.mark.parametrize("query", ["Ferreyra", "Ferreyar", "paging", PAGING, "robust paging bound"])
def test_query_bytes_counts_at_least_what_chromium_fetches(
    page: object, crowded: tuple[Path, str], query: str
) -> None:
    """The benchmark's figure errs high, never low: every file the page fetched for the query
    is counted (fragments: as many, the largest), and the bytes are no fewer."""
    repo, url = crowded
    site = repo / "_site"
    page.goto(f"{url}search/")
    page.wait_for_function("window.reproauditTypos !== undefined")
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.fill("#ra-search-q", query)
    results(page, url)
    prefix = url.split("//", 1)[1].split("/", 1)[1]  # conf2026/
    paths = {site / u.split(prefix, 1)[1].split("?")[0] for u in fetched if prefix in u}
    paths = {p for p in paths if p.relative_to(site).parts[0] in ("pagefind", "ids", "typos")}
    assert any(p.parent.name == "fragment" for p in paths)  # the search did run
    counted = query_files(site, query)
    fragments = [p for p in paths if p.parent.name == "fragment"]
    assert {p for p in paths if p.parent.name != "fragment"} <= set(counted), sorted(paths)
    assert len(fragments) <= sum(p.parent.name == "fragment" for p in counted)
    assert sum(served_bytes(p) for p in paths) <= sum(counted.values())


@pytest.mark.parametrize("width", (390, 1366))
def test_no_serious_axe_finding_on_a_page_of_results(
    browser: object, crowded: tuple[Path, str], width: int
) -> None:
    """axe-core, light and dark, on results with "More results", filters and a correction."""
    _, url = crowded

    def answered(page: object, at: str) -> None:
        results(page, url)
        if "Ferreyar" in at:  # the correction is said once
            assert page.locator("#ra-search-status").inner_text().count("no exact match") == 1

    pages = [f"{url}search/?{q}" for q in ("q=paging", "q=Ferreyar&kind=paper")]
    assert serious_axe_findings(browser, width, pages, answered) == []
