"""Rendering: page contexts -> HTML fragments, charts, badges, feed, index, downloads.

Page generation stays separate from the theme: templates here produce the
content of a page (an HTML fragment), and the mkdocs plugin places it inside
whatever theme the site uses. Generated pages never go through Markdown.
Untrusted text (titles, notes, write-ups) is escaped by jinja2's autoescape;
write-ups are rendered by markdown-it with raw HTML disabled.

Over 400 lines because it renders every page kind and file of the site from the typed
contexts; each renderer is a short function over one template.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import cache, partial
from typing import Any

import jinja2
from markupsafe import Markup

from ..export import COLUMNS, DATA_LICENSE, FORMATS, encode_file, export_frame, file_name
from ..layout import LOGBOOK_SOURCE, PAPER_SOURCE, PAPERS_SOURCE, SITE_FEED
from ..problems import human_size
from . import context as ctx
from . import ids, search_text, words
from . import lists as lists_
from .charts import BUCKET_COLOURS, CHART_SIZE, buckets_chart, verdicts_over_time_chart
from .chips import Chips
from .cite import head_html
from .data import Key, SiteData
from .pages import Contributor, Pager


@dataclass(frozen=True)
class Page:
    """A generated page: where it goes, its title and HTML, and how the head describes it.

    ``shell`` pages (the thousands of papers, logbooks, lists) are filled into the shell
    page of their URL depth instead of going through mkdocs one by one; ``feed`` is the
    site path of the page's own Atom feed; ``wide`` hides the side navigation. ``html``
    may be a function that renders it: paper, logbook and contributor pages are rendered
    when they are written, so a large site never holds all their HTML at once.
    """

    src_uri: str
    title: str
    html: str | Callable[[], str]
    description: str = ""
    feed: str | None = None
    feed_title: str | None = None
    shell: bool = False
    wide: bool = False
    head: str = ""  # markup for the page's <head> (citation tags), escaped by its maker

    def content(self) -> str:
        return self.html if isinstance(self.html, str) else self.html()


PAGE_SIZE = 100  # rows per page of the static lists and the leaderboard


def number(value: int | float) -> str:
    """The site's one number format for counts: 1,788."""
    return f"{value:,}"


def measured(value: object) -> str:
    """A measured number as it was written: ``8`` not ``8.0``, ``0.123456789`` in full.

    YAML and JSON give floats for ``8.0`` and ints for ``8``; both read ``8`` here. Other
    floats print in their shortest exact form (Python's ``repr``), never rounded to six digits.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("reproaudit.site", "templates"),
        auto_reload=False,  # templates do not change during a build: no stat per page
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["n"] = number
    env.filters["measured"] = measured
    env.globals.update(
        FLAGS=words.FLAGS,
        OUTCOMES=words.OUTCOMES,
        VERDICTS=words.VERDICTS,
        MARKERS=words.MARKERS,
        STATES=words.STATES,
        QUALIFIERS=words.QUALIFIERS,
        claim_state=words.claim_state,
        qualifier_example=words.qualifier_example,
        words=words,
        MEANING=words.MEANING_URL,
        flag_label=words.flag_label,
        u=_u,
        absolute=_absolute_url,
        chip=Chips(_u),
        PAGE_SIZE=PAGE_SIZE,
        CHART_W=CHART_SIZE[0] * 72,
        CHART_H=CHART_SIZE[1] * 72,
    )
    return env


def page_url(src_uri: str) -> str:
    """Directory URL of a page source: 'papers/P/index.md' -> 'papers/P/'."""
    stem = src_uri[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def relative(from_url: str, to: str) -> str:
    """A link from the page at ``from_url`` (a directory URL) to the site path ``to``.

    String work only: posixpath.relpath costs ten times more, and a large site makes
    hundreds of thousands of links.
    """
    here = from_url.split("/")[:-1]  # the directories of the page
    there = to.split("/")
    common = 0
    while common < len(here) and common < len(there) - 1 and here[common] == there[common]:
        common += 1
    link = "../" * (len(here) - common) + "/".join(there[common:])
    return link or "./"


# (URL, site address) of the page being rendered: set by ``render`` for the length of one
# call and reset after it, per thread, so no page's links outlive it or leak into another's
_PAGE: ContextVar[tuple[str, str]] = ContextVar("reproaudit_page", default=("", ""))


def _u(to: str) -> str:
    """Templates' link helper: from the page being rendered to a site path."""
    return relative(_PAGE.get()[0], to)


