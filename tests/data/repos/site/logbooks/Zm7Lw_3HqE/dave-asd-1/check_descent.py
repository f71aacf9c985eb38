"""Check Theorem 3.1 of paper Zm7Lw_3HqE: Adaptive Scale Descent (ASD) never
increases the loss. Runs ASD with the paper's defaults on the Figure 2 problem
(f(x) = x^2 / 2, x0 = 2.96) and counts the steps where f goes up.

    v_t = beta * v_{t-1} + (1 - beta) * g_t^2,   v_0 = g_0^2
    x_{t+1} = x_t - eta * g_t / (sqrt(v_t) + eps)
"""

import argparse
import json
import math
import os


def asd_losses(x0, steps, eta=0.05, beta=0.95, eps=1e-8):
    x = x0
    v = x0 * x0
    losses = [0.5 * x * x]
    for _ in range(steps):
        g = x
        v = beta * v + (1 - beta) * g * g
        x = x - eta * g / (math.sqrt(v) + eps)
        losses.append(0.5 * x * x)
    return losses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--x0", type=float, default=2.96)
    ap.add_argument("--out", default="results/metrics.json")
    args = ap.parse_args()

    losses = asd_losses(args.x0, args.steps)
    increases = [t for t in range(1, len(losses)) if losses[t] > losses[t - 1]]
    horizons = [h for h in (50, 100, 200) if h <= args.steps]
    counts = [sum(1 for t in increases if t <= h) for h in horizons]
    out = {"C1": {
        "loss_increases": {str(h): c for h, c in zip(horizons, counts)},
        "sweep": {"values": horizons, "measured": counts},
        "final_loss": float(f"{losses[-1]:.4g}"),
    }}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
