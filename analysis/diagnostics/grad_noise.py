r"""Gradient noise scale of the GRPO policy gradient at a checkpoint (McCandlish et al. 2018).

Why a step of the CPU recipe may not learn although its gradient points the right way: the
estimate of one step is too noisy. Each of N groups k (one prompt x G rollouts, sampled and
scored exactly as a training step does, with the trainer's advantages) gives the gradient
:math:`g_k` of its share of the policy loss, scaled so that the mean over groups is the
full-batch gradient. With :math:`\bar g = \frac1N\sum_k g_k`,

.. math::
    \widehat{\mathrm{tr}\,\Sigma} = \frac{1}{N-1}\sum_k \lVert g_k-\bar g\rVert^2, \qquad
    \widehat{\lVert G\rVert^2} = \lVert\bar g\rVert^2 - \widehat{\mathrm{tr}\,\Sigma}/N, \qquad
    B_{noise} = \mathrm{tr}\,\Sigma / \lVert G\rVert^2 \ \text{(groups)},

both unbiased (the second because :math:`E\lVert\bar g\rVert^2 = \lVert G\rVert^2 +
\mathrm{tr}\,\Sigma/N`). A step of P groups estimates G with
:math:`E\lVert\hat g_P\rVert^2 = \lVert G\rVert^2(1 + B_{noise}/P)`, so the share of its
squared norm that is signal is :math:`1/(1 + B_{noise}/P)`; SGD gains little from batches
above :math:`B_{noise}` and makes most of its progress per sample below it only at a small
enough learning rate (McCandlish et al., §2.2).

A second, model-free check: the cosine between one P-group step's gradient and the mean
gradient of the other steps' groups (positive on average iff the step's gradient carries
the direction the others agree on; ~0 when noise dominates).

The loss is the trainer's (:func:`rcgrpo.train.rl.update._minibatch_loss`) with β = 0: at the
start checkpoint π_θ = π_ref, where the KL term's gradient vanishes, so this is the step's
gradient there. Groups whose rewards are all equal have zero advantages and zero gradient;
they count in N as they count in a step.

    python -m analysis.diagnostics.grad_noise --init results/campaign/sft-s3/final \
        --preset cpu-grpo --tasks.num-train 6000 --steps 16 --seed 3 --out results/diagnostics/grad_noise-sft-s3.json

(``--tasks.num-train 6000``: the whole training set; the preset's own is the campaign's
16-task pool.)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import torch
from tqdm import tqdm


def noise_scale(sum_g: torch.Tensor, sum_sq: float, n: int) -> dict[str, float]:
    r"""Estimates of the module docstring from :math:`\sum_k g_k` and :math:`\sum_k\lVert
    g_k\rVert^2` over ``n`` >= 2 groups (float64 inside)."""
    if n < 2:
        raise ValueError(f"need at least 2 groups, got {n}")
    mean = sum_g.double() / n
    mean_sq = float(mean @ mean)
    trace = (float(sum_sq) - n * mean_sq) / (n - 1)
    signal = mean_sq - trace / n
    return {
        "groups": n,
        "mean_grad_sq": mean_sq,
        "trace_sigma": trace,
        "signal_sq": signal,
        "b_noise": trace / signal if signal > 0 else math.inf,
    }


def signal_share(b_noise: float, groups: int) -> float:
    """Expected share of a ``groups``-group step's squared gradient norm that is signal."""
    return 0.0 if math.isinf(b_noise) else 1.0 / (1.0 + b_noise / groups)


def jackknife(step_sums, step_sq, step_n) -> dict[str, float]:
    """Jackknife standard errors over steps (leave one step out) of |G|^2 and tr Σ, from each
    step's sum of group gradients, sum of their squared norms and group count."""
    total, sq, n, k = torch.stack(step_sums).double().sum(0), sum(step_sq), sum(step_n), len(step_n)
    loo = [
        noise_scale(total - s, sq - q, n - m)
        for s, q, m in zip(step_sums, step_sq, step_n, strict=True)
    ]
    signal, trace = [e["signal_sq"] for e in loo], [e["trace_sigma"] for e in loo]

    def se(values):
        mean = sum(values) / k
        return math.sqrt((k - 1) / k * sum((v - mean) ** 2 for v in values))

    return {"signal_sq_se": se(signal), "trace_sigma_se": se(trace)}


def leave_one_out_cosines(step_sums: list[torch.Tensor]) -> list[float]:
    """Cosine of each step's gradient (a sum over its groups) with the sum of the others'."""
    total = torch.stack(step_sums).double().sum(0)
    out = []
    for s in step_sums:
        s = s.double()
        rest = total - s
        denom = float(s.norm() * rest.norm())
        out.append(float(s @ rest) / denom if denom > 0 else 0.0)
    return out


def _flat_grad(model) -> torch.Tensor:
    return torch.cat(
        [
            (p.grad if p.grad is not None else torch.zeros_like(p)).reshape(-1).double()
            for p in model.parameters()
            if p.requires_grad
        ]
    )


