"""Ids never meet the names the site writes: the one list (``layout.WRITTEN``) names every
file the site writes beside ids, a reserved id stays off the site, and the site's tree
writer refuses a second writer of one path, naming both, as an input error.

The cases are enumerated from the list, so a name the site starts writing is covered.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit import layout
from reproaudit.cli import cli
from reproaudit.errors import InputError
from reproaudit.site.build import build_site
from tests.site.conftest import NOW

MINI = Path(__file__).resolve().parents[1] / "data" / "repos" / "mini"
PAPER = "Tq7mV2pLx0"
ON_SITE = [
    (kind, name)
    for kind in layout.KINDS
    for name, written in sorted(layout.RESERVED[kind].items())
    if written.tree != "repository"  # `reviews` is the layout's: test_layout_reserved.py
]


def _entry_pattern(part: str) -> re.Pattern[str]:
    pieces = re.split(r"(\{\w+\})", part)
    regex = "".join(f"(?P<{p[1:-1]}>.+)" if p[:1] == "{" else re.escape(p) for p in pieces)
    return re.compile(regex)


def test_the_list_names_every_file_the_site_writes_beside_ids(
    site_build: tuple[Path, Path],
) -> None:
    """Each folder of the built site that holds ids holds nothing else than the list says:
    a file the site starts writing there and the list does not name fails here."""
    repo, out = site_build
    found, _ = layout.scan(repo)
    logbooks: dict[str, set[str]] = {}
    for path in found:
        if path.kind == "logbook":
            logbooks.setdefault(path.key[0], set()).add(path.key[1])
    papers = {p.relative_to(repo / "claims").stem for p in (repo / "claims").rglob("*.yaml")}
    ids = {"paper": papers}
    site = [w.path.split("/") for w in layout.WRITTEN if w.tree == "site"]
    prefixes = {tuple(parts[:i]) for parts in site for i in range(1, len(parts))}
    checked = 0
    for prefix in sorted(prefixes):
        if not any("{" in part for part in prefix) and not any(
            len(parts) > len(prefix) and "{" in parts[len(prefix)] for parts in site
        ):
            continue  # a folder of the site's own (assets/...): no id goes there
        said = [parts[len(prefix)] for parts in site if tuple(parts[: len(prefix)]) == prefix]
        for folder, known in _instances(out, prefix, ids, logbooks):
            for entry in sorted(p.name for p in folder.iterdir()):
                ok = entry in said or any(
                    (m := _entry_pattern(part).fullmatch(entry))
                    and all(v in known.get(k, set()) for k, v in m.groupdict().items())
                    for part in said
                    if "{" in part
                )
                assert ok, f"{folder.relative_to(out)}/{entry} is written but not in WRITTEN"
                checked += 1
    assert checked > 40  # the fixture's papers, feeds, logbooks, badges and records
    for written in layout.WRITTEN:  # and what the list names is written
        if written.tree == "site" and "{logbook}" not in written.path:
            example = written.at(paper="Kp4rT9vQ2x")
            assert (out / example).is_file(), example


def _instances(
    out: Path, prefix: tuple[str, ...], ids: dict[str, set[str]], logbooks: dict[str, set[str]]
) -> list[tuple[Path, dict[str, set[str]]]]:
    """Each folder of the site at ``prefix``, with the ids that may be entries in it."""
    folders = [(out, dict[str, str]())]
    for part in prefix:
        if part == "{paper}":
            folders = [(f / p, {"paper": p}) for f, _ in folders for p in ids["paper"]]
        elif part == "{logbook}":
            folders = [
                (f / lb, {**got, "logbook": lb})
                for f, got in folders
                for lb in logbooks.get(got["paper"], ())
            ]
        else:
            folders = [(f / part, got) for f, got in folders]
    made = []
    for folder, got in folders:
        if folder.is_dir():
            known = {"paper": ids["paper"]}
            if "paper" in got:
                known["logbook"] = logbooks.get(got["paper"], set())
            made.append((folder, known))
    return made


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(MINI, repo)
    return repo


def _place(repo: Path, kind: str, name: str) -> str:
    if kind == "logbook":
        rel = f"logbooks/{PAPER}/{name}.yaml"
        text = (
            f"logbook:\n  id: {name}\n  paper: {PAPER}\n  claims_version: 2\n"
            "  contributor: {github: eve}\nresults: []\n"
        )
    else:
        rel = f"claims/testconf/{name}.yaml"
        text = (repo / f"claims/testconf/{PAPER}.yaml").read_text("utf-8").replace(PAPER, name)
    (repo / rel).write_text(text, encoding="utf-8")
    return rel


def test_reserved_ids_never_reach_the_site(tmp_path: Path) -> None:
    """Refused by name as input errors (a logbook is judged before the build, so an invalid
    one stops even a lenient build); a paper is left out of a lenient build, and the names
    it would have taken stay what the site writes there."""
    repo = _repo(tmp_path)
    placed = [_place(repo, kind, name) for kind, name in ON_SITE]
    _place(repo, "logbook", "feed-xml")  # the control: an honest id
    out = tmp_path / "out"
    for strict in ([], ["--strict"]):
        result = CliRunner().invoke(cli, ["build", *strict, "--repo", str(repo), "--out", str(out)])
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        for rel in placed:
            if strict or rel.startswith("logbooks/"):
                assert re.search(rf"{re.escape(rel)}:\d+: .*'[^']+' is reserved: ", result.output)
        assert "feed-xml.yaml" not in result.output
    for rel in placed:
        if rel.startswith("logbooks/"):
            (repo / rel).unlink()
    result = CliRunner().invoke(cli, ["build", "--repo", str(repo), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "reserved_id" in result.output  # left out, said so
    feed = (out / layout.PAPER_FEED.at(paper=PAPER)).read_text(encoding="utf-8")
    assert feed.startswith("<?xml") and "<feed " in feed  # still the paper's Atom feed
    assert "Papers" in (out / layout.PAPERS_PAGE.path).read_text(encoding="utf-8")
    assert (out / layout.LOGBOOK_PAGE.at(paper=PAPER, logbook="feed-xml")).is_file()
    assert sorted(p.name for p in (out / "papers").iterdir()) == [PAPER, "index.html"]


@pytest.mark.parametrize(("kind", "name"), [*ON_SITE, ("logbook", "control")])
def test_the_tree_writer_refuses_what_a_reserved_id_would_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, name: str
) -> None:
    """With the models' check switched off, the id reaches the build: the site's writer
    refuses it as an input error naming both writers, the id's file and field, never an
    internal error, and the previous site stays as it was."""
    repo = _repo(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "previous.html").write_text("the site before", encoding="utf-8")
    if name == "control":  # an honest id builds
        _place(repo, kind, "feed-xml")
        build_site(repo, out, now=NOW, search=False)
        assert (out / layout.LOGBOOK_PAGE.at(paper=PAPER, logbook="feed-xml")).is_file()
        return
    written = layout.RESERVED[kind][name]  # type: ignore[index]
    monkeypatch.setitem(layout.RESERVED, kind, {})
    rel = _place(repo, kind, name)
    with pytest.raises(InputError) as caught:
        build_site(repo, out, now=NOW, search=False)
    (problem,) = caught.value.problems
    assert (problem.code, problem.path, problem.field) == ("path_collision", rel, f"{kind}.id")
    what = written.what.format(paper=PAPER if kind == "logbook" else name, logbook=name)
    assert what in problem.message and " would be one path " in problem.message
    assert (out / "previous.html").read_text(encoding="utf-8") == "the site before"


def test_a_repository_file_over_a_generated_one_is_refused_naming_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "site").mkdir()
    (repo / "site/notes.md").write_text("# Notes\n\nOurs.\n", encoding="utf-8")  # the control
    report = build_site(repo, tmp_path / "out", now=NOW, search=False)
    assert (report.out / "notes/index.html").is_file()
    (repo / "site/feed.xml").write_text("<feed>ours</feed>\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "--repo", str(repo), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output
    assert result.output.startswith(
        "site/feed.xml: the repository's own site/feed.xml and the site's Atom feed would be "
        "one path on the site (feed.xml) [path_collision]\n"
    )
