r"""Group statistics of a [P, G] batch: collapse, spread, and reward-token mode separation.

Pure function of the rewards, the advantages and (for RC-GRPO) the reward tokens; computed
independently of how the advantages were scaled (a lesson from TRL's ``frac_reward_zero_std``
silently becoming batch-level under batch scaling). All statistics are float64.

Conventions:

- Variances are population variances (ddof = 0), as in the paper:
  :math:`\sigma_g^2 = \frac1G\sum_j (R_j-\mu_g)^2`.
- A group is zero-variance iff max = min exactly (the same test that makes
  :func:`rcgrpo.group_advantages` return exactly 0); its σ_g² is then exactly 0.
- "Success" means reward == ``success_value`` (default 1, the maximum of the paper's binary
  reward) and "fail" means reward == ``fail_value`` (default 0). A zero-variance group is
  all-success, all-fail, or "other" (constant at any other value, e.g. 0.5 for a shaped
  reward).
- Per-group entries that are undefined are NaN (e.g. μ_h of a group with no high token);
  scalar summaries over an empty set are NaN and documented below.

Per-group keys (tensors [P]): see :data:`PER_GROUP_KEYS`. Scalar keys (0-d tensors) are
metric registry names (:mod:`rcgrpo.metrics`), so a trainer can log them directly.
"""

from __future__ import annotations

import torch

from rcgrpo.validation import check_group_tensor, check_probability, check_same_shape

PER_GROUP_KEYS: dict[str, str] = {
    "adv_gap": "max_j A_j - min_j A_j (the paper's Fig. 2 spread)",
    "reward_mean": "μ_g = mean_j R_j",
    "reward_var": "σ_g² = mean_j (R_j - μ_g)² (ddof 0); exactly 0 for a constant group",
    "reward_std": "σ_g",
    "zero_var": "bool, max_j R_j == min_j R_j",
    "all_success": "bool, every R_j == success_value",
    "all_fail": "bool, every R_j == fail_value",
    "success_rate": "s = fraction of R_j == success_value (or the given success_prob)",
    "zero_var_predicted": "s^G + (1-s)^G, P(all G outcomes equal) for a binary reward",
    # with high=
    "n_high": "number of rollouts with <|high_reward|> (float)",
    "mean_high": "μ_h = mean reward of the high-token rollouts (NaN if none)",
    "mean_low": "μ_l = mean reward of the low-token rollouts (NaN if none)",
    "success_high": "success rate of the high-token rollouts (NaN if none)",
    "success_low": "success rate of the low-token rollouts (NaN if none)",
    "mode_sep": "μ_h - μ_l (NaN unless both tokens occur)",
    "token_diverse": "bool, both tokens occur in the group",
    "var_within": "Σ_c n_c/G · var_c (within-token part of σ_g², Lemma A.3)",
    "var_between": "Σ_c n_c/G · (μ_c - μ_g)² (between-token part; the two sum to σ_g²)",
}


def _nan(like: torch.Tensor) -> torch.Tensor:
    return torch.full_like(like, float("nan"))


