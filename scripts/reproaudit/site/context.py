"""Page contexts: pure functions from ``SiteData`` to what each template shows.

No files, no network, no clock: ``SiteData.generated_at`` is the only "now".
URLs here are site-relative directory URLs (``papers/<id>/``); the renderer
turns them into links relative to the page they appear on. The context types
are in ``pages.py``. Over 400 lines on purpose: every page's context is here,
so the wording and states the pages share (outcome, review state) are computed
in one place.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

import numpy as np

from .. import layout
from ..fold import BUCKETS, CLAIM_FOLDS, stats
from ..judge.points import rerun_number, rerun_sweep
from ..layout import BADGE, LOGBOOK_PAGE, PAPER_FEED, PAPER_PAGE
from ..models import Claim, Review, Target, VerdictFile
from ..problems import human_size
from ..records import decided_by
from .cite import PaperCitation, cite_logbook, cite_paper
from .data import Key, SiteData
from .lists import facets as list_facets
from .pages import (
    BrowseList,
    BucketCount,
    Cell,
    ClaimResult,
    ClaimRow,
    Contested,
    ContestedEntry,
    Contributor,
    Discrepancy,
    Falsification,
    FalsificationItem,
    FalsificationsPage,
    HomePage,
    LogbookColumn,
    LogbookLinks,
    LogbookPage,
    MeasurementRow,
    PaperPage,
    PaperRow,
    PersonLogbook,
    PersonPage,
    RunView,
    VerdictEntry,
)
from .words import (
    OUTCOMES,
    STATES,
    WITHIN,
    Shown,
    claim_state,
    fold_state,
    outcome_label,
    paper_state,
    tested_range,
)

FEED_SIZE = 50
NEWEST = 15


# the paths of the site's one list of what it writes beside ids (``layout.WRITTEN``)
def paper_url(paper_id: str) -> str:
    return PAPER_PAGE.url(paper=paper_id)


def logbook_url(paper_id: str, logbook_id: str) -> str:
    return LOGBOOK_PAGE.url(paper=paper_id, logbook=logbook_id)


def badge_path(paper_id: str) -> str:
    return BADGE.at(paper=paper_id)


def paper_feed_path(paper_id: str) -> str:
    return PAPER_FEED.at(paper=paper_id)


def person_url(handle: str) -> str:
    return f"people/{handle.lower()}/"


def rerun_path(key: Key, name: str) -> str:
    return f"{layout.rerun_rel(*key)}/{name}"


def page_of(base: str, number: int) -> str:
    """URL of page ``number`` (1-based) of a paginated list at ``base``."""
    return base if number == 1 else f"{base}{number}/"


def paginate(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def target_text(target: Target | None) -> str:
    if target is None:
        return ""
    unit = "" if target.unit == "dimensionless" else f" {target.unit}"
    per = f" per {target.per}" if target.per else ""
    tol = ""
    if target.tolerance is not None:
        tol = (
            f" ± {target.tolerance.abs:g}"
            if target.tolerance.abs is not None
            else f" ± {target.tolerance.rel:.0%}"
        )
    symbol = {"at_least": "≥", "at_most": "≤", "equal": "=", "bounded": "bounded"}[target.form]
    if target.form == "bounded":
        bound = f" by {target.value:g}{unit}" if target.value is not None else ""
        return f"{target.metric} bounded{bound}{per}{tol}"
    return f"{target.metric} {symbol} {target.value:g}{unit}{per}{tol}"


def regime_text(claim: Claim) -> str:
    r = claim.regime
    if r is None:
        return ""
    start = f"{r.from_:g}" if r.from_ is not None else "…"
    end = f"{r.to:g}" if r.to is not None else "∞"
    return f"{r.parameter} from {start} to {end}"


def review_state(verdict: str, review: Any) -> str | None:
    """'under_review' or 'confirmed' for a falsified verdict, None otherwise."""
    if verdict != "falsified":
        return None
    return "confirmed" if isinstance(review, str) and review == "confirm" else "under_review"


def judge_text(verdict: VerdictFile | None) -> str:
    """Which judge made a verdict: 'rules', or the model and its prompt version."""
    if verdict is None:
        return ""
    if verdict.judge.mode == "rules" or not verdict.judge.model:
        return "rules"
    prompt = f", prompt v{verdict.judge.prompt_version}" if verdict.judge.prompt_version else ""
    return f"{verdict.judge.model}{prompt}"


def has_unconfirmed_falsification(data: SiteData, paper_id: str) -> bool:
    return any(
        row.counted and review_state(row.verdict, row.review) == "under_review"
        for row in data.rows_of(paper_id)
    )


def latest_answers(data: SiteData, paper_id: str) -> dict[tuple[str, str], Review]:
    """The authors' latest answer (``/author``) per (logbook, claim) of a paper."""
    memo = data.memo.setdefault("answers", {})
    if paper_id not in memo:
        answers: dict[tuple[str, str], Review] = {}
        for review in sorted(data.reviews.get(paper_id, []), key=lambda r: r.at):
            if review.kind == "author_response":
                answers[(review.logbook, review.claim)] = review
        memo[paper_id] = answers
    return memo[paper_id]


