r"""Per-rollout reward goals for a data-parallel generation batch laid out as TRL lays it out.

TRL's ``RepeatSampler`` puts the GLOBAL generation batch of B = P·G rows in group-major order
(rows g·G … g·G+G−1 are G copies of dataset row g) and hands process k the contiguous slice
[k·b, (k+1)·b) with b = B / num_processes. Nothing forces b to be a multiple of G, so one
group can span two processes (TRL's own sampler docstring draws such a layout).

A per-process draw would then be wrong for the stratified scheme (exactly
k = round(p·G) high tokens per group, :func:`rcgrpo.conditioning.stratified_count`): each
process would stratify its own part of the group. Instead every process draws the SAME
global [P, G] grid with :func:`rcgrpo.sample_reward_tokens` from a generator seeded by
:func:`round_seed` (the run seed and the generation round, identical on every process) and
keeps its own slice; the union of the slices is one draw, with no communication.
"""

from __future__ import annotations

import torch

from rcgrpo.conditioning import goal_scheme, sample_reward_tokens
from rcgrpo.validation import check_positive_int

_MASK = (1 << 63) - 1


def round_seed(seed: int, step: int, call: int) -> int:
    """Seed of one generation round: a fixed mix of the run ``seed``, the optimizer ``step``
    (``trainer.state.global_step``, restored on resume) and the ``call`` index within that
    step (several rounds per step under evaluation or ``steps_per_generation``)."""
    for name, value in (("seed", seed), ("step", step), ("call", call)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return (seed * 1_000_003 + step * 10_007 + call * 101 + 17) & _MASK


def local_goals(
    local_size: int,
    group_size: int,
    process_index: int,
    num_processes: int,
    *,
    scheme: str = "iid",
    p: float = 0.5,
    seed: int = 0,
) -> torch.Tensor:
    r"""The reward tokens of this process's rollouts, bool [b] (True = ``<|high_reward|>``).

    Draws the global grid :math:`r \in \{0,1\}^{P\times G}`, P = b·num_processes / G, with
    ``sample_reward_tokens(P, G, p, scheme, generator seeded by seed)`` and returns
    ``r.flatten()[process_index·b : (process_index+1)·b]``.

    Args:
        local_size: b, rollouts on this process (TRL: ``len(prompts)`` of ``rollout_func``).
        group_size: G (``num_generations``).
        process_index / num_processes: this process's rank and the world size.
        scheme: a name of :func:`rcgrpo.conditioning.goal_schemes` (``none`` renders no
            token and is refused: use plain GRPO without this integration's goals; a scheme
            that keeps state is refused: each round is drawn from its seed alone).
        p: P(high) of ``iid`` / ``stratified``.
        seed: the round seed (:func:`round_seed`); equal on every process.
    """
    check_positive_int("local_size", local_size)
    check_positive_int("group_size", group_size, minimum=2)
    check_positive_int("num_processes", num_processes)
    if isinstance(process_index, bool) or not isinstance(process_index, int):
        raise ValueError(f"process_index must be an integer, got {process_index!r}")
    if not 0 <= process_index < num_processes:
        raise ValueError(f"process_index must be in [0, {num_processes}), got {process_index}")
    spec = goal_scheme(scheme)
    if not spec.token:
        raise ValueError(
            f"scheme {scheme!r} renders no reward goal; per-rollout goals need a token"
        )
    if spec.keeps_state:
        raise ValueError(f"scheme {scheme!r} keeps state; here a round's goals come from its seed")
    total = local_size * num_processes
    if total % group_size:
        raise ValueError(
            f"the global batch ({local_size} x {num_processes} processes = {total} rollouts) "
            f"is not a whole number of groups of {group_size}"
        )
    generator = torch.Generator().manual_seed(seed)
    grid = sample_reward_tokens(total // group_size, group_size, p, scheme, generator)
    start = process_index * local_size
    return grid.reshape(-1)[start : start + local_size]
