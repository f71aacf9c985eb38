"""Starting points for people and agents: new files and the task brief.

``new_paper`` and ``new_logbook`` render templates that validate as they
are, with comments that say what to fill in; ``task_brief`` gathers all a
coding agent needs to reproduce one paper into one text.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

from . import layout
from . import problems as P
from .errors import InputError
from .escaping import one_line, python_str, yaml_plain, yaml_scalar
from .loader import parse_yaml, to_model
from .models import LOGBOOK_ID_PATTERN, Logbook, PaperFile
from .problems import Problem
from .repo import Corpus, corpus_of

SCHEMA_DIR = "schemas"


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("reproaudit", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # YAML and Markdown, not HTML
    )
    # Every value reaches a template through the filter for its context:
    env.filters["q"] = yaml_scalar  # a YAML scalar
    env.filters["id"] = yaml_plain  # a YAML scalar, unquoted when a simple id
    env.filters["comment"] = one_line  # the text of a one-line YAML comment
    env.filters["pystr"] = python_str  # a Python string literal
    env.filters["pycomment"] = one_line  # the text of a one-line Python comment
    env.filters["oneline"] = one_line  # the former name of `comment`
    return env


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower()) or "venue"


def new_paper(root: Path, paper_id: str, title: str, venue: str) -> tuple[Path, str]:
    """Render a paper file; return its path and text (checked against the schema)."""
    rel = layout.paper_rel(slug(venue), paper_id)
    claims = root / layout.CLAIMS_DIR
    taken = (
        [p for p in claims.glob(f"*/{paper_id}.yaml") if p != root / rel] if claims.is_dir() else []
    )
    if taken:  # a paper id is unique across venues: refuse now, not at validation
        raise InputError(
            Problem(
                P.DUPLICATE_ID,
                rel,
                None,
                "paper.id",
                f"paper {paper_id} already has a file at {taken[0].relative_to(root)}",
                "a paper id is unique across venues; edit that file or pick another id",
            )
        )
    text = (
        _env()
        .get_template("paper.yaml.j2")
        .render(
            schema_url=f"../../{SCHEMA_DIR}/paper.schema.json",
            paper_id=paper_id,
            title=title,
            venue=venue,
            openreview=f"https://openreview.net/forum?id={paper_id}",
            reference=doc_links(root)["data_files"],
        )
    )
    to_model(parse_yaml(text, rel), PaperFile)
    return root / rel, text


def new_logbook(
    root: Path,
    paper_id: str,
    logbook_id: str,
    contributor: str,
    agent: str = "claude-code",
    corpus: Corpus | None = None,
    docs: dict[str, str] | None = None,
) -> dict[Path, str]:
    """Render a logbook for ``paper_id`` with one result entry per claim.

    Returns the files to write: the logbook and a starter ``reproduce.py`` in the
    logbook's own code folder, which the logbook's ``code.path`` points at.
    ``corpus``: the command's one ``Corpus`` of ``root``, and ``docs`` its ``doc_links``,
    when it has them.
    """
    corpus = corpus_of(root, corpus)
    paper = _require_paper(corpus, paper_id)
    if not re.match(LOGBOOK_ID_PATTERN, logbook_id):
        raise InputError(
            Problem(
                P.INVALID_VALUE,
                layout.logbook_rel(paper_id, logbook_id),
                None,
                "logbook.id",
                f"{logbook_id!r} is not a valid logbook id",
                "use lowercase letters, digits, '.', '_' and '-', e.g. alice-paging-1",
            )
        )
    rel = layout.logbook_rel(paper_id, logbook_id)
    text = (
        _env()
        .get_template("logbook.yaml.j2")
        .render(
            schema_url=f"../../{SCHEMA_DIR}/logbook.schema.json",
            paper=paper,
            logbook_id=logbook_id,
            contributor=contributor,
            agent=agent,
            reference=(docs or doc_links(root))["data_files"],
        )
    )
    to_model(parse_yaml(text, rel), Logbook)
    script = _env().get_template("reproduce.py.j2").render(paper=paper, logbook_id=logbook_id)
    return {root / rel: text, root / layout.code_rel(paper_id, logbook_id) / "reproduce.py": script}


def _require_paper(corpus: Corpus, paper_id: str) -> PaperFile:
    rels = corpus.paper_rels.get(paper_id, [])
    if not rels:
        known = sorted(corpus.paper_rels)
        close = [k for k in known if k.lower().startswith(paper_id[:3].lower())][:5]
        hint = (
            f"known papers include {', '.join(close or known[:5])}"
            if known
            else "there are no paper files under claims/ yet"
        )
        raise InputError(
            Problem(P.UNKNOWN_PAPER, "claims/", None, None, f"there is no paper {paper_id!r}", hint)
        )
    loaded = corpus.load(corpus.by_rel[rels[0]])
    if loaded.model is None:
        raise InputError(loaded.problems)
    return loaded.model


AGENTS_PAGE = "scripts/reproaudit/site/docs/agents.md"


def doc_links(root: Path) -> dict[str, str]:
    """Where the agents' page and the field reference are: on the site when the
    repository's ``mkdocs.yml`` names its URL, else the files in this repository."""
    site_url = None
    config = Path(root) / "mkdocs.yml"
    if config.is_file():
        try:
            settings = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
            site_url = settings.get("site_url") if isinstance(settings, dict) else None
        except yaml.YAMLError:  # mkdocs files may hold tags a safe loader refuses
            site_url = None
    if isinstance(site_url, str) and site_url.startswith(("http://", "https://")):
        base = site_url.rstrip("/") + "/"
        return {"agents": base + "agents/", "data_files": base + "reference/data-files/"}
    return {"agents": AGENTS_PAGE, "data_files": P.REFERENCE_PAGE}


