r"""Proposition 4.3 (variance guarantee via reward conditioning) — closed form, exact, MC.

Paper §4, Prop. 4.3: each rollout j draws a token :math:`r_j\sim\mathrm{Bernoulli}(p)`
(high/low) and a reward :math:`X_j\in[0,1]` from :math:`\pi(\cdot\mid r_j)`;
:math:`\mu_{h/l}=E[X\mid r]`, :math:`v_{h/l}=\mathrm{Var}(X\mid r)`. The pairs are i.i.d.,
so by Lemmas A.3/A.4

.. math::
    E[\sigma_g^2] = \tfrac{G-1}{G}\big(p\,v_h+(1-p)\,v_l+p(1-p)(\mu_h-\mu_l)^2\big)
    \;\ge\; \kappa\,\varepsilon^2,\qquad \kappa=\tfrac{G-1}{G}p(1-p),

whenever :math:`|\mu_h-\mu_l|\ge\varepsilon` (κ = 0.2 at G = 5, p = ½; tight for
deterministic conditional rewards). Stratified tokens (statement 6, exactly
:math:`k=\mathrm{round}(pG)` highs per group, see :mod:`analysis.theory.stratified`):

.. math::
    E[\sigma_g^2]=\tfrac{G-1}{G^2}\big(k\,v_h+(G-k)\,v_l\big)+\tfrac{k(G-k)}{G^2}(\mu_h-\mu_l)^2.

A conditional reward distribution is a pair ``(values [K], probs [K])`` with values in
[0, 1]. Exact values enumerate every (token, reward) outcome of the group; Monte Carlo
draws tokens with :func:`rcgrpo.sample_reward_tokens` and computes
:math:`\sigma_g^2` as the mean squared ``group_advantages(estimator="dr-grpo")``.

It bounds the *expectation* only: with deterministic conditional rewards (μ_h = 1,
μ_l = 0, the tight case) a group is still constant whenever its tokens agree, with
probability :math:`p^G+(1-p)^G` (1/16 at G = 5, p = ½) — per-group variance is not bounded.
"""

from __future__ import annotations

import numpy as np
import torch

from analysis.theory.report import StatementResult, bernstein_halfwidth, exact_tol
from rcgrpo import group_advantages, sample_reward_tokens

MAX_ENUMERATED = 50_000


def moments(dist) -> tuple[float, float]:
    """(mean, variance) of a finite distribution ``(values, probs)``."""
    values, probs = (np.asarray(a, dtype=np.float64) for a in dist)
    if values.shape != probs.shape or values.ndim != 1 or abs(probs.sum() - 1) > 1e-9:
        raise ValueError("dist must be (values [K], probs [K]) with probs summing to 1")
    mean = float(probs @ values)
    return mean, float(probs @ (values - mean) ** 2)


def kappa(group_size: int, p: float) -> float:
    r"""Prop. 4.3's constant :math:`\kappa=\tfrac{G-1}{G}p(1-p)`."""
    return (group_size - 1) / group_size * p * (1.0 - p)


def kappa_stratified(group_size: int, k: int) -> float:
    r"""Stratified constant :math:`k(G-k)/G^2`."""
    return k * (group_size - k) / group_size**2


def expected_group_variance_iid(high, low, p: float, group_size: int) -> float:
    """Closed form of E[σ_g²] for i.i.d. Bernoulli(p) tokens (Prop. 4.3)."""
    (mu_h, v_h), (mu_l, v_l) = moments(high), moments(low)
    within = p * v_h + (1.0 - p) * v_l
    return (group_size - 1) / group_size * (within + p * (1.0 - p) * (mu_h - mu_l) ** 2)


def expected_group_variance_stratified(high, low, k: int, group_size: int) -> float:
    """Closed form of E[σ_g²] with exactly k high tokens per group (statement 6)."""
    if not 0 <= k <= group_size:
        raise ValueError(f"k must be in [0, G={group_size}], got {k}")
    (mu_h, v_h), (mu_l, v_l) = moments(high), moments(low)
    g2 = group_size**2
    within = (group_size - 1) / g2 * (k * v_h + (group_size - k) * v_l)
    return within + k * (group_size - k) / g2 * (mu_h - mu_l) ** 2


