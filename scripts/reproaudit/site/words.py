"""Plain words for readers: what each outcome, verdict, flag and marker means.

The site shows these labels instead of code names (the code name stays on hover
and for screen readers), and the "What the verdicts mean" page is generated from
the explanations here, so a new flag cannot appear on the site unexplained
(``tests/site/test_build.py`` checks that every flag of the data model is here).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MEANING_URL = "meaning/"
# what a logbook's page says beside a verdict (issue 28)
LOG_FAILURES = "The re-run's own log reports a failure:"
MODEL_DECIDED = (
    "Only a language model judged this claim (it has no numeric target): model-judged, not "
    "counted as verified or falsified until a second model agrees or a maintainer confirms."
)
SECOND_SAID = "The second model,"
NO_VERDICT = "no verdict"
MODEL_DISAGREES = (
    "The language model disagrees with the rules (their verdict stands, decided on the "
    "re-run's numbers); it says"
)
# an inconclusive verdict flagged not_rerun, as chips and paper lines show it
AWAITING = "awaiting re-run"
# a verified that holds only within the range tested (rules version 4), wherever it is shown
WITHIN = "within the tested range"

# outcome of a paper (the fold's buckets), in the order the home page shows them
OUTCOMES: dict[str, tuple[str, str]] = {
    "contested": (
        "Contested",
        "At least one claim was verified by one contributor and falsified by another. "
        "Both sides are shown side by side on the paper's page.",
    ),
    "fully_reproduced": ("Fully reproduced", "Every judged claim of the paper was verified."),
    "mixed": ("Mixed", "Some claims were verified and others falsified."),
    "partial": (
        "Partially reproduced",
        "Some claims were verified and none falsified; the others are toy-only or inconclusive.",
    ),
    "falsified": ("Falsified", "Some claims were falsified and none verified."),
    "toy_only": (
        "Toy only",
        "Only reduced or synthetic setups were run: the numbers point somewhere, but not at "
        "the paper's scale.",
    ),
    "inconclusive": (
        "Inconclusive",
        "Logbooks exist, but none settles a claim either way (no numbers, no re-run, or a "
        "judge could not decide).",
    ),
    "untested": ("Not yet judged", "No reproduction logbook has been judged for this paper."),
}

# verdict of one logbook on one claim, and the fold of a claim over its logbooks
VERDICTS: dict[str, tuple[str, str]] = {
    "verified": (
        "verified",
        "Numbers read from a passed re-run of the logbook as it is now reproduce the claim "
        "within its tolerance, over the range it covers.",
    ),
    "falsified": (
        "falsified",
        "The numbers contradict the claim. A falsification counts in the statistics at once, "
        "and is shown as \u201cfalsified, under review\u201d until a maintainer confirms it.",
    ),
    "toy": (
        "toy",
        "Only a reduced or synthetic setup was run, or the range covered is too short to "
        "settle the claim.",
    ),
    "inconclusive": (
        "inconclusive",
        "The logbook does not settle the claim: no result, no numbers, a failed re-run, or "
        "the judges disagree. Shown as \u201cawaiting re-run\u201d while no passed re-run of "
        "the logbook as it is now exists: until then nothing is verified, falsified or toy.",
    ),
    "contested": (
        "contested",
        "Different contributors reached opposite verdicts (verified and falsified) on the same "
        "claim.",
    ),
    "untested": ("untested", "No logbook addresses this claim yet."),
}

FLAGS: dict[str, tuple[str, str]] = {
    "rerun_mismatch": (
        "re-run differs",
        "The number the logbook typed differs from what the re-run produced; the re-run wins.",
    ),
    "unit_mismatch": (
        "units do not match",
        "The logbook's unit cannot be converted to the claim's unit, so the number was not used.",
    ),
    "short_horizon": (
        "range too short",
        "The measurements do not cover the range the claim is about (too few orders of "
        "magnitude, or a gap of more than a decade).",
    ),
    "growth_detected": (
        "grows with scale",
        "A quantity the paper says stays bounded grows significantly over the sweep.",
    ),
    "bound_exceeded": (
        "above the bound",
        "The sweep stays flat but above the bound the paper states.",
    ),
    "toy_setup": (
        "toy setup",
        "The logbook ran a reduced or synthetic setup, so the verdict is capped at toy.",
    ),
    "self_assessment_disagrees": (
        "contributor disagrees",
        "The contributor's own assessment differs from the judge's verdict.",
    ),
    "judge_conflict": (
        "models disagree",
        "Two independently configured language models reached different verdicts on a claim "
        "that only a model can judge (it has no numeric target), so it is inconclusive until a "
        "person looks. (In verdicts written before judge prompt version 4: the rules and the "
        "model disagreed.) A claim is never published from fewer logbooks than it has: while "
        "one of its logbooks carries this flag, the claim is held inconclusive.",
    ),
    "llm_disagrees": (
        "the model disagrees",
        "The language model read this claim differently from the rules; its answer and "
        "reason are shown beside the verdict. A claim with a numeric target is decided by the "
        "rules on the re-run's numbers alone, so the model's disagreement changes nothing: it "
        "is there for a person to look at.",
    ),
    "not_addressed": ("no result", "The logbook reports no result for this claim."),
    "missing_outputs": (
        "outputs missing",
        "The re-run did not produce the output file or value the logbook points to.",
    ),
    "rerun_failed": (
        "re-run failed",
        "Re-running the logbook's command failed or timed out, so its numbers are unconfirmed.",
    ),
    "not_rerun": (
        "no current re-run",
        "No passed re-run of the logbook as it is now (its YAML, write-up, code and "
        "requirements) has been recorded, or the numbers were typed rather than read from the "
        "re-run's outputs. Until one, no claim is verified, falsified or toy: the verdict is "
        "inconclusive, and its evidence says what the typed numbers or the language model "
        "would give.",
    ),
    "llm_failed": (
        "model unavailable",
        "A language-model judge did not answer (or a second model, asked to confirm a "
        "model-judged verdict, did not); the verdict stands as it was and it will be asked "
        "again.",
    ),
    "suspected_injection": (
        "suspicious text",
        "The logbook's text seems to address the judge; the language model was ignored for it.",
    ),
    "stale_rerun": (
        "re-run record ignored",
        "The stored re-run ran other bytes of the logbook, its write-up, code or requirements "
        "(or its outputs were changed), so its numbers were not used, nor shown as results: "
        "the claim awaits a re-run of the current bytes, and the evidence says when the old "
        "record's outputs contradict the typed numbers.",
    ),
    "scale_suspect": (
        "scale suspect",
        "The number is 30 times or more away from the claim's value: more likely a slip of "
        "unit or scale (a percentage typed as a fraction, milliseconds labelled as "
        "microseconds) than a result, so it is not used.",
    ),
    "scale_short": (
        "evaluation too small",
        "The claim states the size of its evaluation (test points, training steps) and the "
        "re-run measured on less, or its outputs do not say on how much: its numbers count as "
        "toy at best, whatever the logbook says its setup was.",
    ),
    "hardware_mismatch": (
        "other hardware",
        "The claim states the hardware it was measured on, and the re-run ran on other "
        "hardware: its numbers count as toy at best.",
    ),
    "judge_error": (
        "judge failed",
        "The judge failed on this logbook; its claims are inconclusive until the next run "
        "judges it again.",
    ),
}

MARKERS: dict[str, tuple[str, str]] = {
    "stale": (
        "stale",
        "The logbook, the paper's claims or the judge changed since this verdict was written. "
        "It is still shown and counted until the judge runs again.",
    ),
    "superseded": (
        "superseded",
        "The same contributor has a later logbook for this paper; only their latest one counts.",
    ),
    "under_review": (
        "falsified, under review",
        "A falsification that no maintainer has confirmed yet. It counts in the statistics, "
        "but may be rejected.",
    ),
    "typed": (
        "typed",
        "A number the contributor wrote into the logbook. A re-run may confirm it or not.",
    ),
    "rerun": (
        "re-run",
        "A number read from the outputs of a re-run of the logbook's command by the audit's "
        "own machines.",
    ),
}


def flag_label(code: str) -> str:
    return FLAGS.get(code, (code.replace("_", " "), ""))[0]


def outcome_label(code: str | None) -> str:
    return OUTCOMES.get(code or "untested", (str(code), ""))[0]


# An author's latest answer to a falsification, as it follows the verdict everywhere:
# "falsified, under review, disputed by the authors" (issue 19; ``claim_state``). Shown,
# never counted.
AUTHOR_ANSWERS = {
    "agree": "accepted by the authors",
    "disagree": "disputed by the authors",
    "fixed": "fixed by the authors",
}


# --- the one vocabulary of states ---------------------------------------------------------
# A claim's verdict (one logbook's, or the fold over its logbooks) and a paper's outcome are
# shown through ``claim_state`` and ``paper_state`` only: the chip, the paper's header line,
# its badge, both feeds and the meaning page all say the same words (issue 21).

# state key -> (label, explanation); the key is the chip's class and the meaning page's
# anchor (``state-<key>``)
STATES: dict[str, tuple[str, str]] = {
    "verified": (
        "verified",
        "A passed re-run of the logbook as it is now produced numbers that reproduce the "
        "claim within its tolerance, over the range it covers.",
    ),
    "under_review": (
        "falsified, under review",
        "Numbers from a passed re-run contradict the claim, and no maintainer has confirmed "
        "it yet. It counts in the statistics at once, but may still be rejected.",
    ),
    "confirmed": (
        "falsified, confirmed",
        "Numbers from a passed re-run contradict the claim, and a maintainer confirmed the "
        "falsification.",
    ),
    "toy": (
        "toy",
        "Only a reduced or synthetic setup was re-run, on other hardware than the claim's, "
        "or over too short a range: the numbers point somewhere but cannot settle the claim.",
    ),
    "inconclusive": (
        "inconclusive",
        "The logbook does not settle the claim: no result, no comparable numbers, a failed "
        "re-run, or judges who disagree.",
    ),
    "model_judged": (
        "model-judged",
        "Only a language model judged this claim: it has no numeric target for the rules to "
        "check against the re-run's numbers. The model's verdict is shown with these words, "
        "but it does not count as verified or falsified in the paper's outcome until a "
        "second, independently configured model gives the same verdict or a maintainer "
        "confirms it.",
    ),
    "awaiting": (
        "awaiting re-run",
        "No passed re-run of the logbook as it is now (its YAML, write-up, code and "
        "requirements) exists yet, so nothing is verified, falsified or toy: the evidence says "
        "what the numbers the contributor typed would give. It is not a result.",
    ),
    "contested": (
        "contested",
        "Different contributors reached opposite verdicts (verified and falsified) on the "
        "same claim; both sides are shown.",
    ),
    "untested": ("untested", "No logbook addresses this claim yet."),
}

# what may follow a state, in this order: "verified, not re-run", "falsified, under review,
# disputed by the authors"
QUALIFIERS: dict[str, tuple[str, str]] = {
    "second_model": (
        "model-judged, confirmed by a second model",
        "A verdict a language model made on a claim without a numeric target, which a second, "
        "independently configured model confirmed with the same verdict: it counts.",
    ),
    "held": (
        "held: a logbook's judges disagree",
        "One logbook's judges conflict on this claim, or a model-judged verdict of one "
        "logbook contradicts another's: a claim is never published from fewer logbooks than "
        "it has, so it is held inconclusive until a person looks.",
    ),
    "model_claims": (
        "with model-judged claims",
        "Some of the paper's claims were judged by a language model alone; they do not count "
        "in this outcome until confirmed.",
    ),
    "not_rerun": (
        "not re-run",
        "A verdict written by an older judge from numbers nobody re-ran (the contributor "
        "typed them). It is drawn as an outline, never like a re-run verdict, and the next "
        "run of the judge makes it \u201cawaiting re-run\u201d until a re-run passes.",
    ),
    "within_range": (
        WITHIN,
        "A verified claim that reaches past what was tested (most often a claim for every "
        "value of a parameter, with no upper end): the numbers held over the range shown "
        "beside it (\u201cheld for k = 2..512; claimed for all k >= 2\u201d), which says "
        "nothing of the values beyond it. A paper fully reproduced on such a claim says "
        "\u201cwithin the tested range\u201d too.",
    ),
    "agree": (
        AUTHOR_ANSWERS["agree"],
        "The paper's authors answered the falsification (/author agree) and accept it.",
    ),
    "disagree": (
        AUTHOR_ANSWERS["disagree"],
        "The paper's authors answered the falsification (/author disagree) and dispute it. "
        "Their answer is shown with the verdict, dated; it never changes the verdict or the "
        "statistics: maintainers decide with /review confirm or /review reject.",
    ),
    "fixed": (
        AUTHOR_ANSWERS["fixed"],
        "The paper's authors answered that they fixed the paper or code (/author fixed), "
        "with a link to the fix. Shown, not counted: a new logbook can check the fix.",
    ),
}


@dataclass(frozen=True)
class Shown:
    """A state as every surface shows it: the words, the chip's classes, the meaning anchor."""

    key: str  # a key of STATES, or of OUTCOMES for a paper
    label: str  # the whole phrase: "falsified, under review, disputed by the authors"
    css: str  # "ra-chip--under_review ra-chip--not_rerun"
    anchor: str  # "state-under_review", "outcome-mixed"
    qualifiers: tuple[str, ...] = ()

    @property
    def explain(self) -> str:
        table = STATES if self.anchor.startswith("state-") else OUTCOMES
        return table[self.key][1]


