"""The importers against hostile files: each attack from issue 15, played for real.

Workspaces and rubrics are made here (no shared fixtures needed): symlinks,
FIFOs and devices where files should be, a 200,000-deep cell header, a
5,000-digit number, pages that made the old regular expressions quadratic,
a paper file whose id differs from its name, and logbooks of other people.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproaudit import problems as P
from reproaudit.cli import cli
from reproaudit.errors import ReproauditError
from reproaudit.importers import import_paperbench, import_trackio, write_import
from reproaudit.importers.trackio import handle_slug
from reproaudit.importers.trackio_format import fences, parse_page
from reproaudit.loader import load_model
from reproaudit.models import Logbook

PAPER = """\
paper: {{id: {id}, title: FastTraj, venue: ICML 2026, links: {{arxiv: "2406.99999"}}}}
claims_version: 1
claims:
  - {{id: C1, statement: Claim one., anchor: Table 1, kind: empirical}}
  - {{id: C2, statement: Claim two., anchor: Table 2, kind: empirical}}
"""
MARKER = "\n---\n<!-- trackio-cell\n"
NOTE = '{"type": "markdown", "id": "c1", "title": "Claim 1 verdict", "pinned": true}'


@contextmanager
def deadline(seconds: int = 20) -> Iterator[None]:
    """Fail (rather than hang the suite) if a FIFO or device is ever waited on."""

    def expire(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: something blocked")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def make_repo(root: Path, paper_id: str = "FastTraj01", file_id: str | None = None) -> Path:
    path = root / "claims" / "icml2026" / f"{file_id or paper_id}.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(PAPER.format(id=paper_id), encoding="utf-8")
    return root


def page_text(title: str, *cells: tuple[str, str]) -> str:
    return f"# {title}\n" + "".join(f"{MARKER}{header}\n-->\n{body}\n" for header, body in cells)


def make_workspace(root: Path, pages: dict[str, str] | None = None) -> Path:
    """A trackio workspace as the 0.43 CLI lays it out, with ``pages`` (slug -> page.md)."""
    pages = pages or {"claim-1": page_text("Claim 1: it holds", (NOTE, "So **claim 1 holds**."))}
    book = root / ".trackio" / "logbook"
    (book / "pages").mkdir(parents=True)
    metadata = {"created_at": "2026-12-02T11:39:02+00:00", "paper": {"arxiv_id": "2406.99999"}}
    (root / ".trackio" / "metadata.json").write_text(json.dumps(metadata))
    children = []
    for slug, text in pages.items():
        (book / "pages" / slug).mkdir()
        (book / "pages" / slug / "page.md").write_text(text, encoding="utf-8")
        children.append({"slug": slug, "file": f"pages/{slug}/page.md", "children": []})
    manifest = {"title": "Hostile", "root": {"file": "pages/index.md", "children": children}}
    (book / "logbook.json").write_text(json.dumps(manifest))
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


def refusal(exc: pytest.ExceptionInfo[ReproauditError]) -> tuple[str, str, str]:
    problem = exc.value.problems[0]
    return problem.code, Path(problem.path).name, problem.message


def test_the_made_workspace_imports(workspace: Path, repo: Path) -> None:
    path, text = import_trackio(workspace, repo, contributor="alice")
    assert path.name.startswith("alice-trackio-")
    assert "self_assessment" in text


# --- files that are not regular files ------------------------------------------


def test_a_symlinked_page_is_refused_not_read(workspace: Path, repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(page_text("Claim 1: secret", (NOTE, "the secret")))
    page = workspace / ".trackio/logbook/pages/claim-1/page.md"
    page.unlink()
    page.symlink_to(secret)
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert refusal(exc) == (
        P.IMPORT_FILE_REFUSED,
        "page.md",
        "is a symlink: refused, nothing was read from it",
    )
    assert not (repo / "logbooks").exists()


def test_a_symlinked_page_folder_is_refused(workspace: Path, repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (workspace / ".trackio/logbook/pages/claim-1").rename(elsewhere)
    (workspace / ".trackio/logbook/pages/claim-1").symlink_to(elsewhere)
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert exc.value.problems[0].code == P.IMPORT_FILE_REFUSED


def test_a_symlink_to_dev_zero_and_a_fifo_never_block(workspace: Path, repo: Path) -> None:
    pages = workspace / ".trackio/logbook/pages"
    (pages / "claim-1" / "page.md").unlink()
    (pages / "claim-1" / "page.md").symlink_to("/dev/zero")
    with deadline(), pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert refusal(exc)[:2] == (P.IMPORT_FILE_REFUSED, "page.md")
    (pages / "claim-1" / "page.md").unlink()
    os.mkfifo(pages / "claim-1" / "page.md")
    with deadline(), pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert refusal(exc) == (
        P.IMPORT_FILE_REFUSED,
        "page.md",
        "is a FIFO: refused, nothing was read from it",
    )
    meta = workspace / ".trackio/metadata.json"
    meta.unlink()
    os.mkfifo(meta)
    with deadline(), pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert refusal(exc)[:2] == (P.IMPORT_FILE_REFUSED, "metadata.json")


def test_a_device_is_refused(workspace: Path, repo: Path) -> None:
    page = workspace / ".trackio/logbook/pages/claim-1/page.md"
    page.unlink()
    try:
        os.mknod(page, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # what /dev/zero is
    except PermissionError:
        pytest.skip("cannot make a device node here (needs CAP_MKNOD)")
    with deadline(), pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert refusal(exc)[2].startswith("is a character device: refused")


def test_a_symlinked_trackio_folder_is_refused(workspace: Path, repo: Path, tmp_path: Path) -> None:
    (workspace / ".trackio").rename(tmp_path / "real")
    (workspace / ".trackio").symlink_to(tmp_path / "real")
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    assert refusal(exc)[:2] == (P.IMPORT_FILE_REFUSED, ".trackio")


def test_manifest_paths_outside_the_pages_are_ignored(workspace: Path, repo: Path) -> None:
    manifest = workspace / ".trackio/logbook/logbook.json"
    data = json.loads(manifest.read_text())
    data["root"]["children"].append({"file": "pages/../../../../../../etc/passwd"})
    manifest.write_text(json.dumps(data))
    _, text = import_trackio(workspace, repo, contributor="alice")
    assert "root:" not in text


# --- numbers and nesting --------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("[" * 200_000 + "]" * 200_000, "cell header is longer than 65536 characters"),
        ("[" * 30_000 + "]" * 30_000, "cell header: nested more than 64 levels deep"),
        ('{"a": ' * 100 + "1" + "}" * 100, "cell header: nested more than 64 levels deep"),
        ('{"type": "code", "exit_code": ' + "9" * 5000 + "}", "cell header: a number of 5000"),
        ('{"type": "code", "duration_s": 1' + "0" * 5000 + ".5}", "cell header: a number of 5003"),
        ('{"type": "code", "duration_s": NaN}', "cell header: NaN is not a JSON number"),
    ],
)
def test_deep_headers_and_huge_numbers_are_problems(
    tmp_path: Path, repo: Path, header: str, message: str
) -> None:
    ws = make_workspace(tmp_path / "ws", {"claim-1": page_text("Claim 1: x", (header, "body"))})
    with pytest.raises(ReproauditError) as exc:
        import_trackio(ws, repo, contributor="alice")
    problem = exc.value.problems[0]
    assert (problem.code, Path(problem.path).name) == (P.IMPORT_SOURCE_INVALID, "page.md")
    assert problem.message.startswith(message)


def test_a_deep_metadata_file_is_a_problem(workspace: Path, repo: Path) -> None:
    (workspace / ".trackio/metadata.json").write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ReproauditError, match="nested more than 64 levels"):
        import_trackio(workspace, repo, contributor="alice")


def test_a_5000_digit_claim_number_is_not_a_claim(tmp_path: Path, repo: Path) -> None:
    title = "Claim " + "1" * 5000 + ": big"
    body = "claim " + "1" * 5000 + " holds."
    ws = make_workspace(tmp_path / "ws", {"claim-1": page_text(title, (NOTE, body))})
    with pytest.raises(ReproauditError) as exc:
        import_trackio(ws, repo, contributor="alice")
    assert exc.value.problems[0].code == P.IMPORT_NOTHING_FOUND


# --- bounded work: behaviour on inputs that were quadratic ----------------------


def test_pages_that_were_quadratic_parse_and_read_right(tmp_path: Path, repo: Path) -> None:
    """150 KB pages that took the regexes past 30 s: unclosed fences, space runs, markers."""
    spaces = "Claim" + " " * 150_000 + "x"
    fence_storm = "````info\n" * 20_000  # opens, never closes
    no_close = (MARKER + '{"type": "markdown"}') * 5_000  # markers whose header never ends
    verdicts = "claim 1 holds " * 12_000
    pages = {
        "claim-1": page_text(
            "Claim 1: holds",
            (NOTE, verdicts),
            ('{"type": "code", "title": "t"}', fence_storm + "````output\nok\n````"),
        ),
        "spaces": f"# {spaces}\n",
        "markers": "# Markers\n" + no_close,
    }
    ws = make_workspace(tmp_path / "ws", pages)
    _, text = import_trackio(ws, repo, contributor="alice")
    assert "self_assessment" not in text  # said 12,000 times is not said plainly
    page = parse_page(pages["claim-1"], Path("claim-1/page.md"))
    assert [c.type for c in page.cells] == ["markdown", "code"]
    assert page.cells[1].fences() == [
        ("info", "\n".join(["````info"] * 19_999) + "\n````output\nok")
    ]
    assert parse_page(pages["markers"], Path("m/page.md")).cells == []
    assert parse_page(pages["spaces"], Path("s/page.md")).title == "Claim…"  # clipped


# trackio's own patterns (logbook.js), which the one-pass reader must agree with.
TRACKIO_CELL = re.compile(
    r"(?:^|\n)---\n<!-- trackio-cell\n([\s\S]*?)\n-->\n([\s\S]*?)"
    r"(?=\n---\n<!-- trackio-cell\n|\s*\Z)"
)
TRACKIO_FENCE = re.compile(r"^````([^\n`]*)\n(.*?)^````[ \t]*$", re.MULTILINE | re.DOTALL)


def test_the_one_pass_reader_agrees_with_trackios_patterns() -> None:
    pieces = [MARKER, '{"type": "markdown"}', "\n-->\n", "body", "\n", "````", "````output\n"]
    pieces += ["x", " ", "# T", "`", "\t", "---", "\n\n"]
    rng = random.Random(15)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        try:
            expected = [
                (json.loads(m[1]), m[2], text.count("\n", 0, m.start(1)) + 1)
                for m in TRACKIO_CELL.finditer(text)
            ]
        except json.JSONDecodeError:
            continue
        if not all(isinstance(h, dict) for h, _, _ in expected):
            continue
        got = parse_page(text, Path("p/page.md")).cells
        assert [(c.header, c.body, c.line) for c in got] == expected, repr(text)
        for _, body, _ in expected:
            want = [(m[1].strip(), m[2].rstrip("\n")) for m in TRACKIO_FENCE.finditer(body)]
            assert fences(body) == want, repr(body)


# --- validate before writing; whose logbook it is -------------------------------


def test_a_paper_whose_id_differs_from_its_file_name_is_refused_before_writing(
    tmp_path: Path, workspace: Path
) -> None:
    repo = make_repo(tmp_path / "repo", paper_id="OtherPaper", file_id="FastTraj01")
    args = ["import", "trackio", str(workspace), "--paper", "FastTraj01", "--contributor"]
    result = CliRunner().invoke(cli, [*args, "alice", "--repo", str(repo)])
    assert result.exit_code == 1
    assert "[id_path_mismatch]" in result.output
    assert "does not match the file name FastTraj01.yaml" in result.output
    assert not (repo / "logbooks").exists()


def test_bot_and_user_handles_never_share_a_file(workspace: Path, repo: Path) -> None:
    bot, _ = import_trackio(workspace, repo, contributor="alice[bot]")
    user, _ = import_trackio(workspace, repo, contributor="alicebot")
    assert bot != user
    assert bot.name.startswith("alice_bot-trackio-") and user.name.startswith("alicebot-")
    assert handle_slug("Alice[bot]") == "alice_bot" != handle_slug("alice-bot")


def test_an_import_never_overwrites_another_contributors_logbook(
    workspace: Path, repo: Path
) -> None:
    path, text = import_trackio(workspace, repo, contributor="alice")
    mallory = text.replace('github: "alice"', 'github: "mallory"')
    assert mallory != text
    write_import(path, mallory)  # a file at alice's path that mallory owns
    with pytest.raises(ReproauditError) as exc:
        import_trackio(workspace, repo, contributor="alice")
    problem = exc.value.problems[0]
    assert problem.code == P.IMPORT_NOT_YOURS
    assert "belongs to 'mallory', not 'alice'" in problem.message
    assert path.read_text() == mallory  # untouched
    path.unlink()
    path.symlink_to(repo / "claims" / "icml2026" / "FastTraj01.yaml")
    with pytest.raises(ReproauditError, match="names no contributor"):
        import_trackio(workspace, repo, contributor="alice")


def test_re_importing_ones_own_logbook_says_updated(workspace: Path, repo: Path) -> None:
    args = ["import", "trackio", str(workspace), "--repo", str(repo), "--contributor"]
    first = CliRunner().invoke(cli, [*args, "alice"])
    assert first.exit_code == 0, first.output
    assert first.output.startswith("wrote ")
    again = CliRunner().invoke(cli, [*args, "Alice"])  # GitHub handles ignore case
    assert again.exit_code == 0, again.output
    assert again.output.startswith("updated ")
    (path,) = (repo / "logbooks" / "FastTraj01").glob("*.yaml")
    assert load_model(path, Logbook).logbook.contributor.github == "Alice"
    other = CliRunner().invoke(cli, [*args, "mallory"])
    assert other.exit_code == 0  # a different handle: a different file
    assert len(list((repo / "logbooks" / "FastTraj01").glob("*.yaml"))) == 2


# --- PaperBench --------------------------------------------------------------------


def leaf(text: str, category: str = "Result Analysis") -> dict:
    return {
        "id": "x",
        "requirements": text,
        "weight": 1,
        "sub_tasks": [],
        "task_category": category,
    }


def node(text: str, *children: dict) -> dict:
    return {
        "id": "n",
        "requirements": text,
        "weight": 1,
        "sub_tasks": list(children),
        "task_category": None,
    }


def write_rubric(folder: Path, rubric: object, title: str | None = "A Paper") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rubric.json").write_text(
        json.dumps(rubric) if not isinstance(rubric, str) else rubric
    )
    if title is not None:
        (folder / "config.yaml").write_text(f"title: {json.dumps(title)}\n")
    return folder


def test_a_rubric_symlink_fifo_or_device_is_refused(tmp_path: Path) -> None:
    real = write_rubric(tmp_path / "real", node("root", leaf("Table 1 shows 90%.")))
    folder = tmp_path / "pb"
    folder.mkdir()
    (folder / "config.yaml").write_text("title: A Paper\n")
    (folder / "rubric.json").symlink_to(real / "rubric.json")
    with pytest.raises(ReproauditError) as exc:
        import_paperbench(folder, paper_id="Pb01")
    assert refusal(exc)[:2] == (P.IMPORT_FILE_REFUSED, "rubric.json")
    (folder / "rubric.json").unlink()
    os.mkfifo(folder / "rubric.json")
    with deadline(), pytest.raises(ReproauditError) as exc:
        import_paperbench(folder, paper_id="Pb01")
    assert refusal(exc) == (
        P.IMPORT_FILE_REFUSED,
        "rubric.json",
        "is a FIFO: refused, nothing was read from it",
    )
    (folder / "rubric.json").unlink()
    (folder / "rubric.json").symlink_to(real / "rubric.json")
    (folder / "config.yaml").unlink()
    os.mkfifo(folder / "config.yaml")
    (folder / "rubric.json").unlink()
    (folder / "rubric.json").write_text((real / "rubric.json").read_text())
    with deadline(), pytest.raises(ReproauditError) as exc:
        import_paperbench(folder, paper_id="Pb01")
    assert refusal(exc)[:2] == (P.IMPORT_FILE_REFUSED, "config.yaml")


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        ('{"sub_tasks": [' * 200_000 + "]}" * 200_000, "nested more than 200 levels deep"),
        (
            '{"requirements": "r", "weight": ' + "7" * 5000 + ', "sub_tasks": []}',
            "a number of 5000",
        ),
    ],
)
def test_a_deep_or_huge_number_rubric_is_a_problem(
    tmp_path: Path, rubric: str, message: str
) -> None:
    folder = write_rubric(tmp_path / "pb", rubric)
    with pytest.raises(ReproauditError) as exc:
        import_paperbench(folder, paper_id="Pb01")
    assert exc.value.problems[0].code == P.IMPORT_SOURCE_INVALID
    assert exc.value.problems[0].message.startswith(message)


def test_anchors_come_from_the_nearest_ancestor_computed_once(tmp_path: Path) -> None:
    """A deep chain of long ancestors with many leaves: each leaf's anchor is still right."""
    chain = node(
        "Claims of Table 4 and Figure 2.", *[leaf(f"Value {i} is 0.{i}.") for i in range(300)]
    )
    for depth in range(80):
        chain = node(f"Level {depth} " + "words " * 2000, chain, leaf(f"Leaf at {depth}."))
    root = node("The paper", node("Section 5 results", chain))
    folder = write_rubric(tmp_path / "pb", root)
    _, text = import_paperbench(folder, paper_id="Pb01")
    anchors = re.findall(r"anchor: (.*)", text)
    assert len(anchors) == 380
    assert anchors.count('"Table 4, Figure 2"') == 300
    assert anchors.count('"Section 5"') == 80  # the level leaves: nearest ancestor naming one


@pytest.mark.parametrize("title", ["x\u202eevil", "bell\x07", "esc\x1b[31m red"])
def test_a_rubric_title_with_controls_or_bidi_is_refused(tmp_path: Path, title: str) -> None:
    folder = write_rubric(tmp_path / "pb", node("root", leaf("Table 1: 90%.")), title=title)
    with pytest.raises(ReproauditError) as exc:
        import_paperbench(folder, paper_id="Pb01")
    assert exc.value.problems[0].field == "paper.title"
    assert "must be one line of plain text" in exc.value.problems[0].message


def test_a_rubric_title_that_closes_a_docstring_stays_a_title(tmp_path: Path) -> None:
    title = 'x"""; __import__("os").system("id"); """ # : {'
    folder = write_rubric(tmp_path / "pb", node("root", leaf("Table 1: 90%.")), title=title)
    rel, text = import_paperbench(folder, paper_id="Pb01")
    from reproaudit.loader import parse_yaml

    assert parse_yaml(text, rel).data["paper"]["title"] == title
