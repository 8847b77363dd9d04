r"""The collapse instruments of one step: registry-named floats of a [P, G] reward grid.

One call into :func:`rcgrpo.group_diagnostics` (the implementation of every group metric)
plus the advantage summaries the trainers log next to it; :mod:`rcgrpo.train.rl.step_metrics`
computes the same names for the repository's trainer, the TRL integrations
(:mod:`rcgrpo.integrations.trl`, :mod:`rcgrpo.integrations.trl_callback`) and ``python -m
rcgrpo diagnose`` call :func:`step_instruments`. The instruments, by registry name
(:mod:`rcgrpo.metrics`):

- collapse (Def. 4.1): ``group/zero_var_frac`` = mean_g 1[σ_g = 0], split into
  ``group/zero_var_success_frac`` (all pass) / ``_fail_frac`` (all fail) / ``_other_frac``,
  next to its i.i.d. prediction ``group/zero_var_predicted_pooled`` = s̄^G + (1-s̄)^G
  (s̄ the step's success rate) and the per-prompt plug-in ``group/zero_var_predicted``;
- the within-group advantage spread (paper Fig. 2): ``adv/gap_mean`` = mean_g (max A - min A),
  ``adv/gap_min``, ``adv/gap_max``;
- with reward goals: the between/within-goal split of σ_g² (Lemma A.3)
  ``group/var_between_mean`` + ``group/var_within_mean`` = ``group/var_mean``,
  ``group/between_frac``; with P(high) = p also Prop. 4.3's bound
  ``theory/var_bound_iid`` = κ ε², κ = (G-1)/G · p(1-p), ε = ``group/mode_sep_pooled``.

Advantages are whatever the run trained on (any scaling): only their spread, magnitude and
zero pattern enter. ``adv/abs_mean`` is taken in the advantages' own dtype, as the trainer
takes it, so a recomputation from float32 records matches the logged value bit for bit.
"""

from __future__ import annotations

import torch

from rcgrpo.advantage_split import SPLIT_METRICS, advantage_split, split_summaries
from rcgrpo.diagnostics import group_diagnostics
from rcgrpo.metrics import METRICS

COLLAPSE_KEYS = (
    "group/zero_var_frac",
    "group/zero_var_success_frac",
    "group/zero_var_fail_frac",
    "group/zero_var_other_frac",
    "group/zero_var_predicted",
    "group/zero_var_predicted_pooled",
)
"""The collapse instruments, in report order."""


def step_instruments(
    rewards: torch.Tensor,
    advantages: torch.Tensor,
    high: torch.Tensor | None = None,
    p: float | None = None,
    *,
    success_value: float = 1.0,
    fail_value: float = 0.0,
    kept_advantages: torch.Tensor | None = None,
    kept_high: torch.Tensor | None = None,
) -> dict[str, float]:
    """Registry-named floats of one step's groups (module docstring).

    Args:
        rewards: [P, G] finite rewards, G >= 2.
        advantages: [P, G] advantages of the same groups.
        high: optional [P, G] bool reward goals (True = high).
        p: optional P(high) of an i.i.d. goal draw (enables ``theory/*``; needs ``high``).
        success_value / fail_value: the rewards that count as pass / fail.
        kept_advantages / kept_high: [K, G] advantages and goals of the groups the update
            trained on; with goals they add the advantage split ``adv/*_share``
            (:mod:`rcgrpo.advantage_split`), NaN when K = 0.
    """
    diag = group_diagnostics(
        rewards, advantages, high, success_value=success_value, fail_value=fail_value, p=p
    )
    out = {k: float(v) for k, v in diag.items() if k in METRICS}
    out["adv/abs_mean"] = float(advantages.abs().mean())
    out["adv/nonzero_frac"] = float((advantages != 0).double().mean())
    if kept_advantages is not None and kept_high is not None:
        if kept_advantages.shape[0] == 0:
            out.update(dict.fromkeys(SPLIT_METRICS, float("nan")))
        else:
            between, within = advantage_split(kept_advantages, kept_high)
            out.update(
                {k: float(v) for k, v in split_summaries(between, within, kept_high).items()}
            )
    return out
