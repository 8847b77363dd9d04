r"""Group-relative advantage estimators (GRPO, Dr. GRPO, RLOO, batch-scaled GRPO) — pure
functions and their registry.

Shape letters: P prompts, G group size (rollouts per prompt). Rewards are laid out [P, G]
so every group statistic is a reduction over dim 1. With the group mean
:math:`\mu_g = \tfrac1G \sum_k R_k` every estimator here is :math:`A_j = c_g (R_j - \mu_g)` for a
per-group factor :math:`c_g \ge 0` (declared ``centred``; :mod:`rcgrpo.advantage_split` relies on it):

- ``grpo`` (Shao et al. 2024; the RC-GRPO paper §2): :math:`c_g = 1/(\sigma_g+\varepsilon)`.
- ``grpo-batch`` (TRL ``scale_rewards="batch"``): :math:`c_g = 1/(\sigma_B+\varepsilon)`,
  σ_B the std of all P·G rewards.
- ``dr-grpo`` (Liu et al. 2025, "Understanding R1-Zero-Like Training" §3): :math:`c_g = 1`.
- ``rloo`` (Ahmadian et al. 2024, "Back to Basics", §3.2; Kool et al. 2019):
  :math:`c_g = G/(G-1)`, the leave-one-out baseline.

A constant group (advantage collapse, Def. 4.1) gets exactly 0 from every estimator here.
:data:`ADV_ESTIMATORS` maps each name to an :class:`Estimator`: its function and what it
reads (:data:`INPUTS`, :data:`OPTIONS`); ``@register_estimator(name, inputs=..., ...)`` adds
one. :func:`group_advantages` validates, hands the estimator exactly its declared inputs and
dispatches; the scope (:mod:`rcgrpo.advantage_scope`) and the trainers supply the inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from rcgrpo.validation import check_choice, check_group_tensor, check_nonnegative

INPUTS = ("rewards", "group_ids", "goals", "lengths")
"""What an estimator may read: ``rewards`` [P, G] (always), ``group_ids`` [P] int64 (the task
of each group: equal ids = the same prompt drawn twice in the batch), ``goals`` [P, G] bool
(True = <|high_reward|>; runs with goal tokens only) and ``lengths`` [P, G] int64 (tokens
the policy generated in each rollout)."""
OPTIONS = ("eps_stab", "ddof")
"""The std convention an estimator may read: ε_stab >= 0 and ddof 0 | 1."""


@dataclass(frozen=True)
class Estimator:
    """A registered advantage estimator: its function and its declarations."""

    name: str
    """The name configs use (``algo.adv_estimator``)."""
    fn: Callable[..., torch.Tensor]
    """``fn(rewards, **declared inputs, **declared options) -> [P, G]``."""
    inputs: tuple[str, ...] = ("rewards",)
    """The :data:`INPUTS` it reads, ``rewards`` first."""
    options: tuple[str, ...] = ()
    """The :data:`OPTIONS` it reads (the others are validated and not passed)."""
    centred: bool = False
    r"""Every advantage is :math:`c_g (R_j - \mu_g)` with :math:`c_g \ge 0` per group, the form
    the between/within-goal split reads (:mod:`rcgrpo.advantage_split`)."""


ADV_ESTIMATORS: dict[str, Estimator] = {}
"""Every advantage estimator by name, in registration order (:func:`register_estimator`)."""


def register_estimator(
    name: str,
    *,
    inputs: tuple[str, ...] = ("rewards",),
    options: tuple[str, ...] = (),
    centred: bool = False,
) -> Callable[[Callable[..., torch.Tensor]], Callable[..., torch.Tensor]]:
    """Decorator: register ``fn`` as estimator ``name`` with its declarations
    (:class:`Estimator`); a name registered twice or an unknown input is an error."""
    if name in ADV_ESTIMATORS:
        raise ValueError(f"advantage estimator {name!r} is already registered")
    if not inputs or inputs[0] != "rewards" or not set(inputs) <= set(INPUTS):
        raise ValueError(f"estimator {name!r}: inputs must start with 'rewards', of {INPUTS}")
    if not set(options) <= set(OPTIONS):
        raise ValueError(f"estimator {name!r}: options must be of {OPTIONS}, got {options}")

    def register(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
        ADV_ESTIMATORS[name] = Estimator(name, fn, tuple(inputs), tuple(options), centred)
        return fn

    return register


def _check(rewards: torch.Tensor, eps_stab: float, ddof: int) -> torch.Tensor:
    """Validated rewards as floats (integer/bool rewards become float32)."""
    check_group_tensor("rewards", rewards)
    check_nonnegative("eps_stab", eps_stab)
    if isinstance(ddof, bool) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (population std, paper) or 1 (sample std), got {ddof!r}")
    return rewards if rewards.is_floating_point() else rewards.float()


def _row_scale(x: torch.Tensor) -> torch.Tensor:
    """m = max|x| per row (keepdim), 1 for an all-zero row."""
    m = x.abs().amax(dim=1, keepdim=True)
    return torch.where(m > 0, m, torch.ones_like(m))


def _centred(r: torch.Tensor, m: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(y - μ_y with constant groups exactly 0, y = R/m, constant [P, 1]).

    Working with y = R/m, m = max|R|, keeps y in [-1, 1]: it cannot underflow or overflow
    when squared (plain std turns rewards 1e-200 apart into σ = 0, and the mean of
    (0, 5e-324) rounds to an endpoint); (R - μ)/(σ + ε) = (y - μ_y)/(σ_y + ε/m)."""
    constant = r.amax(dim=1, keepdim=True) == r.amin(dim=1, keepdim=True)
    y = r / m
    centred = y - y.mean(dim=1, keepdim=True)
    return torch.where(constant, torch.zeros_like(centred), centred), y, constant


