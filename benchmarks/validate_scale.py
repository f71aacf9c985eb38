"""Time `reproaudit validate` on a conference-scale repository.

Generates the synthetic corpus of ``benchmarks/corpus.py`` (6,352 papers, 36,000 claims,
6,816 logbooks by default) into a temporary directory, or reuses one given with
``--corpus DIR``, then times:

- a baseline: read and parse every YAML file with ``yaml.CSafeLoader`` and nothing else;
- ``reproaudit.validate.validate_repo(root)``: the whole-repository check CI runs (its result
  may be a list of Problems or a report with ``.problems`` and ``.checked``).

It prints the figures and PASS or FAIL against the target (validate in under 15 s, with no
problem reported on a corpus that is valid by construction). It prints rather than asserts;
the exit status is 0 on PASS and 1 on FAIL.

    python benchmarks/validate_scale.py [--corpus DIR] [--verdicts] [--papers N] [--logbooks N]

The corpus goes to a directory made by ``tempfile.mkdtemp``, so ``TMPDIR=/dev/shm`` puts it on
tmpfs: creating 13,000 small files on a slow or busy disk can take longer than generating them.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import generate_corpus  # noqa: E402

TARGET_SECONDS = 15.0


def import_validate_repo():
    """`reproaudit.validate.validate_repo`, from the installed package or from scripts/."""
    try:
        from reproaudit.validate import validate_repo
    except ImportError:
        sys.path.insert(0, str(HERE.parent / "scripts"))
        try:
            from reproaudit.validate import validate_repo
        except ImportError as exc:
            return None, exc
    return validate_repo, None


def data_files(root: Path) -> dict[str, list[Path]]:
    """The repository's YAML data files by kind (reviews.yaml is not a verdict)."""
    return {
        "papers": sorted(root.glob("claims/*/*.yaml")),
        "logbooks": sorted(root.glob("logbooks/*/*.yaml")),
        "verdicts": sorted(p for p in root.glob("verdicts/*/*.yaml") if p.name != "reviews.yaml"),
        "reviews": sorted(root.glob("verdicts/*/reviews.yaml")),
    }


def read_all(files: list[Path]) -> tuple[int, int]:
    """The baseline: parse each file with libyaml. Returns (claims seen, bytes read)."""
    claims = size = 0
    for path in files:
        text = path.read_bytes()
        size += len(text)
        data = yaml.load(text, Loader=yaml.CSafeLoader)
        if path.parts[-3] == "claims" and isinstance(data, dict):
            claims += len(data.get("claims") or [])
    return claims, size


def describe(problem) -> str:
    where = f"{getattr(problem, 'path', '?')}:{getattr(problem, 'line', None) or '?'}"
    kind = "error" if getattr(problem, "is_error", True) else "warning"
    return (
        f"{where}: {kind} [{getattr(problem, 'code', '?')}] {getattr(problem, 'message', problem)}"
    )


def row(label: str, value: str) -> None:
    print(f"{label + ':' if label else '':<21}{value}", flush=True)


def as_problems(result) -> tuple[list, int | None]:
    """Problems (and files checked, when known) from validate_repo's result.

    Accepts a list of Problems or a report object with ``problems`` (and ``checked``).
    """
    if hasattr(result, "problems"):
        return list(result.problems), getattr(result, "checked", None)
    return list(result), None


def run(root: Path, generation_seconds: float | None, repeat: int) -> bool:
    files = data_files(root)
    every = files["papers"] + files["logbooks"] + files["verdicts"] + files["reviews"]
    runs = f" (best of {repeat})" if repeat > 1 else ""

    best_base = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        claims, size = read_all(every)
        best_base = min(best_base, time.perf_counter() - start)

    libyaml = "yes" if yaml.__with_libyaml__ else "no"
    row("corpus", str(root))
    row(
        "machine",
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"PyYAML {yaml.__version__} (libyaml {libyaml})",
    )
    row("files", f"{len(every)} ({size / 1e6:.1f} MB)")
    row("papers", str(len(files["papers"])))
    row("claims", str(claims))
    row("logbooks", str(len(files["logbooks"])))
    row("verdicts", str(len(files["verdicts"])))
    gen = "reused (--corpus)" if generation_seconds is None else f"{generation_seconds:.2f} s"
    row("generation", gen)
    row("baseline read", f"{best_base:.2f} s{runs}  [yaml.CSafeLoader on every file]")

    validate_repo, import_error = import_validate_repo()
    if validate_repo is None:
        row("validate", f"not run: cannot import reproaudit.validate ({import_error})")
        row("", "install the package first: pip install -e /work/main")
        row("result", f"FAIL (validate_repo unavailable; target {TARGET_SECONDS:.0f} s)")
        return False

    best_validate = float("inf")
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            result = validate_repo(Path(root))
            best_validate = min(best_validate, time.perf_counter() - start)
        problems, checked = as_problems(result)
    except Exception:  # a crash is a finding to print, not a reason to lose the figures
        row("validate", "crashed:")
        traceback.print_exc(file=sys.stdout)
        row("result", "FAIL (validate_repo raised)")
        return False

    errors = [p for p in problems if getattr(p, "is_error", True)]
    warnings = [p for p in problems if not getattr(p, "is_error", True)]
    checked_text = "" if checked is None else f", {checked} files checked"
    row(
        "validate",
        f"{best_validate:.2f} s{runs}  [reproaudit.validate.validate_repo{checked_text}]",
    )
    row("ratio", f"{best_validate / best_base:.2f}x the baseline read")
    row("throughput", f"{len(every) / best_validate:.0f} files/s")
    row("problems", f"{len(problems)} ({len(errors)} errors, {len(warnings)} warnings)")
    for problem in problems[:5]:
        print(f"  {describe(problem)}")
    if len(problems) > 5:
        print(f"  ... and {len(problems) - 5} more")

    fast = best_validate < TARGET_SECONDS
    clean = not problems
    row(
        "time target",
        f"{'PASS' if fast else 'FAIL'} ({best_validate:.2f} s vs {TARGET_SECONDS:.0f} s)",
    )
    row(
        "no problems", f"{'PASS' if clean else 'FAIL'} ({len(problems)} reported on a valid corpus)"
    )
    row("result", "PASS" if fast and clean else "FAIL")
    return fast and clean


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="reuse this corpus instead of generating one")
    parser.add_argument("--papers", type=int, default=6352)
    parser.add_argument("--logbooks", type=int, default=6816)
    parser.add_argument("--claims", type=int, default=36000, dest="claims_total")
    parser.add_argument("--verdicts", action="store_true", help="generate verdict files too")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--repeat", type=int, default=1, help="time each step N times, report the best"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the generated corpus and print its path"
    )
    args = parser.parse_args(argv)

    if args.corpus is not None:
        if not (args.corpus / "claims").is_dir():
            print(f"error: {args.corpus} has no claims/ directory", file=sys.stderr)
            return 2
        return 0 if run(args.corpus, None, args.repeat) else 1

    tmp = Path(tempfile.mkdtemp(prefix="reproaudit-corpus-"))
    try:
        start = time.perf_counter()
        generate_corpus(
            tmp,
            papers=args.papers,
            logbooks=args.logbooks,
            claims_total=args.claims_total,
            verdicts=args.verdicts,
            seed=args.seed,
        )
        generation = time.perf_counter() - start
        ok = run(tmp, generation, args.repeat)
    finally:
        if args.keep:
            row("kept", f"{tmp}")
        else:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
