r"""Reward-conditioning tokens (RCTP-FT / RC-GRPO, paper §2): the goal schemes and rendering.

A reward token is encoded as a bool per rollout: True = ``<|high_reward|>``,
False = ``<|low_reward|>``. Under ``scheme="none"`` no token is rendered at all
(plain SFT / GRPO prompts); the bool tensor is then all False and carries no meaning —
use :func:`scheme_uses_token` before rendering.

A goal scheme is one function ``draw(num_prompts, group_size, generator, [p=], [state=])
-> bool [P, G]`` registered in :data:`SCHEMES` with what it needs and what it promises
(:class:`GoalScheme`): ``@register_scheme("name", needs_p=True, per_rollout=True)``. The
trainers, validation, metrics and ``diagnose`` read those declarations, never the scheme's
name. A scheme that keeps state (``init_state`` and ``update_state``) gets the state of the
run: the trainer passes it to every draw, updates it after every scored round with the
round's goals and rewards, and checkpoints it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from rcgrpo.validation import check_choice, check_positive_int, check_probability

HIGH_TOKEN = "<|high_reward|>"
LOW_TOKEN = "<|low_reward|>"


@dataclass(frozen=True)
class GoalScheme:
    """A registered goal scheme: its draw function and its declarations."""

    name: str
    """The name configs use (``algo.conditioning``)."""
    draw: Callable[..., torch.Tensor]
    """``(num_prompts, group_size, generator, [p=], [state=]) -> bool [P, G]``."""
    needs_p: bool = False
    """The draw reads ``p`` = P(<|high_reward|>) (``algo.p_high``)."""
    iid_p: bool = False
    """Every goal is an independent Bernoulli(p) draw, so Prop. 4.3's bound κ ε² holds
    (the ``theory/*`` metrics)."""
    per_rollout: bool = False
    """A group can hold both goals: what the within-goal scope and the anchored low mode need."""
    token: bool = True
    """Prompts carry the goal token (False: plain prompts, the draw's goals mean nothing)."""
    init_state: Callable[[], Any] | None = None
    """The state before the first round, for a scheme that keeps one (None: stateless)."""
    update_state: Callable[[Any, torch.Tensor, torch.Tensor], Any] | None = None
    """``(state, goals [P, G], rewards [P, G]) -> state`` after each scored round."""

    @property
    def keeps_state(self) -> bool:
        """Whether the scheme keeps state between rounds (the trainer checkpoints it)."""
        return self.init_state is not None


SCHEMES: dict[str, GoalScheme] = {}
"""Every goal scheme by name, in registration order (:func:`register_scheme`)."""


def register_scheme(
    name: str,
    *,
    needs_p: bool = False,
    iid_p: bool = False,
    per_rollout: bool = False,
    token: bool = True,
    init_state: Callable[[], Any] | None = None,
    update_state: Callable[[Any, torch.Tensor, torch.Tensor], Any] | None = None,
) -> Callable[[Callable[..., torch.Tensor]], Callable[..., torch.Tensor]]:
    """Decorator: register ``draw`` as goal scheme ``name`` with its declarations
    (:class:`GoalScheme`); a name registered twice is an error."""
    if name in SCHEMES:
        raise ValueError(f"goal scheme {name!r} is already registered")
    if (init_state is None) != (update_state is None):
        raise ValueError(f"goal scheme {name!r}: a state needs both init_state and update_state")

    def register(draw: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
        SCHEMES[name] = GoalScheme(
            name, draw, needs_p, iid_p, per_rollout, token, init_state, update_state
        )
        return draw

    return register


def goal_scheme(name: str) -> GoalScheme:
    """The registered scheme ``name`` (one-line ValueError naming the registry otherwise)."""
    check_choice("scheme", name, SCHEMES)
    return SCHEMES[name]


def goal_schemes() -> tuple[str, ...]:
    """Schemes that give every rollout a goal and keep no state (the TRL path takes these:
    it draws each round from the round's seed alone)."""
    return tuple(n for n, s in SCHEMES.items() if s.token and not s.keeps_state)


def scheme_uses_token(scheme: str) -> bool:
    """Whether prompts under ``scheme`` carry a reward token at all."""
    return goal_scheme(scheme).token


def bound_p(scheme: str, p: float) -> float | None:
    """``p`` when the scheme's goals are i.i.d. Bernoulli(p) (Prop. 4.3's bound applies),
    else None."""
    return p if goal_scheme(scheme).iid_p else None


def stratified_count(p: float, group_size: int) -> int:
    """k = round(p·G) with halves rounded up (floor(p·G + 1/2)), not banker's rounding."""
    check_probability("p", p)
    check_positive_int("group_size", group_size, minimum=2)
    return min(group_size, math.floor(p * group_size + 0.5))


@register_scheme("iid", needs_p=True, iid_p=True, per_rollout=True)
def iid_goals(num_prompts: int, group_size: int, generator, *, p: float) -> torch.Tensor:
    r"""The paper's draw (§2): each rollout independently, :math:`r_j\sim\mathrm{Bernoulli}(p)`;
    a group has no token diversity with probability :math:`p^G+(1-p)^G`."""
    return torch.rand((num_prompts, group_size), generator=generator) < p


@register_scheme("stratified", needs_p=True, per_rollout=True)
def stratified_goals(num_prompts: int, group_size: int, generator, *, p: float) -> torch.Tensor:
    r"""Ours (see ``analysis/theory``): exactly :math:`k=\mathrm{round}(pG)` highs per group
    (:func:`stratified_count`), positions shuffled uniformly; raises the variance bound from
    :math:`\tfrac{G-1}{G}p(1-p)\varepsilon^2` to :math:`\tfrac{k(G-k)}{G^2}\varepsilon^2`."""
    k = stratified_count(p, group_size)
    ranks = torch.rand((num_prompts, group_size), generator=generator).argsort(dim=1)
    return ranks.argsort(dim=1) < k


@register_scheme("high")
def high_goals(num_prompts: int, group_size: int, generator) -> torch.Tensor:
    """Every rollout gets ``<|high_reward|>`` (plain GRPO on an RCTP checkpoint, evaluation)."""
    return torch.ones((num_prompts, group_size), dtype=torch.bool)


@register_scheme("low")
def low_goals(num_prompts: int, group_size: int, generator) -> torch.Tensor:
    """Every rollout gets ``<|low_reward|>``."""
    return torch.zeros((num_prompts, group_size), dtype=torch.bool)


@register_scheme("none", token=False)
def no_goals(num_prompts: int, group_size: int, generator) -> torch.Tensor:
    """No token is rendered (plain GRPO); all False (see the module docstring)."""
    return torch.zeros((num_prompts, group_size), dtype=torch.bool)


def sample_reward_tokens(
    num_prompts: int,
    group_size: int,
    p: float = 0.5,
    scheme: str = "iid",
    generator: torch.Generator | None = None,
    state: Any = None,
) -> torch.Tensor:
    """Draw the reward token of every rollout of a [P, G] batch under ``scheme``, a name of
    :data:`SCHEMES` (``iid`` the paper's; each scheme's function says what it draws).

    ``p`` is passed to a scheme that declares ``needs_p``, ``state`` to one that keeps state
    (its current state; :class:`GoalScheme`).

    Returns:
        bool tensor [P, G], True = ``<|high_reward|>``.
    """
    check_positive_int("num_prompts", num_prompts)
    check_positive_int("group_size", group_size, minimum=2)
    check_probability("p", p)
    spec = goal_scheme(scheme)
    kwargs: dict[str, Any] = {"p": p} if spec.needs_p else {}
    if spec.keeps_state:
        kwargs["state"] = spec.init_state() if state is None else state
    goals = spec.draw(num_prompts, group_size, generator, **kwargs)
    if goals.shape != (num_prompts, group_size) or goals.dtype != torch.bool:
        raise ValueError(
            f"goal scheme {scheme!r} must draw a bool tensor of shape "
            f"{(num_prompts, group_size)}, got {goals.dtype} {tuple(goals.shape)}"
        )
    return goals


def reward_goal_text(high: bool | None) -> str:
    """The string appended once to the first user message (paper §2); '' for no token."""
    if high is None:
        return ""
    return f"[Reward Goal: {HIGH_TOKEN if high else LOW_TOKEN}]"