def paper_answer(data: SiteData, paper_id: str) -> Review | None:
    """The latest authors' answer on a falsification that counts in the paper's outcome."""
    answers = latest_answers(data, paper_id)
    found = [
        answers[(row.logbook, row.claim)]
        for row in data.rows_of(paper_id)
        if row.counted and row.verdict == "falsified" and (row.logbook, row.claim) in answers
    ]
    return max(found, key=lambda r: r.at) if found else None


def row_tested(row: Any) -> str:
    """A verdict row's tested range in words when its verified holds only within it, else ""
    (``within_tested_range``, rules version 4)."""
    within = getattr(row, "within_tested_range", False)  # NaN or None in a row without it
    if row.verdict != "verified" or not (isinstance(within, bool | np.bool_) and within):
        return ""
    return tested_range(getattr(row, "scope", None)) or WITHIN


def row_state(row: Any, answers: dict[tuple[str, str], Review]) -> Shown:
    """A verdict row (reviews applied) as every surface shows it."""
    answer = answers.get((row.logbook, row.claim)) if row.verdict == "falsified" else None
    review = row.review if isinstance(row.review, str) else None  # NaN when none
    return claim_state(
        row.verdict,
        row.flags,
        review_state(row.verdict, review),
        answer.stance if answer else None,
        within=bool(row_tested(row)),
        decided_by=_text(getattr(row, "decided_by", None)),
        second=_text(getattr(row, "second", None)),
        reviewed=review is not None,
    )


def paper_within(data: SiteData, paper_id: str) -> bool:
    """Whether a claim the paper's outcome counts verified holds only within the tested range:
    the fold's rule 6, read from the counted rows."""
    folds = data.claim_folds_of(paper_id)
    limited: dict[str, bool] = {}
    for row in data.rows_of(paper_id):
        if row.counted and row.verdict == "verified":
            limited[row.claim] = limited.get(row.claim, True) and bool(row_tested(row))
    return any(folds.get(claim) == "verified" and only for claim, only in limited.items())


def _untargeted(data: SiteData, paper_id: str, claim_id: str) -> bool:
    claim = data.papers[paper_id].claim(claim_id)
    return claim is not None and claim.target is None


def _text(value: Any) -> str | None:
    """A string cell of a verdict row, None for NaN or a missing one."""
    return value if isinstance(value, str) else None


def paper_shown(data: SiteData, paper_id: str) -> Shown:
    """The paper's outcome as its header, badge, feeds and lists show it (one vocabulary)."""
    memo = data.memo.setdefault("paper_shown", {})
    if paper_id not in memo:
        answers = latest_answers(data, paper_id)
        shown = [row_state(r, answers) for r in data.rows_of(paper_id) if r.counted]
        answer = paper_answer(data, paper_id)
        memo[paper_id] = paper_state(
            data.bucket_of.get(paper_id, "untested"),
            shown,
            answer.stance if answer else None,
            paper_within(data, paper_id),
        )
    return memo[paper_id]


def outcome_text(data: SiteData, paper_id: str) -> str:
    """The paper's outcome in words: 'Falsified, under review', 'Awaiting re-run'."""
    return paper_shown(data, paper_id).label


def claim_shown(data: SiteData, paper_id: str, claim: str, fold: str) -> Shown:
    """A claim's fold over its counted verdicts, in the words of its verdict chips."""
    answers = latest_answers(data, paper_id)
    rows = [r for r in data.rows_of(paper_id) if r.counted and r.claim == claim]
    given = [
        answers[(r.logbook, claim)]
        for r in rows
        if r.verdict == "falsified" and (r.logbook, claim) in answers
    ]
    answer = max(given, key=lambda r: r.at).stance if given else None
    held = data.claim_held_of(paper_id).get(claim, False)
    return fold_state(fold, [row_state(r, answers) for r in rows], answer, held)


