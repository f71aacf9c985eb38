"""Verdict chips, flags, markers and dates as HTML: the small pieces every page repeats.

Plain Python rather than jinja macros: a conference-size site calls them hundreds of
thousands of times, and a macro call costs ten times a function call. Every piece of
data is escaped; each chip links to its plain-word explanation.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from markupsafe import Markup, escape

from . import words


class Chips:
    """The pieces, linking to the meaning page through ``link`` (site path -> href)."""

    def __init__(self, link: Callable[[str], str]) -> None:
        self.link = link

    def _meaning(self, anchor: str) -> str:
        return f"{self.link(words.MEANING_URL)}#{anchor}"  # site paths need no escaping

    def verdict(
        self,
        v: str | None,
        review: str | None = None,
        state: str | None = None,
        answer: Any = None,
        flags: list[str] | None = None,
        tested: str = "",
        decided_by: str | None = None,
        second: str | None = None,
    ) -> Markup:
        """A verdict chip in the one vocabulary (``words.claim_state``): "awaiting re-run",
        "falsified, under review, disputed by the authors" (dated, with the fix's link),
        "model-judged, verified"; ``tested``: the range a verified held for when it holds only
        there ("verified, within the tested range", then "held for k = 2..512; claimed for
        all k >= 2")."""
        stance = answer.stance if answer is not None and v == "falsified" else None
        within = bool(tested) and v == "verified"
        shown = words.claim_state(
            v,
            flags or (),
            state,
            stance,
            within=within,
            decided_by=decided_by,
            second=second,
            reviewed=review is not None,
        )
        out = str(self.state(shown))
        if within and "within_range" in shown.qualifiers:
            out += f' <span class="ra-note ra-tested">({escape(tested)})</span>'
        if review == "reject":
            out += ' <span class="ra-note">(maintainer: rejected)</span>'
        if stance:
            link = answer.link if stance == "fixed" else None
            fix = f', <a href="{escape(link)}" rel="nofollow">the fix</a>' if link else ""
            out += f' <span class="ra-note">(authors, {self.when(answer.at)}{fix})</span>'
        return Markup(out)

    def state(self, shown: words.Shown) -> Markup:
        """A claim's state (one verdict, or a claim's fold) as a chip linking to its meaning."""
        if shown.key == "untested" and shown.label == "no verdict":
            return Markup('<span class="ra-chip ra-chip--none">no verdict</span>')
        return Markup(
            f'<a class="ra-chip {escape(shown.css)}" href="{self._meaning(shown.anchor)}">'
            f"{escape(shown.label)}</a>"
        )

    def outcome(self, shown: words.Shown) -> Markup:
        """A paper's outcome (``words.paper_state``) as a chip linking to its meaning."""
        return Markup(
            f'<a class="ra-bucket {escape(shown.css)}" href="{self._meaning(shown.anchor)}">'
            f"{escape(shown.label)}</a>"
        )

    def fold(self, v: str) -> Markup:
        """A claim fold as a chip: a verdict's name, or a state's words (model-judged)."""
        if v in words.VERDICTS:
            anchor, label = "verdict-" + v, v
        else:
            anchor, label = "state-" + v, words.STATES.get(v, (v, ""))[0]
        return Markup(
            f'<a class="ra-chip ra-chip--{escape(v)}" '
            f'href="{self._meaning(escape(anchor))}">{escape(label)}</a>'
        )

    def flags(self, items: list[str]) -> Markup:
        """Each flag in plain words, its code name as the link's title: shown on hover and
        read by screen readers as the link's description (once, not in a hidden copy too)."""
        out = []
        for f in items:
            code = escape(f)
            out.append(
                f' <a class="ra-flag" href="{self._meaning("flag-" + code)}" '
                f'title="flag {code}">{escape(words.flag_label(f))}</a>'
            )
        return Markup("".join(out))

    def bucket(self, key: str | None, label: str) -> Markup:
        key = escape(key or "untested")
        return Markup(
            f'<a class="ra-bucket ra-bucket--{key}" href="{self._meaning("outcome-" + key)}">'
            f"{escape(label)}</a>"
        )

    def marker(self, key: str, text: str | None = None) -> Markup:
        """A marker links to its explanation on the meaning page, as a chip does; no title
        repeats that sentence on each of the thousands of numbers a site marks."""
        label = words.MARKERS[key][0]
        return Markup(
            f'<a class="ra-marker ra-marker--{key}" href="{self._meaning("marker-" + key)}">'
            f"{escape(text or label)}</a>"
        )

    @staticmethod
    def when(moment: datetime | None) -> Markup:
        if not moment:
            return Markup("")
        return Markup(f'<time datetime="{moment.isoformat()}">{moment.strftime("%Y-%m-%d")}</time>')