def _safe_div(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    """num / den, NaN where den == 0 (without a 0/0 warning path)."""
    ok = den > 0
    return torch.where(ok, num / torch.where(ok, den, torch.ones_like(den)), _nan(num))


def _check(rewards, advantages, high, success_value, fail_value, p, success_prob):
    check_group_tensor("rewards", rewards)
    check_same_shape("rewards", rewards, "advantages", advantages)
    if not advantages.is_floating_point() or not bool(torch.isfinite(advantages).all()):
        raise ValueError("advantages must be a finite floating tensor")
    if high is not None:
        check_same_shape("rewards", rewards, "high", high)
        if high.dtype != torch.bool:
            raise ValueError(f"high must be a bool tensor (True = high token), got {high.dtype}")
    for name, value in (("success_value", success_value), ("fail_value", fail_value)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ValueError(f"{name} must be a real number, got {value!r}")
    if success_value == fail_value:
        raise ValueError(f"success_value and fail_value must differ, both are {success_value!r}")
    if p is not None:
        check_probability("p", p)
        if high is None:
            raise ValueError("p (the high-token probability) needs high=")
    if success_prob is not None:
        if not isinstance(success_prob, torch.Tensor) or success_prob.shape != rewards.shape[:1]:
            raise ValueError(f"success_prob must be a tensor of shape [P] = {rewards.shape[0]}")
        if not bool(((success_prob >= 0) & (success_prob <= 1)).all()):
            raise ValueError("success_prob must lie in [0, 1]")


def _base(r, a, success, fail, success_prob) -> dict[str, torch.Tensor]:
    group = r.shape[1]
    zero_var = r.amax(dim=1) == r.amin(dim=1)
    mean = r.mean(dim=1)
    var = ((r - mean.unsqueeze(1)) ** 2).mean(dim=1)
    var = torch.where(zero_var, torch.zeros_like(var), var)
    s = success.to(r.dtype).mean(dim=1) if success_prob is None else success_prob.to(r)
    return {
        "adv_gap": a.amax(dim=1) - a.amin(dim=1),
        "reward_mean": mean,
        "reward_var": var,
        "reward_std": var.sqrt(),
        "zero_var": zero_var,
        "all_success": zero_var & success[:, 0],
        "all_fail": zero_var & fail[:, 0],
        "success_rate": s,
        "zero_var_predicted": s**group + (1 - s) ** group,
    }


def _by_token(r, high, success, base) -> dict[str, torch.Tensor]:
    group = r.shape[1]
    zero = r.new_zeros(())
    success = success.to(r.dtype)
    out = {"n_high": high.to(r.dtype).sum(dim=1)}
    sq_within = torch.zeros_like(base["reward_mean"])
    between = torch.zeros_like(base["reward_mean"])
    for name, sel in (("high", high), ("low", ~high)):
        n = sel.to(r.dtype).sum(dim=1)
        mu = _safe_div(torch.where(sel, r, zero).sum(dim=1), n)
        out[f"mean_{name}"] = mu
        out[f"success_{name}"] = _safe_div(torch.where(sel, success, zero).sum(dim=1), n)
        mu0 = torch.nan_to_num(mu, nan=0.0)
        sq_within += torch.where(sel, (r - mu0.unsqueeze(1)) ** 2, zero).sum(dim=1)
        between += n * (mu0 - base["reward_mean"]) ** 2
    constant = base["zero_var"]
    out["mode_sep"] = out["mean_high"] - out["mean_low"]
    out["token_diverse"] = (out["n_high"] > 0) & (out["n_high"] < group)
    out["var_within"] = torch.where(constant, zero, sq_within / group)
    out["var_between"] = torch.where(constant, zero, between / group)
    return out


def _pooled(r, sel, values) -> torch.Tensor:
    n = sel.sum().to(r.dtype)
    return _safe_div(torch.where(sel, values, r.new_zeros(())).sum(), n)


def _summaries(r, high, success, per, p) -> dict[str, torch.Tensor]:
    quant = torch.tensor([0.5, 0.9], dtype=r.dtype, device=r.device)
    var_q = torch.quantile(per["reward_var"], quant)
    std_q = torch.quantile(per["reward_std"], quant)
    zero_var = per["zero_var"].to(r.dtype)
    other = per["zero_var"] & ~per["all_success"] & ~per["all_fail"]
    out = {
        "reward/mean": r.mean(),
        "reward/success_rate": success.to(r.dtype).mean(),
        "adv/gap_mean": per["adv_gap"].mean(),
        "adv/gap_min": per["adv_gap"].min(),
        "adv/gap_max": per["adv_gap"].max(),
        "group/var_mean": per["reward_var"].mean(),
        "group/var_p50": var_q[0],
        "group/var_p90": var_q[1],
        "group/std_mean": per["reward_std"].mean(),
        "group/std_p50": std_q[0],
        "group/std_p90": std_q[1],
        "group/zero_var_frac": zero_var.mean(),
        "group/zero_var_success_frac": per["all_success"].to(r.dtype).mean(),
        "group/zero_var_fail_frac": per["all_fail"].to(r.dtype).mean(),
        "group/zero_var_other_frac": other.to(r.dtype).mean(),
        "group/zero_var_predicted": per["zero_var_predicted"].mean(),
        "group/zero_var_predicted_pooled": _pooled_collapse(success.to(r.dtype).mean(), r.shape[1]),
    }
    if high is not None:
        out.update(_token_summaries(r, high, success, per, p))
    return out


def _pooled_collapse(s_bar: torch.Tensor, group: int) -> torch.Tensor:
    """s̄^G + (1-s̄)^G: the collapse rate if every prompt had the batch success rate s̄.

    By convexity of s ↦ s^G + (1-s)^G (Jensen) it is <= the per-prompt prediction mean_g
    [s_g^G + (1-s_g)^G]; observed collapse above it means success is spread unevenly over
    prompts (easy prompts always succeed, hard ones always fail).
    """
    return s_bar**group + (1 - s_bar) ** group


def _token_summaries(r, high, success, per, p) -> dict[str, torch.Tensor]:
    success = success.to(r.dtype)
    out = {}
    out["reward/high_frac"] = high.to(r.dtype).mean()
    out["reward/mean_high"] = _pooled(r, high, r)
    out["reward/mean_low"] = _pooled(r, ~high, r)
    out["reward/success_high"] = _pooled(r, high, success)
    out["reward/success_low"] = _pooled(r, ~high, success)
    out["group/mode_sep_mean"] = torch.nanmean(per["mode_sep"])
    out["group/mode_sep_pooled"] = out["reward/mean_high"] - out["reward/mean_low"]
    out["group/var_within_mean"] = per["var_within"].mean()
    out["group/var_between_mean"] = per["var_between"].mean()
    out["group/between_frac"] = _safe_div(per["var_between"].sum(), per["reward_var"].sum())
    out["group/no_token_diversity_frac"] = (~per["token_diverse"]).to(r.dtype).mean()
    if p is not None:
        group = r.shape[1]
        kappa = (group - 1) / group * p * (1 - p)
        out["theory/kappa"] = torch.tensor(kappa, dtype=r.dtype, device=r.device)
        out["theory/var_bound_iid"] = kappa * out["group/mode_sep_pooled"] ** 2
        out["theory/no_token_diversity_predicted"] = torch.tensor(
            p**group + (1 - p) ** group, dtype=r.dtype, device=r.device
        )
    return out


def group_diagnostics(
    rewards: torch.Tensor,
    advantages: torch.Tensor,
    high: torch.Tensor | None = None,
    *,
    success_value: float = 1.0,
    fail_value: float = 0.0,
    p: float | None = None,
    success_prob: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    r"""Per-group and batch statistics of GRPO collapse and RC-GRPO mode separation.

    Args:
        rewards: [P, G] finite, G >= 2.
        advantages: [P, G] finite float (any scaling; only the spread max - min is used).
        high: optional bool [P, G], True = the rollout was conditioned on
            ``<|high_reward|>``; enables the token statistics.
        success_value / fail_value: reward values that count as success / fail.
        p: optional P(high) of the sampling scheme (needs ``high``); enables the
            ``theory/*`` keys.
        success_prob: optional [P] per-prompt success probability for the predicted
            collapse rate; default: the in-group success rate s (see below).

    Returns:
        dict of float64/bool tensors: per-group [P] entries named in :data:`PER_GROUP_KEYS`
        and 0-d summaries named by the metric registry, among them

        - ``group/zero_var_frac`` (observed collapse) next to ``group/zero_var_predicted``
          :math:`=\frac1P\sum_g [s_g^G + (1-s_g)^G]` (Def. 4.1, exact for binary reward).
          With the default in-group plug-in :math:`s_g`, every collapsed group contributes
          1 to both, so predicted >= observed always; pass ``success_prob`` from
          independent samples (e.g. a running per-prompt estimate) for a real prediction.
          ``group/zero_var_predicted_pooled`` = s̄^G + (1-s̄)^G from the batch success
          rate s̄ alone (every prompt equally hard; a lower bound of the former by Jensen).
        - ``group/var_within_mean`` + ``group/var_between_mean`` = ``group/var_mean``
          (law of total variance per group, Lemma A.3, population weights n_c/G).
        - ``group/mode_sep_mean``: mean of μ_h - μ_l over groups holding both tokens (NaN
          if none); ``group/mode_sep_pooled``: μ_h - μ_l over all rollouts of the batch
          (NaN if a token is absent); ``group/between_frac``: Σ between / Σ σ_g² (NaN if
          every group is constant); ``reward/{mean,success}_{high,low}`` NaN if that token
          is absent.
        - with ``p``: ``theory/var_bound_iid`` = κ·(mode_sep_pooled)², κ = (G-1)/G·p(1-p)
          (Prop. 4.3; by Jensen a weaker bound on the prompt-averaged E[σ_g²]; it holds in
          expectation, not batch by batch) and ``theory/no_token_diversity_predicted``
          = p^G + (1-p)^G next to ``group/no_token_diversity_frac``.
    """
    _check(rewards, advantages, high, success_value, fail_value, p, success_prob)
    # success / fail are tested in the rewards' own dtype (0.1 == float32(0.1) there)
    success, fail = rewards == success_value, rewards == fail_value
    r = rewards.to(torch.float64)
    per = _base(r, advantages.to(torch.float64), success, fail, success_prob)
    if high is not None:
        per.update(_by_token(r, high, success, per))
    return {**per, **_summaries(r, high, success, per, p)}