def paper_text_info(paper: PaperFile, cache: Path | None) -> dict[str, Any]:
    """Where the paper's text is cached (``onboard`` or ``task --text`` put it there), if it is."""
    from .onboard.cache import TextCache, cached_text_path, default_cache, record_of

    review = paper.review
    where = cached_text_path(
        TextCache(cache or default_cache()),
        record_of(paper.paper),
        review.text_sha256 if review else None,
        "https://arxiv.org",
    )
    return {
        "cached": str(where) if where else None,
        "fetchable": bool(paper.paper.links.arxiv or paper.paper.links.pdf),
        "command": f"reproaudit task {paper.paper.id} --text",
    }


def task_data(
    root: Path, paper_id: str, cache: Path | None = None, corpus: Corpus | None = None
) -> dict[str, Any]:
    """Everything a coding agent needs to reproduce one paper, as data (``task --json``)."""
    corpus = corpus_of(root, corpus)
    paper = _require_paper(corpus, paper_id)
    meta = paper.paper
    claims = []
    for claim in paper.claims:
        target = claim.target.model_dump(mode="json") if claim.target else None
        regime = claim.regime.model_dump(mode="json", by_alias=True) if claim.regime else None
        claims.append(
            {
                "id": claim.id,
                "kind": claim.kind,
                "anchor": claim.anchor,
                "statement": claim.statement,
                "quote": claim.quote,
                "target": target,
                "regime": regime,
            }
        )
    docs = doc_links(root)
    starter = new_logbook(root, paper_id, "yourname-1", "yourname", corpus=corpus, docs=docs)
    template = next(iter(starter.values()))
    return {
        "paper": {
            "id": meta.id,
            "title": meta.title,
            "venue": meta.venue,
            "links": {k: v for k, v in meta.links.model_dump().items() if v},
            "released": {k: v for k, v in meta.released.model_dump().items() if v},
            "abstract": meta.abstract,
            "keywords": list(meta.keywords),
            "track": meta.track,
        },
        "review": paper.review.status if paper.review else "reviewed",
        "text": paper_text_info(paper, cache),
        "claims_version": paper.claims_version,
        "claims": claims,
        "existing_logbooks": [
            layout.logbook_rel(paper_id, lb) for lb in corpus.logbook_keys.get(paper_id, [])
        ],
        "rules": [rule.split(". ", 1)[1] for rule in RULES],
        "steps": [step.split(". ", 1)[1] for step in _steps(paper_id)],
        "status": CHECK_STATUS,
        "docs": docs,
        "logbook_template": template,
    }


