"""Problems: what is wrong with an input, where, and how to fix it.

The library never prints. It returns ``Problem`` objects (or raises an
``errors.InputError`` carrying them) and the command line formats them as text,
JSON or GitHub annotations. Every problem has a stable ``code`` registered in
``CODES`` with a docstring; ``reproaudit`` generates the reference page of
codes from those docstrings.

Over 400 lines because it is the registry of every problem code with its documentation,
from which the reference page is generated.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Code:
    """A registered problem code: its name, default severity and documentation."""

    name: str
    severity: Severity
    doc: str


CODES: dict[str, Code] = {}


def _code(name: str, severity: Severity, doc: str) -> str:
    CODES[name] = Code(name, severity, " ".join(doc.split()))
    return name


# --- reading a file -------------------------------------------------------
YAML_SYNTAX = _code(
    "yaml_syntax",
    "error",
    """
    The file is not well-formed YAML (an unclosed bracket, a tab used for
    indentation, a bad indent). Nothing else in the file can be checked until
    it parses. Fix the line named; YAML indents with spaces only.""",
)
EMPTY_FILE = _code(
    "empty_file",
    "error",
    """
    The file has no YAML document in it. Delete it, or fill it in from
    `reproaudit new`.""",
)
MULTIPLE_DOCUMENTS = _code(
    "multiple_documents",
    "error",
    """
    The file holds more than one YAML document (a second `---`). Each data file
    is exactly one mapping; split it into separate files.""",
)
NOT_A_MAPPING = _code(
    "not_a_mapping",
    "error",
    """
    The top level of the file must be a mapping (`key: value` lines), not a
    list or a bare value.""",
)
FILE_TOO_LARGE = _code(
    "file_too_large",
    "error",
    """
    The file is larger than the limit for its kind. Data files are small by
    design: large outputs belong in the re-run outputs or in a linked dataset,
    not in the repository.""",
)
DUPLICATE_KEY = _code(
    "duplicate_key",
    "error",
    """
    The same key appears twice in one mapping. YAML loaders disagree about
    which value wins, so the file is ambiguous; keep one.""",
)
ALIAS_NOT_ALLOWED = _code(
    "alias_not_allowed",
    "error",
    """
    YAML anchors (`&name`) and aliases (`*name`) are refused: they make a file
    say something different from what it shows, and nested aliases can expand
    exponentially (an "alias bomb"). Write the values out.""",
)
TAG_NOT_ALLOWED = _code(
    "tag_not_allowed",
    "error",
    """
    Custom or language-specific YAML tags (`!!python/object`, `!foo`) are
    refused: data files hold plain strings, numbers, booleans, nulls, lists and
    mappings only.""",
)
NOT_UTF8 = _code(
    "not_utf8",
    "error",
    """
    The file is not valid UTF-8 text. Save it as UTF-8.""",
)

# --- schema ---------------------------------------------------------------
UNKNOWN_FIELD = _code(
    "unknown_field",
    "error",
    """
    A field that the schema does not define. Unknown fields are errors rather
    than silently ignored, so a typo such as `self_asessment` cannot hide a
    value from the judge. The hint suggests the closest known name.""",
)
MISSING_FIELD = _code(
    "missing_field",
    "error",
    """
    A required field is absent. `reproaudit new` scaffolds files with every
    required field.""",
)
INVALID_VALUE = _code(
    "invalid_value",
    "error",
    """
    A field has a value of the wrong type or outside its allowed set: a string
    where a number belongs, an unknown enum value, a short commit SHA, an
    unknown hardware name, a unit pint cannot parse. The message says what is
    expected.""",
)
PLACEHOLDER = _code(
    "placeholder",
    "error",
    """
    A paper file still holds the text `reproaudit new paper` writes for you to
    replace ("First Author", the example claim's statement). Published as it is,
    the site would show a made-up author and claim. Put the paper's real authors
    and claims there, or delete the example entries.""",
)
NUMBER_OUT_OF_RANGE = _code(
    "number_out_of_range",
    "error",
    """
    A number is not finite (`.inf`, `.nan`) or its magnitude is over 1e15.
    Such a value is never a measurement: an infinite value would pass any
    `at_least` target and hide growth, and huge ones overflow the judge's
    arithmetic. Write the number you measured, in a unit that keeps it under
    1e15 (GB rather than bytes); re-run outputs are held to the same range.""",
)
HARDWARE_UNSTATED = _code(
    "hardware_unstated",
    "warning",
    """
    An efficiency claim's statement names an accelerator ("52 ms on one A100")
    but its target has no `hardware`. The judge caps a claim at toy when the
    re-run ran on other hardware than `target.hardware` (`hardware_mismatch`);
    without it a CPU timing would be compared with an A100 figure as if they
    were the same. Add the hardware, named as in `reproduce.hardware`.""",
)
SCALE_UNSTATED = _code(
    "scale_unstated",
    "warning",
    """
    A claim's statement names the size of its evaluation ("on 20,000 test
    images", "after 100k training steps") but its target has no `scale`. The
    judge caps a claim at toy when the re-run measured on less than
    `target.scale` (`scale_short`); without it a run on 100 test points would
    count as one on 20,000. Add the size, e.g. `scale: {n_test: 20000}`.""",
)
RESERVED_ID = _code(
    "reserved_id",
    "error",
    """
    The id would name a path the site or the repository's layout writes beside
    it: a logbook `feed.xml` is the paper's Atom feed on the site
    (`papers/<paper>/feed.xml`), `reviews` the paper's reviews file
    (`verdicts/<paper>/reviews.yaml`), a paper `index.html` the papers list page.
    Such an id would overwrite that file or stop the site's build. The reserved
    ids come from the one list of what the site writes (`layout.py`); the
    message names the path. Pick another id and rename the file to match.""",
)

# --- the repository -------------------------------------------------------
MISPLACED_FILE = _code(
    "misplaced_file",
    "error",
    """
    A data file is somewhere the layout does not allow, e.g. a logbook directly
    under `logbooks/` instead of `logbooks/<paper>/`. Move it.""",
)
WRONG_EXTENSION = _code(
    "wrong_extension",
    "warning",
    """
    A `.yml` file among the data files. Only `.yaml` files are read; rename it
    or it will be ignored.""",
)
ID_PATH_MISMATCH = _code(
    "id_path_mismatch",
    "error",
    """
    A file's id does not match its path: `claims/<venue>/<paper>.yaml` must
    hold `paper.id: <paper>`, `logbooks/<paper>/<logbook>.yaml` must hold
    `logbook.id: <logbook>` and `logbook.paper: <paper>`. Paths are how
    everything else finds the file.""",
)
DUPLICATE_ID = _code(
    "duplicate_id",
    "error",
    """
    Two objects share an id that must be unique: two papers with one id (in
    different venue folders), two claims with one id in a paper, or two
    results for the same claim in one logbook.""",
)
UNKNOWN_PAPER = _code(
    "unknown_paper",
    "error",
    """
    A logbook or verdict refers to a paper that has no file under `claims/`.
    Check the id, or ask a maintainer to add the paper first.""",
)
UNKNOWN_CLAIM = _code(
    "unknown_claim",
    "error",
    """
    A result, verdict or review names a claim id that the paper does not have.
    Use one of the paper's ids, or ask for the claim to be added.""",
)
UNKNOWN_LOGBOOK = _code(
    "unknown_logbook",
    "error",
    """
    A verdict or review refers to a logbook that does not exist, or
    `reproaudit check` was given a logbook path with no file there. The hint
    names the paper's logbooks (did you mean one of them?) or the command that
    scaffolds a new one.""",
)
CLAIMS_VERSION_AHEAD = _code(
    "claims_version_ahead",
    "error",
    """
    The logbook says it used a `claims_version` newer than the paper file has.
    That version does not exist; use the paper's current `claims_version`.""",
)
CLAIMS_VERSION_STALE = _code(
    "claims_version_stale",
    "warning",
    """
    The paper's claims changed (its `claims_version` was bumped) after this
    logbook was written. Its results still count, but check that each claim
    still means what the logbook measured, then update `claims_version`.""",
)
PATH_NOT_ALLOWED = _code(
    "path_not_allowed",
    "error",
    """
    `code.path` must stay inside the logbook's own folder,
    `logbooks/<paper>/<logbook>/`: absolute paths, `..` and links that lead
    elsewhere are refused, because re-runs execute what that folder holds.""",
)
NOT_A_LOGBOOK_FILE = _code(
    "not_a_logbook_file",
    "error",
    """
    Under `logbooks/`, a pull request may add or change only
    `<paper>/<logbook>.yaml`, `<paper>/<logbook>.md` and regular files inside
    `<paper>/<logbook>/`. Symbolic links (git mode 120000) point anywhere on the
    machine that checks them out, submodules (160000) fetch other repositories,
    and dot-files such as `.gitattributes` or `.gitignore` are settings that
    git applies to other people's files (a `.gitattributes` re-encodes other
    contributors' logbooks in every checkout). The check reads the pull
    request's git trees, so what it sees is what every later step reads. Remove
    the file, or replace the link with the file itself.""",
)
NOT_A_REGULAR_FILE = _code(
    "not_a_regular_file",
    "error",
    """
    A file of the repository is a symbolic link, a FIFO, a device or a socket,
    or is reached through a folder that is a link. Such a file is refused
    without being opened: a link to `/proc/self/environ` would publish the
    reader's environment, and `/dev/zero` or a FIFO never ends. Every read of
    repository content refuses them. Replace it with the regular file itself.""",
)
MISSING_CODE_PATH = _code(
    "missing_code_path",
    "error",
    """
    `code.path` names a folder that does not exist in the repository. Add the
    code in the pull request, or point `code` at a repository and commit.""",
)
WRITEUP_TOO_LARGE = _code(
    "writeup_too_large",
    "error",
    """
    A write-up (`<logbook>.md`) or a file of a logbook's code folder is larger
    than the limit. Link large material (traces, figures, checkpoints) instead
    of committing it.""",
)
CHANGE_TOO_LARGE = _code(
    "change_too_large",
    "error",
    """
    The files changed by this pull request add up to more than the size limit.
    Split the submission or link large material instead of committing it.""",
)
NOT_OWNER = _code(
    "not_owner",
    "error",
    """
    The pull request changes a logbook that belongs to someone else (its
    `contributor.github` names another GitHub account), or changes a logbook's
    contributor. A logbook is its contributor's record: anyone else's change
    would put words in their name. Add your own logbook, or ask its owner or a
    maintainer (someone with write access) to make the change.""",
)
FILES_NOT_LISTED = _code(
    "files_not_listed",
    "error",
    """
    The pull request changes more files than GitHub's pull-request files API
    lists (3,000), so the report cannot see all of them and cannot tell that
    only `logbooks/` changed. Split the pull request.""",
)