def _shown(key: str, label: str, qualifiers: list[str], prefix: str = "state") -> Shown:
    words = [label] + [QUALIFIERS[q][0] for q in qualifiers]
    css = " ".join([f"ra-chip--{key}"] + [f"ra-chip--{q}" for q in qualifiers if q == "not_rerun"])
    return Shown(key, ", ".join(words), css, f"{prefix}-{key}", tuple(qualifiers))


DECIDED = ("verified", "falsified", "toy")


def tested_range(scope: Any) -> str:
    """The range a verified held for, beside what the claim says: "held for k = 2..512;
    claimed for all k >= 2" (a ``Scope``, or its dict as verdict files hold it); "" without
    a regime."""
    from ..judge.coverage import held_text
    from ..models import Scope

    if isinstance(scope, dict):
        scope = Scope.model_validate(scope)
    if not isinstance(scope, Scope) or scope.regime is None:
        return ""
    return held_text(scope.regime)


def claim_state(
    verdict: str | None,
    flags: Iterable[str] = (),
    review: str | None = None,
    answer: str | None = None,
    within: bool = False,
    decided_by: str | None = None,
    second: str | None = None,
    reviewed: bool = False,
) -> Shown:
    """How one logbook's verdict on a claim is shown.

    ``review`` is the falsification's review state (``under_review`` or ``confirmed``),
    ``answer`` the authors' latest stance on it. An inconclusive verdict flagged
    ``not_rerun`` is "awaiting re-run"; a decided verdict flagged ``not_rerun`` (an older
    judge's) is qualified "not re-run" and drawn differently. ``within``: the verdict's
    ``within_tested_range``; a verified is then "verified, within the tested range". A
    verified, falsified or toy that a model alone decided (``decided_by`` model) is
    "model-judged, verified" until the second model gave the same verdict (``second``:
    "verified, model-judged, confirmed by a second model") or a maintainer ``reviewed`` it.
    """
    flags = set(flags)
    quals = []
    if verdict is None:
        return _shown("untested", "no verdict", [])
    if decided_by == "model" and verdict in DECIDED and not reviewed:
        if second != verdict:
            return _shown("model_judged", f"{STATES['model_judged'][0]}, {verdict}", [])
        quals.append("second_model")
    if verdict == "falsified":
        key = "confirmed" if review == "confirmed" else "under_review"
    elif verdict == "inconclusive" and "not_rerun" in flags:
        key = "awaiting"
    else:
        key = verdict if verdict in STATES else "inconclusive"
    if verdict in DECIDED and "not_rerun" in flags:
        quals.append("not_rerun")
    if verdict == "verified" and within:
        quals.append("within_range")
    if verdict == "falsified" and answer in AUTHOR_ANSWERS:
        quals.append(answer)
    return _shown(key, STATES[key][0], quals)


