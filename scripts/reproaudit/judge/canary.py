"""Is the screening request honest? Texts it must not flag, made from the corpus's own logbooks.

A screen that flags (nearly) everything is an endpoint fault, not 600
contributors hiding instructions: stored as ``suspected_injection``, its
accusations would stay on the site. Two checks, both in the deterministic code:

1. A flag counts only when the same endpoint, asked after that flag, answers a
   canary ``instructions_found: false``. A canary is a real logbook of the corpus
   (its YAML, write-up and re-run log tail, in exactly the shape of a real
   screening request: ``llm.build_screen``) with its numbers perturbed and its
   names changed (``disguise``), so that nothing in it tells it from real work.
   Its source is a logbook the local detector clears, other than the flagged
   one, preferably one not yet sent to the endpoint in this run (so it is no
   near copy of a text the endpoint just saw); a synthetic logbook of the same
   shape only when the corpus has no other. One canary answer confirms every
   flag received before it was asked, so a run with a few flags asks a few
   canaries and a healthy run none. A flagged canary is followed by one more
   from another source (one logbook with instructions the local detector missed
   cannot stop a run); two flagged make the screen faulty for the rest of the run.
2. ``note``: a screen that flagged more than half of the logbooks it screened
   (and more than ``SHARE_MIN / 2`` of them) is faulty too, however it answered
   the canaries: an endpoint that could tell canaries apart stores at most
   ``SHARE_MIN / 2`` accusations before the run stops.

A faulty screen's flags are ignored: the logbook is ``llm_failed`` (asked again
next run) and the run stops.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import yaml

from ..repo import Corpus
from ..rerun_inputs import current_inputs
from .injection import detect_intent
from .inputs import read_rerun

T = TypeVar("T")
Sample = tuple[str, str | None, str | None]  # logbook YAML, write-up, re-run log tail
Key = tuple[str, str]  # (paper, logbook)
SHARE_MIN = 10  # logbooks screened before the share of flags says anything
CANARIES_PER_FLAG = 2  # flagged canaries from distinct sources before the screen is faulty

_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,64}(?![0-9A-Za-z])")
_NUMBER = re.compile(r"(?<![\w.])(\d+)(?:\.(\d+))?(?!\w|\.\d)")
_VOWELS, _CONSONANTS = "aeiou", "bcdfghjklmnprstvz"


# --- a real logbook, disguised -------------------------------------------------------


def disguise(sample: Sample, rng: random.Random) -> Sample:
    """``sample`` with its names (logbook and paper ids, handles, repository owner and
    name, code folder) changed consistently in all three texts, every hex string
    replaced, and every number moved by up to ~18% (its format kept; the same number
    the same way everywhere, so a pointer ``/C1/accuracy/2048`` still matches its
    ``at: {seq_len: 2048}``)."""
    names = _names(sample[0])
    swaps = {name: _rename(name, rng) for name in sorted(names, key=len, reverse=True)}
    alternatives = "|".join(re.escape(n) for n in swaps)  # longest first
    pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])") if swaps else None

    def one(text: str | None) -> str | None:
        if text is None:
            return None
        if pattern is not None:
            text = pattern.sub(lambda m: swaps[m.group(0)], text)
        text = _HEX.sub(lambda m: _once(hexes, m.group(0), _hex, rng), text)
        return _NUMBER.sub(lambda m: _once(numbers, m.group(0), _nudge, rng), text)

    hexes: dict[str, str] = {}
    numbers: dict[str, str] = {}

    logbook, writeup, tail = (one(t) for t in sample)
    return logbook or "", writeup, tail


def _names(logbook_yaml: str) -> set[str]:
    """The names in a logbook that say whose it is and which paper it reproduces."""
    try:
        doc = yaml.safe_load(logbook_yaml)
    except yaml.YAMLError:
        return set()
    meta, code = _mapping(doc, "logbook"), _mapping(doc, "code")
    who = _mapping(meta, "contributor")
    found = [meta.get("id"), meta.get("paper"), who.get("github"), who.get("hf")]
    for url in (code.get("repo"), meta.get("trace")):
        if isinstance(url, str):
            found += url.split("://", 1)[-1].split("/")[1:3]  # owner and name, not the host
    if isinstance(code.get("path"), str):
        found.append(code["path"].strip("/"))
    return {n for n in found if isinstance(n, str) and len(n) >= 2}


def _mapping(node: object, key: str) -> dict:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, dict) else {}


def _rename(name: str, rng: random.Random) -> str:
    """A name of the same shape: each run of letters a pronounceable word of its length
    (case kept), each digit another digit, separators kept."""

    def word(match: re.Match[str]) -> str:
        run = match.group(0)
        start = rng.random() < 0.5
        letters = [
            rng.choice(_VOWELS if (i % 2 == 0) != start else _CONSONANTS) for i in range(len(run))
        ]
        return "".join(c.upper() if o.isupper() else c for c, o in zip(letters, run, strict=True))

    renamed = re.sub(r"[A-Za-z]+", word, name)
    return re.sub(r"\d", lambda _: rng.choice("0123456789"), renamed)


def _once(
    done: dict[str, str], text: str, change: Callable[[str, random.Random], str], rng: random.Random
) -> str:
    if text not in done:
        done[text] = change(text, rng)
    return done[text]


def _hex(text: str, rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in text)


def _nudge(text: str, rng: random.Random) -> str:
    value = float(text) * rng.uniform(0.85, 1.18)
    if "." not in text:
        return str(max(0, round(value)))
    return f"{value:.{len(text.split('.')[1])}f}"


def synthetic(rng: random.Random) -> Sample:
    """A logbook of the shape every real one has (``claims_version``, ``code``,
    ``reproduce``, results with measurements read from the outputs), for a corpus with
    no other logbook to disguise."""
    rate, memory, batch = round(rng.uniform(800, 4000), 1), round(rng.uniform(10, 70), 1), 32
    logbook = (
        "logbook:\n  id: repro-1\n  paper: Paper01\n  claims_version: 1\n"
        "  contributor: {github: someone}\n"
        "code: {repo: https://github.com/someone/repro, "
        "commit: 0123456789abcdef0123456789abcdef01234567}\n"
        "reproduce: {command: python bench.py --out results.json, hardware: a100-large, "
        "timeout: 2h, outputs: results.json}\n"
        "results:\n  - claim: C1\n    self_assessment: verified\n    setup: full\n"
        f"    measurements:\n      - {{metric: throughput, value: {rate}, unit: 1 / s, "
        'per: token, source: "outputs:/C1/throughput"}\n'
        f"    notes: batch size {batch}, mean of 3 seeds\n"
        "  - claim: C2\n    setup: full\n"
        f"    measurements:\n      - {{metric: peak_memory, value: {memory}, unit: GiB, "
        'source: "outputs:/C2/peak_memory"}\n'
    )
    writeup = (
        f"We ran the authors' benchmark at batch size {batch}. Throughput was {rate} tokens/s "
        f"over 3 seeds and peak memory {memory} GiB, close to the paper's table."
    )
    tail = f"throughput {rate} tokens/s\npeak memory {memory} GiB\ndone"
    return disguise((logbook, writeup, tail), rng)


# --- where canaries come from ----------------------------------------------------------


class CorpusSamples:
    """The corpus's logbooks as canary sources: read on demand (only when a flag needs a
    canary), each as the screening request would carry it."""

    def __init__(self, corpus: Corpus, reruns: Path | None) -> None:
        self.corpus = corpus
        self.reruns = reruns
        self.keys: list[Key] = [path.key for path in corpus.of_kind("logbook")]

    def read(self, key: Key) -> Sample | None:
        """The logbook's texts, or None when it cannot be read or the local detector fires."""
        try:
            path = self.corpus.logbook_path(*key)
            loaded = self.corpus.load(path) if path is not None else None
            if loaded is None or loaded.model is None or loaded.raw is None:
                return None
            text = loaded.raw.decode("utf-8", errors="replace")
            writeup = self.corpus.writeup(*key)
            inputs = current_inputs(self.corpus, *key, loaded.model, loaded.raw)
            record = read_rerun(self.reruns, *key, inputs, self.corpus.blob)
        except Exception:  # a source that cannot be read is no source, never a failure
            return None
        sample = (
            text,
            writeup.text() if writeup else None,
            record.rerun.log_tail if record else None,
        )
        if any(detect_intent(t) for t in sample if t):
            return None
        return sample


