"""rcgrpo — a research workbench for RC-GRPO (arXiv 2602.03025).

The public algorithm library (pure functions, torch tensors in and out)::

    rcgrpo.group_advantages(rewards, estimator="grpo", eps_stab=1e-6, ddof=0)  # ADV_ESTIMATORS
    rcgrpo.sample_reward_tokens(num_prompts, group_size, p=0.5, scheme="iid", generator=None)
    rcgrpo.group_diagnostics(rewards, advantages, high=None, p=None)
    rcgrpo.policy_loss(logp, old_logp, ref_logp, advantages, mask, clip_low=0.2, ...)
    rcgrpo.kl_penalty(logp, ref_logp, estimator="k3")
    rcgrpo.aggregate(loss, mask, mode="token-mean")
    rcgrpo.token_logprobs(logits, ids, mask=None), rcgrpo.token_entropy(logits, mask=None)
    rcgrpo.validate_metric_names(metrics)          # the metric registry rcgrpo.METRICS

The BFCL environment lives in :mod:`rcgrpo.env`, the policy stack in :mod:`rcgrpo.policy`
and the trainer in :mod:`rcgrpo.train`.
"""

from rcgrpo.advantages import group_advantages
from rcgrpo.aggregation import AGG_MODES, aggregate
from rcgrpo.conditioning import (
    HIGH_TOKEN,
    LOW_TOKEN,
    reward_goal_text,
    sample_reward_tokens,
    scheme_uses_token,
)
from rcgrpo.diagnostics import group_diagnostics
from rcgrpo.kl import KL_ESTIMATORS, kl_penalty
from rcgrpo.logprobs import token_entropy, token_logprobs
from rcgrpo.losses import clip_fractions, clipped_surrogate, log_ratio, policy_loss
from rcgrpo.masks import masked_mean, masked_sum, spans_to_mask
from rcgrpo.metrics import METRICS, Metric, validate_metric_names

__version__ = "0.1.0"

__all__ = [
    "AGG_MODES",
    "HIGH_TOKEN",
    "KL_ESTIMATORS",
    "LOW_TOKEN",
    "METRICS",
    "Metric",
    "aggregate",
    "clip_fractions",
    "clipped_surrogate",
    "group_advantages",
    "group_diagnostics",
    "kl_penalty",
    "log_ratio",
    "masked_mean",
    "masked_sum",
    "policy_loss",
    "reward_goal_text",
    "sample_reward_tokens",
    "scheme_uses_token",
    "spans_to_mask",
    "token_entropy",
    "token_logprobs",
    "validate_metric_names",
]
