"""Which KL does the released distillation loss compute? (paper r8GdN2-yUc)

The paper's Eq. (4) and Proposition 3.2 train the student q on the reverse KL,
KL(q || p) = sum_i q_i (log q_i - log p_i), which is mode-seeking. The released
loss (distill/losses.py, token_kl) is transcribed below from PyTorch to plain
Python, then

  1. compared with both KL directions on random distribution pairs, and
  2. used to fit a one-mode student to a two-mode teacher, next to a fit of
     the true reverse KL, to see the practical difference: how much student
     mass lands on tokens the teacher finds unlikely (p_i < 0.01).

Synthetic, standard library only, deterministic.
"""

import argparse
import json
import math
import os
import random

VOCAB = 21


def released_token_kl(teacher_logp, student_logp):
    # transcription of token_kl(): (t.exp() * (t - s)).sum(-1)
    return sum(math.exp(t) * (t - s) for t, s in zip(teacher_logp, student_logp))


def forward_kl(p, q):
    return sum(pi * (math.log(pi) - math.log(qi)) for pi, qi in zip(p, q))


def reverse_kl(p, q):
    return sum(qi * (math.log(qi) - math.log(pi)) for pi, qi in zip(p, q))


def softmax(logits):
    m = max(logits)
    e = [math.exp(x - m) for x in logits]
    z = sum(e)
    return [x / z for x in e]


def random_dist(rng):
    return softmax([rng.gauss(0.0, 2.0) for _ in range(VOCAB)])


def student(params):
    mu, log_sigma = params
    s2 = math.exp(2 * log_sigma)
    return softmax([-(i - mu) ** 2 / (2 * s2) for i in range(VOCAB)])


def teacher():
    bumps = [0.5 * math.exp(-(i - 5) ** 2 / 4.5) + 0.5 * math.exp(-(i - 15) ** 2 / 4.5)
             for i in range(VOCAB)]
    return softmax([math.log(b + 1e-4) for b in bumps])


def fit(objective, start, steps=10000, lr=0.1, h=1e-5):
    params = list(start)
    for _ in range(steps):
        grad = []
        for j in range(len(params)):
            up, down = list(params), list(params)
            up[j] += h
            down[j] -= h
            grad.append((objective(up) - objective(down)) / (2 * h))
        params = [p - lr * g for p, g in zip(params, grad)]
    return params


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="results/metrics.json")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    gap_fwd = gap_rev = 0.0
    for _ in range(args.pairs):
        p, q = random_dist(rng), random_dist(rng)
        loss = released_token_kl([math.log(x) for x in p], [math.log(x) for x in q])
        gap_fwd = max(gap_fwd, abs(loss - forward_kl(p, q)))
        gap_rev = max(gap_rev, abs(loss - reverse_kl(p, q)))

    p = teacher()
    logp = [math.log(x) for x in p]
    start = (7.0, 0.0)  # mean 7, sigma 1: nearer the left teacher mode
    by_code = fit(lambda th: released_token_kl(logp, [math.log(x) for x in student(th)]), start)
    by_reverse = fit(lambda th: reverse_kl(p, student(th)), start)

    def unlikely_mass(params):
        q = student(params)
        return sum(qi for pi, qi in zip(p, q) if pi < 0.01)

    out = {
        "C2": {
            "max_gap_to_forward_kl": round(gap_fwd, 6),
            "max_gap_to_reverse_kl": round(gap_rev, 3),
            "pairs": args.pairs,
        },
        "C3": {
            "unlikely_mass": {
                "released_loss": round(unlikely_mass(by_code), 3),
                "reverse_kl": round(unlikely_mass(by_reverse), 3),
            },
            "student_mean": {"released_loss": round(by_code[0], 2),
                             "reverse_kl": round(by_reverse[0], 2)},
            "student_sigma": {"released_loss": round(math.exp(by_code[1]), 2),
                              "reverse_kl": round(math.exp(by_reverse[1]), 2)},
        },
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
