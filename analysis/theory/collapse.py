r"""Definition 4.1 (GRPO advantage collapse): exact collapse probabilities.

Paper §4, Def. 4.1: a group with :math:`R(\tau_1)=\dots=R(\tau_G)` has :math:`\sigma_g=0`,
every :math:`A_j = 0` "whatever :math:`\varepsilon_{stab}` is", and contributes no gradient.
For G i.i.d. rewards with a finite distribution :math:`q` over K distinct values

.. math:: P(\sigma_g = 0) = \sum_k q_k^G, \qquad \text{binary: } s^G + (1-s)^G.

Checked by exact enumeration of all :math:`K^G` reward vectors, each pushed through
:func:`rcgrpo.group_advantages` for several :math:`\varepsilon_{stab}` (a group counts as
collapsed when every advantage is exactly 0), and by Monte Carlo.

Caveat (floating point, :math:`\varepsilon_{stab}`): "exactly 0 whatever ε_stab" holds in
exact arithmetic for :math:`\varepsilon_{stab} > 0`. The naive float formula
:math:`(R-\mathrm{mean})/(\mathrm{std}+\varepsilon_{stab})` does not give 0 on a constant
group whose value is not exactly representable after averaging: for R = (0.1, 0.1, 0.1) in
float64 the mean is off by 1.4e-17, so every advantage is -1 with ε_stab = 0 and -1.4e-11
with ε_stab = 1e-6; a constant group with ε_stab = 0 gives 0/0 = NaN. ``group_advantages``
guards constant groups explicitly (max == min -> exactly 0), which these checks rely on.
"""

from __future__ import annotations

import numpy as np
import torch

from analysis.theory.report import StatementResult, bernstein_halfwidth, exact_tol
from rcgrpo import group_advantages

EPS_GRID = (0.0, 1e-6, 1e-4, 1.0)
MAX_ENUMERATED_GROUPS = 4096