def _std_scaled(r: torch.Tensor, m: torch.Tensor, rows: str, eps_stab: float, ddof: int):
    """(y - μ_y)/(σ_y + ε/m), σ_y over each group (``rows="group"``) or the whole batch."""
    centred, y, constant = _centred(r, m)
    pool = y if rows == "group" else y.reshape(1, -1)
    std = pool.std(dim=1, keepdim=True, correction=ddof).expand(r.shape[0], 1)
    # (torch evaluates scalar / m as scalar · (1/m): 0 · inf = NaN for subnormal m)
    scaled_eps = eps_stab / m if eps_stab > 0 else torch.zeros_like(m)
    # A constant group divides 0 by 1, not by (0 + eps_stab): with eps_stab = 0 the latter
    # is 0/0 = NaN, which would break the "exactly 0 for every eps_stab" contract.
    denom = torch.where(constant, torch.ones_like(std), std + scaled_eps)
    return centred / denom


@register_estimator("grpo", options=OPTIONS, centred=True)
def grpo_advantages(rewards: torch.Tensor, eps_stab: float = 1e-6, ddof: int = 0) -> torch.Tensor:
    r"""GRPO's group-normalised advantage, paper Eq. (advantage) in §2 / Def. 4.1.

    .. math::
        A_j = \frac{R_j-\mu_g}{\sigma_g+\varepsilon_{stab}},\qquad
        \sigma_g^2 = \tfrac{1}{G-\mathrm{ddof}} \sum_k (R_k-\mu_g)^2

    Convention: the paper uses the population std (``ddof=0``; then ``|A_j| <= sqrt(G-1)``);
    TRL and verl the Bessel-corrected one (``ddof=1``). ε_stab: the paper leaves it unstated;
    TRL uses 1e-4, verl 1e-6.

    Args:
        rewards: [P, G], finite, G >= 2.
        eps_stab: ε_stab >= 0.
        ddof: 0 (population std, paper) or 1 (sample std, TRL/verl).

    Returns:
        [P, G], the dtype of ``rewards`` (integer/bool rewards become float32).
    """
    r = _check(rewards, eps_stab, ddof)
    return _std_scaled(r, _row_scale(r), "group", eps_stab, ddof)


