"""Two builds of the example site from the same inputs are byte-identical, every file.

Pagefind writes its filter index in a random order and names files after their content;
``search.fix_order`` rewrites it in a fixed order. Each build runs in its own process (as
the workflow does), so a hash map seeded per process cannot agree by chance.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from tests.site.conftest import site_repo

EPOCH = "1780000000"  # SOURCE_DATE_EPOCH: the build's clock is an input too


def build_in_a_process(repo: Path, out: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
    done = subprocess.run(
        [sys.executable, "-m", "reproaudit", "build", "--repo", str(repo), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_two_builds_of_the_same_inputs_are_identical(tmp_path: Path) -> None:
    repo = site_repo(tmp_path, commit=True)
    first, second = tmp_path / "one", tmp_path / "two"
    build_in_a_process(repo, first)
    build_in_a_process(repo, second)
    a, b = digests(first), digests(second)
    assert any(name.startswith("pagefind/filter/") for name in a)  # the search is included
    assert sorted(a) == sorted(b)
    assert [name for name in a if a[name] != b[name]] == []


def test_the_rewritten_index_reads_as_pagefind_wrote_it(tmp_path: Path) -> None:
    """The control: the filter holds the same values and pages after the rewrite, and the
    metadata and entry file name the files that exist."""
    import gzip
    import json

    import cbor2

    repo = site_repo(tmp_path, commit=True)
    build_in_a_process(repo, tmp_path / "site")
    bundle = tmp_path / "site" / "pagefind"
    entry = json.loads((bundle / "pagefind-entry.json").read_text())
    meta_hash = entry["languages"]["en"]["hash"]
    meta = cbor2.loads(
        gzip.decompress((bundle / f"pagefind.{meta_hash}.pf_meta").read_bytes())[12:]
    )
    assert [name for name, _ in meta[3]] == ["kind", "outcome"]
    for name, filter_hash in meta[3]:
        key, values = cbor2.loads(
            gzip.decompress((bundle / "filter" / f"{filter_hash}.pf_filter").read_bytes())[12:]
        )
        assert key == name
        assert [v[0] for v in values] == sorted(v[0] for v in values)
        if name == "kind":
            assert {v[0] for v in values} == {"paper", "logbook", "contributor", "page"}
            assert sum(len(v[1]) for v in values) == entry["languages"]["en"]["page_count"]
    assert len(list((bundle / "filter").iterdir())) == 2
    assert len(list(bundle.glob("pagefind.*.pf_meta"))) == 1
