r"""The regime diagnostic of a Stage-1 checkpoint: can RL sharpen what it samples?

At a checkpoint, on the held-out tasks of an RL preset (its ``tasks`` section: synth ``cpu``
test split, 200 tasks, combined mode) and with the preset's rollout settings (temperature τ,
``max_new_tokens``, ``max_context``, batch), for each reward goal asked for (``none`` |
``high`` | ``low``):

- greedy success (τ = 0, as the trainer's held-out evaluation) and its failure kinds;
- n = 8 samples per task at τ: unbiased pass@k for k = 1…8
  (:mod:`analysis.diagnostics.regime.passk`), both per synth category; the share of tasks
  that fail greedily but succeed in ≥ 1 sample;
- failure kinds of the samples, and for each kind of greedy failure P(right | sampled)
  against chance (:mod:`analysis.diagnostics.regime.kinds`);

and, with ``--grad-steps S > 0``, the gradient noise scale and step cosines of the preset's
policy gradient over fresh tasks of its whole training distribution (S steps × P prompts,
:func:`analysis.diagnostics.grad_noise.measure`). Rollouts go through the project's
evaluation entry (:func:`rcgrpo.policy.evaluate.evaluate_policy`: the batched engine, the
environment's reward). The regime design's gates
(:mod:`analysis.campaigns.regime_design.gates`) read the JSON this writes::

    OMP_NUM_THREADS=1 python -m analysis.diagnostics.regime --init results/campaign/sft-s0/final \
        --conditions none high --grad-steps 32 --grad-train-tasks 6000 \
        --out results/diagnostics/regime-sft-s0.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from analysis.diagnostics.regime.measure import SAMPLES, diagnose


def _print_summary(report: dict) -> None:
    for cond, c in report["conditions"].items():
        ks = " ".join(f"{x:.3f}" for x in c["pass_at_k"]["overall"])
        h = c["headroom"]
        print(
            f"[{cond}] greedy {c['greedy']['overall']:.3f}  pass@1..8 {ks}\n"
            f"  greedy fail, >=1 sample succeeds: {h['greedy_fail_sample_success']} of "
            f"{h['greedy_failures']} greedy failures ({h['share_of_tasks']:.3f} of tasks)"
        )
        for kind, s in c["support"].items():
            chance = "n/a" if s["chance"] is None else f"{s['chance']:.3f}"
            print(
                f"  {kind:<16} {s['tasks']:>3} tasks ({s['share_of_failures']:.2f})  "
                f"P(right|sampled) {s['p_right']:.3f}  chance {chance}"
            )
    if "grad_noise" in report:
        g = report["grad_noise"]
        print(
            f"grad noise: {g['groups']} groups, B_noise {g['b_noise']:.1f}, "
            f"cosine {g['cosine_mean']:+.3f} ± {g['cosine_se']:.3f} (SE)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.diagnostics.regime", description=__doc__
    )
    parser.add_argument("--init", help="Stage-1 checkpoint folder")
    parser.add_argument("--preset", default="cpu-grpo", help="RL preset: tasks and rollouts")
    parser.add_argument(
        "--conditions", nargs="+", default=["none"], choices=["none", "high", "low"]
    )
    parser.add_argument("--tasks", type=int, default=200, help="held-out tasks")
    parser.add_argument(
        "--synth-preset", default=None, help="the synth suite (default: the preset's)"
    )
    parser.add_argument("--samples", type=int, default=SAMPLES, help="samples per task at tau")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grad-steps", type=int, default=0, help="grad-noise steps (0: skip)")
    parser.add_argument("--grad-preset", default=None, help="RL preset of the gradient")
    parser.add_argument(
        "--grad-train-tasks", type=int, default=None, help="training tasks of the gradient"
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON report")
    args = parser.parse_args(argv)
    if not args.init:
        parser.error("--init is required")
    if args.samples < 8:
        parser.error(f"--samples must be >= 8 (pass@1..8), got {args.samples}")
    if args.grad_steps == 1:
        parser.error("--grad-steps must be 0 or >= 2 (the jackknife leaves one step out)")
    torch.set_num_threads(1)
    start = time.perf_counter()
    report = diagnose(args)
    report["time_s"]["total"] = time.perf_counter() - start
    _print_summary(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
