"""The collapse gates of one design seed from its committed files (``docs/protocols/collapse-testbed.md``)::

    python -m analysis.campaigns.collapse_design.report \\
        --sft results/diagnostics/collapse-sft-c1-s31.json \\
        --rctp results/diagnostics/collapse-rctp-c1-s31.json \\
        --stage1 results/collapse/sft-c1-s31 --pilot results/collapse/pilot-grpo-c1-s31 \\
        [--long-pilot RUN] [--kind any] [--out results/diagnostics/collapse-gates-c1-s31.json]

prints one line per gate (:mod:`analysis.campaigns.collapse_design.gates`, then G0 and G5 of
:mod:`analysis.diagnostics.regime.gates`) and writes them as JSON with ``--out``. A missing
input leaves its gate "not measured"; a path that does not exist is one line and exit 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from analysis.campaigns.collapse_design import gates as cg
from analysis.diagnostics.regime.decisions import ANY
from analysis.diagnostics.regime.gates import Gate, g0_fit, g5_sft_rc
from analysis.runs import load_run


def eval_series(run_folder: Path, read) -> dict[int, float]:
    """{step: read(condition 'none' block)} over a run's held-out evaluations."""
    out = {}
    for step, ev in load_run(run_folder).step_evals.items():
        value = read(ev["conditions"]["none"])
        if value is not None:
            out[step] = value
    return out


def _success(block: dict) -> float:
    return block["overall"]["reward"]["mean"]


def _right(block: dict) -> float | None:
    return (block.get("decisions") or {}).get("right", {}).get("mean")


def collapse_gates(args: argparse.Namespace) -> list[Gate]:
    """Every gate from the paths of ``args`` (module docstring)."""
    sft = json.loads(args.sft.read_text()) if args.sft else None
    rctp = json.loads(args.rctp.read_text()) if args.rctp else None
    out = []
    if args.stage1:
        rows = load_run(args.stage1).metrics
        out.append(g0_fit(rows[["sft/token_acc"]].dropna().to_dict("records")))
    if args.pilot:
        run = load_run(args.pilot)
        group = run.config["rollout"]["group_size"]
        rows = run.metrics.to_dict("records")
        out.append(cg.c_collapse(rows, eval_series(args.pilot, _success), group))
    else:
        out.append(cg.c_collapse([], {}, cg.PILOT_GROUP))
    out.append(cg.h_headroom(sft, args.kind))
    out.append(cg.h2_reachable(eval_series(args.long_pilot, _right) if args.long_pilot else None))
    out.append(cg.r_rescue(rctp, args.kind))
    out.append(g5_sft_rc(sft))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m analysis.campaigns.collapse_design.report")
    p.add_argument("--sft", type=Path, help="the SFT diagnostic report (--samples >= 32)")
    p.add_argument("--rctp", type=Path, help="the RCTP-FT diagnostic report (high and low)")
    p.add_argument("--stage1", type=Path, help="the SFT run folder (G0)")
    p.add_argument("--pilot", type=Path, help="the SFT + GRPO pilot at G = 5 (gate C)")
    p.add_argument("--long-pilot", type=Path, help="a pilot of >= 400 steps (gate H′)")
    p.add_argument("--kind", default=ANY, help="the collapse decision kind (default: pooled)")
    p.add_argument("--out", type=Path, help="write the verdicts as JSON")
    args = p.parse_args(argv)
    for name in ("sft", "rctp", "stage1", "pilot", "long_pilot"):
        path = getattr(args, name)
        if path is not None and not path.exists():
            print(
                f"error: --{name.replace('_', '-')} {path}: no such file or folder", file=sys.stderr
            )
            return 2
    gates = collapse_gates(args)
    for g in gates:
        verdict = {True: "holds", False: "FAILS", None: "not measured"}[g.holds]
        values = ", ".join(
            f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in g.values.items()
        )
        print(f"{g.name:<18} {verdict:<13} {values}   [{g.threshold}]")
    if args.out:
        inputs = {k: str(v) for k, v in vars(args).items() if isinstance(v, Path) and k != "out"}
        doc = {"inputs": inputs, "kind": args.kind, "gates": [dataclasses.asdict(g) for g in gates]}
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
