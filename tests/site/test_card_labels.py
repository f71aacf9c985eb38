"""On a phone each table row becomes a card whose cells are labelled with their column.

The tables of fixed columns name them once, in the stylesheet (``.ra-cols-NAME
td:nth-child(i)::before``), not in a ``data-label`` on every cell of every row (8 MB at
conference scale, issue 21); the claims x logbooks grid, whose columns are logbooks, keeps
its per-cell labels. These tests hold the stylesheet's labels to the tables' headers.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import reproaudit.site

CSS = Path(reproaudit.site.__file__).parent / "assets" / "stylesheets" / "reproaudit.css"
RULE = re.compile(r'\.ra-cols-([a-z-]+) td:nth-child\((\d+)\)::before \{ content: "([^"]*): "; \}')


def css_labels() -> dict[str, list[str]]:
    """The labels the stylesheet gives each table kind's columns, in column order."""
    out: dict[str, dict[int, str]] = {}
    for name, index, label in RULE.findall(CSS.read_text(encoding="utf-8")):
        out.setdefault(name, {})[int(index)] = label
    for name, labels in out.items():
        assert sorted(labels) == list(range(1, len(labels) + 1)), (name, "a column is skipped")
    return {name: [labels[i] for i in sorted(labels)] for name, labels in out.items()}


class Tables(HTMLParser):
    """Each card table of a page: its classes, header texts and its body cells' attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self.where: list[str] = []
        self.text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            classes = (a.get("class") or "").split()
            self.tables.append({"classes": classes, "heads": [], "cells": []})
        elif not self.tables:
            return
        elif tag in ("thead", "tbody"):
            self.where.append(tag)
        elif tag == "th" and self.where[-1:] == ["thead"]:
            self.text = []
        elif tag == "th":
            self.tables[-1]["row_heads"] = True
        elif tag == "td" and self.where[-1:] == ["tbody"]:
            self.tables[-1]["cells"].append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("thead", "tbody") and self.where:
            self.where.pop()
        elif tag == "th" and self.text is not None:
            self.tables[-1]["heads"].append("".join(self.text).strip())
            self.text = None

    def handle_data(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)


def card_tables(built: Path) -> list[tuple[str, dict]]:
    out = []
    for page in sorted(built.rglob("*.html")):
        if "pagefind" in page.parts:
            continue
        parser = Tables()
        parser.feed(page.read_text(encoding="utf-8"))
        out += [(str(page.relative_to(built)), t) for t in parser.tables]
    return out


def test_each_card_table_names_its_columns_in_the_stylesheet(built: Path) -> None:
    labels = css_labels()
    used: set[str] = set()
    cards = [(page, t) for page, t in card_tables(built) if "ra-cards" in t["classes"]]
    assert len(cards) > 20  # lists, people, ids, falsifications, contributors, logbooks...
    for page, table in cards:
        kinds = [c.removeprefix("ra-cols-") for c in table["classes"] if c.startswith("ra-cols-")]
        assert len(kinds) == 1, (page, table["classes"], "a card table names its columns")
        assert table["heads"] == labels[kinds[0]], (page, kinds[0])
        # only column headers, so they need no scope="col"
        assert not table.get("row_heads"), page
        # the labels come from the stylesheet, once: no cell repeats them
        assert not [c for c in table["cells"] if "data-label" in c], page
        used.add(kinds[0])
    # the control: every kind the stylesheet names is a table the fixture renders, so a
    # renamed header with a stale stylesheet label fails here rather than on a phone
    assert used == set(labels), sorted(set(labels) - used)


def test_the_grid_keeps_a_label_per_cell_naming_its_logbook(built: Path) -> None:
    grids = [(p, t) for p, t in card_tables(built) if "ra-grid" in t["classes"]]
    assert grids
    for page, table in grids:
        logbooks = table["heads"][2:]
        per_row = 1 + len(logbooks)  # the claim's outcome, then one cell per logbook
        assert len(table["cells"]) % per_row == 0, page
        for start in range(0, len(table["cells"]), per_row):
            row = [c.get("data-label") for c in table["cells"][start : start + per_row]]
            assert row[0] == "Outcome"
            for label, head in zip(row[1:], logbooks, strict=True):
                # "alice-2" (its contributor's handle begins it) or "x9-1 (@bob)"
                assert label and head.startswith(label.split(" (@")[0]), (page, label, head)
