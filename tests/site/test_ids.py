"""Ids pasted into the search box: what each names, and the lookup files the build writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reproaudit.site.ids import normalize, shard

# (pasted text, the id it names); shared with the browser test of the JavaScript mirror
CASES = [
    ("Kp4rT9vQ2x", "kp4rt9vq2x"),
    ("  https://openreview.net/forum?id=Kp4rT9vQ2x  ", "kp4rt9vq2x"),
    ("openreview.net/pdf?id=Zm7Lw_3HqE", "zm7lw_3hqe"),
    ("https://openreview.net/forum?noteId=x&id=r8GdN2-yUc", "r8gdn2-yuc"),
    ("2602.11873", "2602.11873"),
    ("arXiv:2602.11873v2", "2602.11873"),
    ("https://arxiv.org/abs/2602.11873v3", "2602.11873"),
    ("https://arxiv.org/pdf/2602.11873.pdf", "2602.11873"),
    ("carol-paging-1", "carol-paging-1"),
    ("@Carol-Lin", "carol-lin"),
    ("robust paging", None),
    ("<script>", None),
    ("x", None),
]


@pytest.mark.parametrize(("text", "key"), CASES)
def test_normalize_names_the_id_a_pasted_text_means(text: str, key: str | None) -> None:
    assert normalize(text) == key


def test_shards_are_two_safe_characters() -> None:
    assert shard("kp4rt9vq2x") == "kp"
    assert shard("2602.11873") == "73"  # an arXiv id by its last digits, not its year
    assert shard("3dgs-1") == "_1" and shard("7") == "7_"
    assert shard("z_") == "z_" and shard("a.b") == "a_"


def test_the_build_writes_each_id_into_its_shard(built: Path) -> None:
    table = json.loads((built / "ids" / "kp.json").read_text())
    assert table["kp4rt9vq2x"] == [
        [
            "Trust, Then Mark: Near-Harmonic Robustness for Learning-Augmented Paging",
            "papers/Kp4rT9vQ2x/",
            "paper",
        ]
    ]
    arxiv = json.loads((built / "ids" / "73.json").read_text())
    assert [hit[1] for hit in arxiv["2602.11873"]] == ["papers/Kp4rT9vQ2x/"]
    people = json.loads((built / "ids" / "ca.json").read_text())
    assert people["carol-lin"] == [["@carol-lin", "people/carol-lin/", "contributor"]]
    assert people["carol-paging-1"][0][1] == "papers/Kp4rT9vQ2x/carol-paging-1/"
    # without JavaScript: a static page per first character links every id
    page = (built / "ids" / "c" / "index.html").read_text()
    assert 'href="../../people/carol-lin/"' in page
    assert 'href="../../papers/Kp4rT9vQ2x/carol-paging-1/"' in page