def _product(options: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Enumerate independent slots: options[j] = (values, probs) -> (rewards [N, G], probs [N])."""
    sizes = tuple(len(v) for v, _ in options)
    if int(np.prod(sizes)) > MAX_ENUMERATED:
        raise ValueError(f"{int(np.prod(sizes))} outcomes exceed {MAX_ENUMERATED}")
    idx = np.indices(sizes).reshape(len(sizes), -1)
    rewards = np.stack([np.asarray(v, float)[i] for (v, _), i in zip(options, idx, strict=True)], 1)
    probs = np.prod([np.asarray(q, float)[i] for (_, q), i in zip(options, idx, strict=True)], 0)
    return rewards, probs


def expected_group_variance_enumerated(high, low, p: float, group_size: int, scheme: str) -> float:
    """E[σ_g²] by enumerating every outcome of a group (``scheme`` "iid" or "stratified")."""
    from rcgrpo.conditioning import stratified_count

    if scheme == "iid":  # each slot: (high, value) w.p. p q_h, (low, value) w.p. (1-p) q_l
        slot = (
            np.concatenate([high[0], low[0]]),
            np.concatenate([p * np.asarray(high[1]), (1 - p) * np.asarray(low[1])]),
        )
        options = [slot] * group_size
    elif scheme == "stratified":  # sigma^2 is symmetric: the first k slots carry the highs
        k = stratified_count(p, group_size)
        options = [high] * k + [low] * (group_size - k)
    else:
        raise ValueError(f"scheme must be 'iid' or 'stratified', got {scheme!r}")
    rewards, probs = _product(options)
    return float(probs @ rewards.var(axis=1))


def num_outcomes(high, low, p: float, group_size: int, scheme: str) -> int:
    """How many outcomes :func:`expected_group_variance_enumerated` would visit."""
    from rcgrpo.conditioning import stratified_count

    if scheme == "iid":
        return (len(high[0]) + len(low[0])) ** group_size
    k = stratified_count(p, group_size)
    return len(high[0]) ** k * len(low[0]) ** (group_size - k)


def sample_group_rewards(high, low, p, group_size, scheme, num_groups, gen):
    """(tokens bool [N, G], rewards float64 [N, G]) with tokens from ``sample_reward_tokens``."""
    tokens = sample_reward_tokens(num_groups, group_size, p=p, scheme=scheme, generator=gen)
    draws = []
    for values, probs in (high, low):
        q = torch.as_tensor(np.asarray(probs, float))
        idx = torch.multinomial(q, num_groups * group_size, replacement=True, generator=gen)
        table = torch.as_tensor(np.asarray(values, float))
        draws.append(table.index_select(0, idx).reshape(num_groups, -1))
    return tokens, torch.where(tokens, draws[0], draws[1])


def group_variance_mc(high, low, p, group_size, scheme, num_groups, gen) -> np.ndarray:
    """[N] sampled σ_g² = mean_j (group_advantages(estimator="dr-grpo"))²."""
    _, rewards = sample_group_rewards(high, low, p, group_size, scheme, num_groups, gen)
    return (group_advantages(rewards, "dr-grpo") ** 2).mean(dim=1).numpy()


def random_conditional(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random reward distribution on [0, 1]: Bernoulli, point mass or 2-3 atoms."""
    u = rng.random()
    if u < 0.3:
        mu = float(rng.random())
        return np.array([0.0, 1.0]), np.array([1.0 - mu, mu])
    if u < 0.45:
        return np.array([float(rng.random())]), np.array([1.0])
    k = int(rng.integers(2, 4))
    return rng.random(k), rng.dirichlet(np.ones(k))


def random_setting(rng: np.random.Generator) -> dict:
    """Random (G, p, high, low) for Props 4.3 / statement 6; G in [2, 16]."""
    group_size = int(rng.integers(2, 17)) if rng.random() < 0.3 else int(rng.integers(2, 7))
    p = float(rng.choice([0.0, 1.0])) if rng.random() < 0.03 else float(rng.random())
    return {
        "G": group_size,
        "p": p,
        "high": random_conditional(rng),
        "low": random_conditional(rng),
    }


PAPER_SETTINGS = (
    {
        "G": 5,
        "p": 0.5,
        "high": (np.array([1.0]), np.array([1.0])),
        "low": (np.array([0.0]), np.array([1.0])),
    },
    {
        "G": 5,
        "p": 0.5,
        "high": (np.array([0.0, 1.0]), np.array([0.2, 0.8])),
        "low": (np.array([0.0, 1.0]), np.array([0.7, 0.3])),
    },
    {
        "G": 5,
        "p": 0.5,
        "high": (np.array([0.2, 0.9, 1.0]), np.array([0.1, 0.3, 0.6])),
        "low": (np.array([0.0, 0.4]), np.array([0.5, 0.5])),
    },
)


def describe(setting: dict) -> dict:
    """JSON-friendly summary of a setting (moments, not the atoms)."""
    (mu_h, v_h), (mu_l, v_l) = moments(setting["high"]), moments(setting["low"])
    return {
        "G": setting["G"],
        "p": setting["p"],
        "mu_h": mu_h,
        "mu_l": mu_l,
        "v_h": v_h,
        "v_l": v_l,
    }


def _check_setting(res, setting: dict, gen, num_mc: int, kappa_fn) -> None:
    high, low, p, group_size = setting["high"], setting["low"], setting["p"], setting["G"]
    cfg = describe(setting)
    closed = expected_group_variance_iid(high, low, p, group_size)
    if num_outcomes(high, low, p, group_size, "iid") <= MAX_ENUMERATED:
        enum = expected_group_variance_enumerated(high, low, p, group_size, "iid")
        res.add(
            "E[sigma_g^2]: closed form vs enumeration",
            "==",
            closed,
            enum,
            exact_tol(closed),
            "exact",
            cfg,
        )
    eps = abs(cfg["mu_h"] - cfg["mu_l"])  # the largest eps the statement allows
    bound = kappa_fn(group_size, p) * eps**2
    res.add("E[sigma_g^2] >= kappa eps^2", ">=", bound, closed, exact_tol(closed), "exact", cfg)
    if num_mc:
        samples = group_variance_mc(high, low, p, group_size, "iid", num_mc, gen)
        hw = bernstein_halfwidth(samples, 0.25)
        res.add(
            "E[sigma_g^2] MC vs closed form", "==", closed, samples.mean(), hw, "monte carlo", cfg
        )
        res.add(
            "E[sigma_g^2] MC >= kappa eps^2", ">=", bound, samples.mean(), hw, "monte carlo", cfg
        )


def check(
    num_configs: int = 200, seed: int = 0, num_mc: int = 16000, kappa_fn=kappa
) -> StatementResult:
    """Prop. 4.3 on random (G, p, conditional reward distributions) plus G = 5, p = ½.

    ``kappa_fn(G, p)`` replaces κ (tests pass the wrong ``p(1 − p)`` without (G − 1)/G).
    """
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    res = StatementResult("prop_4_3", "Prop 4.3 E[sigma_g^2] >= (G-1)/G p(1-p) eps^2 (iid tokens)")
    for setting in list(PAPER_SETTINGS) + [random_setting(rng) for _ in range(num_configs)]:
        _check_setting(res, setting, gen, num_mc, kappa_fn)
        res.configs += 1
    det = PAPER_SETTINGS[0]
    tokens, rewards = sample_group_rewards(det["high"], det["low"], 0.5, 5, "iid", 20_000, gen)
    frac = float((group_advantages(rewards) == 0).all(dim=1).double().mean())
    res.notes.append(
        "Tight: with deterministic conditional rewards (mu_h = 1, mu_l = 0) E[sigma_g^2] = kappa = 0.2 "
        "at G = 5, p = 1/2. Bounds the expectation only: that same setting still collapses "
        f"(all A_j = 0) with probability p^G + (1-p)^G = 0.0625 (MC {frac:.4f}, 20000 groups)."
    )
    res.notes.append(
        "The bound is vacuous without mode separation (eps -> 0), e.g. after a Stage 1 that ignores the token."
    )
    return res
