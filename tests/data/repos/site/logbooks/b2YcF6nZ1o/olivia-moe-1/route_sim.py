"""Reproduce the routing simulation of paper b2YcF6nZ1o (Table 1, Theorem 3.1).

Tokens arrive one at a time; each gets two candidate experts by uniform
hashing and goes to the less loaded one (ties: the first candidate). The
baseline ("hash routing") sends each token to a single uniformly hashed
expert. Loads are counted in tokens per batch.

  gap        = max expert load - mean expert load   (Theorem 3.1)
  imbalance  = max expert load / mean expert load   (Table 1)

Standard library only, deterministic for a given --seed.
"""

import argparse
import json
import os
import random


def route(n_experts, n_tokens, choices, rng):
    load = [0] * n_experts
    pick = rng.randrange
    if choices == 1:
        for _ in range(n_tokens):
            load[pick(n_experts)] += 1
    else:
        for _ in range(n_tokens):
            a, b = pick(n_experts), pick(n_experts)
            load[b if load[b] < load[a] else a] += 1
    return load


def mean(xs):
    return sum(xs) / len(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--experts", type=int, default=64)
    ap.add_argument("--tokens-per-expert", type=int, nargs="+",
                    default=[4, 16, 64, 256, 1024])
    ap.add_argument("--sweep-batches", type=int, default=12)
    ap.add_argument("--table-batches", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", default="results/metrics.json")
    args = ap.parse_args()
    n = args.experts
    rng = random.Random(args.seed)

    # Theorem 3.1: the gap does not grow with the number of tokens
    gaps = {}
    for per in args.tokens_per_expert:
        runs = [max(route(n, n * per, 2, rng)) - per for _ in range(args.sweep_batches)]
        gaps[per] = round(mean(runs), 2)

    # Table 1: 64 experts, 4,096 tokens per batch
    tokens = 4096
    two = [max(route(n, tokens, 2, rng)) * n / tokens for _ in range(args.table_batches)]
    one = [max(route(n, tokens, 1, rng)) * n / tokens for _ in range(args.table_batches)]

    pers = sorted(gaps)
    out = {
        "C1": {
            "gap": {str(p): gaps[p] for p in pers},
            "sweep": {"values": pers, "measured": [gaps[p] for p in pers]},
        },
        "C2": {"imbalance": round(mean(two), 3), "batches": args.table_batches},
        "C3": {"imbalance": round(mean(one), 3), "batches": args.table_batches},
        "config": {"experts": n, "tokens_per_batch": tokens, "seed": args.seed},
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps({k: out[k] for k in ("C1", "C2", "C3")}))


if __name__ == "__main__":
    main()