def _absolute_url(path: str) -> str:
    site = _PAGE.get()[1]
    return f"{site}/{path}" if site else f"/{path}"


def _absolute(data: SiteData) -> Callable[[str], str]:
    base = (data.site_url or "").rstrip("/")
    return lambda path: f"{base}/{path}" if base else f"/{path}"


def render(template: str, src_uri: str, data: SiteData, **values: Any) -> str:
    # the link helpers are globals, not per-page variables, so templates import the macros
    # without context and jinja evaluates them once, not once per page
    token = _PAGE.set((page_url(src_uri), (data.site_url or "").rstrip("/")))
    try:
        return _env().get_template(template).render(**values)
    finally:
        _PAGE.reset(token)


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    # commonmark with raw HTML off: a write-up cannot inject markup or scripts
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


_HEADING = re.compile(r"<(/?)h([1-6])>")


def writeup_html(text: str) -> Markup:
    html = _markdown().render(text)
    # the write-up sits under the page's "Write-up" <h2>: its headings start at <h3>
    html = _HEADING.sub(lambda m: f"<{m.group(1)}h{min(int(m.group(2)) + 2, 6)}>", html)
    # tables get the site's style and a focusable scroll region (keyboard users can scroll)
    html = html.replace(
        "<table>",
        '<div class="ra-scroll" tabindex="0" role="region" aria-label="table from the write-up">'
        '<table class="ra-table">',
    ).replace("</table>", "</table></div>")
    return Markup(html)


def _paged(
    base: str,
    title: str,
    rows: list[Any],
    template: str,
    data: SiteData,
    description: str,
    first_direct: bool = False,
    **values: Any,
) -> list[Page]:
    """A list split into pages of PAGE_SIZE rows: ``base``, ``base`` 2/, 3/... with a pager."""
    chunks = ctx.paginate(rows, PAGE_SIZE)
    out = []
    for number_, chunk in enumerate(chunks, start=1):
        url = ctx.page_of(base, number_)
        src = url + "index.md" if url else "index.md"
        if first_direct and number_ == 1:
            src = base.rstrip("/") + ".md"
        pager: Pager = {
            "number": number_,
            "count": len(chunks),
            "pages": [ctx.page_of(base, i) for i in range(1, len(chunks) + 1)],
            "window": lists_.pager_window(number_, len(chunks)),
            "first": (number_ - 1) * PAGE_SIZE + 1,
            "last": (number_ - 1) * PAGE_SIZE + len(chunk),
            "total": len(rows),
        }
        heading = title if number_ == 1 else f"{title} (page {number_} of {len(chunks)})"
        html = render(template, src, data, rows=chunk, pager=pager, heading=heading, **values)
        shell = not (first_direct and number_ == 1)
        out.append(Page(src, heading, html, description=description, shell=shell))
    return out


