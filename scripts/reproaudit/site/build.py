"""``reproaudit build``: judge what has no verdict, render, and build with mkdocs-material.

Works on any repository with ``claims/``, ``logbooks/`` and ``verdicts/``. The
package ships default settings (``site/mkdocs.yml``), pages (``site/docs/``) and
assets; a repository's own ``mkdocs.yml`` inherits the settings (as INHERIT would), and
its ``site/`` folder goes over the pages. The build happens in the temporary folder
(``$TMPDIR``), never in the repository; the output folder is replaced only when the
build succeeds, and the next build sweeps what a killed one left (``scratch``).
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from .. import layout
from .. import problems as P
from ..beneath import read_file
from ..errors import InputError, ReproauditError, StorageError, storage_error
from ..fsutil import FOLDER_HINT, held_folder, kind_of, output_folder
from ..judge.cases import RulesJudge
from ..judge.run import JudgeSummary, judge_corpus, now_utc
from ..loader import MAX_DATA_BYTES, decode_text
from ..models import VerdictFile
from ..problems import Problem
from ..repo import Corpus, corpus_of, loaded_then_frozen_gc
from ..scratch import held_dir, sweep, temp_root
from . import render
from .data import load_site_data
from .plugin import SHELL_ROOT, ReproauditPlugin
from .search import SearchIndex, markdown_records

DEFAULT_OUT = "_site"
STAGE_PREFIX = "reproaudit-build-"


@dataclass
class BuildReport:
    out: Path
    pages: int
    files: int
    judged: int
    seconds: dict[str, float]


def _package_dir() -> Path:
    return Path(str(resources.files("reproaudit.site")))


def merged_config(root: Path, site_url: str | None = None) -> dict[str, Any]:
    """The package's mkdocs settings with the repository's ``mkdocs.yml`` over them.

    The repository's file inherits the package's defaults exactly as mkdocs' ``INHERIT``
    would (mkdocs' loader and its merge: mappings merge, anything else is replaced), without
    naming them: their path differs per install. Its own ``INHERIT`` chain, if any, is read
    by mkdocs as usual. ``site_url`` (``build --site-url``) wins over both: a fork or a
    preview deploys the same repository at another address.
    """
    import mergedeep
    from mkdocs.utils.yaml import yaml_load

    with open(_package_dir() / "mkdocs.yml", encoding="utf-8") as handle:
        config = yaml_load(handle)
    raw = read_file(root, "mkdocs.yml", MAX_DATA_BYTES)  # the one reader: no link, capped
    if raw is not None:
        text = io.StringIO(decode_text(raw, "mkdocs.yml"))
        text.name = str(root / "mkdocs.yml")  # INHERIT is relative to it
        mine = yaml_load(text)
        if not isinstance(mine, dict):
            raise InputError(
                Problem(
                    P.NOT_A_MAPPING,
                    "mkdocs.yml",
                    1,
                    None,
                    "mkdocs.yml must hold a mapping of settings",
                )
            )
        config = mergedeep.merge(config, mine)  # what yaml_load does for INHERIT
    plugins = config.get("plugins") or []
    names = [next(iter(p)) if isinstance(p, dict) else p for p in plugins]
    if "reproaudit" not in names:
        plugins = [*plugins, "reproaudit"]
    config["plugins"] = plugins
    theme = config.setdefault("theme", {})
    if isinstance(theme, dict) and not theme.get("custom_dir"):
        theme["custom_dir"] = str(_package_dir() / "overrides")
    hidden = str(config.get("not_in_nav") or "")
    config["not_in_nav"] = hidden + f"\n/{SHELL_ROOT}/\n"
    if site_url:
        config["site_url"] = site_url
    if config.get("site_url"):
        config["site_url"] = str(config["site_url"]).rstrip("/") + "/"
    return config


def _stage_docs(root: Path, docs: Path) -> frozenset[str]:
    """Package pages and assets, then the repository's own ``site/`` over them; the
    files that came from the repository (relative to ``site/``), to name them in errors."""
    package = _package_dir()
    shutil.copytree(package / "docs", docs, dirs_exist_ok=True)
    shutil.copytree(package / "assets", docs / "assets", dirs_exist_ok=True)
    own = root / "site"
    copied: list[str] = []
    if own.is_dir():

        def copy(src: str, dst: str) -> object:
            copied.append(Path(src).relative_to(own).as_posix())
            return shutil.copy2(src, dst)

        shutil.copytree(
            own,
            docs,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(".*", "__pycache__"),
            copy_function=copy,
        )
    return frozenset(copied)


def build_site(
    root: Path,
    out: Path | None = None,
    *,
    papers: list[str] | None = None,
    now: datetime | None = None,
    judge_missing: bool = True,
    strict: bool = True,
    site_url: str | None = None,
    search: bool = True,
    corpus: Corpus | None = None,
) -> BuildReport:
    """Build the site of the repository at ``root`` into ``out`` (default ``root/_site``).

    ``corpus``: the command's one ``Corpus`` of ``root`` (the fitness check read it
    first); the build narrows it to ``papers`` and adds verdicts judged in memory.
    """
    with loaded_then_frozen_gc() as loaded:  # what is loaded is never rescanned
        return _build_site(
            root, out, papers, now, judge_missing, strict, site_url, search, corpus, loaded
        )


def _build_site(
    root: Path,
    out: Path | None,
    papers: list[str] | None,
    now: datetime | None,
    judge_missing: bool,
    strict: bool,
    site_url: str | None,
    search: bool,
    corpus: Corpus | None,
    loaded: Callable[[], None],
) -> BuildReport:
    root = Path(root).resolve()
    out = Path(out).resolve() if out else root / DEFAULT_OUT
    timings: dict[str, float] = {}
    start = time.perf_counter()
    only = set(papers) if papers else None
    corpus = corpus_of(root, corpus)
    if only is not None:
        corpus.restrict(only)
    judged: dict[str, VerdictFile] = {}
    if judge_missing:
        reruns = root / layout.RERUNS_DIR  # re-run records the bot stored, when there are any
        summary = JudgeSummary()
        verdict_docs = judge_corpus(
            corpus,
            RulesJudge(),
            summary,
            only_missing=True,
            reruns=reruns if reruns.is_dir() else None,
        )
        # judged in memory, never written: only `reproaudit judge` writes verdicts/
        judged = {doc.rel: doc.model() for doc in verdict_docs}
        if summary.problems:
            raise InputError(summary.problems)
        corpus.add_verdicts(judged)
    timings["judge missing verdicts"] = time.perf_counter() - start

    config_dict = merged_config(root, site_url)
    step = time.perf_counter()
    data = load_site_data(
        corpus,
        now or now_utc(),
        config_dict.get("site_url"),
        only,
        repo_url=config_dict.get("repo_url"),
    )
    if only:
        unknown = sorted(only - set(data.papers))
        if unknown:
            raise InputError(
                Problem(
                    P.UNKNOWN_PAPER,
                    "claims/",
                    None,
                    None,
                    f"no paper {', '.join(unknown)} to build",
                )
            )
    loaded()
    timings["load and fold"] = time.perf_counter() - step

    output_folder(out.parent)
    _site_folder_or_none(out, out)  # refused before the build, not after it
    sweep(temp_root(), STAGE_PREFIX)  # what killed builds left behind
    sweep(out.parent, f".{STAGE_PREFIX}")
    # staged in the temporary folder, never in the repository: a killed build leaves
    # nothing there, and the next build sweeps what it left in the temporary folder
    with held_dir(temp_root(), STAGE_PREFIX) as tmp:
        docs = tmp / "docs"
        staging = tmp / "site"
        own_files = _stage_docs(root, docs)
        step = time.perf_counter()
        index = None
        if search:  # Pagefind works in the background while the site renders
            records = render.search_records(data) + markdown_records(docs, render.page_url)
            index = SearchIndex(tmp, records)
            data.memo["typo shards"] = list(index.typos)  # the search page says which exist
        timings["search index (start)"] = time.perf_counter() - step
        try:
            inputs = ({model.paper.id: path.rel for path, model in corpus.papers()}, own_files)
            pages, outputs = _render_and_build(
                root, data, config_dict, docs, staging, only, strict, timings, inputs
            )
            step = time.perf_counter()
            if index is not None:
                index.finish(staging)
            timings["search index (wait)"] = time.perf_counter() - step
        finally:
            if index is not None:
                index.cancel()
        _move_into_place(staging, out, tmp)
    return BuildReport(out, len(pages), len(outputs), len(judged), timings)


def _move_into_place(staging: Path, out: Path, tmp: Path) -> None:
    """Replace ``out`` by the built site: one rename when both are on one file system,
    else a copy beside ``out`` (held, so a killed build's copy is swept) and a rename.

    Everything goes through ``out``'s parent held open; whatever is at ``out``
    must be a folder (an older site), else it is refused, never renamed or removed.
    """
    try:
        with held_folder(out.parent) as parent:
            if staging.stat().st_dev != parent.stat().st_dev:
                with held_dir(parent, f".{STAGE_PREFIX}") as near:
                    shutil.copytree(staging, near / "site", symlinks=True)
                    _swap(near / "site", parent / out.name, near, out)
            else:
                _swap(staging, parent / out.name, tmp, out)
    except OSError as exc:  # name the folder asked for, not our hidden copy beside it
        found = storage_error(exc)
        if found is None:
            raise
        raise StorageError(str(out), found.why) from None


def _site_folder_or_none(place: Path, out: Path) -> bool:
    """Whether an older site is at ``place`` (a real folder); refuse anything else there."""
    try:
        mode = os.lstat(place).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(mode):
        raise StorageError(str(out), f"it is {kind_of(mode)}, not a folder", FOLDER_HINT)
    return True


def _swap(new: Path, place: Path, scratch: Path, out: Path) -> None:
    """``new`` becomes ``place`` (``out`` held open); the old site goes into ``scratch``
    (same file system), removed with it."""
    if _site_folder_or_none(place, out):
        place.rename(scratch / "previous")
    new.rename(place)


def _render_and_build(
    root: Path,
    data: Any,
    config_dict: dict[str, Any],
    docs: Path,
    staging: Path,
    only: set[str] | None,
    strict: bool,
    timings: dict[str, float],
    inputs: tuple[dict[str, str], frozenset[str]] = ({}, frozenset()),
) -> tuple[list, dict]:
    """Render the generated pages and files, then run mkdocs-material over them."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import Abort, MkDocsException

    step = time.perf_counter()
    site_name = str(config_dict.get("site_name") or "reproaudit")
    if only:
        site_name += f" (preview of {', '.join(sorted(only))})"
    pages = render.pages(data, site_name, only)
    outputs = render.files(data, site_name, only)
    timings["render pages and files"] = time.perf_counter() - step

    step = time.perf_counter()
    # generated pages link to each other as directory URLs (papers/<id>/)
    config_dict.update(
        docs_dir=str(docs), site_dir=str(staging), strict=strict, use_directory_urls=True
    )
    config = MkDocsConfig(config_file_path=str(root / "mkdocs.yml"))
    config.load_dict(config_dict)
    errors, warnings = config.validate()
    if errors or (strict and warnings):
        problems = [
            Problem(P.INVALID_VALUE, "mkdocs.yml", None, name, str(message))
            for name, message in [*errors, *warnings]
        ]
        raise InputError(problems)
    plugin = config.plugins["reproaudit"]
    assert isinstance(plugin, ReproauditPlugin)  # the entry point of this package
    plugin.feed(pages, outputs, *inputs)  # inputs: to name them in a path collision
    log = logging.getLogger("mkdocs")
    level = log.level
    log.setLevel(logging.WARNING)  # mkdocs' INFO lines are noise here; the caller's level after
    try:
        mkdocs_build(config)
    except (Abort, MkDocsException) as exc:
        raise ReproauditError(f"the site build failed: {exc}") from None
    finally:
        log.setLevel(level)
    timings["mkdocs build (and paper pages)"] = time.perf_counter() - step
    return pages, outputs
