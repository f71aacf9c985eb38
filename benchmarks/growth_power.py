"""How often the growth test (judge.growth) calls a flat noisy sweep growing, and how often it
catches real growth. Prints figures; asserts nothing.

    python benchmarks/growth_power.py [trials]

Flat sweeps: a constant plus Gaussian noise of sd = tolerance x ratio. Growing sweeps:
y = 1 + c * f(x) with f = ln x, x / x_max and sqrt(x / x_max), scaled so the true rise
across the sweep is 2x the tolerance, plus the same noise.
"""

from __future__ import annotations

import math
import random
import sys

from reproaudit.judge.growth import growth

TOL = 0.5
GRIDS = {
    "decades 10..10^4 (4 pts)": [10.0**e for e in range(1, 5)],
    "decades 10..10^6 (6 pts)": [10.0**e for e in range(1, 7)],
    "doubling 2..4096 (12 pts)": [2.0**e for e in range(1, 13)],
    "doubling 8..64 (4 pts)": [8.0, 16.0, 32.0, 64.0],
}
SHAPES = {
    "ln": lambda x, xs: math.log(x / xs[0]) / math.log(xs[-1] / xs[0]),
    "linear": lambda x, xs: (x - xs[0]) / (xs[-1] - xs[0]),
    "sqrt": lambda x, xs: (
        (math.sqrt(x) - math.sqrt(xs[0])) / (math.sqrt(xs[-1]) - math.sqrt(xs[0]))
    ),
}


def rate(xs: list[float], make, trials: int, rng: random.Random) -> tuple[float, float]:
    """(share called growing by rules v2, share by the v1 test: the ln fit alone)."""
    v2 = v1 = 0
    for _ in range(trials):
        g = growth(list(zip(xs, make(xs, rng), strict=True)), TOL)
        v2 += bool(g and g.grows)
        v1 += bool(g and any(f.form == "ln" and f.significant(TOL) for f in g.fits))
    return v2 / trials, v1 / trials


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rng = random.Random(1)
    print(
        f"tolerance {TOL}; {trials} sweeps per cell; share called 'growing' by rules v2 "
        "(three fits) and, in brackets, by v1 (ln fit only)"
    )
    for noise in (0.1, 0.25, 0.5, 1.0):
        sd = TOL * noise
        print(f"\nnoise sd = {noise:g} x tolerance")
        for name, xs in GRIDS.items():
            flat = rate(xs, lambda xs, r, sd=sd: [1 + r.gauss(0, sd) for _ in xs], trials, rng)
            caught = {
                shape: rate(
                    xs,
                    lambda xs, r, f=f, sd=sd: [1 + 2 * TOL * f(x, xs) + r.gauss(0, sd) for x in xs],
                    trials,
                    rng,
                )
                for shape, f in SHAPES.items()
            }
            found = ", ".join(f"{k} {v2:6.1%} (v1 {v1:6.1%})" for k, (v2, v1) in caught.items())
            print(
                f"  {name:<26} flat: false positives {flat[0]:5.1%} (v1 {flat[1]:5.1%})   "
                f"growth caught: {found}"
            )


if __name__ == "__main__":
    main()
