"""Look for a loss increase in Adaptive Scale Descent (paper Zm7Lw_3HqE,
Theorem 3.1 claims f(x_{t+1}) <= f(x_t) for every t).

Same update and defaults as the paper (eta = 0.05, beta = 0.95, eps = 1e-8,
v_0 = g_0^2), on f(x) = x^2 / 2, but run for 1000 steps instead of the 200
shown in the paper's Figure 2, and from several starting points.
"""

import argparse
import json
import math
import os

ETA, BETA, EPS = 0.05, 0.95, 1e-8


def trajectory(x0, steps):
    """Return (xs, vs, losses), index t = after t updates."""
    x, v = x0, x0 * x0
    xs, vs, losses = [x], [v], [0.5 * x * x]
    for _ in range(steps):
        g = x  # f'(x) for f(x) = x^2 / 2
        v = BETA * v + (1 - BETA) * g * g
        x = x - ETA * g / (math.sqrt(v) + EPS)
        xs.append(x)
        vs.append(v)
        losses.append(0.5 * x * x)
    return xs, vs, losses


def sig(value, digits=4):
    """Round to significant digits: the losses here span 80 orders of magnitude."""
    return float(f"{value:.{digits}g}")


def increases(losses):
    return [t for t in range(1, len(losses)) if losses[t] > losses[t - 1]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--x0", type=float, default=2.96)
    ap.add_argument("--out", default="results/metrics.json")
    args = ap.parse_args()

    xs, vs, losses = trajectory(args.x0, args.steps)
    bad = increases(losses)
    horizons = [h for h in (10, 100, 1000) if h <= args.steps]
    counts = [sum(1 for t in bad if t <= h) for h in horizons]
    first = bad[0] if bad else None

    scan = {}
    for x0 in (0.5, 1.0, 2.0, 2.96, 4.0):
        found = increases(trajectory(x0, args.steps)[2])
        scan[str(x0)] = found[0] if found else None

    c1 = {
        "loss_increases": {str(h): c for h, c in zip(horizons, counts)},
        "sweep": {"values": horizons, "measured": counts},
        "first_violation_step": first,
        "first_violation_by_x0": scan,
    }
    if first is not None:
        # the update multiplies x by (1 - eta / (sqrt(v) + eps)); once that
        # effective step size passes 2 / L = 2, |x| and f grow every step
        peak = max(range(first, len(losses)), key=losses.__getitem__)
        c1["counterexample"] = {
            "x0": args.x0,
            "step": first,
            "x_before": sig(xs[first - 1]),
            "x_after": sig(xs[first]),
            "effective_step_size": round(ETA / (math.sqrt(vs[first]) + EPS), 3),
            "loss_before": sig(losses[first - 1]),
            "loss_after": sig(losses[first]),
            "peak_step_after": peak,
            "peak_loss_after": sig(losses[peak]),
        }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"C1": c1}, f, indent=2)
    print(json.dumps(c1, indent=2))


if __name__ == "__main__":
    main()