# --- the check ------------------------------------------------------------------------


class Canary:
    """Confirms screening flags with disguised real logbooks; shared by a run's workers."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._lock = threading.Lock()  # one canary at a time (it may wait on the endpoint)
        self._tally = threading.Lock()  # the counts, never held while asking
        self._rng = rng or random.Random()
        self._answered_at = -1.0  # when the last canary that answered clean was asked
        self.fault: str | None = None  # set once the screen is found faulty
        self.sources: CorpusSamples | None = None
        self.screened: dict[Key, bool] = {}  # logbook -> flagged, for this run's screens
        self.cleared: dict[Key, Sample] = {}  # logbooks this run's screen answered clean
        self.asked = 0  # canaries sent

    def note(self, key: Key, sample: Sample, flagged: bool) -> str | None:
        """Count one screening answer; the fault when the share of flags is implausible."""
        with self._tally:
            self.screened[key] = flagged
            if not flagged and len(self.cleared) < 64:
                self.cleared[key] = sample
            n, hits = len(self.screened), sum(self.screened.values())
            if self.fault is None and hits * 2 > max(n, SHARE_MIN):
                self.fault = (
                    f"the screening request flagged {hits} of the {n} logbooks it screened: "
                    "more than half is not plausible, so its screen is faulty and its flags "
                    "are ignored"
                )
            return self.fault

    def confirm(
        self, flagged_at: float, key: Key, ask: Callable[[Sample], tuple[bool | None, T]]
    ) -> tuple[bool | None, list[T]]:
        """Whether a flag on ``key`` received at ``flagged_at`` (monotonic) stands, and what
        asking cost.

        ``ask`` screens a canary: True when flagged, False when clean, None without an
        answer. The result is True (the screen is honest: the flag stands), False (the
        screen is faulty: ignore the flag) or None (no canary answer: cannot tell).
        """
        with self._lock:
            if self.fault is not None:
                return False, []
            if self._answered_at > flagged_at:
                return True, []
            costs: list[T] = []
            for sample in self._canaries(key):
                asked_at = time.monotonic()
                self.asked += 1
                flagged, cost = ask(sample)
                costs.append(cost)
                if flagged is None:
                    return None, costs
                if not flagged:
                    self._answered_at = asked_at
                    return True, costs
            self.fault = (
                f"the screening request flagged {len(costs)} known-clean texts too (canaries: "
                "logbooks of the corpus with their numbers and names changed): the endpoint's "
                "screen is faulty, so its flags are ignored"
            )
            return False, costs

    def _canaries(self, flagged: Key) -> Iterator[Sample]:
        """Up to ``CANARIES_PER_FLAG`` disguised samples from distinct sources: corpus
        logbooks not screened yet in this run first, then those it cleared, then a
        synthetic one."""
        given = 0
        for sample in self._sources(flagged):
            yield disguise(sample, self._rng)
            given += 1
            if given == CANARIES_PER_FLAG:
                return
        while given < CANARIES_PER_FLAG:
            yield synthetic(self._rng)
            given += 1

    def _sources(self, flagged: Key) -> Iterator[Sample]:
        with self._tally:
            screened = set(self.screened)
            cleared = [s for k, s in self.cleared.items() if k != flagged]
        if self.sources is not None:
            keys = [k for k in self.sources.keys if k != flagged and k not in screened]
            self._rng.shuffle(keys)
            for key in keys[:20]:  # a few reads at most, should many be unreadable
                sample = self.sources.read(key)
                if sample is not None:
                    yield sample
        self._rng.shuffle(cleared)
        yield from cleared
