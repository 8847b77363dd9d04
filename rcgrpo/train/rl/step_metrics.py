"""The diagnostics / log section of an RL step: one metrics dict, reduced over ranks.

Sources and how each is made exact in a data-parallel job:

- ``reward/ adv/ group/ theory/``: :func:`rcgrpo.group_diagnostics` on the GLOBAL reward
  grid of every group generated this step (all DAPO rounds; every rank holds the gathered
  grid, so quantiles such as ``group/var_p90`` are exact, not averages of rank quantiles).
  ``group/kept_frac`` tells how many of them the update trained on. The between/within-goal
  split of the advantage (``adv/*_share``, :mod:`rcgrpo.advantage_split`) describes the
  kept groups only: it is about where the update comes from (and is left out for an
  estimator the split does not apply to). ``theory/*`` needs goals drawn i.i.d. with
  probability p (a scheme declaring ``iid_p``, :class:`rcgrpo.conditioning.GoalScheme`).
- ``rollout/ tools/``: the gathered per-rollout table rows (same groups).
- ``policy/ loss/``: the update's local sums, all-reduced once as one vector; token means
  are Σ value·tokens / Σ tokens over all updates of the step, ``loss/*`` the mean over
  updates of the global loss, ratio extremes gathered, the grad norm is the global
  (post-sum, pre-clip) norm averaged over updates.
- ``perf/``: wall times of this step's phases (slowest rank), throughput, memory (largest
  rank), CPU time (sum over ranks).

Tensors are converted to floats once, in :func:`to_floats`, at the end of a log step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch

from rcgrpo.advantage_split import (
    SPLIT_METRICS,
    advantage_split,
    split_applies,
    split_summaries,
)
from rcgrpo.conditioning import bound_p, scheme_uses_token
from rcgrpo.diagnostics import group_diagnostics
from rcgrpo.metrics import METRICS
from rcgrpo.train.distributed import DistInfo, gather_floats
from rcgrpo.train.resources import cpu_seconds, peak_rss_gib
from rcgrpo.train.rl.filters import Collected, advantage_options, advantages_of
from rcgrpo.train.rl.update import (
    LOSS_STATS,
    TOKEN_MEAN_STATS,
    UpdateSettings,
    UpdateStats,
    needs_ref,
    reduce_sum,
)

PHASES = ("rollout", "gather", "ref", "update", "eval", "step")
"""Timed phases of an RL step (``perf/time_<phase>_s``): rollout = generation, environment
steps and reward scoring (episodes score as they run); gather = the per-rollout rows built
and gathered across ranks; ref = reference / old log-prob passes; update = the optimisation
without them; eval; step = all of it."""


class PhaseTimer:
    """Wall seconds per named phase of one step (``with timer("rollout"): ...``)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.clock = clock

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        if phase not in self.seconds:
            raise ValueError(f"unknown phase {phase!r}; one of {PHASES}")
        start = self.clock()
        try:
            yield
        finally:
            self.seconds[phase] += self.clock() - start


def group_metrics(collected: Collected, algo) -> dict[str, torch.Tensor]:
    """reward/ adv/ group/ theory/ of the generated groups (module docstring)."""
    rewards, high, options = collected.rewards, collected.high, advantage_options(algo)
    adv = advantages_of(rewards, high, **options, **collected.inputs(options["estimator"]))
    diag = group_diagnostics(rewards, adv, high, p=bound_p(algo.conditioning, algo.p_high))
    out = {k: v for k, v in diag.items() if k in METRICS}
    out["adv/abs_mean"] = adv.abs().mean()
    out["adv/nonzero_frac"] = (adv != 0).double().mean()
    out["group/kept_frac"] = collected.kept.double().mean()
    out["rollout/extra_batches"] = torch.tensor(float(len(collected.rounds) - 1))
    if high is not None and split_applies(algo.adv_estimator):
        out.update(split_metrics(collected, algo))
    return out


def split_metrics(collected: Collected, algo) -> dict[str, torch.Tensor]:
    """adv/ between/within-goal split of the KEPT groups, with the advantages the update
    trains on (the same call as :func:`rcgrpo.train.rl.filters.training_batch`); NaN when no
    group is kept."""
    kept, options = collected.kept, advantage_options(algo)
    if not bool(kept.any()):
        return {k: torch.tensor(float("nan"), dtype=torch.float64) for k in SPLIT_METRICS}
    high = collected.high[kept]
    inputs = collected.inputs(options["estimator"], kept)
    adv = advantages_of(collected.rewards[kept], high, **options, **inputs)
    between, within = advantage_split(adv, high)
    return split_summaries(between, within, high)


