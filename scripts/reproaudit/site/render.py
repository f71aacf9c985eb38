"""Rendering: page contexts -> HTML fragments, charts, badges, feed, index, downloads.

Page generation stays separate from the theme: templates here produce the
content of a page (an HTML fragment), and the mkdocs plugin places it inside
whatever theme the site uses. Generated pages never go through Markdown.
Untrusted text (titles, notes, write-ups) is escaped by jinja2's autoescape;
write-ups are rendered by markdown-it with raw HTML disabled.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from io import StringIO
from typing import Any
from xml.etree import ElementTree as ET

import jinja2
from markupsafe import Markup

from ..export import COLUMNS, export_frame
from ..fold import BUCKET_LABELS
from . import context as ctx
from .data import SiteData

BUCKET_COLOURS = {
    "contested": "#8e3ea8",
    "fully_reproduced": "#1b7f3b",
    "mixed": "#b35c00",
    "partial": "#2f6fb0",
    "falsified": "#b3261e",
    "toy_only": "#6b6b6b",
    "inconclusive": "#555555",
    "untested": "#555555",
}
VERDICT_COLOURS = {
    "verified": "#1b7f3b",
    "falsified": "#b3261e",
    "toy": "#6b6b6b",
    "inconclusive": "#9a9a9a",
}


@dataclass(frozen=True)
class Page:
    """A generated page: where it goes, its title, its HTML, whether search indexes it."""

    src_uri: str
    title: str
    html: str
    search: bool = False


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("reproaudit.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def page_url(src_uri: str) -> str:
    """Directory URL of a page source: 'papers/P/index.md' -> 'papers/P/'."""
    stem = src_uri[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def relative(from_url: str, to: str) -> str:
    """A link from the page at ``from_url`` to the site path ``to``."""
    base = "/" + from_url
    target = "/" + to
    link = posixpath.relpath(target, base if base.endswith("/") else posixpath.dirname(base))
    if to.endswith("/") and not link.endswith("/"):
        link += "/"
    return link


def _linker(from_url: str) -> Callable[[str], str]:
    return lambda to: relative(from_url, to)


def _absolute(data: SiteData) -> Callable[[str], str]:
    base = (data.site_url or "").rstrip("/")
    return lambda path: f"{base}/{path}" if base else f"/{path}"


def render(template: str, src_uri: str, data: SiteData, **values: Any) -> str:
    url = page_url(src_uri)
    return _env().get_template(template).render(u=_linker(url), absolute=_absolute(data), **values)


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


def pages(data: SiteData, site_name: str, only: set[str] | None = None) -> list[Page]:
    """Every generated page; ``only`` limits paper and logbook pages to some papers."""
    out = [
        Page(
            "index.md",
            site_name,
            render("home.html", "index.md", data, home=ctx.home_context(data), site_name=site_name),
            search=True,
        ),
        Page(
            "papers/index.md",
            "Papers",
            render(
                "papers.html",
                "papers/index.md",
                data,
                count=len(data.papers),
                buckets={**BUCKET_LABELS, "untested": "Not yet judged"},
                areas=sorted(
                    {p.paper.tags.area for p in data.papers.values() if p.paper.tags.area}
                ),
            ),
            search=True,
        ),
        Page(
            "contributors.md",
            "Contributors",
            render(
                "contributors.html",
                "contributors.md",
                data,
                contributors=ctx.contributors_context(data),
            ),
            search=True,
        ),
        Page(
            "falsifications.md",
            "Falsifications",
            render(
                "falsifications.html", "falsifications.md", data, items=ctx.all_falsifications(data)
            ),
            search=True,
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
            ),
            search=True,
        ),
    ]
    for paper_id in sorted(data.papers):
        if only is not None and paper_id not in only:
            continue
        src = f"papers/{paper_id}/index.md"
        out.append(
            Page(
                src,
                data.papers[paper_id].paper.title,
                render("paper.html", src, data, p=ctx.paper_context(data, paper_id)),
            )
        )
    for key in sorted(data.logbooks):
        if only is not None and key[0] not in only:
            continue
        src = f"papers/{key[0]}/{key[1]}.md"
        lctx = ctx.logbook_context(data, key)
        writeup = writeup_html(lctx["writeup"]) if lctx["writeup"] else ""
        out.append(
            Page(
                src,
                f"Logbook {key[1]}",
                render("logbook.html", src, data, l=lctx, writeup_html=writeup),
            )
        )
    return out


# --- files beside the pages -----------------------------------------------------------


def files(data: SiteData, site_name: str, only: set[str] | None = None) -> dict[str, bytes]:
    """Non-page outputs by site path: index, charts, badges, feed, downloads."""
    out: dict[str, bytes] = {
        "assets/papers-index.json": json.dumps(
            ctx.papers_index(data), ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8"),
        "assets/charts/buckets.svg": buckets_chart(data),
        "assets/charts/verdicts-over-time.svg": verdicts_over_time_chart(data),
        "feed.xml": atom_feed(data, site_name),
    }
    for paper_id in data.papers:
        if only is None or paper_id in only:
            out[ctx.badge_path(paper_id)] = badge_svg(data.bucket_of.get(paper_id, "untested"))
    frame = export_frame(data.papers, data.rows, data.claim_folds, data.paper_folds)
    from ..export import BASENAME, FORMATS, encode

    for fmt in FORMATS:
        out[f"downloads/{BASENAME}.{fmt}"] = encode(frame, fmt)
    return out


def badge_svg(bucket: str) -> bytes:
    """A flat two-part badge, like the ones READMEs carry."""
    label = "reproaudit"
    value = {**BUCKET_LABELS, "untested": "not yet judged"}.get(bucket, bucket).lower()
    left = 7 * len(label) + 12
    right = 7 * len(value) + 12
    colour = BUCKET_COLOURS.get(bucket, "#555555")
    head = f'xmlns="http://www.w3.org/2000/svg" width="{left + right}" height="20" role="img"'
    svg = f"""<svg {head} aria-label="{label}: {value}">