UNIT_CARRIES_PER = _code(
    "unit_carries_per",
    "warning",
    """
    A unit carries what the number is per (`unit: ms / trajectory`). A rate or
    time says what it is per in `per` (`unit: ms, per: trajectory`), so that the
    judge compares it with the claim's `per` (time per trajectory is not time
    per batch of 50) instead of failing to convert units.""",
)

PATH_COLLISION = _code(
    "path_collision",
    "error",
    """
    Two things the site builds would be written at one path: a file over another,
    or a file where the other's folder is (a page `papers/<paper>/<id>/` and a
    file `papers/<paper>/<id>`). One would be lost, or the build could not finish.
    The message names both; the file and field named are the input to change
    (usually an id: rename it), or a file of the repository's own `site/` folder
    that takes a path the site generates (move or rename it).""",
)

# --- re-running a logbook (reproaudit reproduce) ------------------------------
POINTER_NOT_FOUND = _code(
    "pointer_not_found",
    "error",
    """
    `reproaudit check` re-ran the logbook, and a measurement's or sweep's
    `source: "outputs:<JSON pointer>"` resolves to nothing in the outputs the
    command wrote. The judge would ignore the typed value and call the claim
    `inconclusive` (`missing_outputs`). The hint names the closest key the
    re-run did write; fix the pointer or the script.""",
)
OUTPUTS_NOT_WRITTEN = _code(
    "outputs_not_written",
    "error",
    """
    `reproaudit check` re-ran the logbook, the command exited 0, and the file
    named in `reproduce.outputs` was not there afterwards. Every `outputs:`
    pointer then resolves to nothing and each claim is `inconclusive`
    (`missing_outputs`). Make the command write that file (the path is relative
    to the code folder, where the command runs), or fix `reproduce.outputs`.""",
)
MISSING_MODULE = _code(
    "missing_module",
    "error",
    """
    The re-run stopped on `ModuleNotFoundError`: the command imports a package
    the image does not have. Re-runs have no network while the command runs;
    list the package, pinned (`numpy==2.1.3`), in a requirements file inside the
    logbook's folder and name that file in `reproduce.requirements`: it is
    installed in its own phase before the run.""",
)
PER_MISSING = _code(
    "per_missing",
    "warning",
    """
    The claim's target says what its number is per (`per: trajectory`) and this
    measurement gives no `per`. A time per batch of 50 is not a time per
    trajectory: without `per` the judge cannot tell, and a different `per` is
    `inconclusive` (`unit_mismatch`). Add the `per` the number was measured for.""",
)
SWEEP_PARAMETER_DIFFERS = _code(
    "sweep_parameter_differs",
    "warning",
    """
    A sweep varies a parameter other than the one the claim's `regime` names
    (`sweep.parameter: K` against `regime.parameter: k`). The judge checks the
    range covered against the regime's parameter, so the sweep counts for
    nothing there. Name the regime's parameter, if that is what was varied.""",
)
SWEEP_SHORT = _code(
    "sweep_short",
    "warning",
    """
    A sweep does not cover the claim's regime: it stops short of `regime.to`,
    starts more than a decade above `regime.from`, or (for a claim made for
    every value, `to: null`) spans less than two orders of magnitude. The judge then gives `toy`
    at best (`short_horizon`). The message gives the sweep's number of points
    and range beside the regime; extend the sweep if you can.""",
)
UNIT_NOT_IN_OUTPUTS = _code(
    "unit_not_in_outputs",
    "warning",
    """
    `reproaudit check` re-ran the logbook, and a measurement's `source` points
    at a bare number while its claim is in a unit (or per something): the judge
    can only read it in the logbook's typed `unit` and `per`, on trust. Write the
    number with its own unit and per where the code knows them, `{"value": 140,
    "unit": "ms", "per": "batch of 50"}` (the starter reproduce.py's
    `measured(...)` does): a label that contradicts them is then caught
    (`unit_mismatch`) instead of trusted.""",
)
NOTHING_TO_RUN = _code(
    "nothing_to_run",
    "error",
    """
    `reproaudit reproduce` was asked to re-run a logbook that has no `code` or
    no `reproduce` section, so there is no command to run. Such a logbook is
    judged on its self-reported numbers only (flag `not_rerun`). Add `code`
    and `reproduce` to make it re-runnable.""",
)
BAD_COMMAND = _code(
    "bad_command",
    "error",
    """
    `reproduce.command` cannot be split into an argument list (an unclosed
    quote) or is empty. The command runs without a shell: write a program and
    its arguments, e.g. `python sweep.py --out results/metrics.json`; put
    pipes, `&&` or redirections in a script and run that script.""",
)
HARDWARE_NOT_ALLOWED = _code(
    "hardware_not_allowed",
    "error",
    """
    The logbook's `reproduce.hardware` is not on the allow-list of Hugging Face
    Jobs flavors that `reproaudit reproduce --backend hf-jobs` may launch.
    Pick a listed flavor, or re-run with the local backend on a machine that
    has the hardware.""",
)
SOURCE_NOT_PINNED = _code(
    "source_not_pinned",
    "error",
    """
    An `hf-jobs` re-run of a logbook whose code lives in the audit repository
    (`code.path`) needs that repository's URL and the exact commit to fetch
    (the pull request's approved head SHA): the job clones the code itself and
    is never handed local files. Pass both, as a 40-hex SHA.""",
)
IMAGE_NOT_PINNED = _code(
    "image_not_pinned",
    "warning",
    """
    `reproduce.image` is a tag (`python:3.12-slim`), which can point at
    different bytes next month. Pin it by digest (`python:3.12-slim@sha256:...`,
    printed by `docker buildx imagetools inspect IMAGE`) so a re-run uses the
    exact environment you used. The docker and hf-jobs re-runs use the image;
    bwrap runs the host's Python and records that it did.""",
)
REQUIREMENTS_NOT_ALLOWED = _code(
    "requirements_not_allowed",
    "error",
    """
    `reproduce.requirements` must name a pip requirements file inside the
    logbook's own folder (`<logbook>/requirements.txt`, relative to
    `logbooks/<paper>/`): the install phase reads it, and it is reviewed with
    the pull request like the code.""",
)
# --- verdicts against their inputs (`validate`, and `--strict` of stats, build, export) --
VERDICT_INCOMPLETE = _code(
    "verdict_incomplete",
    "error",
    """
    A verdict file does not judge every claim of its paper, though its inputs
    did not change since it was written: the file was cut short or edited, and
    the logbook would silently drop out of the numbers for the claims it lacks.
    Verdict files are written whole by `reproaudit judge`; restore the file
    from git history, or delete it and run the judge again.""",
)
VERDICT_STALE = _code(
    "verdict_stale",
    "error",
    """
    The verdict's `input_sha256` is not the hash of its inputs as they are now:
    the paper, the logbook, its write-up or its re-run record changed since it
    was judged (or the rules did). It is still counted and shown, marked stale,
    until `reproaudit judge` runs again; `--strict` refuses to publish it. Run
    `reproaudit judge`.""",
)
VERDICT_DIFFERS = _code(
    "verdict_differs",
    "error",
    """
    The verdict is not what the judge writes for the inputs it records. A rules
    verdict is deterministic, so judging its inputs again must give it back
    claim for claim; an LLM verdict must keep what the rules fix (a claim with a
    numeric target takes the rules' verdict, the LLM's disagreement beside it as
    `llm_disagrees`; before prompt version 4 it could also be `inconclusive` with
    `judge_conflict`; `verified` or `falsified` for a claim without a target
    needs a passed re-run of the current logbook). A difference means the file
    was edited by hand. Restore it from git history, or delete it and run
    `reproaudit judge`.""",
)
RERUN_MISSING = _code(
    "rerun_missing",
    "error",
    """
    The verdict rests on a re-run record (its `rerun:` block) that is no longer
    under `reruns/<paper>/<logbook>/`: the numbers it published can no longer be
    checked. Restore the record from git history, or re-run the logbook and
    judge it again.""",
)
RUN_RECORD_INVALID = _code(
    "run_record_invalid",
    "error",
    """
    A stored `run.json` does not validate as a re-run record (a field missing,
    of the wrong type, or unknown): the judge treats it as a failed re-run that
    verifies nothing. Records are written by `reproaudit reproduce` and stored
    by `reproaudit ci store-reruns`; restore the file from git history or re-run
    the logbook.""",
)

