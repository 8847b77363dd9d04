"""The advantage-estimator registry against the code it replaced and a leave-one-out loop.

``_legacy_group_advantages`` is ``rcgrpo.group_advantages`` as of 246debb (one function, an
if-chain on ``scale`` in group | batch | none), frozen here: the registry's ``grpo``,
``grpo-batch`` and ``dr-grpo`` must return the very same bits, so no committed run's numbers
depend on the refactor. ``rloo`` is checked against its definition evaluated as a loop.
"""

from __future__ import annotations

import torch
from hypothesis import example, given
from hypothesis import strategies as st

from rcgrpo.advantages import group_advantages

LEGACY = {"group": "grpo", "batch": "grpo-batch", "none": "dr-grpo"}


def _legacy_row_scale(x: torch.Tensor) -> torch.Tensor:
    m = x.abs().amax(dim=1, keepdim=True)
    return torch.where(m > 0, m, torch.ones_like(m))


def _legacy_group_advantages(rewards, eps_stab=1e-6, scale="group", ddof=0):
    r = rewards if rewards.is_floating_point() else rewards.float()
    constant = r.amax(dim=1, keepdim=True) == r.amin(dim=1, keepdim=True)
    m = _legacy_row_scale(r) if scale != "batch" else _legacy_row_scale(r.reshape(1, -1))
    y = r / m
    centred = y - y.mean(dim=1, keepdim=True)
    centred = torch.where(constant, torch.zeros_like(centred), centred)
    if scale == "none":
        return centred * m
    rows = y if scale == "group" else y.reshape(1, -1)
    std = rows.std(dim=1, keepdim=True, correction=ddof).expand(r.shape[0], 1)
    scaled_eps = eps_stab / m if eps_stab > 0 else torch.zeros_like(m)
    denom = torch.where(constant, torch.ones_like(std), std + scaled_eps)
    return centred / denom


VALUES = st.one_of(
    st.sampled_from([0.0, 1.0]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=True),
)


@st.composite
def grids(draw):
    p, g = draw(st.integers(1, 6)), draw(st.integers(2, 8))
    rows = draw(st.lists(st.lists(VALUES, min_size=g, max_size=g), min_size=p, max_size=p))
    dtype = draw(st.sampled_from([torch.float64, torch.float32]))
    return torch.tensor(rows, dtype=dtype)


@given(
    grids(),
    st.sampled_from(sorted(LEGACY)),
    st.sampled_from([0.0, 1e-6, 1e-4, 1.0]),
    st.sampled_from([0, 1]),
)
@example(torch.tensor([[0.0, 5e-324]], dtype=torch.float64), "group", 0.0, 0)
@example(torch.tensor([[0.1, 0.1, 0.1], [0.0, 1.0, 1.0]]), "batch", 1e-6, 1)
@example(torch.tensor([[1e-200, 2e-200, 0.0]], dtype=torch.float64), "none", 0.0, 0)
def test_registry_returns_the_bits_of_the_replaced_function(rewards, scale, eps_stab, ddof):
    new = group_advantages(rewards, LEGACY[scale], eps_stab=eps_stab, ddof=ddof)
    old = _legacy_group_advantages(rewards, eps_stab, scale, ddof)
    assert new.dtype == old.dtype
    assert torch.equal(new, old)


def test_integer_and_bool_rewards_give_the_same_bits():
    for rewards in (torch.tensor([[1, 0, 0], [2, 2, 2]]), torch.tensor([[True, False]])):
        for scale, name in LEGACY.items():
            old = _legacy_group_advantages(rewards, 1e-6, scale, 0)
            assert torch.equal(group_advantages(rewards, name), old)


def _rloo_loop(rows: list[list[float]]) -> list[list[float]]:
    """A_j = R_j - (1/(G-1)) Σ_{k≠j} R_k, one rollout at a time."""
    out = []
    for row in rows:
        g = len(row)
        out.append([row[j] - sum(row[k] for k in range(g) if k != j) / (g - 1) for j in range(g)])
    return out


@given(grids())
@example(torch.tensor([[0.0, 0.0, 1.0, 1.0, 1.0]], dtype=torch.float64))
def test_rloo_is_the_leave_one_out_loop(rewards):
    rewards = rewards.double()
    got = group_advantages(rewards, "rloo")
    want = torch.tensor(_rloo_loop(rewards.tolist()), dtype=torch.float64)
    # both sides round differently; the error is relative to the rewards' magnitude
    scale = rewards.abs().amax(dim=1, keepdim=True).clamp_min(torch.finfo(torch.float64).tiny)
    assert bool(((got - want).abs() <= 1e-12 * scale).all())