def collapse_probability(q: np.ndarray, group_size: int) -> float:
    r""":math:`P(\sigma_g=0)=\sum_k q_k^G` for G i.i.d. draws from q over distinct values."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or q.size < 1 or (q < 0).any() or abs(q.sum() - 1.0) > 1e-9:
        raise ValueError(f"q must be a probability vector, got {q!r}")
    if group_size < 2:
        raise ValueError(f"group_size must be >= 2, got {group_size}")
    return float(np.sum(q**group_size))


def collapse_probability_binary(s: float, group_size: int) -> float:
    """Binary reward with success probability s: :math:`s^G + (1-s)^G` (Def. 4.1)."""
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"s must be in [0, 1], got {s}")
    return collapse_probability(np.array([s, 1.0 - s]), group_size)


def enumerate_groups(values: np.ndarray, q: np.ndarray, group_size: int):
    """All K^G reward vectors of a group and their probabilities.

    Returns (rewards [K^G, G] float64 tensor, probs [K^G] float64 array).
    """
    values, q = np.asarray(values, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if values.shape != q.shape or values.ndim != 1:
        raise ValueError(f"values and q must be 1-d of equal length, got {values.shape}, {q.shape}")
    k = values.size
    if k**group_size > MAX_ENUMERATED_GROUPS:
        raise ValueError(f"K^G = {k}^{group_size} exceeds {MAX_ENUMERATED_GROUPS} groups")
    idx = np.indices((k,) * group_size).reshape(group_size, -1).T  # [K^G, G]
    probs = np.prod(q[idx], axis=1)
    return torch.from_numpy(values[idx]), probs


def collapse_mismatch_mass(rewards: torch.Tensor, probs: np.ndarray, eps_stab: float) -> float:
    """Probability of groups where "all A_j == 0" disagrees with "all rewards equal".

    0 exactly when ``group_advantages`` zeroes every constant group and no other group.
    """
    adv = group_advantages(rewards, eps_stab=eps_stab)
    all_zero = (adv == 0).all(dim=1).numpy()
    constant = (rewards == rewards[:, :1]).all(dim=1).numpy()
    return float(probs[all_zero != constant].sum())


def collapse_indicators_mc(
    values: np.ndarray, q: np.ndarray, group_size: int, num_groups: int, gen: torch.Generator
) -> np.ndarray:
    """[num_groups] 0/1 indicators that a sampled group has all advantages exactly 0."""
    qt = torch.as_tensor(q, dtype=torch.float64)
    idx = torch.multinomial(qt, num_groups * group_size, replacement=True, generator=gen)
    table = torch.as_tensor(values, dtype=torch.float64)
    rewards = table.index_select(0, idx).reshape(num_groups, group_size)
    return (group_advantages(rewards) == 0).all(dim=1).double().numpy()


def naive_constant_group_counterexample() -> dict:
    """The float64 naive formula on the constant group (0.1, 0.1, 0.1) (see module doc)."""
    r = torch.full((1, 3), 0.1, dtype=torch.float64)
    centred = r - r.mean(dim=1, keepdim=True)
    std = r.std(dim=1, keepdim=True, correction=0)
    zeros = torch.zeros(1, 3, dtype=torch.float64)
    z_naive = (zeros - zeros.mean()) / zeros.std(correction=0)
    return {
        "naive_eps0": float((centred / std)[0, 0]),
        "naive_eps1e-6": float((centred / (std + 1e-6))[0, 0]),
        "naive_all_zero_group_eps0": float(z_naive[0, 0]),
        "group_advantages_eps0": float(group_advantages(r, eps_stab=0.0)[0, 0]),
    }


def _random_config(rng: np.random.Generator) -> dict:
    group_size = int(rng.integers(2, 9))
    if rng.random() < 0.3:  # binary reward, success probability s (sometimes exactly 0 or 1)
        s = float(rng.choice([0.0, 1.0])) if rng.random() < 0.1 else float(rng.random())
        return {"G": group_size, "values": [0.0, 1.0], "q": [1.0 - s, s]}
    k = int(rng.integers(1, 5))
    while k**group_size > MAX_ENUMERATED_GROUPS:
        k -= 1
    values = rng.choice(np.round(np.linspace(0.0, 1.0, 11), 1), size=k, replace=False)
    q = rng.dirichlet(np.full(k, float(np.exp(rng.uniform(np.log(0.1), np.log(10.0))))))
    return {"G": group_size, "values": values.tolist(), "q": q.tolist()}


def _check_config(
    res: StatementResult, cfg: dict, gen: torch.Generator, num_mc: int, predict
) -> None:
    values, q, group_size = np.array(cfg["values"]), np.array(cfg["q"]), cfg["G"]
    predicted = predict(q, group_size)
    rewards, probs = enumerate_groups(values, q, group_size)
    adv = group_advantages(rewards, eps_stab=1e-6)
    enumerated = float(probs[(adv == 0).all(dim=1).numpy()].sum())
    res.add("P(sigma_g=0)", "==", predicted, enumerated, exact_tol(predicted), "exact", cfg)
    for eps in EPS_GRID:
        mass = collapse_mismatch_mass(rewards, probs, eps)
        res.add(f"P(A==0 != collapsed), eps={eps:g}", "==", 0.0, mass, 0.0, "exact", cfg)
    if num_mc:
        samples = collapse_indicators_mc(values, q, group_size, num_mc, gen)
        tol = bernstein_halfwidth(samples, 1.0)
        res.add("P(sigma_g=0) MC", "==", predicted, samples.mean(), tol, "monte carlo", cfg)


def check(
    num_configs: int = 200, seed: int = 0, num_mc: int = 8000, predict=collapse_probability
) -> StatementResult:
    """Def. 4.1 on ``num_configs`` random reward distributions plus the paper's G = 5.

    ``predict(q, G)`` replaces Σ_k q_k^G (tests pass a wrong one).
    """
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    res = StatementResult("def_4_1", "Def 4.1 advantage collapse: P = sum_k q_k^G, A = 0")
    paper = [{"G": 5, "values": [0.0, 1.0], "q": [1 - s, s]} for s in (0.5, 0.9, 0.99)]
    for cfg in paper + [_random_config(rng) for _ in range(num_configs)]:
        _check_config(res, cfg, gen, num_mc, predict)
        res.configs += 1
    ce = naive_constant_group_counterexample()
    res.notes.append(
        "Holds for rcgrpo.group_advantages (explicit constant-group guard) at every eps_stab "
        f"in {EPS_GRID}. Needs exact arithmetic otherwise: the naive float64 formula on the "
        f"constant group (0.1, 0.1, 0.1) gives A = {ce['naive_eps0']:g} with eps_stab = 0 and "
        f"{ce['naive_eps1e-6']:.3g} with eps_stab = 1e-6; an all-zero group with eps_stab = 0 "
        f"gives {ce['naive_all_zero_group_eps0']} (0/0)."
    )
    return res
