"""Measure the additive robustness term of Trust-and-Mark (TAM) paging.

The paper (Kp4rT9vQ2x, Algorithm 1) claims TAM is (H_k + O(1))-robust: with
arbitrarily bad predictions its competitive ratio stays within a constant of
H_k. We run TAM on the classic lower-bound instance (k + 1 pages, uniformly
random requests) against an adversarial predictor and report

    additive_term(k) = ALG faults per phase - H_k

OPT is charged one fault per phase, which is an upper bound on what Belady's
algorithm pays on k + 1 pages, so the ratio we report is a lower bound on the
true one. Requests that hit a page already requested in the current phase
change nothing for a marking algorithm, so each phase is simulated from the
order in which its distinct pages first appear (a uniformly random order).

TAM as specified in Section 3 of the paper:
  * every phase starts in "trust" mode: on a fault, evict the unmarked page
    the predictor says is needed furthest in the future;
  * a fault on a page that trust mode evicted in this phase switches to
    "uniform" mode: evict an unmarked page uniformly at random;
  * after every second fault on a page that uniform mode evicted, TAM trusts
    the predictor again, provided at least tau = 16 unmarked pages remain.

Standard library only; deterministic for a given --seed.
"""

import argparse
import json
import math
import os
import random


def harmonic(k):
    return sum(1.0 / i for i in range(1, k + 1))


class PageSet:
    """Unmarked cached pages: O(1) add, remove and uniform choice."""

    def __init__(self, pages):
        self.items = list(pages)
        self.where = {p: i for i, p in enumerate(self.items)}

    def remove(self, page):
        i = self.where.pop(page, None)
        if i is None:
            return
        last = self.items.pop()
        if last != page:
            self.items[i] = last
            self.where[last] = i

    def __len__(self):
        return len(self.items)


def run_phases(k, phases, rng, tau, predictor):
    """Return TAM's total faults over `phases` phases of the (k+1)-page instance."""
    missing = 0  # the one page outside the cache
    faults = 0
    for _ in range(phases):
        first = missing  # the page left out of the previous phase opens this one
        rest = [p for p in range(k + 1) if p != first]
        rng.shuffle(rest)
        order = [first] + rest[: k - 1]
        leftover = rest[k - 1]  # not requested in this phase: opens the next one
        next_use = {p: i for i, p in enumerate(order)}
        next_use[leftover] = k + 1

        unmarked = PageSet(p for p in range(k + 1) if p != first)
        trust = True
        uniform_faults = 0
        evicted_by = {}
        for page in order:
            if page == missing:
                faults += 1
                cause = evicted_by.get(page)
                if cause == "trust":
                    trust = False
                elif cause == "uniform":
                    uniform_faults += 1
                    if uniform_faults % 2 == 0 and len(unmarked) >= tau:
                        trust = True
                if trust:
                    if predictor == "adversarial":
                        # claims furthest = actually requested soonest
                        victim = min(unmarked.items, key=next_use.__getitem__)
                    else:  # perfect predictions: Belady's choice
                        victim = max(unmarked.items, key=next_use.__getitem__)
                    evicted_by[victim] = "trust"
                else:
                    victim = unmarked.items[rng.randrange(len(unmarked))]
                    evicted_by[victim] = "uniform"
                unmarked.remove(victim)
                missing = victim
            else:
                unmarked.remove(page)  # a hit marks the page
    return faults


def least_squares(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    intercept = my - slope * mx
    rss = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys))
    se = math.sqrt(rss / (n - 2) / sxx)
    return slope, intercept, slope / se


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+",
                    default=[8, 16, 32, 64, 128, 256, 512, 1024])
    ap.add_argument("--phases", type=int, default=1500)
    ap.add_argument("--tau", type=int, default=16)
    ap.add_argument("--seed", type=int, default=20260521)
    ap.add_argument("--out", default="results/metrics.json")
    args = ap.parse_args()

    ks = sorted(args.k)
    additive = {}
    for k in ks:
        rng = random.Random(args.seed * 100003 + k)
        faults = run_phases(k, args.phases, rng, args.tau, "adversarial")
        additive[k] = round(faults / args.phases - harmonic(k), 3)

    consistency = {}
    for k in (8, 64, 512):
        rng = random.Random(args.seed * 100003 + k)
        faults = run_phases(k, 200, rng, args.tau, "perfect")
        consistency[k] = round(faults / 200, 3)

    measured = [additive[k] for k in ks]
    slope, intercept, t_stat = least_squares([math.log(k) for k in ks], measured)
    out = {
        "C1": {
            "additive_term": {str(k): additive[k] for k in ks},
            "sweep": {"values": ks, "measured": measured},
            "fit": {"slope_per_ln_k": round(slope, 3),
                    "intercept": round(intercept, 3),
                    "t_stat": round(t_stat, 1)},
        },
        "C2": {"competitive_ratio": {str(k): v for k, v in consistency.items()}},
        "config": {"phases": args.phases, "tau": args.tau, "seed": args.seed,
                   "instance": "k+1 pages, uniform requests",
                   "predictor": "adversarial (C1), perfect (C2)"},
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps(out["C1"]["fit"]), measured)


if __name__ == "__main__":
    main()
