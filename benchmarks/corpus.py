"""Generate a synthetic, conference-scale reproaudit repository.

The corpus has the shape of a real audit of one conference: paper files under
``claims/icml2026/``, contributors' logbooks under ``logbooks/<paper>/`` and, on request,
rules-mode verdicts under ``verdicts/<paper>/``. Every file is meant to be valid under the
data model of DESIGN.md (field names, enums, references between files), so that
``reproaudit validate`` on it must report no problem, and its size is realistic (a paper file
of 1-3 KB, a logbook of 1-2 KB), so that timings taken on it mean something.

The YAML is written as text, a file at a time, with a few string helpers rather than
``yaml.dump``: the default corpus (6,352 papers, ~36,000 claims, 6,816 logbooks) is written in
a few seconds. Output is a pure function of the arguments: the same seed gives the same bytes.

    python benchmarks/corpus.py OUTDIR [--papers N] [--logbooks N] [--claims N]
                                       [--verdicts] [--seed S]

or, from Python::

    from benchmarks.corpus import generate_corpus
    counts = generate_corpus(Path("/tmp/corpus"), verdicts=True)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
import time
from functools import cache
from pathlib import Path

import yaml

VENUE = "ICML 2026"
VENUE_DIR = "icml2026"

# Share of papers that get at least one logbook. 2,176 of 6,352 papers were judged in the
# public 2026 challenge; the remaining logbooks pile onto those papers, so most judged
# papers have several logbooks from distinct contributors (and can disagree).
COVERAGE = 2176 / 6352

# fmt: off
AREAS = ["theory", "optimization", "deep-learning", "rl", "nlp", "vision", "probabilistic",
         "applications"]
AREA_WEIGHTS = [10, 12, 24, 12, 14, 14, 8, 6]
AGENTS = ["claude-code", "codex", "gemini-cli", "none"]
AGENT_WEIGHTS = [40, 25, 15, 20]
HARDWARE_GPU = ["t4-small", "a10g-small", "a100-large", "h100"]
TIMEOUTS = ["30m", "1h", "2h", "4h", "6h"]
FLAGS = [
    "rerun_mismatch", "unit_mismatch", "short_horizon", "growth_detected", "toy_setup",
    "self_assessment_disagrees", "not_addressed", "missing_outputs", "rerun_failed", "not_rerun",
]
ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
ID_CHARS_ANY = ID_CHARS + "_-"

# ---------------------------------------------------------------------------------------
# Vocabulary for plausible-looking text
# ---------------------------------------------------------------------------------------

FIRST_NAMES = [
    "Alice", "Bruno", "Chen", "Daria", "Emeka", "Fatima", "Gabriel", "Hana", "Ivan", "Jia",
    "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tomoko",
    "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Arjun", "Beatriz", "Cyril", "Dmitri",
    "Elif", "Farah", "Guo", "Hugo", "Ines", "Jonas", "Kai", "Lucia", "Mina", "Nils",
    "Olga", "Pablo", "Ravi", "Sara", "Theo", "Ulla", "Viktor", "Yara", "Zhang", "Amir",
]
LAST_NAMES = [
    "Abebe", "Becker", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Hoffmann", "Ito",
    "Jensen", "Kim", "Li", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Singh",
    "Tanaka", "Ueda", "Varga", "Wang", "Xu", "Yilmaz", "Zhou", "Andersson", "Bianchi",
    "Chowdhury", "Dimitrov", "Esposito", "Fernandes", "Gupta", "Horvat", "Iyer", "Kowalski",
    "Lindqvist", "Mehta", "Novak", "Oliveira", "Park", "Reyes", "Schmidt", "Torres", "Vogel",
    "Wu", "Zhao",
]
TITLE_HEADS = [
    "Towards", "Rethinking", "On the Limits of", "Scaling", "Provable", "Efficient", "Robust",
    "A Theory of", "Understanding", "Learning", "Revisiting", "Beyond", "Fast", "Adaptive",
    "Sharp Bounds for", "Calibrated", "Sparse", "Stable", "Differentiable", "Implicit",
]
TITLE_TOPICS = [
    "Learning-Augmented Paging", "Diffusion Sampling", "Policy Optimization",
    "In-Context Learning", "Mixture-of-Experts Routing", "Contrastive Pretraining",
    "Online Convex Optimization", "Graph Neural Networks", "Low-Rank Adaptation",
    "Bayesian Optimization", "Test-Time Adaptation", "Offline Reinforcement Learning",
    "Neural Operators", "Federated Averaging", "Score Matching", "Vision Transformers",
    "Speculative Decoding", "Conformal Prediction", "Causal Discovery", "Kernel Regression",
    "Model Merging", "Data Pruning", "Preference Optimization", "Stochastic Interpolants",
    "Sequence Models", "Normalizing Flows", "Bandit Algorithms",
]
TITLE_TAILS = [
    "", "", "", " with Noisy Labels", " under Distribution Shift", " at Scale",
    " in High Dimensions", " without Replay", " via Random Features", " for Long Contexts",
    " with Guarantees", " on a Budget", " beyond the Lazy Regime", " in Continuous Time",
]
DATASETS = [
    "ImageNet-1k", "CIFAR-10", "CIFAR-100", "MNIST", "WMT14 En-De", "GLUE",
    "MuJoCo HalfCheetah", "Atari-57", "OGB-arxiv", "COCO", "LibriSpeech", "D4RL hopper-medium",
    "WikiText-103", "ImageNet-64", "CelebA-HQ", "Procgen", "MMLU", "GSM8K", "TinyStories",
    "ETTh1",
]
BASELINES = [
    "the standard baseline", "Adam", "full fine-tuning", "PPO", "DDPM", "LoRA",
    "the best prior method", "vanilla attention", "exact inference", "SGD with momentum",
]
SYLLABLES = ["ra", "ko", "mi", "lu", "ze", "ta", "vo", "ni", "sa", "pe", "dri", "fla", "gro",
             "qua", "sto", "bre", "cli", "mon", "tur", "vex"]
PARAMS = ["k", "n", "T", "d"]

# Target templates per kind: metric, unit, per options, form, value range, tolerance,
# decimals, statement (placeholders: method, dataset, v, per, baseline, param).
EMPIRICAL = [
    ("top1_accuracy", "percent", [None], "at_least", (60, 92), ("abs", 0.5), 1,
     "{method} reaches at least {v}% top-1 accuracy on {dataset}."),
    ("test_error", "percent", [None], "at_most", (2, 30), ("abs", 0.3), 2,
     "{method} reduces the test error on {dataset} to at most {v}%."),
    ("bleu", "dimensionless", [None], "at_least", (20, 45), ("abs", 0.5), 1,
     "On {dataset}, {method} obtains a BLEU score of {v} or more."),
    ("fid", "dimensionless", [None], "at_most", (2, 25), ("rel", 0.05), 2,
     "{method} achieves an FID of {v} on {dataset}, lower than {baseline}."),
    ("mean_return", "dimensionless", [None], "at_least", (100, 9000), ("rel", 0.1), 0,
     "{method} attains an average return above {v} on {dataset}."),
    ("perplexity", "dimensionless", [None], "at_most", (8, 40), ("rel", 0.03), 2,
     "With the same parameter count, {method} reaches a perplexity of {v} on {dataset}."),
    ("auroc", "dimensionless", [None], "at_least", (0.7, 0.99), ("abs", 0.01), 3,
     "{method} detects out-of-distribution inputs on {dataset} with an AUROC of {v}."),
    ("calibration_error", "percent", [None], "at_most", (0.5, 5), ("abs", 0.2), 2,
     "The expected calibration error of {method} on {dataset} stays below {v}%."),
]
EFFICIENCY = [
    ("wall_clock_time", "s", ["trajectory", "epoch", "batch of 50"], "at_most", (0.5, 600),
     ("rel", 0.1), 1, "{method} needs at most {v} s per {per} on a single GPU."),
    ("latency", "ms", ["image", "token", "query"], "at_most", (1, 80), ("rel", 0.1), 1,
     "Inference with {method} takes {v} ms per {per}, against twice that for {baseline}."),
    ("throughput", "image / s", [None], "at_least", (200, 5000), ("rel", 0.1), 0,
     "{method} processes {v} images per second at batch size 256."),
    ("peak_memory", "GB", [None], "at_most", (4, 80), ("rel", 0.05), 1,
     "Training {method} on {dataset} fits in {v} GB of accelerator memory."),
    ("speedup", "dimensionless", [None], "at_least", (1.5, 12), ("rel", 0.1), 1,
     "{method} is {v}x faster than {baseline} at equal accuracy."),
]
THEORETICAL = [
    ("additive_term", "dimensionless", [None], "bounded", None, ("abs", 0.5), 2,
     "The algorithm is (H_{param} + O(1))-robust for every cache size {param}."),
    ("competitive_ratio", "dimensionless", [None], "bounded", (2, 8), ("abs", 0.1), 1,
     "{method} is {v}-competitive for all {param} at least 2."),
    ("regret_over_sqrt_horizon", "dimensionless", [None], "bounded", None, ("rel", 0.1), 2,
     "The regret of {method} grows as O(sqrt({param})) up to logarithmic factors."),
    ("approximation_ratio", "dimensionless", [None], "at_most", (1.1, 2), ("abs", 0.05), 2,
     "{method} returns a {v}-approximation in polynomial time."),
    ("convergence_exponent", "dimensionless", [None], "equal", (0.5, 1.0), ("abs", 0.05), 1,
     "The iterates of {method} converge at rate {param}^(-{v})."),
    ("generalization_gap_ratio", "dimensionless", [None], "bounded", None, ("abs", 0.2), 2,
     "The generalization gap of {method} is O(1/sqrt({param})) uniformly over the class."),
]
THEORETICAL_TEXT = [
    "Lemma {n} holds for every {param} of at least 2.",
    "The estimator of {method} is unbiased under the stated assumptions.",
    "{method} is minimax optimal up to constant factors.",
    "The fixed point of the update is unique and globally attracting.",
    "No algorithm can beat the lower bound of Theorem {n} on worst-case inputs.",
]
QUALITATIVE_TEXT = [
    "Attention maps of {method} concentrate on object boundaries.",
    "{method} produces visibly more diverse samples than {baseline}.",
    "Learned features of {method} transfer to {dataset} without fine-tuning.",
    "The failure cases of {method} cluster on rare classes of {dataset}.",
    "Training with {method} is stable across random seeds.",
    "{method} degrades gracefully as label noise increases.",
]
FREE_METRICS = [("score", "dimensionless"), ("success_rate", "percent"), ("win_rate", "percent")]
COMMANDS = [
    "python reproduce.py --claims {claims} --out results/metrics.json",
    "bash run.sh --quick --out results/metrics.json",
    "python train.py --config configs/{slug}.yaml && python eval.py --out results/metrics.json",
    "python sweep.py --{param}-max {kmax} --out results/metrics.json",
    "make reproduce OUT=results/metrics.json",
]
NOTES = {
    "verified": [
        "Numbers match the paper within the stated tolerance.",
        "Reproduced with the released code and default hyper-parameters.",
        "Matches Table {n} to the reported precision after three seeds.",
    ],
    "falsified": [
        "The reported number could not be reached with the released configuration.",
        "The bound is violated for large {param} in our sweep.",
        "Results fall short of the paper by more than the seed variance.",
    ],
    "toy": [
        "Reduced budget run on a subset of {dataset}, trends only.",
        "Synthetic data stand-in for the original benchmark.",
        "Small model and short schedule so that the run fits the time limit.",
    ],
    "inconclusive": [
        "Runs were too noisy to decide either way.",
        "Could not match the evaluation protocol exactly.",
        "Part of the pipeline is missing from the released code.",
    ],
}
# fmt: on


def _evidence(c, setup: str, status: str | None, verdict: str, flags: list[str], measured) -> str:
    """One templated sentence saying why the rules reached `verdict`."""
    if "rerun_failed" in flags:
        return f"The re-run ended with status {status}, so it verifies nothing."
    if "missing_outputs" in flags:
        return f"The pointer for {c.cid} resolves to nothing in the re-run outputs."
    if "unit_mismatch" in flags:
        per = c.per or "run"
        return f"Measured unit does not convert to {c.unit} per {per}, so numbers are not compared."
    if measured is None or c.metric is None:
        if "toy_setup" in flags:
            return f"{setup.capitalize()} setup, so the result counts as a toy at best."
        return "No number to check against a target; the claim stays inconclusive in rules mode."
    metric, value, unit = measured
    src = "re-run outputs" if status == "passed" else "self-reported numbers"
    tol_kind, tol_val = c.tol
    target = "no growth" if c.value is None else f"{c.form.replace('_', ' ')} {num(c.value)} {unit}"
    tolerance = f"{tol_kind} tolerance {num(tol_val)}"
    base = f"{src} give {metric} = {num(value)} {unit} against {target} ({tolerance})"
    if "toy_setup" in flags:
        return f"{base}, but the setup is {setup}, so toy at best."
    if "short_horizon" in flags:
        return f"{base}, but the sweep spans less than two orders of magnitude."
    if "growth_detected" in flags:
        return f"{base}, and the sweep grows with ln {c.param}."
    if "rerun_mismatch" in flags:
        return f"{base}, which disagrees with the logbook's own value."
    return f"{base}, so the claim is {verdict}."


# ---------------------------------------------------------------------------------------
# A small YAML scalar emitter
# ---------------------------------------------------------------------------------------

_RESOLVER = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"
# YAML 1.2 core-schema numbers that YAML 1.1 (PyYAML) reads as strings, e.g. 1e5, 0o17, .5:
# quote them too, so the files read the same in every parser.
_YAML12_NUMBER = re.compile(
    r"^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^0o[0-7]+$|^0x[0-9a-fA-F]+$"
    r"|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$"
)
_BLOCK_UNSAFE_START = set("-?:,[]{}#&*!|>'\"%@` ")


@cache
def _plain_ok(text: str, flow: bool) -> bool:
    if not text or text != text.strip() or not text.isascii() or not text.isprintable():
        return False
    if text[0] in _BLOCK_UNSAFE_START or text.endswith(":"):
        return False
    if ": " in text or " #" in text:
        return False
    # In flow collections pure-Python PyYAML ends a plain scalar at any of ,?[]{} (libyaml
    # is more lenient, e.g. about '?' in URLs); quote rather than depend on the parser.
    if flow and any(c in text for c in ",?[]{}#"):
        return False
    if _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) != _STR_TAG:
        return False
    return not _YAML12_NUMBER.match(text)


def s(text: str) -> str:
    """A string scalar for block context: plain when YAML reads it back as this string."""
    return text if _plain_ok(text, False) else json.dumps(text)


def sf(text: str) -> str:
    """A string scalar inside a flow collection ({...} or [...])."""
    return text if _plain_ok(text, True) else json.dumps(text)


def so(text: str | None, flow: bool = True) -> str:
    """An optional string: null when None."""
    if text is None:
        return "null"
    return sf(text) if flow else s(text)


def num(value: float | int) -> str:
    """A number that YAML 1.1 and 1.2 both read as a number.

    Never 1e-05, which PyYAML (YAML 1.1: a float needs a dot) reads as a string.
    """
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        return str(int(value))
    text = repr(float(value))
    if "e" in text or "n" in text:
        text = f"{value:.8f}".rstrip("0")
        if text.endswith("."):
            text += "0"
    return text


def hexstr(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


# ---------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------


def _claim_counts(rng: random.Random, papers: int, total: int) -> list[int]:
    """Claims per paper, each in 1..12, summing to `total` (clamped to what is possible)."""
    total = max(papers, min(12 * papers, total))
    mean = total / papers if papers else 0
    # Binomial-like spread around the mean, then nudge to the exact total.
    counts = [min(12, max(1, round(rng.gauss(mean, 2.2)))) for _ in range(papers)]
    diff = total - sum(counts)
    while diff:
        i = rng.randrange(papers)
        if diff > 0 and counts[i] < 12:
            counts[i] += 1
            diff -= 1
        elif diff < 0 and counts[i] > 1:
            counts[i] -= 1
            diff += 1
    return counts


def _paper_ids(rng: random.Random, n: int) -> list[str]:
    """OpenReview-like ids: 10 chars of [A-Za-z0-9_-], starting with an alphanumeric.

    Unique even case-insensitively, so that the files check out on macOS and Windows too.
    """
    ids: list[str] = []
    seen: set[str] = set()
    while len(ids) < n:
        pid = rng.choice(ID_CHARS) + "".join(rng.choices(ID_CHARS_ANY, k=9))
        if pid.lower() not in seen:
            seen.add(pid.lower())
            ids.append(pid)
    return ids


def _handles(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(display name, GitHub handle) pairs; handles lowercase [a-z0-9-], unique."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(out) < n:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        style = rng.random()
        if style < 0.35:
            handle = f"{first[0]}{last}".lower()
        elif style < 0.6:
            handle = f"{first}-{last}".lower()
        elif style < 0.85:
            handle = f"{first}{last[0]}{rng.randint(1, 99)}".lower()
        else:
            handle = f"{last}{rng.randint(1970, 2005)}".lower()
        if handle in seen:
            handle = f"{handle}{rng.randint(2, 999)}"
        if handle in seen:
            continue
        seen.add(handle)
        out.append((f"{first[0]}. {last}", handle))
    return out


def _method_name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).upper()


class _Claim:
    __slots__ = (
        "cid",
        "decimals",
        "form",
        "kind",
        "metric",
        "param",
        "per",
        "rfrom",
        "rto",
        "tol",
        "truth",
        "unit",
        "value",
    )

    def __init__(self, cid: str, kind: str) -> None:
        self.cid = cid
        self.kind = kind
        self.metric = self.unit = self.per = self.form = None
        self.value = None
        self.tol = None
        self.decimals = 2
        self.param = None
        self.rfrom = self.rto = None
        self.truth = "verified"


def _round(x: float, decimals: int) -> float | int:
    return round(x) if decimals == 0 else round(x, decimals)


def _paper(
    rng: random.Random, pid: str, n_claims: int, authors_pool: list[tuple[str, str]]
) -> tuple[str, list[_Claim], str, str, str]:
    """The paper file's text, its claims, and the method slug, dataset and area for its logbooks."""
    method = _method_name(rng)
    slug = method.lower()
    area = rng.choices(AREAS, AREA_WEIGHTS)[0]
    title = f"{rng.choice(TITLE_HEADS)} {rng.choice(TITLE_TOPICS)}{rng.choice(TITLE_TAILS)}"
    if rng.random() < 0.3:
        title = f"{method}: {title}"
    dataset = rng.choice(DATASETS)
    authors = rng.sample(authors_pool, rng.randint(1, 6))
    lead = authors[0][1]
    arxiv = f"26{rng.randint(1, 8):02d}.{rng.randint(0, 99999):05d}"
    code = f"https://github.com/{lead}/{slug}" if rng.random() < 0.7 else None
    data = f"https://huggingface.co/datasets/{lead}/{slug}-data" if rng.random() < 0.25 else None
    ckpt = f"https://huggingface.co/{lead}/{slug}" if rng.random() < 0.3 else None

    parts = [
        "paper:\n",
        f"  id: {s(pid)}\n",
        f"  title: {s(title)}\n",
        f"  venue: {VENUE}\n",
        "  links:\n",
        f"    openreview: https://openreview.net/forum?id={pid}\n",
        f'    arxiv: "{arxiv}"\n',
        "  authors:\n",
    ]
    for name, handle in authors:
        parts.append(f"    - {{name: {sf(name)}, github: {sf(handle)}}}\n")
    parts.append(f"  released: {{code: {so(code)}, data: {so(data)}, checkpoints: {so(ckpt)}}}\n")
    parts.append(
        f"  tags: {{area: {area}, spotlight: {'true' if rng.random() < 0.1 else 'false'}}}\n"
    )
    parts.append("claims_version: 1\nclaims:\n")

    theory_bias = area in ("theory", "optimization")
    kind_weights = [25, 10, 55, 10] if theory_bias else [50, 17, 18, 15]
    claims: list[_Claim] = []
    for i in range(1, n_claims + 1):
        kind = rng.choices(["empirical", "efficiency", "theoretical", "qualitative"], kind_weights)[
            0
        ]
        c = _Claim(f"C{i}", kind)
        baseline = rng.choice(BASELINES)
        param = rng.choice(PARAMS)
        with_target = (
            rng.random()
            < {"empirical": 0.7, "efficiency": 0.85, "theoretical": 0.5, "qualitative": 0.0}[kind]
        )
        if with_target:
            spec = rng.choice(
                {"empirical": EMPIRICAL, "efficiency": EFFICIENCY, "theoretical": THEORETICAL}[kind]
            )
            metric, unit, pers, form, vrange, (tkind, tval), dec, template = spec
            c.metric, c.unit, c.per, c.form, c.decimals = metric, unit, rng.choice(pers), form, dec
            c.tol = (tkind, tval)
            if vrange is not None:
                c.value = _round(rng.uniform(*vrange), dec)
            statement = template.format(
                method=method,
                dataset=dataset,
                v=num(c.value) if c.value is not None else "",
                per=c.per,
                baseline=baseline,
                param=param,
            )
            if kind == "theoretical":
                c.param = param
        elif kind == "theoretical":
            statement = rng.choice(THEORETICAL_TEXT).format(
                n=rng.randint(1, 9), param=param, method=method
            )
            if rng.random() < 0.5:
                c.param = param
        elif kind == "qualitative":
            statement = rng.choice(QUALITATIVE_TEXT).format(
                method=method, baseline=baseline, dataset=dataset
            )
        else:
            spec = rng.choice(EMPIRICAL if kind == "empirical" else EFFICIENCY)
            statement = spec[7].format(
                method=method,
                dataset=dataset,
                v=num(_round(rng.uniform(*spec[4]), spec[6])),
                per=rng.choice(spec[2]) or "run",
                baseline=baseline,
                param=param,
            )
        if c.param is not None:
            c.rfrom = 2
            c.rto = None if rng.random() < 0.7 else rng.choice([256, 1024, 4096, 10000])
        c.truth = rng.choices(["verified", "falsified", "toy", "inconclusive"], [55, 15, 15, 15])[0]
        if kind == "theoretical" or kind == "qualitative":
            anchor = (
                rng.choice(["Theorem", "Lemma", "Proposition", "Corollary", "Section"])
                + f" {rng.randint(1, 7)}.{rng.randint(1, 5)}"
            )
        else:
            anchor = rng.choice(["Table", "Figure"]) + f" {rng.randint(1, 9)}"

        parts.append(
            f"  - id: {c.cid}\n"
            f"    statement: {s(statement)}\n"
            f"    anchor: {s(anchor)}\n"
            f"    kind: {kind}\n"
        )
        if c.metric is not None:
            tk, tv = c.tol
            parts.append(
                "    target:\n"
                f"      metric: {c.metric}\n"
                f"      form: {c.form}\n"
                f"      value: {'null' if c.value is None else num(c.value)}\n"
                f"      unit: {s(c.unit)}\n"
                f"      per: {so(c.per, flow=False)}\n"
                f"      tolerance: {{{tk}: {num(tv)}}}\n"
            )
        if c.param is not None:
            to = "null" if c.rto is None else c.rto
            parts.append(f"    regime: {{parameter: {c.param}, from: {c.rfrom}, to: {to}}}\n")
        claims.append(c)
    return "".join(parts), claims, slug, dataset, area


