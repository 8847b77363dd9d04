"""``python -m analysis.theory check [--json PATH] [--configs N] [--seed S]``.

Evaluates every statement (see :mod:`analysis.theory`) on N random configurations plus the
paper's settings (G = 5, p = ½), prints one row per statement — configurations tried,
comparisons, violations, worst slack of the exact bounds, largest error / tolerance of the
equalities, status — and the notes (extra assumptions, counterexamples), writes the JSON
report, and exits 1 if any comparison is violated. Statements run in ``--workers``
processes (default 2, one torch thread each).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from analysis.theory import STATEMENTS, run_check

# heaviest first, so two workers finish together
ORDER = (
    "near_collapse",
    "transfer",
    "remark_4_4",
    "separation",
    "prop_4_2",
    "stratified",
    "prop_4_3",
    "def_4_1",
    "lemma_a_3_a_4",
    "lemma_a_2",
)


def _timed_check(statement: str, num_configs: int, seed: int) -> tuple[dict, float]:
    import torch

    torch.set_num_threads(1)
    start = time.perf_counter()
    result = run_check(statement, num_configs=num_configs, seed=seed)
    return result.to_dict(), time.perf_counter() - start


def _fmt(x: float | None, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def format_table(entries: list[dict]) -> str:
    """The summary table: one row per statement."""
    head = f"{'statement':<15}{'configs':>8}{'compared':>10}{'violations':>11}"
    head += f"{'worst slack':>13}{'max err/tol':>13}  {'status':<9}{'sec':>6}"
    lines = [head, "-" * len(head)]
    for e in entries:
        lines.append(
            f"{e['statement']:<15}{e['configs']:>8}{e['comparisons']:>10}{e['violations']:>11}"
            f"{_fmt(e['worst_slack'], '.3g'):>13}{_fmt(e['max_err_over_tol'], '.3f'):>13}  "
            f"{e['status']:<9}{e['seconds']:>6.1f}"
        )
    return "\n".join(lines)


def format_notes(entries: list[dict]) -> str:
    out = []
    for e in entries:
        out.append(f"[{e['statement']}] {e['title']}")
        for note in e["notes"]:
            out.append(textwrap.fill(note, 100, initial_indent="  - ", subsequent_indent="    "))
        for v in e["violation_examples"]:
            out.append(
                f"  ! VIOLATED {v['quantity']}: true {v['true']:.6g} {v['relation']} "
                f"predicted {v['predicted']:.6g} (tol {v['tol']:.2g}) at {v['config']}"
            )
    return "\n".join(out)


def run(statements: list[str], num_configs: int, seed: int, workers: int) -> list[dict]:
    order = [s for s in ORDER if s in statements] + [s for s in statements if s not in ORDER]
    if workers <= 1:
        results = {s: _timed_check(s, num_configs, seed) for s in order}
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {s: pool.submit(_timed_check, s, num_configs, seed) for s in order}
            results = {s: f.result() for s, f in futures.items()}
    entries = []
    for s in statements:  # registry order in the table
        entry, seconds = results[s]
        entries.append(entry | {"seconds": round(seconds, 2)})
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.theory")
    parser.add_argument("command", choices=["check", "list"])
    parser.add_argument("--json", type=Path, default=None, help="write the JSON report here")
    parser.add_argument("--configs", type=int, default=200, help="random configs per statement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=None, help="statement ids to run")
    parser.add_argument("--workers", type=int, default=2, help="processes (1 = in-process)")
    args = parser.parse_args(argv)
    if args.command == "list":
        print("\n".join(STATEMENTS))
        return 0
    statements = list(STATEMENTS) if args.only is None else args.only
    unknown = sorted(set(statements) - set(STATEMENTS))
    if unknown or not statements:
        print(f"error: unknown statement(s) {unknown}; have {list(STATEMENTS)}", file=sys.stderr)
        return 2
    if args.configs < 0:
        print("error: --configs must be >= 0", file=sys.stderr)
        return 2
    start = time.perf_counter()
    entries = run(statements, args.configs, args.seed, args.workers)
    elapsed = time.perf_counter() - start
    print(format_table(entries))
    print(
        f"\n{len(entries)} statements, {sum(e['comparisons'] for e in entries)} comparisons, "
        f"{sum(e['violations'] for e in entries)} violations, {elapsed:.1f} s\n"
    )
    print(format_notes(entries))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "configs_per_statement": args.configs,
            "seed": args.seed,
            "seconds": round(elapsed, 2),
            "statements": entries,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 1 if any(e["violations"] for e in entries) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into `head`
        sys.exit(0)
