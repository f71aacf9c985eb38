"""One reader of `run.json` and `outputs.json`: the judge, the store, the site and the fitness
check agree on what a record is.

They once had four size limits (1 MiB, 2 MB, 16 MiB, none) and as many error
shapes, so a record the judge refused as unreadable was published by the site
and counted fit by ``--strict``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reproaudit.ci.store import check_record
from reproaudit.corpus_check import rerun_problems
from reproaudit.judge.inputs import read_rerun
from reproaudit.loader import load_model
from reproaudit.models import Logbook
from reproaudit.repo import Corpus
from reproaudit.rerun_files import MAX_RUN_BYTES, read_run_json
from reproaudit.rerun_inputs import read_inputs
from reproaudit.site.data import load_rerun
from tests.records import write_current_rerun

PAPER, BOOK = "Tq7mV2pLx0", "ann-1"
REL = f"logbooks/{PAPER}/{BOOK}.yaml"


def readers(repo: Path) -> dict[str, object]:
    """What each reader makes of the record: the judge, the store, the site, --strict."""
    folder = repo / "reruns" / PAPER / BOOK
    inputs = read_inputs(repo, PAPER, BOOK, load_model(repo / REL, Logbook, REL))
    judged = read_rerun(repo / "reruns", PAPER, BOOK, inputs)
    assert judged is not None
    files = {p.name: p for p in folder.iterdir() if p.name != "log.txt"}
    stored, _ = check_record(files, inputs)
    corpus = Corpus(repo)
    site = load_rerun(corpus, repo / "reruns", (PAPER, BOOK))
    strict = [(p.code, p.path, p.field) for p in rerun_problems(repo, corpus)]
    return {
        "judge": judged.rerun.log_tail if judged.run is None else None,
        "store": stored,
        "site": site.run if site is not None else None,
        "strict": strict,
    }


def test_a_run_json_over_the_limit_is_refused_by_every_reader(mini_repo: Path) -> None:
    write_current_rerun(mini_repo, PAPER, BOOK)
    run = mini_repo / "reruns" / PAPER / BOOK / "run.json"
    # 1.5 MiB of JSON whitespace: valid, and under the 2 MB the site used to allow
    run.write_bytes(run.read_bytes() + b" " * (MAX_RUN_BYTES // 2 * 3))
    seen = readers(mini_repo)
    assert seen["judge"] == "unreadable run record: run.json is over 1024 KiB"
    assert seen["store"] == "run.json is over 1024 KiB"
    assert seen["site"] is None  # not published as a passed re-run
    assert seen["strict"] == [("file_too_large", f"reruns/{PAPER}/{BOOK}/run.json", None)]


def test_a_run_json_the_model_refuses_has_one_error_shape(mini_repo: Path) -> None:
    write_current_rerun(mini_repo, PAPER, BOOK)
    run = mini_repo / "reruns" / PAPER / BOOK / "run.json"
    record = json.loads(run.read_bytes())
    run.write_text(json.dumps({**record, "status": "done"}, indent=1))
    seen = readers(mini_repo)
    why = read_run_json(run.read_bytes()).why
    assert why is not None and why.startswith("run.json: status: Input should be")
    assert seen["judge"] == f"unreadable run record: {why}"
    assert seen["store"] == why
    assert seen["site"] is None
    assert seen["strict"] == [("run_record_invalid", f"reruns/{PAPER}/{BOOK}/run.json", "status")]


def test_outputs_nested_too_deep_are_refused_alike(mini_repo: Path) -> None:
    deep = b"[" * 100 + b"]" * 100
    write_current_rerun(mini_repo, PAPER, BOOK, outputs=deep)
    seen = readers(mini_repo)
    assert seen["store"] == "outputs.json is nested deeper than 64 levels"
    assert seen["strict"] == [("invalid_value", f"reruns/{PAPER}/{BOOK}/outputs.json", None)]
    site = load_rerun(Corpus(mini_repo), mini_repo / "reruns", (PAPER, BOOK))
    assert site is not None and site.outputs is None  # no numbers from it on the site


@pytest.mark.parametrize("outputs", [b'{"C1": {"accuracy": 0.95}}'])
def test_a_good_record_reads_the_same_everywhere(mini_repo: Path, outputs: bytes) -> None:
    """The control: every reader takes a well-formed, current record."""
    write_current_rerun(mini_repo, PAPER, BOOK, outputs=outputs)
    seen = readers(mini_repo)
    assert seen == {"judge": None, "store": None, "site": seen["site"], "strict": []}
    assert seen["site"] is not None


@pytest.mark.parametrize(
    "text",
    [
        b"[" * 64 + b"1" + b"]" * 64,  # the limit itself: once refused here, parsed by replies
        b"[" * 65 + b"]" * 65,
        b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}',
        b'{"a":' * 50_000,
        b"\xef\xbb\xbf" + b'{"C1": 1}',  # a byte-order mark, which json.loads accepts
        b'{"C1": 1',
    ],
)
def test_records_and_replies_share_one_bounded_parser(text: bytes) -> None:
    """One depth-bounded JSON parser (``boundedjson``) for re-run files and LLM replies:
    they accept and refuse the same texts, for the same reason."""
    from reproaudit.boundedjson import JsonError, loads
    from reproaudit.rerun_files import parse_json

    value, why, _ = parse_json(text)
    try:
        reply, refused = loads(text, max_chars=len(text)), None
    except JsonError as exc:
        reply, refused = None, exc
    assert value == reply
    assert (why is None) == (refused is None)
    if refused is not None:
        assert ("nested deeper" in (why or "")) == refused.too_deep