# --- importers (`reproaudit import`) ----------------------------------------
IMPORT_SOURCE_INVALID = _code(
    "import_source_invalid",
    "error",
    """
    The file or folder given to `reproaudit import` is not what that importer
    reads: a folder without a `.trackio/` workspace, a file that is not valid
    JSON, a PaperBench rubric that is not a tree of nodes with `requirements`
    and `sub_tasks`, a trackio cell whose header is not JSON. The message names
    the file and the place in it (line or JSON path); nothing is written. Point
    the command at the right folder or file, or repair the one named.""",
)
IMPORT_NOTHING_FOUND = _code(
    "import_nothing_found",
    "error",
    """
    The source is well formed but holds nothing to import: a trackio logbook
    with no page titled "Claim <k>: ...", or a rubric with no "Result Analysis"
    leaf. An empty logbook or paper file would hide the mistake, so nothing is
    written. Title each claim's page "Claim 1: ...", "Claim 2: ...", or write
    the paper file by hand with `reproaudit new paper`.""",
)
IMPORT_NEEDS_INPUT = _code(
    "import_needs_input",
    "error",
    """
    The source does not say something the data file must record: who wrote the
    logbook (an unpublished trackio logbook names no author: pass
    `--contributor <GitHub handle>`), which paper it reproduces (pass
    `--paper <id>` when the logbook names no paper, or names an arXiv id that
    several paper files share), or the paper's title (pass `--title`).""",
)