def _tol_abs(c: _Claim) -> float:
    kind, val = c.tol
    if kind == "abs":
        return val
    return abs(c.value or 1.0) * val


def _measured_value(rng: random.Random, c: _Claim, outcome: str) -> float:
    """A value for the claim's target metric that supports `outcome` (roughly)."""
    tol = _tol_abs(c)
    v = c.value
    if c.form == "bounded":
        base = v * rng.uniform(0.6, 0.95) if v is not None else rng.uniform(0.8, 3.0)
        if outcome == "falsified":
            return base + rng.uniform(2, 6) * max(tol, 0.1)
        return base
    spread = max(tol, abs(v) * 0.01)
    if outcome == "verified":
        delta = rng.uniform(0, 1.5) * spread
    elif outcome == "falsified":
        delta = -rng.uniform(1.5, 5) * spread
    else:
        delta = rng.uniform(-2, 1) * spread
    if c.form == "at_least":
        out = v + delta
    elif c.form == "at_most":
        out = v - delta
    else:  # equal
        out = v + (
            rng.uniform(-0.8, 0.8) * tol
            if outcome == "verified"
            else rng.choice([-1, 1]) * rng.uniform(1.5, 3) * tol
        )
    if c.unit == "percent":
        out = min(out, 99.99)
    return max(out, 0.0001)


