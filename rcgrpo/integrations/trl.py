"""RC-GRPO on TRL's ``GRPOTrainer`` (trl 1.16): per-rollout goals, our episodes, our metrics.

::

    from rcgrpo.integrations.trl import RCGRPOTrainer, RolloutSettings
    trainer = RCGRPOTrainer(model_dir, GRPOConfig(...), tasks, tokenizer,
                            RolloutSettings(scheme="iid", mode="combined"))
    trainer.train()

What it adds to TRL, without forking it:

- generation: TRL's ``rollout_func`` hook runs :class:`~rcgrpo.integrations.trl_rollout.EpisodeRollout`
  (a goal drawn per rollout, multi-turn episodes through :class:`rcgrpo.env.Episode`);
- reward: :func:`environment_reward`, the environment's R = R_state · R_action;
- metrics: after TRL has computed its advantages, :func:`group_metrics` (our
  :func:`rcgrpo.group_diagnostics` on the gathered [P, G] grid) is appended to TRL's metric
  lists under the registry names (``group/zero_var_success_frac``, ``group/var_between_mean``,
  ``group/mode_sep_pooled``, ...), so they are averaged and logged with TRL's own;
- a guard (:mod:`rcgrpo.integrations.guard`) refusing configurations that share one goal
  per group;
- optionally a per-rollout JSONL table (``rollout_log``: step, task, goal, reward,
  advantage, executed calls).

The one override is ``_generate_and_score_completions``: it hands the dataset rows to the
rollout function (TRL passes it the prompts only), replaces TRL's advantages by those of
the trainer's estimator (:func:`trl_advantages`: ``adv_estimator``, a name of
:data:`rcgrpo.advantages.ADV_ESTIMATORS` as ``algo.adv_estimator``, computed on the gathered
[P, G] grid, with the goals, task ids and lengths it declares, and TRL's std convention)
and logs our metrics. TRL's own advantage is
A = (R − μ_g)/(σ_g + 1e-4) with the Bessel-corrected σ_g, i.e. ``grpo`` with ``eps_stab=1e-4,
ddof=1`` (docs/trl.md lists every difference from ``python -m rcgrpo train``). The CLI (``python -m rcgrpo trl``) is
:mod:`rcgrpo.integrations.trl_cli`.

A model with peft adapters (``--lora.r``) is trained as it is, π_ref being TRL's frozen copy
of its starting adapter (:mod:`rcgrpo.integrations.trl_peft`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from accelerate.utils import gather_object
from datasets import Dataset
from trl import GRPOTrainer

from rcgrpo.advantages import ADV_ESTIMATORS, group_advantages
from rcgrpo.conditioning import bound_p
from rcgrpo.diagnose.instruments import step_instruments
from rcgrpo.env import Episode
from rcgrpo.integrations.guard import check_multi_turn_backend, check_no_shared_goals
from rcgrpo.integrations.trl_peft import expose_head_bias, sync_reference_adapter
from rcgrpo.integrations.trl_rollout import EpisodeRollout, RolloutSettings
from rcgrpo.metrics import validate_metric_names
from rcgrpo.policy.render import initial_messages, resolve_prompt_style
from rcgrpo.train.rl.filters import row_inputs, table_row

__all__ = [
    "TRL_ADV_DDOF",
    "TRL_ADV_EPS",
    "RCGRPOTrainer",
    "check_config",
    "RolloutSettings",
    "environment_reward",
    "group_metrics",
    "task_dataset",
    "trl_advantages",
]

TRL_ADV_DDOF = 1
"""TRL's group std is Bessel-corrected (``trl.trainer.utils.nanstd``)."""
TRL_ADV_EPS = 1e-4
"""TRL adds 1e-4 to the group std (``_generate_and_score_completions``)."""
_STATS = ("rc_reward", "rc_high", "rc_num_calls", "rc_num_steps", "rc_truncated")


def task_dataset(tasks: Sequence[Any], mode: str = "combined", prompt_style: str = "compact"):
    """A TRL dataset, one row per task: ``task_id`` and ``prompt`` (the opening messages as
    our renderer builds them, WITHOUT a goal: TRL logs it; each rollout renders its own)."""
    episode = Episode()
    prompts = []
    for task in tasks:
        first = episode.reset(task, mode=mode)
        prompts.append(initial_messages(first, episode.available_functions, prompt_style, None))
    return Dataset.from_dict({"prompt": prompts, "task_id": [t.id for t in tasks]})


def environment_reward(prompts: list, completions: list, rc_reward: list, **kwargs) -> list[float]:
    """TRL reward function: the environment's R of each rollout (computed by the episode)."""
    return [float(r) for r in rc_reward]


