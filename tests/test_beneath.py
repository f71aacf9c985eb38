"""The one reader, played for real: a write-up linked to /proc/self/environ or /dev/zero, a
FIFO, a paper folder that is a link, a link in a code folder; each beside a control.

Nothing here is mocked: real links, a real FIFO, the real judge and site build.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from reproaudit.beneath import read_capped, read_file, write_file
from reproaudit.errors import InputError
from reproaudit.judge.cases import RulesJudge
from reproaudit.judge.run import judge_repo
from reproaudit.repo import Corpus
from reproaudit.reproduce.spec import copy_code, load_spec
from reproaudit.validate import validate_repo

BOOK = "logbooks/Tq7mV2pLx0/ann-1"
SECRET = "sk-judge-key-0123456789-do-not-publish"


def found(problems) -> list[tuple[str, str]]:
    return [(p.code, p.path) for p in problems if p.code == "not_a_regular_file"]


def test_the_control_writeup_is_read(mini_repo: Path) -> None:
    corpus = Corpus(mini_repo)
    assert corpus.writeup("Tq7mV2pLx0", "ann-1") is not None
    assert corpus.refusal(f"{BOOK}.md") == []
    assert found(validate_repo(mini_repo).problems) == []


@pytest.mark.parametrize("target", ["/proc/self/environ", "/dev/zero"])
def test_a_linked_writeup_is_never_read_by_the_judge_or_the_site(
    mini_repo: Path, tmp_path: Path, monkeypatch, target: str
) -> None:
    monkeypatch.setenv("REPROAUDIT_JUDGE_API_KEY", SECRET)
    writeup = mini_repo / f"{BOOK}.md"
    writeup.unlink()
    writeup.symlink_to(target)
    # validate names it
    assert ("not_a_regular_file", f"{BOOK}.md") in found(validate_repo(mini_repo).problems)
    # the judge: that logbook is not judged, the problem names the file, nothing is read
    summary = judge_repo(mini_repo, RulesJudge())
    refused = [p for p in summary.problems if p.path == f"{BOOK}.md"]
    assert refused and refused[0].message == "is a symlink: refused, nothing was read from it"
    assert (
        not (mini_repo / "verdicts/Tq7mV2pLx0/ann-1.yaml").exists()
        or SECRET not in (mini_repo / "verdicts/Tq7mV2pLx0/ann-1.yaml").read_text()
    )
    # the site: built without it (a strict build would fail naming it)
    from reproaudit.site.build import build_site

    out = tmp_path / "site"
    build_site(mini_repo, out, strict=False, search=False, judge_missing=True)
    for page in out.rglob("*"):
        if page.is_file() and page.suffix in (".html", ".json", ".xml", ".md", ".txt"):
            assert SECRET not in page.read_text(errors="replace"), page


def test_a_fifo_is_refused_unopened(mini_repo: Path) -> None:
    """A FIFO with no writer blocks any reader that opens it; this one is never opened."""
    writeup = mini_repo / f"{BOOK}.md"
    writeup.unlink()
    os.mkfifo(writeup)
    done = threading.Event()

    def read() -> None:
        with pytest.raises(InputError, match="is a FIFO: refused"):
            read_capped(mini_repo, f"{BOOK}.md", 1024)
        done.set()

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(60)
    assert done.is_set()
    assert ("not_a_regular_file", f"{BOOK}.md") in found(validate_repo(mini_repo).problems)


def test_a_paper_folder_that_is_a_link_is_not_followed(mini_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x-1.yaml").write_text("logbook: {id: x-1}\n")
    (mini_repo / "logbooks" / "Zz").symlink_to(outside)
    with pytest.raises(InputError, match="logbooks/Zz is a symlink"):
        read_file(mini_repo, "logbooks/Zz/x-1.yaml", 1024)
    assert ("not_a_regular_file", "logbooks/Zz") in found(validate_repo(mini_repo).problems)
    # and writing through it is refused just the same
    with pytest.raises(InputError, match="logbooks/Zz is a symlink"):
        write_file(mini_repo, "logbooks/Zz/new.yaml", b"x")
    assert not (outside / "new.yaml").exists()


def test_reads_are_capped(mini_repo: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(b"a" * 5000)
    got = read_capped(tmp_path, "big.bin", 100)
    assert got is not None and len(got.raw) == 101 and not got.complete and got.size == 5000
    with pytest.raises(InputError, match="over the"):
        read_file(tmp_path, "big.bin", 100)


def test_a_link_in_a_code_folder_is_refused_by_the_copy(mini_repo: Path, tmp_path: Path) -> None:
    spec = load_spec(mini_repo, f"{BOOK}.yaml")
    control = copy_code(mini_repo, spec, tmp_path / "control")
    assert control > 0
    (mini_repo / BOOK / "inside-link").symlink_to("run.py")  # stays inside, still refused
    with pytest.raises(InputError, match="ann-1/inside-link: is a symlink"):
        copy_code(mini_repo, spec, tmp_path / "copy")


def test_validating_one_logbook_checks_its_writeup_and_code_on_disk(mini_repo: Path) -> None:
    """What `reproaudit check` runs: a link beside the logbook is found from its YAML alone."""
    assert found(validate_repo(mini_repo, [f"{BOOK}.yaml"]).problems) == []
    (mini_repo / f"{BOOK}.md").unlink()
    (mini_repo / f"{BOOK}.md").symlink_to("/proc/self/environ")
    (mini_repo / BOOK / "lib").symlink_to("/usr/lib")
    assert found(validate_repo(mini_repo, [f"{BOOK}.yaml"]).problems) == [
        ("not_a_regular_file", f"{BOOK}.md"),
        ("not_a_regular_file", f"{BOOK}/lib"),
    ]


def test_a_strict_build_names_the_linked_writeup(mini_repo: Path) -> None:
    """What `build --strict` (site.yml) fails with: one line naming the file."""
    from reproaudit.corpus_check import check_corpus

    assert check_corpus(mini_repo).ok
    (mini_repo / f"{BOOK}.md").unlink()
    (mini_repo / f"{BOOK}.md").symlink_to("/proc/self/environ")
    assert check_corpus(mini_repo).lines() == [
        f"{BOOK}.md: not_a_regular_file: is a symlink",
    ]