@register_estimator("grpo-batch", options=OPTIONS, centred=True)
def grpo_batch_advantages(
    rewards: torch.Tensor, eps_stab: float = 1e-6, ddof: int = 0
) -> torch.Tensor:
    r"""Centred per group, divided by the std of the whole batch (TRL ``scale_rewards="batch"``).

    .. math::
        A_j = \frac{R_j-\mu_g}{\sigma_B+\varepsilon_{stab}},\qquad
        \sigma_B^2 = \tfrac{1}{PG-\mathrm{ddof}} \sum_{p,k} (R_{p,k}-\bar R)^2

    Args and returns as :func:`grpo_advantages`.
    """
    r = _check(rewards, eps_stab, ddof)
    return _std_scaled(r, _row_scale(r.reshape(1, -1)), "batch", eps_stab, ddof)


@register_estimator("dr-grpo", centred=True)
def dr_grpo_advantages(rewards: torch.Tensor) -> torch.Tensor:
    r"""Dr. GRPO's mean-centred advantage, no std (Liu et al. 2025, §3):
    :math:`A_j = R_j - \mu_g`.

    Args:
        rewards: [P, G], finite, G >= 2.

    Returns:
        [P, G], the dtype of ``rewards`` (integer/bool rewards become float32).
    """
    r = _check(rewards, 0.0, 0)
    m = _row_scale(r)
    return _centred(r, m)[0] * m


@register_estimator("rloo", centred=True)
def rloo_advantages(rewards: torch.Tensor) -> torch.Tensor:
    r"""REINFORCE leave-one-out (Ahmadian et al. 2024, §3.2): each rollout's baseline is the
    mean reward of the other G - 1 rollouts of its group.

    .. math::
        A_j = R_j - \frac{1}{G-1}\sum_{k\ne j} R_k = \frac{G}{G-1}\,(R_j-\mu_g)

    (the second form is the one computed: G/(G-1) times :func:`dr_grpo_advantages`).

    Args and returns as :func:`dr_grpo_advantages`.
    """
    r = _check(rewards, 0.0, 0)
    m = _row_scale(r)
    group_size = r.shape[1]
    return _centred(r, m)[0] * m * (group_size / (group_size - 1))


def _check_inputs(rewards: torch.Tensor, given: dict[str, torch.Tensor | None], est) -> dict:
    """The declared inputs of ``est`` besides rewards, each present and of its shape."""
    out = {}
    for name in est.inputs[1:]:
        x = given[name]
        if x is None:
            raise ValueError(f"estimator {est.name!r} reads {name}, got None")
        shape = rewards.shape[:1] if name == "group_ids" else rewards.shape
        kind = "bool" if name == "goals" else "integer"
        ok = isinstance(x, torch.Tensor) and x.shape == shape
        if not ok or (x.dtype == torch.bool) != (kind == "bool") or x.is_floating_point():
            got = f"{x.dtype} {tuple(x.shape)}" if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"{name} must be a {kind} tensor of shape {tuple(shape)}, got {got}")
        out[name] = x
    return out


def group_advantages(
    rewards: torch.Tensor,
    estimator: str = "grpo",
    *,
    eps_stab: float = 1e-6,
    ddof: int = 0,
    group_ids: torch.Tensor | None = None,
    goals: torch.Tensor | None = None,
    lengths: torch.Tensor | None = None,
) -> torch.Tensor:
    """Advantages [P, G] of ``rewards`` [P, G] under one of :data:`ADV_ESTIMATORS`.

    See the module docstring for the estimators and their papers. ``eps_stab`` and ``ddof``
    are the std convention of ``grpo`` and ``grpo-batch`` (:func:`grpo_advantages`); an
    estimator that does not declare them validates but ignores them. ``group_ids``,
    ``goals`` and ``lengths`` (:data:`INPUTS`) are passed to an estimator that declares
    them (then they must be given) and ignored otherwise.
    """
    check_choice("estimator", estimator, ADV_ESTIMATORS)
    _check(rewards, eps_stab, ddof)
    est = ADV_ESTIMATORS[estimator]
    given = {"group_ids": group_ids, "goals": goals, "lengths": lengths}
    kwargs = _check_inputs(rewards, given, est)
    kwargs |= {k: v for k, v in (("eps_stab", eps_stab), ("ddof", ddof)) if k in est.options}
    out = est.fn(rewards, **kwargs)
    if out.shape != rewards.shape:
        shape = tuple(rewards.shape)
        raise ValueError(f"estimator {estimator!r} must return {shape}, got {tuple(out.shape)}")
    return out