IMPORT_FILE_REFUSED = _code(
    "import_file_refused",
    "error",
    """
    The folder given to `reproaudit import` holds a symlink, a FIFO, a device
    or a socket where a file or folder is read. A symlink can point anywhere
    on the machine and a FIFO or `/dev/zero` never ends, so importers read
    only regular files inside the folder, and refuse the rest without opening
    them. Replace the link or special file with a copy of the file itself.""",
)
IMPORT_NOT_YOURS = _code(
    "import_not_yours",
    "error",
    """
    The logbook file an import would write already exists and belongs to
    another contributor (its `logbook.contributor.github` differs from
    `--contributor`). A logbook belongs to its contributor, so the import
    refuses to overwrite it. Check `--contributor`; re-importing your own
    logbook updates it.""",
)


@dataclass(frozen=True)
class Problem:
    """One finding about an input file, with enough context to fix it."""

    code: str
    path: str
    line: int | None
    field: str | None
    message: str
    hint: str | None = None
    severity: Severity | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unregistered problem code {self.code!r}")
        if self.severity is None:
            object.__setattr__(self, "severity", CODES[self.code].severity)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def format_text(self) -> str:
        head = f"{self.where}: "
        if self.severity == "warning":
            head += "warning: "
        if self.field:
            head += f"{self.field}: "
        text = f"{head}{self.message} [{self.code}]"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def format_github(self) -> str:
        kind = "error" if self.is_error else "warning"
        props = [f"file={_escape_property(self.path)}"]
        if self.line:
            props.append(f"line={self.line}")
        props.append(f"title={_escape_property(self.code)}")
        body = f"{self.field}: {self.message}" if self.field else self.message
        if self.hint:
            body += f"\nhint: {self.hint}"
        return f"::{kind} {','.join(props)}::{_escape_data(body)}"


