"""Reward-conditioning tokens (RCTP-FT / RC-GRPO, paper §2) — sampling and rendering.

A reward token is encoded as a bool per rollout: True = ``<|high_reward|>``,
False = ``<|low_reward|>``. Under ``scheme="none"`` no token is rendered at all
(plain SFT / GRPO prompts); the bool tensor is then all False and carries no meaning —
use :func:`scheme_uses_token` before rendering.
"""

from __future__ import annotations

import math

import torch

from rcgrpo.validation import check_choice, check_positive_int, check_probability

HIGH_TOKEN = "<|high_reward|>"
LOW_TOKEN = "<|low_reward|>"
GOAL_SCHEMES = ("iid", "stratified", "high", "low")
"""Schemes that give every rollout a reward goal (the TRL path takes only these)."""
SCHEMES = (*GOAL_SCHEMES, "none")
"""Every scheme: ``none`` renders no token (plain GRPO)."""


def scheme_uses_token(scheme: str) -> bool:
    """Whether prompts under ``scheme`` carry a reward token at all."""
    check_choice("scheme", scheme, SCHEMES)
    return scheme != "none"


def stratified_count(p: float, group_size: int) -> int:
    """k = round(p·G) with halves rounded up (floor(p·G + 1/2)), not banker's rounding."""
    check_probability("p", p)
    check_positive_int("group_size", group_size, minimum=2)
    return min(group_size, math.floor(p * group_size + 0.5))


def sample_reward_tokens(
    num_prompts: int,
    group_size: int,
    p: float = 0.5,
    scheme: str = "iid",
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    r"""Draw the reward token of every rollout of a [P, G] batch.

    - ``"iid"`` (the paper, §2): each rollout independently, :math:`r_j\sim\mathrm{Bernoulli}(p)`;
      a group has no token diversity with probability :math:`p^G+(1-p)^G`.
    - ``"stratified"`` (ours, see ``analysis/theory``): exactly :math:`k=\mathrm{round}(pG)`
      highs per group (halves round up), positions shuffled uniformly; raises the variance
      bound from :math:`\tfrac{G-1}{G}p(1-p)\varepsilon^2` to :math:`\tfrac{k(G-k)}{G^2}\varepsilon^2`.
    - ``"high"`` / ``"low"``: every rollout gets that token (``"high"`` = plain GRPO on an
      RCTP checkpoint, and evaluation).
    - ``"none"``: no token is rendered; returns all False (see module docstring).

    Returns:
        bool tensor [P, G], True = ``<|high_reward|>``.
    """
    check_positive_int("num_prompts", num_prompts)
    check_positive_int("group_size", group_size, minimum=2)
    check_probability("p", p)
    check_choice("scheme", scheme, SCHEMES)
    shape = (num_prompts, group_size)
    if scheme == "iid":
        return torch.rand(shape, generator=generator) < p
    if scheme == "stratified":
        k = stratified_count(p, group_size)
        ranks = torch.rand(shape, generator=generator).argsort(dim=1).argsort(dim=1)
        return ranks < k
    if scheme == "high":
        return torch.ones(shape, dtype=torch.bool)
    return torch.zeros(shape, dtype=torch.bool)


def reward_goal_text(high: bool | None) -> str:
    """The string appended once to the first user message (paper §2); '' for no token."""
    if high is None:
        return ""
    return f"[Reward Goal: {HIGH_TOKEN if high else LOW_TOKEN}]"
