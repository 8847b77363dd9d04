"""The collapse instruments on a **stock** TRL ``GRPOTrainer``: a ``TrainerCallback``.

::

    from rcgrpo.integrations.trl_callback import GroupDiagnosticsCallback
    trainer = GRPOTrainer(model=..., reward_funcs=[...], args=GRPOConfig(...), ...)
    trainer.add_callback(GroupDiagnosticsCallback(trainer))
    trainer.train()

After each generation round TRL keeps, for its completion logging, the round's gathered
per-function rewards (``trainer._logs["rewards"]``) and the advantages it trains on
(``trainer._logs["advantages"]``), group-major. The callback reads them at
``on_substep_end`` / ``on_step_end`` (a round runs inside ``training_step``; it detects a new
one by the growth of TRL's ``frac_reward_zero_std`` list, which TRL replaces at each log step), forms the reward as TRL does
(Σ_k w_k R_k over reward functions, ``trainer.reward_weights``), and appends
:func:`rcgrpo.diagnose.instruments.step_instruments` of the [P, G] grid to TRL's metric lists
(``trainer._metrics["train"]``), so TRL averages them over its logging window and sends them
to every backend it logs to (TensorBoard, W&B, trackio, ``state.log_history``) next to its
own ``frac_reward_zero_std``. The user's reward functions are not touched.

With ``rollout_log`` it also appends one JSON row per rollout (``step`` = the step TRL logs
the round at, ``group``, ``reward``, ``advantage``): ``python -m rcgrpo diagnose FILE
--advantage-col advantage`` on that file gives the same per-step numbers.

Limits: train rounds only; a round with an unscorable completion (every reward function
returned None) is skipped with a warning; with ``multi_objective_aggregation=
"normalize_then_sum"`` the reward is still Σ_k w_k R_k (TRL's advantages then come from
normalised rewards). ``frac_reward_zero_std`` equals ``group/zero_var_frac`` under
``scale_rewards`` "group" or "none" (TRL tests σ_g ≈ 0 with ``isclose``; ours is max = min,
the same for rewards that are not within 1e-8 of each other).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import torch
from transformers import TrainerCallback

from rcgrpo.diagnose.instruments import step_instruments
from rcgrpo.metrics import validate_metric_names

_ROUND_KEY = "frac_reward_zero_std"
"""TRL appends one value to this list per generation round."""


class GroupDiagnosticsCallback(TrainerCallback):
    """Logs the collapse instruments of every train round of a stock ``GRPOTrainer``.

    Args:
        trainer: the ``GRPOTrainer`` (callbacks receive no trainer, so it is passed here).
        success_value / fail_value: the rewards that count as pass / fail.
        rollout_log: optional JSONL file to append one row per rollout to (main process).
    """

    def __init__(
        self,
        trainer: Any,
        *,
        success_value: float = 1.0,
        fail_value: float = 0.0,
        rollout_log: str | Path | None = None,
    ) -> None:
        self.trainer = trainer
        self.success_value, self.fail_value = success_value, fail_value
        self.rollout_log = None if rollout_log is None else Path(rollout_log)
        self.seen, self._list = 0, None
        self.last: dict[str, Any] = {}

    def round_grid(self) -> tuple[torch.Tensor, torch.Tensor]:
        """([P, G] rewards, [P, G] advantages) of the last generation round, read from TRL."""
        tr = self.trainer
        size, group = tr.args.generation_batch_size, tr.num_generations
        per_func = [list(tr._logs["rewards"][name])[-size:] for name in tr.reward_func_names]
        table = torch.tensor(per_func, dtype=torch.float64).T  # [B, F]
        weights = tr.reward_weights.detach().cpu().double()
        rewards = (table * weights).nansum(dim=1)
        rewards[torch.isnan(table).all(dim=1)] = float("nan")
        adv = torch.tensor(list(tr._logs["advantages"])[-size:], dtype=torch.float64)
        return rewards.view(-1, group), adv.view(-1, group)

    def _collect(self, step: int) -> None:
        tr = self.trainer
        if not tr.model.training:
            return
        values = tr._metrics["train"].get(_ROUND_KEY)
        if values is None:
            return
        if values is not self._list:  # TRL cleared its lists at a log step: a fresh list
            self._list, self.seen = values, 0
        count = len(values)
        if count <= self.seen:
            return
        if count > self.seen + 1:
            warnings.warn("GroupDiagnosticsCallback: rounds were missed", stacklevel=2)
        self.seen = count
        rewards, adv = self.round_grid()
        if bool(torch.isnan(rewards).any()):
            warnings.warn(f"step {step}: unscorable completions, round skipped", stacklevel=2)
            return
        metrics = step_instruments(
            rewards, adv, success_value=self.success_value, fail_value=self.fail_value
        )
        validate_metric_names(metrics)
        for name, value in metrics.items():
            tr._metrics["train"][name].append(value)
        self.last = {"step": step, "rewards": rewards, "advantages": adv, "metrics": metrics}
        if self.rollout_log is not None and tr.accelerator.is_main_process:
            self._write(step, rewards, adv)

    def _write(self, step: int, rewards: torch.Tensor, adv: torch.Tensor) -> None:
        self.rollout_log.parent.mkdir(parents=True, exist_ok=True)
        with self.rollout_log.open("a") as fh:
            for p in range(rewards.shape[0]):
                for g in range(rewards.shape[1]):
                    row = {"step": step, "group": p, "reward": float(rewards[p, g])}
                    row["advantage"] = float(adv[p, g])
                    fh.write(json.dumps(row) + "\n")

    def on_substep_end(self, args, state, control, **kwargs):
        self._collect(state.global_step + 1)  # inside optimizer step global_step + 1

    def on_step_end(self, args, state, control, **kwargs):
        self._collect(state.global_step)  # global_step already counts this step