# where people find every field (the page is generated by reproaudit.datafiles)
REFERENCE_PAGE = "scripts/reproaudit/site/docs/reference/data-files.md"
FIELD_REFERENCE = (
    "every field is described in the data-file reference: the site's Reference > Data files, "
    f"or {REFERENCE_PAGE}"
)


def did_you_mean(word: object, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The choice closest to ``word`` (case-insensitive), or None when none is close."""
    options = {str(c).lower(): str(c) for c in choices}
    close = difflib.get_close_matches(str(word).lower(), list(options), n=1, cutoff=cutoff)
    return options[close[0]] if close else None


def per_hint(unit: str) -> str | None:
    """A hint when a unit carries what it is per (``ms / trajectory``), else None.

    A denominator that is a counting noun (trajectory, token, image...) or no unit
    at all (``batch of 50``) belongs in ``per``; ``image / s`` is a rate and stays.
    """
    from .units import COUNT_UNITS, UnitError, parse_unit

    head, slash, tail = unit.rpartition("/")
    head, tail = head.strip(), " ".join(tail.split())
    if not slash or not head or not tail:
        return None
    if tail.lower().removesuffix("s") not in COUNT_UNITS and tail.lower() not in COUNT_UNITS:
        try:
            parse_unit(tail)
            return None
        except UnitError:
            pass
    return f"say what it is per in `per`, not in the unit: unit: {head}, per: {tail}"


def human_size(n: float) -> str:
    """'6.5 MB' for file sizes, '1 MiB' / '256 KiB' for limits (powers of two)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size:.0f} {unit}"
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def _escape_data(text: str) -> str:
    # GitHub workflow-command escaping: '%', CR and LF in the message.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.path, p.line or 0, p.field or "", p.code))


def format_problems(problems: Iterable[Problem], fmt: str) -> str:
    """Render problems as ``text``, ``json`` or ``github`` workflow annotations."""
    items = sort_problems(problems)
    if fmt == "json":
        errors = sum(p.is_error for p in items)
        return json.dumps(
            {
                "ok": errors == 0,
                "errors": errors,
                "warnings": len(items) - errors,
                "problems": [asdict(p) for p in items],
            },
            indent=2,
        )
    if fmt == "github":
        return "\n".join(p.format_github() for p in items)
    return "\n".join(p.format_text() for p in items)


def summary_line(problems: Iterable[Problem], checked: int) -> str:
    items = list(problems)
    errors = sum(p.is_error for p in items)
    warnings = len(items) - errors
    files = "file" if checked == 1 else "files"
    if not items:
        return f"{checked} {files} checked: all valid"
    return f"{checked} {files} checked: {errors} error(s), {warnings} warning(s)"
