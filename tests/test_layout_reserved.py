"""The ids reserved by what the site and the layout write beside them (``layout.WRITTEN``):
derived from the one list, refused by the models (so by ``validate``) and by onboarding.

Every case is enumerated from the list, so a name the site starts writing is tested with it;
each beside a control, an honest id that passes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reproaudit import layout
from reproaudit.onboard.sources import read_list
from reproaudit.validate import validate_repo

PAPER = "Tq7mV2pLx0"  # the mini repository's paper
ROOT = Path(__file__).resolve().parents[1]
CASES = [(kind, name) for kind in layout.KINDS for name in sorted(layout.RESERVED[kind])]


def test_the_reserved_ids_are_the_names_written_beside_ids() -> None:
    assert {"feed.xml", "index.html", "index.md", "mentions", "reviews"} == (
        layout.RESERVED_LOGBOOK_IDS
    )
    assert {"index.html", "index.md"} == layout.RESERVED_PAPER_IDS
    for kind, name in CASES:
        written = layout.RESERVED[kind][name]
        assert written in layout.WRITTEN
        assert name in written.path.split("/") or f"{name}.yaml" in written.path.split("/")
    # the site builds its paths from the list: what it writes is what is reserved
    from reproaudit.site import context as ctx

    assert ctx.paper_feed_path(PAPER) == layout.PAPER_FEED.at(paper=PAPER)
    assert ctx.logbook_url(PAPER, "a") + "index.html" == layout.LOGBOOK_PAGE.at(
        paper=PAPER, logbook="a"
    )


def _logbook(repo: Path, logbook_id: str) -> str:
    rel = f"logbooks/{PAPER}/{logbook_id}.yaml"
    (repo / rel).write_text(
        f"logbook:\n  id: {logbook_id}\n  paper: {PAPER}\n  claims_version: 2\n"
        "  contributor: {github: eve}\nresults: []\n",
        encoding="utf-8",
    )
    return rel


def _paper(repo: Path, paper_id: str) -> str:
    text = (repo / f"claims/testconf/{PAPER}.yaml").read_text(encoding="utf-8")
    rel = f"claims/testconf/{paper_id}.yaml"
    (repo / rel).write_text(text.replace(PAPER, paper_id), encoding="utf-8")
    return rel


def place(repo: Path, kind: str, name: str) -> str:
    return _logbook(repo, name) if kind == "logbook" else _paper(repo, name)


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_validate_refuses_every_reserved_id_and_names_the_path(
    mini_repo: Path, kind: str, name: str
) -> None:
    rel = place(mini_repo, kind, name)
    control = place(mini_repo, kind, name.replace(".", "-") + "-1")  # an honest id beside it
    problems = validate_repo(mini_repo, [rel, control]).problems
    written = layout.RESERVED[kind][name]  # type: ignore[index]
    shown = written.path.replace("{paper}", "<paper>")
    assert [(p.path, p.field, p.code) for p in problems] == [(rel, f"{kind}.id", "reserved_id")], (
        problems
    )
    assert f"{name!r} is reserved: " in problems[0].message and shown in problems[0].message


@pytest.mark.parametrize("name", sorted(layout.RESERVED_PAPER_IDS))
def test_a_paper_id_is_reserved_whatever_its_case(mini_repo: Path, name: str) -> None:
    """On macOS and Windows ``Index.HTML`` is the papers list page's file."""
    rel = _paper(mini_repo, name.upper())
    assert [p.code for p in validate_repo(mini_repo, [rel]).problems] == ["reserved_id"]


def test_onboarding_refuses_a_reserved_paper_id_by_line(tmp_path: Path) -> None:
    rows = [{"id": name, "title": "A paper"} for name in sorted(layout.RESERVED_PAPER_IDS)]
    rows += [{"id": "Index.HTML", "title": "A paper"}, {"id": "index-html", "title": "Honest"}]
    listing = tmp_path / "venue.jsonl"
    listing.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    records, problems = read_list(listing)
    assert [r.id for r in records] == ["index-html"]  # the control
    assert [(p.line, p.code, p.field) for p in problems] == [
        (line, "reserved_id", "id") for line in range(1, len(rows))
    ]
    assert "'index.html' is reserved: the site writes papers/index.html" in problems[0].message


def test_the_docs_name_every_reserved_id() -> None:
    page = (ROOT / "scripts/reproaudit/site/docs/verdicts-and-flags.md").read_text("utf-8")
    said = page[page.index("are refused (`reserved_id`)") :][:600]
    for _kind, name in CASES:
        assert f"`{name}`" in said, name