def next_steps(root: Path, paper_id: str, logbook_id: str) -> str:
    """What to do after ``new logbook``: where the fields are explained, how to check."""
    docs = doc_links(root)
    return (
        f"next: put your code in logbooks/{paper_id}/{logbook_id}/, fill in results, then run\n"
        f"  reproaudit check logbooks/{paper_id}/{logbook_id}.yaml\n"
        f"every field, with its type and an example: {docs['data_files']}\n"
        f"for coding agents: {docs['agents']}"
    )


CHECK_STATUS = (
    "`reproaudit check` prints status=ok or status=fail on its first line and exits 0 or 1; "
    "status=fail means a problem to fix, a local re-run that failed or timed out, or a claim "
    "whose verdict carries a flag you can fix (unit_mismatch, scale_suspect, scale_short, "
    "short_horizon, hardware_mismatch; the last three are expected of a `reduced` or "
    "`synthetic` setup and do not fail it): the first line names each, and the report says "
    "what to do. status=host_error (exit 1) means this machine could not run the re-run at all "
    "(what failed is named): nothing in the logbook to fix. Verdicts marked pending rest on "
    "the logbook's own numbers (or a local re-run) until CI re-runs it."
)


def task_brief(root: Path, paper_id: str, cache: Path | None = None) -> str:
    """Everything a coding agent needs to reproduce one paper, as Markdown."""
    corpus = Corpus(root)  # the command's one read of the repository
    data = task_data(root, paper_id, cache, corpus)
    paper = _require_paper(corpus, paper_id)
    meta = data["paper"]
    lines = [f"# Reproduce: {meta['title']}", "", f"- Paper id: `{meta['id']}` ({meta['venue']})"]
    lines += [f"- {name}: {url}" for name, url in meta["links"].items()]
    lines += [f"- Released {name}: {url}" for name, url in meta["released"].items()]
    if not meta["released"]:
        lines.append("- Released code/data/checkpoints: none listed")
    lines += [f"- Claims version: {data['claims_version']}"]
    if data["review"] == "draft":
        lines.append("- Claims: a machine draft no maintainer has reviewed yet")
    text = data["text"]
    if text["cached"]:
        lines.append(f"- The paper's text (cached): {text['cached']}")
    elif text["fetchable"]:
        lines.append(f"- The paper's text: not cached; `{text['command']}` fetches and prints it")
    if meta["abstract"]:
        lines += ["", "## Abstract", "", meta["abstract"]]
    lines += ["", "## Claims to check", ""]
    for claim in paper.claims:
        lines.append(f"### {claim.id} ({claim.kind}) — {claim.anchor}")
        lines.append("")
        lines.append(claim.statement)
        lines.append("")
        if claim.quote:
            lines += [f"> {claim.quote}", ""]
        if claim.target:
            t = claim.target
            value = "" if t.value is None else f" {t.value:g}"
            tol = ""
            if t.tolerance:
                tol = (
                    f", tolerance ±{t.tolerance.abs:g}"
                    if t.tolerance.abs is not None
                    else f", tolerance ±{t.tolerance.rel:.0%} relative"
                )
            per = f" per {t.per}" if t.per else ""
            lines.append(f"- Target: `{t.metric}` {t.form}{value} {t.unit}{per}{tol}")
            if t.per:
                lines.append(f"- Report it with `unit: {t.unit}, per: {t.per}`")
            if t.scale:
                sizes = ", ".join(f"{name} = {size:g}" for name, size in t.scale.items())
                lines.append(
                    f"- Evaluated at {sizes}: write it beside the number in the outputs "
                    f'(`"at": {{"{next(iter(t.scale))}": ...}}`), or the claim is toy at best'
                )
        if claim.regime:
            r = claim.regime
            upto = (
                "no upper end (asymptotic: sweep at least two orders of magnitude)"
                if r.to is None
                else f"{r.to:g} (your sweep must reach it)"
            )
            start = "" if r.from_ is None else f" from {r.from_:g}"
            lines.append(f"- Regime: `{r.parameter}`{start} to {upto}")
        lines.append("")
    lines += ["## Existing logbooks", ""]
    lines += [f"- `{rel}`" for rel in data["existing_logbooks"]] or ["- none yet"]
    lines += ["", "## Rules of the judge", "", *RULES, "", "## Steps", "", *_steps(paper_id)]
    lines += ["", "## Reading `check`", "", CHECK_STATUS]
    lines += ["", "## Logbook template", "", "```yaml", data["logbook_template"].rstrip(), "```"]
    docs = data["docs"]
    lines += [
        "",
        "## Read next",
        "",
        f"- For coding agents (what `check` detects, how to read its status): {docs['agents']}",
        f"- Every field of a logbook, with its type and an example: {docs['data_files']}",
        "",
    ]
    return "\n".join(lines)