def measure(argv: list[str], steps: int) -> dict:
    """Sample ``steps`` training steps' groups with ``python -m rcgrpo train`` flags ``argv``
    (no update is applied) and return the estimates plus per-step cosines."""
    from rcgrpo.train.cli import parse_cli
    from rcgrpo.train.rl.filters import GROUP_FILTERS, collect_groups, training_batch
    from rcgrpo.train.rl.setup import setup
    from rcgrpo.train.rl.update import (
        DENOMINATOR,
        LossContext,
        UpdateSettings,
        UpdateStats,
        _minibatch_loss,
    )
    from rcgrpo.train.rollouts import RoundGenerator

    with tempfile.TemporaryDirectory() as tmp:
        flags = [*argv, "--algo.kl-beta", "0", "--run.root", tmp, "--run.name", "grad-noise"]
        cfg = parse_cli("train", [*flags, "--run.no-tensorboard", "--run.no-progress"])
        run = setup(cfg)
        model, pad = run.model, run.tokenizer.pad_token_id
        sum_g, sum_sq, n, step_sums, rewards = None, 0.0, 0, [], []
        step_sq, step_n = [], []
        for step in tqdm(range(1, steps + 1), desc="grad-noise steps"):
            run.model.eval()
            gen = RoundGenerator(
                run.engine, run.train_tasks, run.stream, run.goals, cfg, run.info, step
            )
            keep = GROUP_FILTERS[cfg.algo.group_filter]
            collected = collect_groups(gen, keep, cfg.rollout.prompts_per_step, 0)
            batch, _ = training_batch(collected, cfg.algo)
            rewards.append(collected.rewards.mean().item())
            run.model.train()
            groups = sorted(set(batch.ordinal))
            rows_of = {k: [i for i, o in enumerate(batch.ordinal) if o == k] for k in groups}
            # the per-group denominator: the step's count shared equally, so that the mean
            # of the group gradients is the step's gradient
            counts = [int(r.loss_mask.sum()) for r in batch.rollouts]
            per_row = DENOMINATOR[cfg.algo.loss_agg] == "rows"
            total = sum(c > 0 for c in counts) if per_row else sum(counts)
            denominator = torch.tensor(max(total, 1) / len(groups), dtype=torch.float64)
            step_sum, sq = None, 0.0
            for k in groups:
                model.zero_grad(set_to_none=True)
                frozen = {"ref": None, "old": None}
                ctx = LossContext(UpdateSettings.of(cfg), frozen, denominator, UpdateStats())
                _minibatch_loss(model, batch, rows_of[k], ctx, pad)
                g = _flat_grad(model)
                sum_g = g.clone() if sum_g is None else sum_g.add_(g)
                step_sum = g.clone() if step_sum is None else step_sum.add_(g)
                sq += float(g @ g)
                n += 1
            sum_sq += sq
            step_sums.append(step_sum)
            step_sq.append(sq)
            step_n.append(len(groups))
        model.zero_grad(set_to_none=True)
    out = noise_scale(sum_g, sum_sq, n)
    if steps >= 2:
        out.update(jackknife(step_sums, step_sq, step_n))
    p = cfg.rollout.prompts_per_step
    out.update(
        prompts_per_step=p,
        group_size=cfg.rollout.group_size,
        steps=steps,
        success_rate=sum(rewards) / len(rewards),
        signal_share_of_a_step=signal_share(out["b_noise"], p),
        step_cosines=leave_one_out_cosines(step_sums),
        argv=list(argv),
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.diagnostics.grad_noise", description=__doc__
    )
    parser.add_argument("--init", required=True, help="checkpoint the gradient is taken at")
    parser.add_argument("--preset", default="cpu-grpo")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--steps", type=int, default=16, help="training steps' groups sampled")
    parser.add_argument("--out", type=Path, default=None, help="JSON result file")
    args, extra = parser.parse_known_args(argv)
    if args.steps < 2:
        parser.error(f"--steps must be >= 2 (the jackknife leaves one step out), got {args.steps}")
    torch.set_num_threads(1)
    flags = ["--preset", args.preset, "--run.seed", str(args.seed), "--init", args.init, *extra]
    out = measure(flags, args.steps)
    cos = out["step_cosines"]
    print(
        f"{out['groups']} groups ({out['steps']} steps x {out['prompts_per_step']} prompts, "
        f"G {out['group_size']}), training success {out['success_rate']:.3f}\n"
        f"|mean g|^2 {out['mean_grad_sq']:.3e}  tr Sigma {out['trace_sigma']:.3e}  "
        f"|G|^2 {out['signal_sq']:.3e} (jackknife SE {out.get('signal_sq_se', math.nan):.1e})\n"
        f"B_noise = {out['b_noise']:.1f} groups; signal share of a {out['prompts_per_step']}"
        f"-prompt step: {out['signal_share_of_a_step']:.3f}\n"
        f"leave-one-out cosine of a step with the rest: mean {sum(cos) / len(cos):+.3f} "
        f"(min {min(cos):+.3f}, max {max(cos):+.3f})"
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