def _cell(row: Any, answer: Review | None = None) -> Cell:
    review = row.review if isinstance(row.review, str) else None  # NaN when none
    return Cell(
        state=review_state(row.verdict, review),
        verdict=row.verdict,
        machine_verdict=row.machine_verdict,
        review=review,
        flags=list(row.flags),
        evidence=row.evidence,
        counted=bool(row.counted),
        answer=answer if row.verdict == "falsified" else None,
        tested=row_tested(row),
        decided_by=_text(getattr(row, "decided_by", None)),
        second=_text(getattr(row, "second", None)),
    )


def paper_context(data: SiteData, paper_id: str) -> PaperPage:
    paper = data.papers[paper_id]
    meta = paper.paper
    keys = data.logbooks_of(paper_id)
    cells: dict[tuple[str, str], Cell] = {}
    answers = latest_answers(data, paper_id)
    for row in data.rows_of(paper_id):
        cells[(row.logbook, row.claim)] = _cell(row, answers.get((row.logbook, row.claim)))
    folds = data.claim_folds_of(paper_id)
    reviews = data.reviews.get(paper_id, [])
    by_claim: dict[str, list] = defaultdict(list)
    for review in sorted(reviews, key=lambda r: r.at):
        by_claim[review.claim].append(review)
    logbooks = []
    for key in keys:
        book = data.logbooks[key]
        verdict = data.verdicts.get(key)
        logbooks.append(
            LogbookColumn(
                id=key[1],
                url=logbook_url(*key),
                contributor=book.logbook.contributor.github,
                judged_at=verdict.judged_at if verdict else None,
                mode=verdict.judge.mode if verdict else None,
                judge=judge_text(verdict),
                stale=key in data.stale,
                rerun=verdict.rerun.status if verdict and verdict.rerun else None,
            )
        )
    claims = [
        ClaimRow(
            id=claim.id,
            statement=claim.statement,
            anchor=claim.anchor,
            kind=claim.kind,
            target=target_text(claim.target),
            regime=regime_text(claim),
            fold=folds.get(claim.id, "untested"),
            shown=claim_shown(data, paper_id, claim.id, folds.get(claim.id, "untested")),
            cells=[cells.get((lb.id, claim.id)) for lb in logbooks],
            responses=[r for r in by_claim.get(claim.id, []) if r.kind == "author_response"],
        )
        for claim in paper.claims
    ]
    contested = []
    for claim in claims:
        if claim.fold != "contested":
            continue
        sides: dict[str, list[ContestedEntry]] = {"verified": [], "falsified": []}
        for lb, cell in zip(logbooks, claim.cells, strict=True):
            if cell and cell.counted and cell.verdict in sides:
                entry = ContestedEntry(**vars(lb), evidence=cell.evidence, flags=cell.flags)
                sides[cell.verdict].append(entry)
        contested.append(Contested(claim, sides["verified"], sides["falsified"]))
    return PaperPage(
        paper=meta,
        url=paper_url(paper_id),
        claims_version=paper.claims_version,
        bucket=data.bucket_of.get(paper_id),
        bucket_label=outcome_text(data, paper_id),
        outcome=paper_shown(data, paper_id),
        feed=paper_feed_path(paper_id),
        authors_text=", ".join(a.name for a in meta.authors),
        links={k: v for k, v in meta.links.model_dump().items() if v},
        released={k: v for k, v in meta.released.model_dump().items() if v},
        logbooks=logbooks,
        claims=claims,
        contested=contested,
        falsifications=falsifications_of(data, paper_id),
        draft=paper.is_draft,
        discrepancies=[
            Discrepancy(
                logbook=key[1],
                url=logbook_url(*key),
                claim=result.claim,
                paper_says=d.paper,
                code_does=d.code,
            )
            for key in keys
            for result in data.logbooks[key].results
            for d in result.discrepancies
        ],
        badge=badge_path(paper_id),
        site_url=data.site_url,
        cite=paper_citation(data, paper_id),
        logbook_cites=[cite_verdict(data, key) for key in keys if key in data.verdicts],
        answer=paper_answer(data, paper_id)
        if data.bucket_of.get(paper_id) in ("falsified", "mixed", "contested")
        else None,
    )