def _sweep(
    rng: random.Random, c: _Claim, outcome: str, short: bool
) -> tuple[list[int], list[float]]:
    start = c.rfrom or 2
    points = rng.randint(4, 7)
    if short:
        factor = 2  # under two orders of magnitude
        points = min(points, 5)
    else:
        factor = rng.choice([4, 8])
    values = [start * factor**i for i in range(points)]
    if c.rto is not None and not short:
        values = [x for x in values if x < c.rto] + [c.rto]
    base = _measured_value(rng, c, "verified") if c.metric else rng.uniform(0.5, 2.0)
    # A falsified bound grows ~linearly in ln(parameter), a held one stays flat (plus noise).
    slope = rng.uniform(0.06, 0.15) * max(abs(base), 1.0) if outcome == "falsified" else 0.0
    dec = c.decimals or 2
    measured = [
        _round(
            base + slope * math.log(x / values[0]) + rng.gauss(0, 0.01 * abs(base) + 1e-3),
            max(dec, 2),
        )
        for x in values
    ]
    return values, measured


def _logbook(
    rng: random.Random,
    pid: str,
    lid: str,
    handle: str,
    hf: str,
    claims: list[_Claim],
    slug: str,
    dataset: str,
    area: str,
) -> tuple[str, list[tuple[_Claim, str, str, dict]]]:
    """The logbook text, and per result (claim, setup, self_assessment, facts) for its verdict."""
    agent = rng.choices(AGENTS, AGENT_WEIGHTS)[0]
    human = "true" if agent == "none" or rng.random() < 0.5 else "false"
    hardware = "cpu" if area == "theory" or rng.random() < 0.15 else rng.choice(HARDWARE_GPU)
    if rng.random() < 0.01:
        chosen: list[_Claim] = []
    else:
        k = max(1, min(len(claims), round(len(claims) * rng.uniform(0.3, 1.0))))
        chosen = sorted(rng.sample(claims, k), key=lambda c: int(c.cid[1:]))
    param = next((c.param for c in chosen if c.param), "k")
    command = rng.choice(COMMANDS).format(
        claims=",".join(c.cid for c in chosen) or "all",
        slug=slug,
        param=param,
        kmax=rng.choice([1024, 4096, 65536]),
    )
    parts = [
        "logbook:\n",
        f"  id: {s(lid)}\n",
        f"  paper: {s(pid)}\n",
        "  claims_version: 1\n",
        f"  contributor: {{github: {sf(handle)}, hf: {sf(hf)}}}\n",
        f"  agent: {{name: {agent}, human_in_loop: {human}}}\n",
        f"code: {{repo: https://github.com/{handle}/repro-{slug}, "
        f"commit: {sf(hexstr(rng, 40))}}}\n",
        "reproduce:\n",
        f"  command: {s(command)}\n",
        "  image: python:3.12-slim\n",
        f"  hardware: {hardware}\n",
        f"  timeout: {rng.choice(TIMEOUTS)}\n",
        "  outputs: results/metrics.json\n",
    ]
    if not chosen:
        parts.append("results: []\n")
        return "".join(parts), []
    parts.append("results:\n")
    facts_out = []
    for c in chosen:
        setup = rng.choices(
            ["full", "reduced", "synthetic"],
            [70, 22, 8] if c.kind != "theoretical" else [55, 15, 30],
        )[0]
        if setup != "full":
            outcome = rng.choices(
                ["toy", "verified", "falsified", "inconclusive"], [70, 15, 5, 10]
            )[0]
        elif rng.random() < 0.7:
            outcome = c.truth
        else:
            outcome = rng.choice(["verified", "falsified", "toy", "inconclusive"])
        number_outcome = (
            outcome
            if outcome in ("verified", "falsified")
            else rng.choice(["verified", "falsified", "inconclusive"])
        )
        parts.append(f"  - claim: {c.cid}\n    self_assessment: {outcome}\n    setup: {setup}\n")
        facts = {"outcome": number_outcome, "measured": None, "short": False}
        sweep = None
        if c.param is not None and rng.random() < 0.85:
            short = rng.random() < 0.35
            sweep = _sweep(rng, c, number_outcome, short)
            facts["short"] = short or (c.rto is None and sweep[0][-1] < 100 * sweep[0][0])
        metric, unit, per = c.metric, c.unit, c.per
        if metric is None and c.kind in ("empirical", "efficiency"):
            metric, unit = rng.choice(FREE_METRICS)
        if metric is None and sweep is not None:
            metric, unit = "bound_ratio", "dimensionless"
        if metric is not None:
            if sweep is not None:
                value = sweep[1][-1]
                at = f", at: {{{c.param}: {sweep[0][-1]}}}"
                src = f"outputs:/{c.cid}/{metric}/{sweep[0][-1]}"
            else:
                value = (
                    _round(_measured_value(rng, c, number_outcome), max(c.decimals, 1))
                    if c.metric
                    else round(rng.uniform(0.2, 0.95) * (100 if unit == "percent" else 1), 3)
                )
                at = ""
                src = f"outputs:/{c.cid}/{metric}"
            facts["measured"] = (metric, value, unit)
            parts.append(
                "    measurements:\n"
                f"      - {{metric: {metric}, value: {num(value)}, unit: {sf(unit)}, "
                f"per: {so(per)}{at},\n"
                f"         source: {json.dumps(src)}}}\n"
            )
        if sweep is not None:
            values, measured = sweep
            parts.append(
                f"    sweep: {{parameter: {c.param}, values: [{', '.join(map(str, values))}], "
                f"metric: {metric},\n"
                f"            measured: [{', '.join(num(m) for m in measured)}]}}\n"
            )
        note = rng.choice(NOTES[outcome]).format(
            n=rng.randint(1, 6), param=c.param or "n", dataset=dataset
        )
        parts.append(f"    notes: {s(note)}\n")
        facts_out.append((c, setup, outcome, facts))
    return "".join(parts), facts_out