def trl_advantages(
    rewards: torch.Tensor, estimator: str, **inputs: torch.Tensor | None
) -> torch.Tensor:
    """[P, G] advantages of the gathered reward grid under ``estimator`` with TRL's std
    convention (:data:`TRL_ADV_EPS`, :data:`TRL_ADV_DDOF`); ``grpo`` is what TRL computes.
    ``inputs``: the estimator's ``goals`` / ``group_ids`` / ``lengths``
    (:func:`rcgrpo.group_advantages`)."""
    return group_advantages(rewards, estimator, eps_stab=TRL_ADV_EPS, ddof=TRL_ADV_DDOF, **inputs)


def group_metrics(
    rewards: torch.Tensor, advantages: torch.Tensor, high: torch.Tensor, p: float | None
) -> dict[str, float]:
    """Registry-named floats of one generation round's [P, G] grid.

    :func:`rcgrpo.diagnose.instruments.step_instruments`, i.e.
    :func:`rcgrpo.group_diagnostics` (collapse split, predicted collapse, mode separation,
    between/within variance, advantage spread; ``theory/*`` when ``p`` is given) plus
    ``adv/abs_mean`` and ``adv/nonzero_frac`` of the advantages TRL trains on.
    """
    out = step_instruments(rewards.double(), advantages.double(), high, p)
    validate_metric_names(out)
    return out


def _unsupported_sampling(args: Any) -> str | None:
    """The first GRPOConfig sampling option our ModelPolicy would ignore, if any is set."""
    if getattr(args, "top_k", 0) not in (0, None):
        return "top_k"
    if getattr(args, "min_p", None) is not None:
        return "min_p"
    if getattr(args, "repetition_penalty", 1.0) != 1.0:
        return "repetition_penalty"
    return None


def check_config(
    args: Any, settings: RolloutSettings, train_dataset: Any, adv_estimator: str = "grpo"
) -> None:
    """Everything :class:`RCGRPOTrainer` refuses before it loads a model (one-line errors):
    goal sharing and collective vLLM settings (:mod:`rcgrpo.integrations.guard`), a backend
    that disagrees with ``args.use_vllm``, sampling options our sampler would ignore, an
    estimator outside the registry and a TRL reward scaling it would silently replace."""
    if adv_estimator not in ADV_ESTIMATORS:
        raise ValueError(
            f"adv_estimator must be one of {list(ADV_ESTIMATORS)}, got {adv_estimator!r}"
        )
    if getattr(args, "scale_rewards", "group") != "group":
        raise ValueError(
            f"scale_rewards={args.scale_rewards!r}: RCGRPOTrainer trains on adv_estimator's "
            "advantages (grpo-batch = TRL's 'batch', dr-grpo = 'none'); leave it at 'group'"
        )
    check_no_shared_goals(args, train_dataset, grouped_generation=False)
    check_multi_turn_backend(args)
    if (settings.backend == "vllm") != bool(args.use_vllm):
        raise ValueError("settings.backend='vllm' and args.use_vllm=True go together")
    ignored = _unsupported_sampling(args) if settings.backend == "transformers" else None
    if ignored:
        raise ValueError(
            f"{ignored} is not applied by rcgrpo's sampler (it uses temperature and top_p "
            "only); leave it at its default"
        )