def paper_citation(data: SiteData, paper_id: str) -> PaperCitation:
    """A paper's citation (``cite.cite_paper``), made once: the page's head tags and its
    BibTeX block both show it."""
    made: dict[str, PaperCitation] = data.memo.setdefault("citations", {})
    if paper_id not in made:
        meta = data.papers[paper_id].paper
        made[paper_id] = cite_paper(meta, absolute_url(data, paper_url(paper_id)))
    return made[paper_id]


def absolute_url(data: SiteData, path: str) -> str | None:
    """A site path as an absolute URL, when the site has a ``site_url``."""
    return data.site_url.rstrip("/") + "/" + path if data.site_url else None


def falsifications_of(data: SiteData, paper_id: str) -> list[Falsification]:
    """Claimed falsifications and their review state: under review, confirmed or rejected."""
    reviews = data.reviews.get(paper_id, [])
    out = []
    for key in data.logbooks_of(paper_id):
        for result in data.logbooks[key].results:
            if result.falsification is None:
                continue
            mine = sorted(
                (r for r in reviews if r.logbook == key[1] and r.claim == result.claim),
                key=lambda r: r.at,
            )
            decided = [r for r in mine if r.kind == "review"]
            state = "under_review"
            if decided:
                state = "confirmed" if decided[-1].stance == "confirm" else "rejected"
            verdict = data.verdicts.get(key)
            machine = (
                next((c.verdict for c in verdict.claims if c.claim == result.claim), None)
                if verdict
                else None
            )
            out.append(
                Falsification(
                    paper=paper_id,
                    title=data.papers[paper_id].paper.title,
                    paper_url=paper_url(paper_id),
                    logbook=key[1],
                    url=logbook_url(*key),
                    contributor=data.logbooks[key].logbook.contributor.github,
                    claim=result.claim,
                    argument=result.falsification.argument,
                    counterexample=result.falsification.counterexample,
                    state=state,
                    machine_verdict=machine,
                    reviews=decided,
                    responses=[r for r in mine if r.kind == "author_response"],
                )
            )
    return out


def _measurements(result: Any, rerun: Any) -> list[MeasurementRow]:
    """Each measurement with its typed number and, when a re-run produced it, the re-run's."""
    out: list[MeasurementRow] = []
    for m in result.measurements if result else []:
        rerun_value = None
        if m.source and rerun is not None and rerun.numbers is not None:
            rerun_value = rerun_number(rerun.numbers, m.source)  # the judge's own reading
        out.append({"m": m, "typed": m.value, "rerun": rerun_value})
    return out


def _sweep_rerun(result: Any, rerun: Any) -> list[tuple[Any, Any]] | None:
    """(parameter, measured) pairs the re-run produced for the result's sweep, if any."""
    sweep = result.sweep if result else None
    if sweep is None or not sweep.source or rerun is None or rerun.numbers is None:
        return None
    pairs = rerun_sweep(rerun.numbers, sweep.source)  # the judge's own reading
    return list(pairs) if pairs is not None else None


def _github_file(data: SiteData, path: str, tree: bool = False) -> str | None:
    if not data.repo_url or "github.com" not in data.repo_url:
        return None
    return f"{data.repo_url}/{'tree' if tree else 'blob'}/{data.commit or 'HEAD'}/{path}"


def _github_history(data: SiteData, path: str) -> str | None:
    """GitHub's list of the commits that touched ``path``; each names its pull request."""
    if not data.repo_url or "github.com" not in data.repo_url:
        return None
    return f"{data.repo_url}/commits/{data.commit or 'HEAD'}/{path}"