def _verdict(
    rng: random.Random,
    pid: str,
    lid: str,
    input_sha: str,
    results: list[tuple[_Claim, str, str, dict]],
    day0: int,
) -> str:
    """A rules-mode verdict consistent with the logbook it judges (flags follow DESIGN.md)."""
    day = day0 + rng.randint(0, 120)  # May to early September 2026
    month, dom = _month_day(day)
    hh, mm, ss = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    judged_at = f"2026-{month:02d}-{dom:02d}T{hh:02d}:{mm:02d}:{ss:02d}Z"
    r = rng.random()
    if r < 0.7:
        status = "passed"
    elif r < 0.78:
        status = "failed"
    elif r < 0.82:
        status = "timeout"
    else:
        status = None
    parts = [
        f"paper: {s(pid)}\n",
        f"logbook: {s(lid)}\n",
        f"input_sha256: {s(input_sha)}\n",
        "judge: {mode: rules, model: null, prompt_version: 1, samples: 1}\n",
        f"judged_at: {judged_at}\n",
    ]
    if status is None:
        parts.append("rerun: null\n")
    else:
        backend = rng.choices(["hf-jobs", "github-runner", "local"], [60, 35, 5])[0]
        if backend == "hf-jobs":
            url = f"https://huggingface.co/jobs/reproaudit/{hexstr(rng, 24)}"
        elif backend == "github-runner":
            run_id = rng.randint(10**10, 2 * 10**10)
            url = f"https://github.com/reproaudit/icml2026/actions/runs/{run_id}"
        else:
            url = None
        duration = rng.randint(30, 21600) if status != "timeout" else 7200
        exit_code = (
            0 if status == "passed" else (rng.choice([1, 2, 137]) if status == "failed" else 124)
        )
        outputs = hexstr(rng, 64) if status == "passed" else None
        parts.append(
            f"rerun: {{status: {status}, backend: {backend}, url: {so(url)}, "
            f"duration_s: {duration},\n"
            f"        exit_code: {exit_code}, outputs_sha256: {so(outputs)}}}\n"
        )
    if not results:
        parts.append("claims: []\n")
        return "".join(parts)
    parts.append("claims:\n")
    for c, setup, self_assessment, facts in results:
        flags: list[str] = []
        measured = facts["measured"]
        if status in ("failed", "timeout"):
            verdict = "inconclusive"
            flags.append("rerun_failed")
        else:
            if status is None:
                flags.append("not_rerun")
            if measured is None:
                verdict = "inconclusive"
            elif c.metric is None:
                verdict = "inconclusive"  # no target: nothing to check in rules mode
            else:
                verdict = (
                    facts["outcome"]
                    if facts["outcome"] in ("verified", "falsified")
                    else "inconclusive"
                )
                if status == "passed" and rng.random() < 0.05:
                    flags.append("missing_outputs")
                    verdict = "inconclusive"
                elif status == "passed" and rng.random() < 0.08:
                    flags.append("rerun_mismatch")
                    verdict = "falsified" if verdict == "verified" else verdict
                elif rng.random() < 0.02:
                    flags.append("unit_mismatch")
                    verdict = "inconclusive"
            if c.form == "bounded" and verdict == "falsified":
                flags.append("growth_detected")
            elif facts["short"] and verdict == "verified":
                verdict = "toy"
                flags.append("short_horizon")
            if setup != "full" and verdict in ("verified", "falsified"):
                verdict = "toy"
                flags.append("toy_setup")
        if verdict != self_assessment:
            flags.append("self_assessment_disagrees")
        evidence = _evidence(c, setup, status, verdict, flags, measured)
        votes = {k: 0 for k in ("verified", "falsified", "toy", "inconclusive")}
        votes[verdict] = 1
        flag_text = ", ".join(f for f in FLAGS if f in flags)
        parts.append(
            f"  - claim: {c.cid}\n"
            f"    verdict: {verdict}\n"
            f"    evidence: {s(evidence)}\n"
            f"    flags: [{flag_text}]\n"
            f"    votes: {{verified: {votes['verified']}, falsified: {votes['falsified']}, "
            f"toy: {votes['toy']}, inconclusive: {votes['inconclusive']}}}\n"
        )
    return "".join(parts)


_MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def _month_day(day_of_year: int) -> tuple[int, int]:
    for month, days in enumerate(_MONTH_DAYS, start=1):
        if day_of_year < days:
            return month, day_of_year + 1
        day_of_year -= days
    return 12, 31


def _write(path: Path, text: str) -> int:
    data = text.encode("ascii")
    with open(path, "wb") as fh:
        fh.write(data)
    return len(data)


def generate_corpus(
    root: Path,
    *,
    papers: int = 6352,
    logbooks: int = 6816,
    claims_total: int = 36000,
    verdicts: bool = False,
    seed: int = 0,
) -> dict:
    """Write a synthetic audit repository under `root` and return what was written.

    Writes ``claims/icml2026/<paper>.yaml`` for each paper, ``logbooks/<paper>/<logbook>.yaml``
    for each logbook and, when `verdicts` is true, ``verdicts/<paper>/<logbook>.yaml`` beside
    every logbook. About a third of the papers get logbooks (as in the 2026 challenge); the
    others have none. Returns ``{papers, claims, logbooks, verdicts, files, bytes}``.

    Refuses to write into a `root` that already has ``claims/``, ``logbooks/`` or ``verdicts/``,
    so that counts always describe the whole corpus.
    """
    root = Path(root)
    for sub in ("claims", "logbooks", "verdicts"):
        if (root / sub).exists():
            raise FileExistsError(f"{root / sub} already exists; generate into a fresh directory")
    if papers < 1:
        raise ValueError("papers must be at least 1")
    rng = random.Random(seed)

    claim_counts = _claim_counts(rng, papers, claims_total)
    pids = _paper_ids(rng, papers)
    authors_pool = _handles(rng, max(50, papers * 2))

    # Which papers get logbooks, and how many each (every covered paper at least one).
    covered_n = min(papers, logbooks, max(1, round(papers * COVERAGE))) if logbooks else 0
    covered = sorted(rng.sample(range(papers), covered_n))
    per_paper = dict.fromkeys(covered, 1)
    weights = [rng.uniform(1, 3) ** 2 for _ in covered]
    for idx in rng.choices(covered, weights, k=logbooks - covered_n) if covered else []:
        per_paper[idx] += 1

    # Contributors: a pool with a few very active people and a long tail.
    contributors = _handles(random.Random(seed + 1), max(20, logbooks // 3))
    contrib_weights = [1.0 / (i + 10) for i in range(len(contributors))]
    hf_names = [h if rng.random() < 0.8 else f"{h}-hf" for _, h in contributors]
    contrib_count = [0] * len(contributors)

    claims_dir = root / "claims" / VENUE_DIR
    claims_dir.mkdir(parents=True)
    (root / "logbooks").mkdir()
    if verdicts:
        (root / "verdicts").mkdir()

    n_claims = n_logbooks = n_verdicts = n_bytes = 0
    day0 = 120  # 1 May 2026 (day of year, 0-based)
    for i, pid in enumerate(pids):
        paper_text, claims, slug, dataset, area = _paper(rng, pid, claim_counts[i], authors_pool)
        n_bytes += _write(claims_dir / f"{pid}.yaml", paper_text)
        n_claims += len(claims)
        count = per_paper.get(i, 0)
        if not count:
            continue
        lb_dir = root / "logbooks" / pid
        lb_dir.mkdir()
        vd_dir = root / "verdicts" / pid
        if verdicts:
            vd_dir.mkdir()
        used: set[int] = set()
        for _ in range(count):
            # Distinct contributors on a paper, mostly: a second attempt by the same person is rare.
            for _attempt in range(4):
                who = rng.choices(range(len(contributors)), contrib_weights)[0]
                if who not in used or rng.random() < 0.1:
                    break
            used.add(who)
            contrib_count[who] += 1
            handle = contributors[who][1]
            lid = f"{handle}-{contrib_count[who]}"
            lb_text, results = _logbook(
                rng, pid, lid, handle, hf_names[who], claims, slug, dataset, area
            )
            n_bytes += _write(lb_dir / f"{lid}.yaml", lb_text)
            n_logbooks += 1
            if verdicts:
                input_sha = hashlib.sha256((paper_text + lb_text).encode("ascii")).hexdigest()
                v_text = _verdict(rng, pid, lid, input_sha, results, day0)
                n_bytes += _write(vd_dir / f"{lid}.yaml", v_text)
                n_verdicts += 1

    return {
        "papers": papers,
        "claims": n_claims,
        "logbooks": n_logbooks,
        "verdicts": n_verdicts,
        "files": papers + n_logbooks + n_verdicts,
        "bytes": n_bytes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a synthetic reproaudit repository.")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--papers", type=int, default=6352)
    parser.add_argument("--logbooks", type=int, default=6816)
    parser.add_argument("--claims", type=int, default=36000, dest="claims_total")
    parser.add_argument(
        "--verdicts", action="store_true", help="also write one verdict per logbook"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        counts = generate_corpus(
            args.outdir,
            papers=args.papers,
            logbooks=args.logbooks,
            claims_total=args.claims_total,
            verdicts=args.verdicts,
            seed=args.seed,
        )
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    print(" ".join(f"{k}={v}" for k, v in counts.items()) + f" seconds={seconds:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