def pages(data: SiteData, site_name: str, only: set[str] | None = None) -> list[Page]:
    """Every generated page; ``only`` limits paper and logbook pages to some papers."""
    home = ctx.home_context(data)
    lists = ctx.browse_lists(data)
    people = ctx.contributors_context(data)  # memoised: the search records use it too
    falsified = ctx.falsifications_context(data)
    out = [
        Page(
            "index.md",
            site_name,
            render("home.html", "index.md", data, home=home, site_name=site_name),
            description=(
                f"{number(home['papers_total'])} papers, {number(home['claims_total'])} claims, "
                f"{number(home['logbooks_total'])} reproduction logbooks, judged claim by claim."
            ),
        ),
        Page(
            PAPERS_SOURCE.path,
            "Papers",
            render(
                "papers.html",
                PAPERS_SOURCE.path,
                data,
                count=len(lists[0]["rows"]),
                buckets={k: v[0] for k, v in words.OUTCOMES.items()},
                areas=sorted({r["area"] for r in lists[0]["rows"] if r["area"]}),
                lists=lists,
                first=lists[0]["rows"][: min(lists_.FIRST_ROWS, PAGE_SIZE)],
                # the static page of the list A to Z where the rows not shown start
                rest=ctx.page_of("browse/a-z/", min(lists_.FIRST_ROWS, PAGE_SIZE) // PAGE_SIZE + 1),
                slices=lists_.slice_count(len(lists[0]["rows"])),
                slice_dir=lists_.SLICE_DIR + "/",
                slice_size=lists_.SLICE_SIZE,
                page_size=PAGE_SIZE,
                fields=" ".join(lists_.FIELDS),
                tracks=lists_.TRACKS,
                reruns=lists_.RERUN,
            ),
            description=f"All {number(len(lists[0]['rows']))} papers: filter by outcome, "
            "track, re-run and review, sort by title or date; static lists work without "
            "JavaScript.",
            wide=True,
            # without JavaScript the filters cannot work: hidden from the first paint, and
            # with it they are there from the first paint (no jump when the script runs)
            head="<noscript><style>#ra-papers-form{display:none}</style></noscript>",
        ),
        Page(
            "search.md",
            "Search",
            render(
                "search.html",
                "search.md",
                data,
                shards=" ".join(id_shards(data)),  # which lookup files exist
                typo_shards=" ".join(data.memo.get("typo shards", [])),
                kinds=search_text.KINDS,
                outcomes=search_text.OUTCOMES,
            ),
            description="Search papers, authors, ids and claims.",
        ),
        Page(
            "meaning.md",
            "What the verdicts mean",
            render("meaning.html", "meaning.md", data),
            description="Outcomes, verdicts, flags and markers explained in plain words.",
        ),
        Page(
            "downloads.md",
            "Downloads",
            render(
                "downloads.html",
                "downloads.md",
                data,
                columns=COLUMNS,
                generated_at=data.generated_at,
                files=_download_rows(_downloads(data)),
                names={fmt: file_name(fmt) for fmt in FORMATS},
                licence=DATA_LICENSE,
            ),
            description="Every claim and verdict as Parquet, gzipped CSV and gzipped JSON Lines.",
        ),
    ]
    lookups = ids.lookup_pages(id_entries(data))
    firsts = [page.prefix for page in lookups if len(page.prefix) == 1]
    out.append(
        Page(
            "ids/index.md",
            "Look up an id",
            render("ids.html", "ids/index.md", data, groups=firsts, page=None),
            description="Paper, arXiv and logbook ids and contributors' handles, A to Z.",
        )
    )
    for lookup in lookups:
        src = f"ids/{lookup.prefix}/index.md"
        shown = "other characters" if lookup.prefix == "_" else lookup.shown
        count = len(lookup.entries) or len(lookup.narrower)
        out.append(
            Page(
                src,
                f"Ids starting with {shown}",
                partial(render, "ids.html", src, data, groups=firsts, page=lookup),
                description=(
                    f"{number(count)} ids and the pages they lead to."
                    if lookup.entries
                    else f"Ids starting with {shown}, in {number(count)} pages."
                ),
                shell=True,
            )
        )
    for item in lists:
        out += _paged(
            item["url"],
            item["name"],
            item["rows"],
            "browse.html",
            data,
            f"{item['name']}: {number(len(item['rows']))} papers.",
            lists=lists,
            current=item,
        )
    out += _paged(
        "contributors/",
        "Contributors",
        people,
        "contributors.html",
        data,
        f"{number(len(people))} contributors ranked by a documented score.",
        first_direct=True,
        score_text=ctx.SCORE_TEXT,
    )
    out += _paged(
        "falsifications/",
        "Falsifications",
        falsified["items"],
        "falsifications.html",
        data,
        f"{number(len(falsified['items']))} falsified claim verdicts and their review state.",
        first_direct=True,
        f=falsified,
    )
    keys_of = ctx.logbooks_by_person(data)
    for person in people:
        src = person["url"] + "index.md"
        out.append(
            Page(
                src,
                f"@{person['github']}",
                partial(_person_html, data, src, person, keys_of[person["github"].lower()]),
                description=f"@{person['github']}: {person['logbooks']} logbooks, "
                f"score {person['score']}, rank {person['rank']}.",
                shell=True,
            )
        )
    for paper_id in sorted(data.papers):
        if only is not None and paper_id not in only:
            continue
        src = PAPER_SOURCE.at(paper=paper_id)
        meta = data.papers[paper_id].paper
        out.append(
            Page(
                src,
                meta.title,
                partial(_paper_html, data, src, paper_id),
                description=f"{meta.title} ({meta.venue}): {ctx.outcome_text(data, paper_id)}; "
                f"{len(data.papers[paper_id].claims)} claims, "
                f"{len(data.logbooks_of(paper_id))} logbooks.",
                feed=ctx.paper_feed_path(paper_id),
                feed_title=f"Verdicts on {meta.title}",
                shell=True,
                wide=True,
                head=head_html(ctx.paper_citation(data, paper_id)),
            )
        )
    for key in sorted(data.logbooks):
        if only is not None and key[0] not in only:
            continue
        src = LOGBOOK_SOURCE.at(paper=key[0], logbook=key[1])
        title = data.papers[key[0]].paper.title
        out.append(
            Page(
                src,
                f"Logbook {key[1]}",
                partial(_logbook_html, data, src, key),
                description=f"Logbook {key[1]} by @{data.logbooks[key].logbook.contributor.github}"
                f", a reproduction of {title}.",
                feed=ctx.paper_feed_path(key[0]),
                feed_title=f"Verdicts on {title}",
                shell=True,
                wide=True,
            )
        )
    return out


def _person_html(data: SiteData, src: str, person: Contributor, keys: list[Key]) -> str:
    return render("person.html", src, data, c=ctx.person_context(data, person, keys))


def _paper_html(data: SiteData, src: str, paper_id: str) -> str:
    return render("paper.html", src, data, p=ctx.paper_context(data, paper_id))


def _logbook_html(data: SiteData, src: str, key: tuple[str, str]) -> str:
    lctx = ctx.logbook_context(data, key)
    writeup = writeup_html(lctx.writeup) if lctx.writeup else ""
    return render("logbook.html", src, data, l=lctx, writeup_html=writeup)


def id_entries(data: SiteData) -> list[ids.IdEntry]:
    """Every id a reader may paste (paper, arXiv, logbook, handle) and its page."""
    if "ids" not in data.memo:
        papers = {pid: (p.paper.title, p.paper.links.arxiv) for pid, p in data.papers.items()}
        logbooks = [
            (k[0], k[1], book.logbook.contributor.github) for k, book in data.logbooks.items()
        ]
        people = [person["github"] for person in ctx.contributors_context(data)]
        urls: dict[str, Callable[..., str]] = {
            "paper": ctx.paper_url,
            "logbook": ctx.logbook_url,
            "person": ctx.person_url,
        }
        data.memo["ids"] = ids.entries(papers, logbooks, people, urls)
    return data.memo["ids"]


def id_shards(data: SiteData) -> dict[str, dict[str, list[list[str]]]]:
    """The id lookup files (``ids.shards``), made once: the search page names them and
    ``files`` writes them."""
    if "id shards" not in data.memo:
        data.memo["id shards"] = ids.shards(id_entries(data))
    return data.memo["id shards"]


def search_records(data: SiteData) -> list[Any]:
    """Search stand-ins for papers, contributors and the page of meanings."""
    from .search import Record

    meaning = " ".join(
        f"{label}: {text}"
        for table in (words.OUTCOMES, words.VERDICTS, words.FLAGS, words.MARKERS)
        for label, text in table.values()
    )
    extra = [Record(words.MEANING_URL, "What the verdicts mean", meaning, "page")]
    return search_text.records(data, ctx.contributors_context(data)) + extra


# --- files beside the pages -----------------------------------------------------------


def files(data: SiteData, site_name: str, only: set[str] | None = None) -> dict[str, bytes]:
    """Non-page outputs by site path: index, charts, badges, feed, downloads."""
    out: dict[str, bytes] = {
        f"ids/{name}.json": json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode()
        for name, table in id_shards(data).items()
    }
    data.memo.pop("id shards", None)  # written once: not held for the rest of the build
    out |= lists_.slices(ctx.browse_lists(data)[0]["rows"])  # the papers list, A to Z
    out |= {
        "assets/charts/buckets.svg": buckets_chart(data),
        "assets/charts/verdicts-over-time.svg": verdicts_over_time_chart(data),
        SITE_FEED.path: atom_feed(data, site_name),
    }
    for paper_id in data.papers:
        if only is None or paper_id in only:
            shown = ctx.paper_shown(data, paper_id)
            out[ctx.badge_path(paper_id)] = badge_svg(
                data.bucket_of.get(paper_id, "untested"),
                shown.label,
                outline=shown.key == "awaiting" or "not_rerun" in shown.qualifiers,
            )
            out[ctx.paper_feed_path(paper_id)] = atom_feed(data, site_name, paper_id)
    for key, record in data.reruns.items():
        if only is None or key[0] in only:
            for name, raw in record.files.items():
                out[ctx.rerun_path(key, name)] = raw
    out |= _downloads(data)
    data.memo.pop("downloads", None)  # written once: not held for the rest of the build
    return out


def _downloads(data: SiteData) -> dict[str, bytes]:
    """The export files by site path, encoded once: the downloads page states their sizes."""
    if "downloads" not in data.memo:
        frame = export_frame(data.papers, data.rows, data.claim_folds, data.paper_folds)
        data.memo["downloads"] = {
            f"downloads/{file_name(fmt)}": encode_file(frame, fmt) for fmt in FORMATS
        }
    return data.memo["downloads"]


def _download_rows(files: dict[str, bytes]) -> list[dict[str, str]]:
    """Each download's path, name, size and, for a gzipped one, its size unpacked (the
    gzip trailer's ISIZE: the length modulo 2**32, exact below 4 GiB)."""
    rows = []
    for path, raw in files.items():
        name = path.rsplit("/", 1)[1]
        unpacked = int.from_bytes(raw[-4:], "little") if name.endswith(".gz") else None
        rows.append(
            {
                "path": path,
                "name": name,
                "size": human_size(len(raw)),
                "unpacked": human_size(unpacked) if unpacked is not None else "",
            }
        )
    return rows


def badge_svg(bucket: str, text: str | None = None, outline: bool = False) -> bytes:
    """A flat two-part badge, like the ones READMEs carry.

    ``outline``: the outcome rests on numbers nobody re-ran (or awaits a re-run), so it is
    drawn as the site draws those chips: a dashed outline in the outcome's colour around dark
    words on white, never filled like a re-run outcome.
    """
    label = "reproaudit"
    value = (text or words.outcome_label(bucket)).lower()
    left = 7 * len(label) + 12
    right = 7 * len(value) + 12
    colour = BUCKET_COLOURS.get(bucket, "#555555")
    head = f'xmlns="http://www.w3.org/2000/svg" width="{left + right}" height="20" role="img"'
    if outline:
        box = (
            f'<rect x="{left + 1}" y="1" width="{right - 2}" height="18" fill="#fff" '
            f'stroke="{colour}" stroke-width="2" stroke-dasharray="4 2"/>'
        )
        ink = "#1f1f1f"
    else:
        box, ink = f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/>', "#fff"
    svg = f"""<svg {head} aria-label="{label}: {value}">
<title>{label}: {value}</title>
<rect width="{left}" height="20" fill="#444"/>
{box}
<g font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="{left / 2:g}" y="14" fill="#fff">{label}</text>
<text x="{left + right / 2:g}" y="14" fill="{ink}">{value}</text>
</g>
</svg>
"""
    return svg.encode("utf-8")


# XML escapes as ElementTree writes them (its _escape_cdata and _escape_attrib), one pass each
_XML_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_XML_ATTR = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\r": "&#13;",
        "\n": "&#10;",
        "\t": "&#09;",
    }
)
ATOM_NS = "http://www.w3.org/2005/Atom"