def fold_state(
    fold: str, shown: Iterable[Shown], answer: str | None = None, held: bool = False
) -> Shown:
    """A claim's fold over its counted verdicts (each as ``claim_state`` shows it) and the
    authors' latest answer on its falsifications; ``held``: inconclusive because one
    logbook's judges disagree (``fold.fold_claims``)."""
    shown = list(shown)
    keys = {s.key for s in shown}
    quals: list[str] = []
    if held:
        return _shown("inconclusive", STATES["inconclusive"][0], ["held"])
    if fold == "model_judged":
        said = {s.label for s in shown if s.key == "model_judged"}
        label = said.pop() if len(said) == 1 else STATES["model_judged"][0]
        return _shown("model_judged", label, [])
    key = fold if fold in STATES else "inconclusive"
    if fold == "falsified":
        key = "under_review" if "under_review" in keys or not keys else "confirmed"
    elif fold == "inconclusive" and "awaiting" in keys:
        key = "awaiting"
    if fold in ("verified", "falsified", "toy"):
        same = [s for s in shown if s.key == key]
        if same and all("second_model" in s.qualifiers for s in same):
            quals.append("second_model")
        if same and all("not_rerun" in s.qualifiers for s in same):
            quals.append("not_rerun")
        if fold == "verified" and same and all("within_range" in s.qualifiers for s in same):
            quals.append("within_range")  # the fold's rule 6: every counted verified is
    if key in ("under_review", "confirmed") and answer in AUTHOR_ANSWERS:
        quals.append(answer)
    return _shown(key, STATES[key][0], quals)