RULES = [
    "1. Numbers the CI re-run produces are what count. Point each measurement at them with "
    '`source: "outputs:/<JSON pointer>"` into `reproduce.outputs`; a typed `value` that '
    "disagrees with the re-run is flagged `rerun_mismatch`. Until a re-run of the logbook "
    "as it is now has passed, every claim is `inconclusive` + `not_rerun` (awaiting re-run), "
    "its evidence saying what the typed numbers would give.",
    "2. `self_assessment` is shown next to the verdict but never trusted; when it differs, "
    "the verdict is flagged `self_assessment_disagrees`.",
    "3. Units are converted (pint). A rate or time must say what it is `per` (trajectory, "
    "image, batch of 50): a different `per` makes the claim inconclusive (`unit_mismatch`), "
    'never falsified. Write each number in the outputs with its own unit and per (`{"value": '
    '140, "unit": "ms", "per": "batch of 50"}`, as the starter reproduce.py does): a logbook '
    "label that contradicts them is `unit_mismatch`, never trusted.",
    "4. A sweep must reach the claim's regime: up to `regime.to`, or across at least two "
    "orders of magnitude when the claim is asymptotic; otherwise it is `toy` at best "
    "(`short_horizon`). For `bounded` claims, growth falsifies only on a sweep that covers "
    "the regime (on a shorter one it is `toy` + `short_horizon`); a point above the bound "
    "falsifies on any sweep. A `verified` on a claim with no upper end holds within the "
    'tested range only, and says it ("held for k = 2..512; claimed for all k >= 2").',
    "5. `setup: reduced` or `synthetic` caps the verdict at `toy`, and so does a re-run on "
    "other hardware than a claim's `target.hardware` (`hardware_mismatch`), or an evaluation "
    "smaller than a claim's `target.scale` (`scale_short`: the re-run's outputs must say its "
    'size, `"at": {"n_test": ...}`). A value 30x or more from a point target is '
    "`inconclusive` (`scale_suspect`): check its unit. Numbers must be finite and at most "
    "1e15 in magnitude.",
    "6. A failed or timed-out re-run verifies nothing; a claim with no result is "
    "`inconclusive` (`not_addressed`).",
    "7. A falsification needs an argument and, where possible, a concrete counterexample; a "
    "maintainer reviews it before it counts.",
]


def _steps(paper_id: str) -> list[str]:
    return [
        f"1. `reproaudit new logbook {paper_id} --id <you>-1 --contributor <github>`",
        f"2. Put small code in `logbooks/{paper_id}/<you>-1/` (or link a repo at a commit); "
        "its command must write the outputs JSON. The re-run has no network: it can import "
        "the runner's Python and its packages (`hardware: cpu`, in bwrap) or your "
        "`reproduce.image` (GPU hardware in docker, and hf-jobs), plus "
        "`reproduce.requirements`, a pip file in that folder installed first, with network.",
        "3. Fill in results with the fields the data-file reference names (`measurements` with "
        '`source: "outputs:/..."`, `sweep`, `falsification`); then '
        f"`reproaudit check logbooks/{paper_id}/<you>-1.yaml` (validation, local re-run, "
        "judge: the report CI will post). Fix until its first line is `status=ok`.",
        "4. Open a pull request that changes only files under `logbooks/`.",
    ]