def logbook_context(data: SiteData, key: Key) -> LogbookPage:
    book = data.logbooks[key]
    paper = data.papers[key[0]]
    verdict = data.verdicts.get(key)
    rerun = data.reruns.get(key)
    judged = {c.claim: c for c in verdict.claims} if verdict else {}
    reviewed = {row.claim: row for row in data.rows_of(key[0]) if row.logbook == key[1]}
    results = {r.claim: r for r in book.results}
    items = []
    for claim in paper.claims:
        result = results.get(claim.id)
        item = judged.get(claim.id)
        row = reviewed.get(claim.id)
        shown = row.verdict if row is not None else (item.verdict if item else None)
        review = row.review if row is not None and isinstance(row.review, str) else None
        items.append(
            ClaimResult(
                claim=claim,
                target=target_text(claim.target),
                regime=regime_text(claim),
                result=result,
                verdict=shown,
                machine_verdict=item.verdict if item else None,
                review=review,
                state=review_state(shown or "", review),
                evidence=item.evidence if item else None,
                flags=list(item.flags) if item else [],
                votes=item.votes if item else None,
                decided_by=decided_by(verdict, item, claim.target is None)
                if verdict and item
                else None,
                second=item.second_opinion if item else None,
                llm_opinion=item.llm_opinion if item else None,
                log_failures=list(item.log_failures or []) if item else [],
                measurements=_measurements(result, rerun),
                sweep_rerun=_sweep_rerun(result, rerun),
                answer=latest_answers(data, key[0]).get((key[1], claim.id))
                if shown == "falsified"
                else None,
                tested=(tested_range(item.scope) or WITHIN)
                if item and item.within_tested_range and shown == "verified"
                else "",
            )
        )
    code = book.code
    code_url = None
    if code is not None and code.path:
        folder = code.path.strip("/")
        code_url = _github_file(data, layout.in_paper_logbooks(key[0], folder), tree=True)
    elif code is not None and code.repo and code.commit and "github.com" in code.repo:
        code_url = f"{code.repo.rstrip('/')}/tree/{code.commit}"
    run = rerun.run if rerun else None
    return LogbookPage(
        paper=paper.paper,
        paper_url=paper_url(key[0]),
        logbook=book,
        url=logbook_url(*key),
        verdict=verdict,
        judge=judge_text(verdict),
        stale=key in data.stale,
        per_claim=items,
        writeup=data.writeups.get(key),
        person_url=person_url(book.logbook.contributor.github),
        rerun_files=[(name, rerun_path(key, name)) for name in rerun.files] if rerun else [],
        run=RunView(
            run.sandbox,
            run.environment.model_dump(mode="json"),
            None if rerun and rerun.ignored else run.log_tail,  # a run of other bytes
            settings=setting_rows(
                {"sandbox": run.sandbox, **run.environment.model_dump(mode="json")}
            )
            + setting_rows(run.limits.model_dump(mode="json"), prefix="limit: "),
            ignored=rerun.ignored if rerun else None,
        )
        if run
        else RunView(ignored=rerun.ignored if rerun else None),
        links=LogbookLinks(
            logbook=_github_file(data, layout.logbook_rel(*key)),
            writeup=_github_file(data, layout.writeup_rel(*key)) if key in data.writeups else None,
            code=code_url,
            verdict=_github_file(data, layout.verdict_rel(*key)) if verdict else None,
            pull_request=data.pull_requests.get(key),
            history=_github_history(data, layout.logbook_rel(*key)),
        ),
        commit=data.commit,
        cite=cite_verdict(data, key) if verdict else None,
    )


