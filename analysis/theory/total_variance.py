r"""Lemmas A.3 and A.4 — checked exactly in rational arithmetic.

- Lemma A.3 (law of total variance):
  :math:`\mathrm{Var}(X)=E[\mathrm{Var}(X\mid Y)]+\mathrm{Var}(E[X\mid Y])\ge\mathrm{Var}(E[X\mid Y])`.
- Lemma A.4: for i.i.d. :math:`X_1..X_G`, the population variance
  :math:`S_G^2=\tfrac1G\sum_j(X_j-\bar X)^2` has :math:`E[S_G^2]=\tfrac{G-1}{G}\mathrm{Var}(X)`.

Both on finite distributions with rational probabilities and values (``fractions.Fraction``):
A.3 from a joint table ``joint`` [m, K] over (Y, X); A.4 by enumerating the multisets of G
draws (multinomial weights), never by the closed form. A Monte Carlo estimate of
:math:`E[S_G^2]` goes through :func:`rcgrpo.group_advantages` with ``estimator="dr-grpo"``
(:math:`S_G^2` = mean of the squared centred rewards).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import torch

from analysis.theory.report import StatementResult, bernstein_halfwidth
from rcgrpo import group_advantages


def _mean_var(values, probs) -> tuple[Fraction, Fraction]:
    total = sum(probs)
    mean = sum(p * v for p, v in zip(probs, values, strict=True)) / total
    var = sum(p * (v - mean) ** 2 for p, v in zip(probs, values, strict=True)) / total
    return mean, var


def total_variance_terms(joint, values) -> tuple[Fraction, Fraction, Fraction]:
    """(Var X, E[Var(X|Y)], Var(E[X|Y])) for ``joint[y][k] = P(Y=y, X=values[k])``."""
    if any(len(row) != len(values) for row in joint):
        raise ValueError("every row of joint must have one probability per value")
    if sum(sum(row) for row in joint) != 1:
        raise ValueError("joint must sum to 1")
    marginal = [sum(row[k] for row in joint) for k in range(len(values))]
    _, var_x = _mean_var(values, marginal)
    p_y = [sum(row) for row in joint]
    cond = [_mean_var(values, row) for row in joint if sum(row) > 0]
    p_y = [p for p in p_y if p > 0]
    within = sum(p * v for p, (_, v) in zip(p_y, cond, strict=True))
    _, between = _mean_var([m for m, _ in cond], p_y)
    return var_x, within, between


def expected_population_variance(values, probs, group_size: int) -> Fraction:
    r""":math:`E[S_G^2]` by exact enumeration of the multisets of G i.i.d. draws."""
    if group_size < 2:
        raise ValueError(f"group_size must be >= 2, got {group_size}")
    total = Fraction(0)
    for combo in itertools.combinations_with_replacement(range(len(values)), group_size):
        counts = np.bincount(combo, minlength=len(values))
        weight = Fraction(math.factorial(group_size))
        for k, c in enumerate(counts):
            weight *= Fraction(probs[k]) ** int(c) / math.factorial(int(c))
        xs = [values[k] for k in combo]
        mean = sum(xs) / group_size
        total += weight * sum((x - mean) ** 2 for x in xs) / group_size
    return total


def population_variance_mc(values, probs, group_size: int, num_groups: int, gen) -> np.ndarray:
    """[num_groups] sampled :math:`S_G^2` via ``group_advantages(estimator="dr-grpo")``."""
    q = torch.tensor([float(p) for p in probs], dtype=torch.float64)
    idx = torch.multinomial(q, num_groups * group_size, replacement=True, generator=gen)
    x = torch.tensor([float(v) for v in values], dtype=torch.float64).index_select(0, idx)
    centred = group_advantages(x.reshape(num_groups, group_size), "dr-grpo")
    return (centred**2).mean(dim=1).numpy()


def _random_rational_probs(rng: np.random.Generator, size: int) -> list[Fraction]:
    weights = rng.integers(0, 10, size=size)
    if weights.sum() == 0:
        weights[rng.integers(size)] = 1
    return [Fraction(int(w), int(weights.sum())) for w in weights]


def _random_config(rng: np.random.Generator) -> dict:
    num_values, num_y = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    values = [Fraction(int(v), int(rng.integers(1, 8))) for v in rng.integers(-5, 6, num_values)]
    flat = _random_rational_probs(rng, num_values * num_y)
    joint = [flat[i * num_values : (i + 1) * num_values] for i in range(num_y)]
    return {"values": values, "joint": joint, "G": int(rng.integers(2, 7))}


def _check_config(res: StatementResult, cfg: dict, gen, num_mc: int, factor) -> None:
    values, joint, group_size = cfg["values"], cfg["joint"], cfg["G"]
    show = {"values": [str(v) for v in values], "G": group_size, "m": len(joint)}
    var_x, within, between = total_variance_terms(joint, values)
    res.add("Var X = E[Var(X|Y)] + Var(E[X|Y])", "==", within + between, var_x, 0.0, "exact", show)
    res.add("Var X >= Var(E[X|Y])", ">=", between, var_x, 0.0, "exact", show)
    marginal = [sum(row[k] for row in joint) for k in range(len(values))]
    expected = expected_population_variance(values, marginal, group_size)
    predicted = factor(group_size) * var_x
    res.add("E[S_G^2] = (G-1)/G Var X", "==", predicted, expected, 0.0, "exact", show)
    if num_mc:
        samples = population_variance_mc(values, marginal, group_size, num_mc, gen)
        spread = float(max(values) - min(values))
        hw = bernstein_halfwidth(samples, spread**2 / 4.0)
        res.add("E[S_G^2] MC", "==", float(predicted), samples.mean(), hw, "monte carlo", show)


def check(
    num_configs: int = 200, seed: int = 0, num_mc: int = 8000, factor=None
) -> StatementResult:
    """Lemmas A.3/A.4 on random rational joint tables (m, K <= 4) and G in [2, 6].

    ``factor(G)`` replaces (G − 1)/G (tests pass a wrong one, e.g. ``lambda G: 1``).
    """
    factor = factor or (lambda g: Fraction(g - 1, g))
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    res = StatementResult("lemma_a_3_a_4", "Lemmas A.3/A.4 total variance; E[S_G^2]=(G-1)/G Var")
    half = Fraction(1, 2)
    paper = {"values": [Fraction(0), Fraction(1)], "joint": [[half * half] * 2] * 2, "G": 5}
    for cfg in [paper] + [_random_config(rng) for _ in range(num_configs)]:
        _check_config(res, cfg, gen, num_mc, factor)
        res.configs += 1
    res.notes.append(
        "Exact in rational arithmetic (tolerance 0); S_G^2 uses ddof = 0 as the paper."
    )
    return res