<title>{label}: {value}</title>
<rect width="{left}" height="20" fill="#444"/>
<rect x="{left}" width="{right}" height="20" fill="{colour}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="{left / 2:g}" y="14">{label}</text>
<text x="{left + right / 2:g}" y="14">{value}</text>
</g>
</svg>
"""
    return svg.encode("utf-8")


def _figure(width: float = 6.4, height: float = 3.2) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.hashsalt": "reproaudit",
            "svg.fonttype": "none",
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return plt.subplots(figsize=(width, height))


def _svg(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buffer = StringIO()
    fig.tight_layout()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    return buffer.getvalue().encode("utf-8")


def buckets_chart(data: SiteData) -> bytes:
    home = ctx.home_context(data)
    fig, ax = _figure()
    labels = [b["label"] for b in home["buckets"]][::-1]
    counts = [b["count"] for b in home["buckets"]][::-1]
    colours = [BUCKET_COLOURS[b["key"]] for b in home["buckets"]][::-1]
    bars = ax.barh(labels, counts, color=colours)
    ax.bar_label(bars, labels=[f"{c:,}" for c in counts], padding=3)
    ax.set_xlabel("papers")
    ax.set_title(f"{home['table']['papers_judged']:,} papers judged", loc="left")
    return _svg(fig)


def verdicts_over_time_chart(data: SiteData) -> bytes:
    rows = data.rows
    fig, ax = _figure()
    if rows.empty:
        ax.text(0.5, 0.5, "no verdicts yet", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _svg(fig)
    month = rows["judged_at"].dt.tz_convert("UTC").dt.strftime("%Y-%m")
    table = rows.assign(month=month).pivot_table(
        index="month", columns="verdict", values="claim", aggfunc="count", fill_value=0
    )
    bottom = [0] * len(table)
    for verdict, colour in VERDICT_COLOURS.items():
        if verdict not in table:
            continue
        heights = table[verdict].tolist()
        ax.bar(table.index.tolist(), heights, bottom=bottom, color=colour, label=verdict)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_ylabel("claim verdicts")
    ax.legend(frameon=False, ncols=4, loc="upper left", bbox_to_anchor=(0, 1.15))
    ax.tick_params(axis="x", labelrotation=45)
    return _svg(fig)


def atom_feed(data: SiteData, site_name: str) -> bytes:
    """Atom 1.0 feed of the newest verdicts (RFC 4287)."""
    ns = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", ns)
    absolute = _absolute(data)
    feed = ET.Element(f"{{{ns}}}feed")
    entries = ctx.feed_entries(data)
    updated = entries[0]["judged_at"] if entries else data.generated_at

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        node = ET.SubElement(parent, f"{{{ns}}}{tag}", attrs)
        if text is not None:
            node.text = text
        return node

    sub(feed, "title", f"{site_name}: new verdicts")
    sub(feed, "id", absolute("feed.xml") if data.site_url else "urn:reproaudit:feed")
    sub(feed, "updated", _iso(updated))
    sub(feed, "link", href=absolute(""), rel="alternate")
    sub(feed, "link", href=absolute("feed.xml"), rel="self")
    author = sub(feed, "author")
    sub(author, "name", site_name)
    for e in entries:
        entry = sub(feed, "entry")
        counts = ", ".join(f"{n} {v}" for v, n in e["counts"].items() if n)
        sub(entry, "title", f"{e['title']}: logbook {e['logbook']} ({counts})")
        sub(entry, "id", f"urn:reproaudit:{e['paper']}:{e['logbook']}:{_iso(e['judged_at'])}")
        sub(entry, "updated", _iso(e["judged_at"]))
        sub(entry, "link", href=absolute(e["url"]))
        entry_author = sub(entry, "author")
        sub(entry_author, "name", e["contributor"])
        sub(entry, "summary", f"Judged {counts} for {e['title']} ({e['paper']}).")
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