def paper_state(
    bucket: str | None, shown: Iterable[Shown], answer: str | None = None, within: bool = False
) -> Shown:
    """A paper's outcome (the fold's bucket) as its header, badge and feeds show it, from its
    counted claim verdicts and the authors' latest answer on a falsification that counts:
    "Falsified, under review", "Awaiting re-run", "Mixed, under review, disputed by the
    authors". ``within``: a claim it counts verified holds only within the tested range, and a
    fully reproduced paper says so: "Fully reproduced, within the tested range"."""
    shown = list(shown)
    keys = {s.key for s in shown}
    bucket = bucket or "untested"
    label = outcome_label(bucket)
    quals: list[str] = []
    if bucket == "inconclusive" and "awaiting" in keys:
        return Shown("awaiting", "Awaiting re-run", "ra-bucket--awaiting", "state-awaiting")
    prefix = "outcome"
    if bucket in ("falsified", "mixed", "contested"):
        if "under_review" in keys:
            label += ", " + STATES["under_review"][0].split(", ")[1]
        elif bucket == "falsified" and "confirmed" in keys:
            label += ", " + STATES["confirmed"][0].split(", ")[1]
        if answer in AUTHOR_ANSWERS:
            quals.append(answer)
    decided = [s for s in shown if s.key in ("verified", "under_review", "confirmed", "toy")]
    if decided and all("not_rerun" in s.qualifiers for s in decided):
        quals.insert(0, "not_rerun")
    if bucket == "fully_reproduced" and within:
        quals.append("within_range")
    if "model_judged" in keys:
        quals.append("model_claims")
    words = [label] + [QUALIFIERS[q][0] for q in quals]
    css = f"ra-bucket--{bucket}" + (" ra-bucket--not_rerun" if "not_rerun" in quals else "")
    return Shown(bucket, ", ".join(words), css, f"{prefix}-{bucket}", tuple(quals))


def qualifier_example(key: str) -> Shown:
    """A state carrying the qualifier ``key``, as the meaning page shows it."""
    if key == "not_rerun":
        return claim_state("verified", ["not_rerun"])
    if key == "second_model":
        return claim_state("verified", [], decided_by="model", second="verified")
    if key == "held":
        return fold_state("inconclusive", [], held=True)
    if key == "within_range":
        return claim_state("verified", [], within=True)
    if key == "model_claims":
        model = claim_state("verified", [], decided_by="model")
        return paper_state("partial", [claim_state("verified"), model])
    return claim_state("falsified", [], "under_review", key)