class RCGRPOTrainer(GRPOTrainer):
    """``GRPOTrainer`` with RC-GRPO rollouts, reward and metrics (module docstring).

    Args:
        model: a checkpoint folder or a loaded causal LM (TRL loads the reference from the
            model's ``name_or_path`` when ``beta > 0``), or one with peft adapters (π_ref = the
            model as passed: :mod:`rcgrpo.integrations.trl_peft`).
        args: the ``GRPOConfig``.
        tasks: the tasks of the run (``Task`` records; synth or BFCL).
        tokenizer: the policy's tokenizer (chat template).
        settings: :class:`RolloutSettings`.
        train_dataset: default :func:`task_dataset` of ``tasks``.
        adv_estimator: the advantage estimator trained on (:func:`trl_advantages`).
        policy_factory: see :class:`EpisodeRollout` (tests pass a scripted policy).
        rollout_log: JSONL file to append one row per rollout to (main process).
        **kwargs: passed to ``GRPOTrainer`` (not ``reward_funcs`` / ``rollout_func``).
    """

    def __init__(
        self,
        model: Any,
        args: Any,
        tasks: Sequence[Any],
        tokenizer: Any,
        settings: RolloutSettings | None = None,
        train_dataset: Any = None,
        policy_factory: Any = None,
        rollout_log: str | Path | None = None,
        adv_estimator: str = "grpo",
        **kwargs: Any,
    ):
        settings = settings or RolloutSettings()
        if tokenizer is not None:  # "auto": the model's own style (rcgrpo.policy.render)
            style = resolve_prompt_style(settings.prompt_style, tokenizer)
            settings = dataclasses.replace(settings, prompt_style=style)
        model = str(model) if isinstance(model, Path) else model
        for key in ("reward_funcs", "rollout_func", "environment_factory", "tools"):
            if key in kwargs:
                raise ValueError(f"{key} is set by RCGRPOTrainer (the environment owns it)")
        if train_dataset is None:
            train_dataset = task_dataset(tasks, settings.mode, settings.prompt_style)
        check_config(args, settings, train_dataset, adv_estimator)
        self.rc_settings = settings
        self.rc_adv_estimator = adv_estimator
        self.rc_rows: list[dict] | None = None
        self.rc_last: dict[str, Any] = {}
        self.rc_rollout_log = None if rollout_log is None else Path(rollout_log)
        rollout = EpisodeRollout(tasks, tokenizer, settings, policy_factory)
        if not isinstance(model, str):
            expose_head_bias(model)
        super().__init__(
            model=model,
            reward_funcs=[environment_reward],
            args=args,
            train_dataset=train_dataset,
            processing_class=tokenizer,
            rollout_func=rollout,
            **kwargs,
        )
        sync_reference_adapter(self.model)

    def _generate_and_score_completions(self, inputs: list[dict]) -> dict:
        self.rc_rows = inputs
        try:
            out = super()._generate_and_score_completions(inputs)
        finally:
            self.rc_rows = None
        out["advantages"] = self._rc_log(inputs, out["advantages"])
        return out

    def _rc_log(self, inputs: list[dict], trl_local: torch.Tensor) -> torch.Tensor:
        """Gather this round's grid, compute its advantages (:func:`trl_advantages`), append
        our metrics to TRL's lists; returns this process's slice of the advantages."""
        mode = "train" if self.model.training else "eval"
        group = self.num_generations if mode == "train" else self.num_generations_eval
        local = torch.tensor([[float(x[k]) for k in _STATS] for x in inputs], dtype=torch.float64)
        table = self.accelerator.gather(local.to(self.accelerator.device)).cpu()
        rewards, high = table[:, 0].view(-1, group), table[:, 1].bool().view(-1, group)
        task_ids = gather_object([x["rc_task_id"] for x in inputs])
        calls = gather_object([x["rc_calls"] for x in inputs])
        rows = gather_object([x["rc_row"] for x in inputs])
        est = self.rc_adv_estimator
        extra = row_inputs(est, rows, group)
        trained = trl_advantages(rewards, est, goals=high, **extra).view(-1).to(trl_local.dtype)
        start = self.accelerator.process_index * len(inputs)
        mine = trained[start : start + len(inputs)].to(trl_local.device)
        adv = trained.double()  # logged as trained
        s = self.rc_settings
        p = bound_p(s.scheme, s.p_high) if mode == "train" else None
        metrics = group_metrics(rewards, adv.view(-1, group), high, p)
        metrics["tools/calls_mean"] = float(table[:, 2].mean())
        metrics["tools/no_call_frac"] = float((table[:, 2] == 0).double().mean())
        metrics["rollout/steps_mean"] = float(table[:, 3].mean())
        metrics["rollout/truncated_frac"] = float(table[:, 4].mean())
        validate_metric_names(metrics)
        for name, value in metrics.items():
            self._metrics[mode][name].append(value)
        self.rc_last = {
            "mode": mode,
            "rewards": rewards,
            "high": high,
            "advantages": adv.view(-1, group),
            "task_ids": task_ids,
            "calls": calls,
            "rows": rows,
            "metrics": metrics,
        }
        if self.rc_rollout_log is not None and self.accelerator.is_main_process:
            self._rc_write_rollouts()
        return mine

    def _rc_write_rollouts(self) -> None:
        """Append this round's rows: the trainer's table row of each rollout
        (:func:`rcgrpo.train.rl.filters.table_row`; ``prompt`` = its group, ``group`` = its
        place in the group) plus TRL's ``mode`` and the executed ``calls_per_turn``."""
        last, step = self.rc_last, int(self.state.global_step)
        group = last["rewards"].shape[1]
        self.rc_rollout_log.parent.mkdir(parents=True, exist_ok=True)
        with self.rc_rollout_log.open("a") as fh:
            for b, row in enumerate(last["rows"]):
                advantage = float(last["advantages"].view(-1)[b])
                row = table_row(row, step, 0, b // group, True, advantage)
                row.update(group=b % group, mode=last["mode"], calls_per_turn=last["calls"][b])
                fh.write(json.dumps(row) + "\n")