def _el(tag: str, text: str | None = None, **attrs: str) -> str:
    """One element as ElementTree writes it: attributes in order, ``<tag />`` when empty."""
    head = tag + "".join(f' {k}="{v.translate(_XML_ATTR)}"' for k, v in attrs.items())
    return f"<{head}>{text.translate(_XML_TEXT)}</{tag}>" if text else f"<{head} />"


def atom_feed(data: SiteData, site_name: str, paper_id: str | None = None) -> bytes:
    """Atom 1.0 feed (RFC 4287) of the newest verdicts, or of one paper's verdicts.

    Written as text, byte for byte what ElementTree wrote (a test compares them): a
    conference has a feed per paper, and building a tree for each cost a second.
    """
    absolute = _absolute(data)
    if paper_id is None:
        entries = ctx.feed_entries(data)
        title, path, home = f"{site_name}: new verdicts", SITE_FEED.path, ""
    else:
        entries = ctx.paper_feed_entries(data, paper_id)
        title = f"{site_name}: verdicts on {data.papers[paper_id].paper.title}"
        path, home = ctx.paper_feed_path(paper_id), ctx.paper_url(paper_id)
    updated = max((e["updated"] for e in entries), default=data.generated_at)
    out = [
        "<?xml version='1.0' encoding='utf-8'?>\n",
        f'<feed xmlns="{ATOM_NS}">',
        _el("title", title),
        _el("id", absolute(path) if data.site_url else f"urn:reproaudit:{path}"),
        _el("updated", _iso(updated)),
        _el("link", href=absolute(home), rel="alternate"),
        _el("link", href=absolute(path), rel="self"),
        f"<author>{_el('name', site_name)}</author>",
    ]
    for e in entries:
        counts = "; ".join(f"{n} {state.label}" for state, n in e["states"])
        summary = f"Judged {counts} for {e['title']} ({e['paper']}) by {e['judge']}."
        answer = e["answer"]
        if answer is not None:
            phrase = words.AUTHOR_ANSWERS[answer.stance]
            fix = f" (the fix: {answer.link})" if answer.stance == "fixed" and answer.link else ""
            summary += f" {answer.claim} {phrase} on {answer.at:%Y-%m-%d}{fix}."
        out += (
            "<entry>",
            _el("title", f"{e['title']}: logbook {e['logbook']} ({counts})"),
            _el("id", f"urn:reproaudit:{e['paper']}:{e['logbook']}:{_iso(e['judged_at'])}"),
            _el("updated", _iso(e["updated"])),
            _el("link", href=absolute(e["url"])),
            f"<author>{_el('name', e['contributor'])}</author>",
            _el("summary", summary),
            "</entry>",
        )
    out.append("</feed>")
    return "".join(out).encode("utf-8")


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