def _ratio(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    """num / den, NaN when den is 0 (e.g. no tool observation at all)."""
    return num / den if float(den) > 0 else torch.tensor(float("nan"), dtype=torch.float64)


def rollout_metrics(rows: list[dict]) -> dict[str, torch.Tensor]:
    """rollout/ tools/ and reward components from the per-rollout table rows."""

    def col(key: str) -> torch.Tensor:
        return torch.tensor([float(r[key]) for r in rows], dtype=torch.float64)

    calls = col("calls")
    return {
        "reward/state_mean": col("state").mean(),
        "reward/action_mean": col("action").mean(),
        "reward/bfcl_valid_frac": col("bfcl_valid").mean(),
        "rollout/length_mean": col("length").mean(),
        "rollout/length_max": col("length").max(),
        "rollout/gen_tokens_mean": col("gen_tokens").mean(),
        "rollout/steps_mean": col("steps").mean(),
        "rollout/turns_mean": col("turns").mean(),
        "rollout/truncated_frac": col("truncated").mean(),
        "rollout/capped_frac": (col("capped") > 0).double().mean(),
        "tools/calls_mean": calls.mean(),
        "tools/error_rate": _ratio(col("tool_errors").sum(), col("observations").sum()),
        "tools/no_call_frac": (calls == 0).double().mean(),
    }


def _sum_keys(cfg) -> list[str]:
    """The update sums every rank contributes (a fixed list: ranks without rows send 0)."""
    token = [
        k for k in TOKEN_MEAN_STATS if k != "policy/kl_ref" or needs_ref(UpdateSettings.of(cfg))
    ]
    losses = [
        k
        for k in LOSS_STATS
        if (k != "loss/kl" or cfg.algo.kl_beta > 0)
        and (k != "loss/entropy_bonus" or cfg.algo.entropy_coef > 0)
    ]
    extra = ["policy/entropy"]
    if scheme_uses_token(cfg.algo.conditioning):
        extra += ["policy/entropy_high", "policy/entropy_low", "tokens_high", "tokens_low"]
    return ["tokens", *token, *losses, *extra]


def update_metrics(stats: UpdateStats, cfg, info: DistInfo) -> dict[str, torch.Tensor]:
    """policy/ loss/ of the step's updates, reduced over ranks (module docstring)."""
    keys = _sum_keys(cfg)
    local = torch.stack(
        [torch.as_tensor(stats.sums.get(k, 0.0), dtype=torch.float64) for k in keys]
    )
    total = dict(zip(keys, reduce_sum(local, info), strict=True))
    tokens = total["tokens"]
    out = {"loss/nonfinite": torch.tensor(float(stats.skipped > 0))}
    if stats.updates:
        out["policy/grad_norm"] = torch.tensor(sum(stats.grad_norms) / stats.updates)
        out.update({k: total[k] / stats.updates for k in keys if k.startswith("loss/")})
        out["loss/active_tokens"] = tokens / cfg.optim.inner_epochs
    if float(tokens) > 0:
        for k in [*TOKEN_MEAN_STATS, "policy/entropy"]:
            if k in total:
                out[k] = total[k] / tokens
        for name in ("high", "low"):
            if float(total.get(f"tokens_{name}", 0.0)) > 0:
                out[f"policy/entropy_{name}"] = (
                    total[f"policy/entropy_{name}"] / total[f"tokens_{name}"]
                )
        extremes = gather_floats([float(stats.ratio_max), -float(stats.ratio_min)], info)
        out["policy/ratio_max"] = torch.tensor(max(extremes[0::2]))
        out["policy/ratio_min"] = torch.tensor(-max(extremes[1::2]))
    return out


def perf_metrics(timer: PhaseTimer, rows: list[dict], info: DistInfo) -> dict[str, torch.Tensor]:
    """perf/: phase times (slowest rank), tokens/s, peak RSS (largest rank), CPU time (sum)."""
    local = [timer.seconds[p] for p in PHASES] + [peak_rss_gib()]
    cpu = gather_floats([cpu_seconds()], info)
    parts = gather_floats(local, info)
    width = len(local)
    worst = [max(parts[i::width]) for i in range(width)]
    out = {f"perf/time_{p}_s": torch.tensor(worst[i]) for i, p in enumerate(PHASES)}
    generated = sum(r["gen_tokens"] for r in rows)
    out["perf/tokens_per_s"] = torch.tensor(generated / max(worst[0], 1e-9))
    out["perf/peak_rss_gib"] = torch.tensor(worst[-1])
    out["perf/cpu_time_s"] = torch.tensor(sum(cpu))
    return out


def to_floats(metrics: dict[str, torch.Tensor | float]) -> dict[str, float]:
    """The one tensor -> float conversion of a log step."""
    return {k: float(v) for k, v in metrics.items()}