def setting_rows(values: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """A record's settings as (name, value) rows a person reads: ``memory_bytes`` 8589934592
    is "memory: 8 GiB", ``wall_s`` 300 is "wall: 300 s", true is "yes", null is "—";
    nested sections are named with their parent ("limit: memory")."""
    rows: list[tuple[str, str]] = []
    for name, value in values.items():
        label = name.replace("_", " ")
        if isinstance(value, dict):
            rows += setting_rows(value, prefix=f"{prefix}{label}: ")
            continue
        if name.endswith("_bytes") and isinstance(value, int) and not isinstance(value, bool):
            label, text = label.removesuffix(" bytes"), human_size(value)
        elif name.endswith("_s") and isinstance(value, int | float) and value is not True:
            label, text = label.removesuffix(" s"), f"{value:g} s"
        elif isinstance(value, bool):
            text = "yes" if value else "no"
        elif value is None:
            text = "—"
        elif isinstance(value, list):
            text = ", ".join(str(v) for v in value) or "—"
        else:
            text = str(value)
        rows.append((prefix + label, text))
    return rows


def cite_verdict(data: SiteData, key: Key) -> dict[str, str]:
    """BibTeX and plain text for a verdict (``cite.cite_logbook``), the contributor named as
    the paper file names them when they are one of its authors."""
    verdict = data.verdicts[key]
    return cite_logbook(
        data.papers[key[0]].paper,
        key[1],
        data.logbooks[key].logbook.contributor.github,
        verdict,
        judge_text(verdict),
        absolute_url(data, logbook_url(*key)),
    )


def home_context(data: SiteData) -> HomePage:
    table = stats(data.claim_folds, data.paper_folds)
    judged = table["papers_judged"]
    buckets: list[BucketCount] = [
        {
            "key": key,
            "label": OUTCOMES[key][0],
            "count": table["buckets"][key],
            "percent": round(100 * table["buckets"][key] / judged, 1) if judged else 0.0,
        }
        for key in BUCKETS
    ]
    return {
        "table": table,
        "buckets": buckets,
        "papers_total": len(data.papers),
        "logbooks_total": len(data.logbooks),
        "claims_total": sum(len(p.claims) for p in data.papers.values()),
        "newest": newest_verdicts(data, NEWEST),
        "claim_folds": CLAIM_FOLDS,
        "verdicts_total": len(data.verdicts),
        "stale_total": len(data.stale),
    }


def newest_verdicts(data: SiteData, limit: int) -> list[VerdictEntry]:
    newest = sorted(data.verdicts.items(), key=lambda kv: (kv[1].judged_at, kv[0]), reverse=True)
    return [_entry(data, key, verdict) for key, verdict in newest[:limit]]


def _entry(data: SiteData, key: Key, verdict: VerdictFile) -> VerdictEntry:
    """A verdict as the home page and the feeds show it (reviews applied)."""
    rows = [r for r in data.rows_of(key[0]) if r.logbook == key[1]]
    answers = latest_answers(data, key[0])
    shown = (
        [row_state(r, answers) for r in rows]
        if rows
        else [
            claim_state(
                c.verdict,
                c.flags,
                within=bool(c.within_tested_range),
                decided_by=decided_by(verdict, c, _untargeted(data, key[0], c.claim)),
                second=c.second_opinion.verdict if c.second_opinion else None,
            )
            for c in verdict.claims
        ]
    )
    counts = Counter(s.label for s in shown)
    first = {s.label: s for s in reversed(shown)}
    order = list(STATES)
    states = sorted(
        ((first[label], n) for label, n in counts.items()),
        key=lambda item: (order.index(item[0].key), item[0].label),
    )
    answered = [
        answers[(key[1], r.claim)]
        for r in rows
        if r.verdict == "falsified" and (key[1], r.claim) in answers
    ]
    answer = max(answered, key=lambda r: r.at) if answered else None
    return {
        "paper": key[0],
        "title": data.papers[key[0]].paper.title,
        "logbook": key[1],
        "url": logbook_url(*key),
        "paper_url": paper_url(key[0]),
        "contributor": data.logbooks[key].logbook.contributor.github,
        "person_url": person_url(data.logbooks[key].logbook.contributor.github),
        "judged_at": verdict.judged_at,
        "judge": judge_text(verdict),
        "states": states,  # (state, count) in the vocabulary's order: "2 awaiting re-run"
        "stale": key in data.stale,
        "answer": answer,  # the authors' latest answer on one of its falsifications
        # a feed entry is updated when the authors answer
        "updated": max(verdict.judged_at, answer.at) if answer else verdict.judged_at,
    }


SCORE = {"verified": 2, "falsified_confirmed": 3, "toy": 1}
SCORE_TEXT = (
    "Score = 2 points per claim verified + 3 per falsification a maintainer confirmed "
    "+ 1 per toy verdict. As in the statistics, only each person's latest logbook per paper "
    "counts, after maintainer reviews; a falsification under review scores nothing until it "
    "is confirmed. Ties share a rank."
)


def contributors_context(data: SiteData) -> list[Contributor]:
    """Every contributor with credit, score and rank (handles compared case-insensitively)."""
    if "contributors" not in data.memo:
        data.memo["contributors"] = _contributors(data)
    return data.memo["contributors"]


def _contributors(data: SiteData) -> list[Contributor]:
    books: Counter = Counter()
    papers: dict[str, set[str]] = defaultdict(set)
    shown: dict[str, tuple[str, str]] = {}  # lower handle -> (latest judged, handle as written)
    for key, book in data.logbooks.items():
        handle = book.logbook.contributor.github
        who = handle.lower()
        books[who] += 1
        papers[who].add(key[0])
        verdict = data.verdicts.get(key)
        stamp = verdict.judged_at.isoformat() if verdict else ""
        if who not in shown or stamp > shown[who][0]:
            shown[who] = (stamp, handle)
    credit: dict[str, Counter] = defaultdict(Counter)
    if not data.rows.empty:
        counted = data.rows[data.rows["counted"]]
        for row in counted.itertuples(index=False):
            state = review_state(str(row.verdict), row.review)
            name = f"falsified_{'confirmed' if state == 'confirmed' else 'under_review'}"
            credit[str(row.contributor).lower()][name if state else row.verdict] += 1
    out: list[Contributor] = []
    for who in books:
        c = credit[who]
        score = (
            SCORE["verified"] * c["verified"]
            + SCORE["falsified_confirmed"] * c["falsified_confirmed"]
            + SCORE["toy"] * c["toy"]
        )
        out.append(
            {
                "github": shown[who][1],
                "url": person_url(who),
                "logbooks": books[who],
                "papers": len(papers[who]),
                "verified": c["verified"],
                "falsified": c["falsified_confirmed"],
                "under_review": c["falsified_under_review"],
                "toy": c["toy"],
                "score": score,
            }
        )
    out.sort(key=lambda p: (-p["score"], -p["logbooks"], p["github"].lower()))
    rank = 0
    for i, person in enumerate(out):
        if i == 0 or person["score"] != out[i - 1]["score"]:
            rank = i + 1
        person["rank"] = rank
    return out


def logbooks_by_person(data: SiteData) -> dict[str, list[Key]]:
    """Logbook keys per contributor (lower-case handle)."""
    out: dict[str, list[Key]] = defaultdict(list)
    for key, book in data.logbooks.items():
        out[book.logbook.contributor.github.lower()].append(key)
    return out


def person_context(data: SiteData, person: Contributor, keys: list[Key]) -> PersonPage:
    """One contributor's logbooks (``keys``), newest first, with their verdicts per claim."""
    return {"person": person, "logbooks": _logbook_rows(data, keys)}


def _logbook_rows(data: SiteData, keys: list[Key]) -> list[PersonLogbook]:
    rows: list[PersonLogbook] = []
    for key in keys:
        verdict = data.verdicts.get(key)
        answers = latest_answers(data, key[0])
        verdicts = {
            r.claim: (r.verdict, row_state(r, answers), bool(r.counted))
            for r in data.rows_of(key[0])
            if r.logbook == key[1]
        }
        rows.append(
            {
                "paper": key[0],
                "title": data.papers[key[0]].paper.title,
                "paper_url": paper_url(key[0]),
                "logbook": key[1],
                "url": logbook_url(*key),
                "judged_at": verdict.judged_at if verdict else None,
                "judge": judge_text(verdict),
                "stale": key in data.stale,
                "claims": [
                    {"claim": c, "verdict": v, "shown": st, "counted": n}
                    for c, (v, st, n) in sorted(verdicts.items())
                ],
            }
        )
    rows.sort(key=lambda r: (r["judged_at"].isoformat() if r["judged_at"] else "", r["url"]))
    return rows[::-1]


def paper_rows(data: SiteData) -> list[PaperRow]:
    """One row per paper, sorted by title (A-Z), for the static lists and the list's slices
    (``lists.py``: track, re-run states, date of the newest verdict)."""
    if "paper_rows" in data.memo:
        return data.memo["paper_rows"]
    logbooks = Counter(k[0] for k in data.logbooks)
    rows: list[PaperRow] = []
    for paper_id, paper in data.papers.items():
        meta = paper.paper
        bucket = data.bucket_of.get(paper_id, "untested")
        rows.append(
            {
                "id": paper_id,
                "title": meta.title,
                "url": paper_url(paper_id),
                "bucket": bucket,
                "bucket_label": outcome_label(bucket),
                "outcome": outcome_text(data, paper_id),
                "shown": paper_shown(data, paper_id),
                "under_review": bucket in ("falsified", "mixed", "contested")
                and has_unconfirmed_falsification(data, paper_id),
                **list_facets(data, paper_id),
                "area": meta.tags.area or "",
                "authors": ", ".join(a.name for a in meta.authors[:4])
                + (" et al." if len(meta.authors) > 4 else ""),
                "claims": len(paper.claims),
                "logbooks": logbooks.get(paper_id, 0),
                "draft": paper.is_draft,
            }
        )
    rows.sort(key=lambda r: (r["title"].casefold(), r["id"]))
    data.memo["paper_rows"] = rows
    return rows


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "other"


def browse_lists(data: SiteData) -> list[BrowseList]:
    """The static lists that reach every paper without JavaScript: A-Z, by outcome, by area,
    and the drafts (claims no maintainer has reviewed yet) apart from the rest."""
    every = paper_rows(data)
    rows = [r for r in every if not r["draft"]]
    drafts = [r for r in every if r["draft"]]
    lists: list[BrowseList] = [
        {"kind": "a-z", "name": "All papers, A to Z", "url": "browse/a-z/", "rows": rows}
    ]
    if drafts:
        lists.append(
            {
                "kind": "drafts",
                "key": "drafts",
                "name": "Drafts: claims not reviewed yet",
                "label": "Drafts",
                "url": "browse/drafts/",
                "rows": drafts,
            }
        )
    for bucket, (label, _) in OUTCOMES.items():
        mine = [r for r in rows if r["bucket"] == bucket]
        if mine:
            lists.append(
                {
                    "kind": "outcome",
                    "key": bucket,
                    "name": f"Outcome: {label}",
                    "label": label,
                    "url": f"browse/outcome/{bucket}/",
                    "rows": mine,
                }
            )
    areas: dict[str, list[PaperRow]] = defaultdict(list)
    for r in rows:
        areas[r["area"] or "No area given"].append(r)
    for area in sorted(areas, key=str.casefold):
        lists.append(
            {
                "kind": "area",
                "key": area,
                "name": f"Area: {area}",
                "label": area,
                "url": f"browse/area/{slug(area)}/",
                "rows": areas[area],
            }
        )
    return lists


def falsifications_context(data: SiteData) -> FalsificationsPage:
    """Every falsified claim verdict, with or without an argument, and every claimed one."""
    table = stats(data.claim_folds, data.paper_folds)
    items: list[FalsificationItem] = []
    for paper_id in sorted({k[0] for k in data.logbooks}):
        claimed = {(f.logbook, f.claim): f for f in falsifications_of(data, paper_id)}
        folds = data.claim_folds_of(paper_id)
        for row in data.rows_of(paper_id):
            argued = claimed.pop((row.logbook, row.claim), None)
            if row.verdict != "falsified" and argued is None:
                continue
            state = review_state(str(row.verdict), row.review) or (
                "rejected"
                if isinstance(row.review, str) and row.review == "reject"
                else "not_falsified"
            )
            items.append(
                {
                    "paper": paper_id,
                    "title": data.papers[paper_id].paper.title,
                    "paper_url": paper_url(paper_id),
                    "claim": row.claim,
                    "claim_url": paper_url(paper_id) + "#" + row.claim,
                    "fold": folds.get(row.claim, "untested"),
                    "fold_label": claim_shown(
                        data, paper_id, row.claim, folds.get(row.claim, "untested")
                    ).label,
                    "logbook": row.logbook,
                    "url": logbook_url(paper_id, row.logbook),
                    "contributor": row.contributor,
                    "person_url": person_url(str(row.contributor)),
                    "state": state,
                    "counted": bool(row.counted),
                    "argued": argued is not None,
                    "machine_verdict": row.machine_verdict,
                }
            )
        for f in claimed.values():  # an argument for a claim the judge never saw
            items.append(
                {
                    "paper": f.paper,
                    "title": f.title,
                    "paper_url": f.paper_url,
                    "logbook": f.logbook,
                    "url": f.url,
                    "contributor": f.contributor,
                    "claim": f.claim,
                    "argument": f.argument,
                    "counterexample": f.counterexample,
                    "machine_verdict": f.machine_verdict,
                    "reviews": f.reviews,
                    "responses": f.responses,
                    "claim_url": f.paper_url + "#" + f.claim,
                    "fold": folds.get(f.claim, "untested"),
                    "fold_label": claim_shown(
                        data, paper_id, f.claim, folds.get(f.claim, "untested")
                    ).label,
                    "person_url": person_url(f.contributor),
                    "state": f.state,
                    "counted": False,
                    "argued": True,
                }
            )
    falsified_claims = {
        (i["paper"], i["claim"]) for i in items if i["fold"] in ("falsified", "contested")
    }
    return {
        "items": items,
        "claims_falsified": table["claims"]["falsified"],
        "claims_contested": table["claims"]["contested"],
        "claims_listed": len(falsified_claims),
        "under_review": sum(1 for i in items if i["state"] == "under_review"),
        "confirmed": sum(1 for i in items if i["state"] == "confirmed"),
    }


def paper_feed_entries(data: SiteData, paper_id: str) -> list[VerdictEntry]:
    keys = [k for k in data.logbooks_of(paper_id) if k in data.verdicts]
    return [_entry(data, k, data.verdicts[k]) for k in keys][::-1]


def feed_entries(data: SiteData) -> list[VerdictEntry]:
    return newest_verdicts(data, FEED_SIZE)
