"""Plain words for readers: what each outcome, verdict, flag and marker means.

The site shows these labels instead of code names (the code name stays on hover
and for screen readers), and the "What the verdicts mean" page is generated from
the explanations here, so a new flag cannot appear on the site unexplained
(``tests/site/test_build.py`` checks that every flag of the data model is here).
"""

from __future__ import annotations

MEANING_URL = "meaning/"
# an inconclusive verdict flagged not_rerun, as chips and paper lines show it
AWAITING = "awaiting re-run"

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
        "The numbers reproduce the claim within its tolerance, over the range it covers.",
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
        "judges disagree",
        "The rules and the language model reached different verdicts; a human should look.",
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
        "The language-model judge did not answer; the rules verdict stands and it will be "
        "asked again.",
    ),
    "suspected_injection": (
        "suspicious text",
        "The logbook's text seems to address the judge; the language model was ignored for it.",
    ),
    "stale_rerun": (
        "re-run record ignored",
        "The stored re-run ran other bytes of the logbook, its write-up, code or requirements "
        "(or its outputs were changed), so its numbers were not used: the claim awaits a "
        "re-run of the current bytes, and the evidence says when the old record's outputs "
        "contradict the typed numbers.",
    ),
    "scale_suspect": (
        "scale suspect",
        "The number is 30 times or more away from the claim's value: more likely a slip of "
        "unit or scale (a percentage typed as a fraction, milliseconds labelled as "
        "microseconds) than a result, so it is not used.",
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
# "falsified, disputed by the authors" (issue 19). Shown, never counted.
AUTHOR_ANSWERS = {
    "agree": "accepted by the authors",
    "disagree": "disputed by the authors",
    "fixed": "fixed by the authors",
}


def with_answer(text: str, stance: str | None) -> str:
    """``text`` (a verdict or outcome) followed by the authors' answer, when there is one."""
    return f"{text}, {AUTHOR_ANSWERS[stance]}" if stance in AUTHOR_ANSWERS else text
