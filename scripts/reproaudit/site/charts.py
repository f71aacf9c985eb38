"""The home page's charts as SVG, drawn with matplotlib and no global state.

Each chart is a plain ``Figure`` (no pyplot, no backend switch) drawn under
``rc_context``, so building a site leaves matplotlib's settings as it found them. The
SVG keeps its text as text (readable, searchable, at least 12 px) and is byte-stable
across builds (fixed hash salt, no date).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from io import StringIO
from typing import TYPE_CHECKING, Any

from . import context as ctx
from .data import SiteData

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

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
CHART_SIZE = (4.5, 3.0)  # inches at 72 user units each: the SVG's text stays >= 12 px


# Applied per chart with ``rc_context`` on a plain ``Figure``: no pyplot, no backend switch, and
# nothing left changed in matplotlib's global settings for the caller.
_CHART_STYLE: dict[RcKeyType, Any] = {
    "svg.hashsalt": "reproaudit",
    "svg.fonttype": "none",
    "font.size": 12,  # real SVG text, shown at its own size (12 px)
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _chart(draw: Callable[[Any], None]) -> bytes:
    """An SVG chart: ``draw`` fills one Axes of a fresh Figure under the chart style."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    with rc_context(_CHART_STYLE):
        fig = Figure(figsize=CHART_SIZE)
        draw(fig.subplots())
        return _svg(fig)


def _svg(fig: Any) -> bytes:
    buffer = StringIO()
    fig.tight_layout()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, facecolor="white")
    # matplotlib sizes the SVG in pt (1.33 px each); in px, its 12-unit text is 12 px on screen
    svg = re.sub(r'(<svg[^>]*?(?:width|height)="[\d.]+)pt"', r'\1"', buffer.getvalue(), count=1)
    svg = re.sub(r'(<svg[^>]*?(?:width|height)="[\d.]+)pt"', r'\1"', svg, count=1)
    return svg.encode("utf-8")


def buckets_chart(data: SiteData) -> bytes:
    home = ctx.home_context(data)
    labels = [b["label"] for b in home["buckets"]][::-1]
    counts = [b["count"] for b in home["buckets"]][::-1]
    colours = [BUCKET_COLOURS[b["key"]] for b in home["buckets"]][::-1]

    def draw(ax: Any) -> None:
        bars = ax.barh(labels, counts, color=colours)
        ax.bar_label(bars, labels=[f"{c:,}" for c in counts], padding=3)
        ax.set_xlabel("papers")
        ax.set_title(f"{home['table']['papers_judged']:,} papers judged", loc="left", fontsize=12)
        ax.margins(x=0.25)  # room for the count labels

    return _chart(draw)


def verdicts_over_time_chart(data: SiteData) -> bytes:
    rows = data.rows
    if rows.empty:

        def empty(ax: Any) -> None:
            ax.text(0.5, 0.5, "no verdicts yet", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()

        return _chart(empty)
    month = rows["judged_at"].dt.tz_convert("UTC").dt.strftime("%Y-%m")
    table = rows.assign(month=month).pivot_table(
        index="month", columns="verdict", values="claim", aggfunc="count", fill_value=0
    )

    def draw(ax: Any) -> None:
        bottom = [0] * len(table)
        for verdict, colour in VERDICT_COLOURS.items():
            if verdict not in table:
                continue
            heights = table[verdict].tolist()
            ax.bar(table.index.tolist(), heights, bottom=bottom, color=colour, label=verdict)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ax.set_ylabel("claim verdicts")
        ax.legend(frameon=False, ncols=2, loc="upper left", bbox_to_anchor=(0, 1.3), fontsize=12)
        ax.tick_params(axis="x", labelrotation=45)

    return _chart(draw)
