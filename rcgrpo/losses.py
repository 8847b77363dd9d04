r"""The GRPO / RC-GRPO policy loss: PPO clipped surrogate + KL to π_ref + optional entropy
bonus, aggregated under a loss mask — pure functions.

Shape letters: B rollouts (= P·G), T tokens. Per-token inputs are [B, T]; advantages are
one scalar per rollout, [B] (outcome reward, as in GRPO and the paper). The mask is 1 on
model-generated tokens and 0 on prompt, user, tool-output and padding tokens.

Paper (§2): :math:`L = -\mathbb E\big[\tfrac1G\sum_j \min(\rho_jA_j,
\mathrm{clip}(\rho_j,1-\varepsilon,1+\varepsilon)A_j) - \beta\,\mathrm{KL}(\pi_\theta\|\pi_{ref})\big]`
with, as printed, a trajectory-level ratio against π_ref,
:math:`\rho_j = \pi_\theta(\tau_j)/\pi_{ref}(\tau_j)`. Standard practice (TRL, verl) — our
default — is a per-token ratio against the behaviour policy π_old:
:math:`\rho_{j,t} = \pi_\theta(a_t|h_t)/\pi_{old}(a_t|h_t)`. Both are available here
(``ratio_level``, ``ratio_against``); see :func:`policy_loss` for the paper-exact setting.

Stage 1 (SFT and RCTP-FT) optimises the masked next-token cross-entropy :func:`sft_loss`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from rcgrpo.aggregation import AGG_MODES, aggregate
from rcgrpo.kl import KL_ESTIMATORS, kl_penalty
from rcgrpo.masks import check_mask, masked_count, masked_max, masked_mean, masked_min
from rcgrpo.validation import check_choice, check_nonnegative, check_same_shape

RATIO_LEVELS = ("token", "trajectory", "sequence")
RATIO_AGAINST = ("old", "ref")


def _check_inputs(logp, base_logp, base_name, advantages, mask) -> torch.Tensor:
    """Shape checks shared by the loss functions; returns the mask as bool."""
    if not isinstance(logp, torch.Tensor) or logp.dim() != 2 or not logp.is_floating_point():
        shape = tuple(logp.shape) if isinstance(logp, torch.Tensor) else type(logp).__name__
        raise ValueError(f"logp must be a floating [B, T] tensor, got {shape}")
    check_same_shape("logp", logp, base_name, base_logp)
    if not isinstance(advantages, torch.Tensor) or advantages.shape != logp.shape[:1]:
        shape = tuple(advantages.shape) if isinstance(advantages, torch.Tensor) else advantages
        raise ValueError(f"advantages must have shape [B] = {tuple(logp.shape[:1])}, got {shape}")
    return check_mask("mask", mask, "logp", logp)


def log_ratio(
    logp: torch.Tensor,
    base_logp: torch.Tensor,
    mask: torch.Tensor,
    level: str = "token",
    clamp: float = 20.0,
) -> torch.Tensor:
    r"""log ρ per token position, [B, T] (0 where the mask is 0 for ``"token"``).

    - ``"token"`` (PPO; TRL, verl): :math:`\log\rho_{i,t} = \log\pi_\theta - \log\pi_{base}`.
    - ``"trajectory"`` (the RC-GRPO paper): :math:`\log\rho_i = \sum_t m_{i,t}(\log\pi_\theta
      - \log\pi_{base})`, broadcast over the row.
    - ``"sequence"`` (GSPO, Zheng et al. 2025; TRL ``importance_sampling_level="sequence"``):
      the same sum divided by the row's active token count :math:`n_i`.

    The result is clamped to [-clamp, clamp] (verl uses 20) so exp never overflows; beyond the
    clamp the gradient is 0 — at that distance the clipped branch is active anyway unless
    A < 0 (where dual-clip PPO would bound it).
    """
    check_choice("level", level, RATIO_LEVELS)
    check_nonnegative("clamp", clamp)
    mask = check_mask("mask", mask, "logp", logp)
    diff = torch.where(mask, logp - base_logp, logp.new_zeros(()))
    if level != "token":
        diff = diff.sum(dim=1, keepdim=True)
        if level == "sequence":
            diff = diff / masked_count(mask, dim=1).clamp(min=1).unsqueeze(1).to(logp.dtype)
        diff = diff.expand_as(logp)
    return diff.clamp(-clamp, clamp)


def clipped_surrogate(
    ratio: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
) -> torch.Tensor:
    r"""Per-token PPO clipped surrogate LOSS (negated objective), [B, T], 0 off the mask.

    .. math:: \ell_{i,t} = -\min\big(\rho_{i,t}A_i,\ \mathrm{clip}(\rho_{i,t},
              1-\varepsilon_{low}, 1+\varepsilon_{high})A_i\big)

    Separate ε_low / ε_high is DAPO's "clip-higher" (Yu et al. 2025; TRL ``epsilon_high``,
    verl ``clip_ratio_low/high``); ε_low = ε_high = 0.2 is PPO and the paper.
    """
    check_nonnegative("clip_low", clip_low)
    check_nonnegative("clip_high", clip_high)
    if clip_low > 1:
        raise ValueError(f"clip_low must be <= 1 (the ratio is >= 0), got {clip_low!r}")
    mask = check_mask("mask", mask, "ratio", ratio)
    if advantages.shape != ratio.shape[:1]:
        raise ValueError(
            f"advantages must have shape [B] = {tuple(ratio.shape[:1])}, "
            f"got {tuple(advantages.shape)}"
        )
    adv = advantages.unsqueeze(1).to(ratio.dtype)
    clipped = ratio.clamp(1.0 - clip_low, 1.0 + clip_high)
    loss = -torch.minimum(ratio * adv, clipped * adv)
    return torch.where(mask, loss, loss.new_zeros(()))


def clip_fractions(
    ratio: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
) -> dict[str, torch.Tensor]:
    r"""Fractions of active tokens where the clip is binding (its gradient is 0).

    ``low``: :math:`\rho < 1-\varepsilon_{low}` and A < 0; ``high``:
    :math:`\rho > 1+\varepsilon_{high}` and A > 0; ``total`` = either (TRL's
    ``clip_ratio/low_mean``, ``high_mean``, ``region_mean``; equal to verl's
    ``pg_clipfrac``). 0 when no token is active. Detached scalars.
    """
    mask = check_mask("mask", mask, "ratio", ratio)
    adv = advantages.unsqueeze(1)
    ratio = ratio.detach()
    low = (ratio < 1.0 - clip_low) & (adv < 0)
    high = (ratio > 1.0 + clip_high) & (adv > 0)
    as_float = ratio.dtype
    return {
        "low": masked_mean(low.to(as_float), mask),
        "high": masked_mean(high.to(as_float), mask),
        "total": masked_mean((low | high).to(as_float), mask),
    }


def policy_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    ref_logp: torch.Tensor | None,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    beta: float = 0.0,
    kl_estimator: str = "k3",
    agg_mode: str = "token-mean",
    ratio_level: str = "token",
    ratio_against: str = "old",
    entropy: torch.Tensor | None = None,
    entropy_coef: float = 0.0,
    norm_length: float | None = None,
    denominator: torch.Tensor | float | None = None,
    log_ratio_clamp: float = 20.0,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    r"""The full per-batch policy loss and its statistics.

    Per token: :math:`\ell = \ell^{clip} + \beta\,k(\log\pi_\theta, \log\pi_{ref})
    - c_H\,H`, aggregated once by ``agg_mode`` (:mod:`rcgrpo.aggregation`); since the
    aggregation is linear, this equals verl's pg + β·kl_loss and TRL's per-token β·KL.

    Paper-exact setting: ``ratio_level="trajectory", ratio_against="ref",
    agg_mode="seq-mean-token-mean"`` (each rollout then contributes its
    min(ρ_j A_j, clip(ρ_j) A_j) once, averaged over the group). One difference remains:
    the paper's KL is the sequence-level KL, here it is the per-token estimate averaged
    over the sequence (1/n_j of the sum).

    Args:
        logp: log π_θ of the taken tokens [B, T] (with gradient).
        old_logp: behaviour log-probs [B, T] (π_old, detached).
        ref_logp: reference log-probs [B, T]; needed if ``beta > 0`` or
            ``ratio_against="ref"``, otherwise may be None.
        advantages: [B], one per rollout (e.g. ``group_advantages(r).reshape(-1)``).
        mask: [B, T] loss mask, bool or 0/1. Empty rows contribute 0 (see aggregation).
        clip_low / clip_high: ε_low, ε_high (DAPO clip-higher when they differ).
        beta: KL coefficient β >= 0 (paper: 0.1).
        kl_estimator: ``"k1"``, ``"k2"`` or ``"k3"`` (:mod:`rcgrpo.kl`).
        agg_mode: see :data:`rcgrpo.aggregation.AGG_MODES`.
        ratio_level: ``"token"``, ``"trajectory"`` (paper) or ``"sequence"`` (GSPO).
        ratio_against: ``"old"`` (π_old, standard) or ``"ref"`` (π_ref, the paper).
        entropy: optional per-token entropy [B, T] with gradient, for a bonus.
        entropy_coef: c_H >= 0; the bonus is subtracted from the loss.
        norm_length, denominator: passed to :func:`rcgrpo.aggregation.aggregate`.
        log_ratio_clamp: |log ρ| bound before exp (verl: 20).

    Returns:
        ``(loss, stats)``: a scalar loss, and a dict of detached scalars keyed by metric
        registry names (``loss/*``, ``policy/*``). Values are not checked for NaN (that
        would synchronise the device): a non-finite active input gives a non-finite loss,
        which the trainer detects and skips.
    """
    mask = _check_policy_args(
        logp,
        old_logp,
        ref_logp,
        advantages,
        mask,
        entropy,
        ratio_against=ratio_against,
        kl_estimator=kl_estimator,
        agg_mode=agg_mode,
        beta=beta,
        entropy_coef=entropy_coef,
    )
    # Zero every input off the mask BEFORE any non-linearity: masking only at the end would
    # give masked tokens a 0 · (NaN or inf) = NaN gradient through exp, k3 or the entropy.
    logp, old_logp, ref_logp, entropy = (
        None if x is None else torch.where(mask, x, x.new_zeros(()))
        for x in (logp, old_logp, ref_logp, entropy)
    )
    base = ref_logp if ratio_against == "ref" else old_logp

    ratio = log_ratio(logp, base, mask, ratio_level, log_ratio_clamp).exp()
    per_token = clipped_surrogate(ratio, advantages, mask, clip_low, clip_high)
    terms = {"loss/pg": per_token}
    if beta > 0:
        kl = kl_penalty(logp, ref_logp, kl_estimator)
        terms["loss/kl"] = beta * kl
    if entropy is not None and entropy_coef > 0:
        terms["loss/entropy_bonus"] = -entropy_coef * entropy
    total = sum(terms.values())
    agg = {"mode": agg_mode, "norm_length": norm_length, "denominator": denominator}
    loss = aggregate(total, mask, **agg)

    stats = {"loss/total": loss.detach()}
    with torch.no_grad():
        for name, term in terms.items():
            stats[name] = aggregate(term.detach(), mask, **agg)
        stats.update(_token_stats(logp, old_logp, ref_logp, ratio, mask, entropy))
        fractions = clip_fractions(ratio, advantages, mask, clip_low, clip_high)
        for key, value in fractions.items():
            stats["policy/clipfrac" + ("" if key == "total" else "_" + key)] = value
    return loss, stats


def _check_policy_args(logp, old_logp, ref_logp, advantages, mask, entropy, **options):
    """Argument checks of :func:`policy_loss`; returns the mask as bool."""
    mask = _check_inputs(logp, old_logp, "old_logp", advantages, mask)
    check_choice("ratio_against", options["ratio_against"], RATIO_AGAINST)
    check_choice("kl_estimator", options["kl_estimator"], KL_ESTIMATORS)
    check_choice("agg_mode", options["agg_mode"], AGG_MODES)
    check_nonnegative("beta", options["beta"])
    check_nonnegative("entropy_coef", options["entropy_coef"])
    if ref_logp is None and (options["beta"] > 0 or options["ratio_against"] == "ref"):
        raise ValueError("ref_logp is required when beta > 0 or ratio_against='ref'")
    if ref_logp is not None:
        check_same_shape("logp", logp, "ref_logp", ref_logp)
    if entropy is not None:
        check_same_shape("logp", logp, "entropy", entropy)
    return mask


def _token_stats(logp, old_logp, ref_logp, ratio, mask, entropy):
    """Token-mean diagnostics, independent of the loss aggregation mode."""
    logp = logp.detach()
    out = {
        "policy/ratio_mean": masked_mean(ratio.detach(), mask),
        "policy/ratio_max": masked_max(ratio.detach(), mask, empty=1.0),
        "policy/ratio_min": masked_min(ratio.detach(), mask, empty=1.0),
        "policy/approx_kl_old": masked_mean(kl_penalty(logp, old_logp.detach(), "k3"), mask),
        "loss/active_tokens": masked_count(mask).to(logp.dtype),
    }
    if ref_logp is not None:
        out["policy/kl_ref"] = masked_mean(kl_penalty(logp, ref_logp.detach(), "k3"), mask)
    if entropy is not None:
        out["policy/entropy"] = masked_mean(entropy.detach(), mask)
    return out


def sft_loss(
    logits: torch.Tensor,
    input_ids: torch.Tensor,
    loss_mask: torch.Tensor,
    weight: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Token-mean next-token cross-entropy on masked tokens (paper §2, Stage 1):
    :math:`L = -\frac1N \sum_{b,t} m_{b,t} w_{b,t} \log \pi_\theta(x_{b,t} \mid x_{b,<t})`,
    :math:`N = \sum m` (the RCTP objective on the assistant actions; plain SFT is the same
    without a reward goal). Position t is predicted from the logits at t - 1.

    Args: logits [B, T, V]; input_ids [B, T]; loss_mask [B, T] (True = token is a target);
    weight [B, T] or None (w = 1: the paper's loss; ``failures.pair_weight`` weighs a minimal
    pair's decision tokens; N stays the count of targets, so w scales a token's share).
    Returns (loss, N active tokens, N correctly predicted by argmax) — 0-dim tensors; an
    all-zero mask gives loss 0 (not NaN). The cross-entropy is taken in float32.
    """
    if logits.dim() != 3 or logits.shape[:2] != input_ids.shape:
        raise ValueError(f"logits must be [B, T, V] over input_ids {tuple(input_ids.shape)}")
    if loss_mask.shape != input_ids.shape:
        raise ValueError(f"loss_mask must have shape {tuple(input_ids.shape)}")
    if weight is not None and weight.shape != input_ids.shape:
        raise ValueError(f"weight must have shape {tuple(input_ids.shape)}")
    target = input_ids[:, 1:]
    active = loss_mask[:, 1:].bool()
    pred = logits[:, :-1][active].float()
    if weight is None:
        ce = F.cross_entropy(pred, target[active], reduction="sum")
    else:
        per_token = F.cross_entropy(pred, target[active], reduction="none")
        ce = (per_token * weight[:, 1:][active].float()).sum()
    n = active.sum()
    correct = (pred.argmax(-1) == target[active]).sum()
    return ce / n.clamp(min=1), n, correct
