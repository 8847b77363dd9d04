r"""Lemma A.2 (KL-probability bound) — checked exactly.

Paper App. A, Lemma A.2: for a Dirac :math:`\pi^*=\delta_{a^*}` and any policy :math:`\pi`

.. math::
    \mathrm{KL}(\delta_{a^*}\,\|\,\pi) = -\log\pi(a^*), \qquad
    \mathrm{KL}\le\varepsilon \;\Rightarrow\; \pi(a^*) \ge e^{-\varepsilon} \ge 1-\varepsilon.

The KL is computed from its definition :math:`\sum_a \pi^*(a)\log(\pi^*(a)/\pi(a))` with the
convention :math:`0\log 0 = 0` (``scipy.special.rel_entr``), not from the closed form. The
first bound is tight (equality at :math:`\varepsilon = \mathrm{KL}`); the second is
:math:`e^{-x}\ge 1-x`, which holds for every real x. Shapes: ``pi`` [A].
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import rel_entr

from analysis.theory.report import StatementResult, exact_tol


def kl_dirac(pi: np.ndarray, a_star: int) -> float:
    r""":math:`\mathrm{KL}(\delta_{a^*}\|\pi)` from the definition (``rel_entr``, 0 log 0 = 0)."""
    pi = np.asarray(pi, dtype=np.float64)
    if pi.ndim != 1 or (pi < 0).any() or abs(pi.sum() - 1.0) > 1e-9:
        raise ValueError("pi must be a probability vector [A]")
    if not 0 <= a_star < pi.size:
        raise ValueError(f"a_star must index pi (0 <= a_star < {pi.size}), got {a_star}")
    dirac = np.zeros_like(pi)
    dirac[a_star] = 1.0
    return float(rel_entr(dirac, pi).sum())


def probability_lower_bounds(eps: float) -> tuple[float, float]:
    r"""The two lower bounds of Lemma A.2 on :math:`\pi(a^*)`: :math:`(e^{-\varepsilon}, 1-\varepsilon)`."""
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
    return math.exp(-eps), 1.0 - eps


def _random_policy(rng: np.random.Generator) -> tuple[np.ndarray, int]:
    num_actions = int(rng.integers(2, 65))
    alpha = float(np.exp(rng.uniform(np.log(0.01), np.log(10.0))))
    pi = rng.dirichlet(np.full(num_actions, alpha))
    pi = np.maximum(pi, 1e-300)  # keep pi(a*) > 0 so the KL is finite
    return pi / pi.sum(), int(rng.integers(num_actions))


def _check_one(res: StatementResult, pi: np.ndarray, a_star: int, margin: float, bounds) -> None:
    cfg = {"A": pi.size, "pi_a_star": float(pi[a_star]), "margin": margin}
    kl = kl_dirac(pi, a_star)
    closed = -math.log(pi[a_star])
    res.add("KL(delta||pi) vs -log pi(a*)", "==", closed, kl, exact_tol(closed), "exact", cfg)
    eps = kl + margin
    exp_bound, linear_bound = bounds(eps)
    # pi(a*) >= e^{-eps}: equality at margin 0, so allow the rounding of exp(log(x)).
    res.add("pi(a*) >= exp(-eps)", ">=", exp_bound, pi[a_star], 1e-13 * pi[a_star], "exact", cfg)
    res.add("exp(-eps) >= 1 - eps", ">=", linear_bound, exp_bound, exact_tol(1.0), "exact", cfg)


def check(
    num_configs: int = 200, seed: int = 0, bounds=probability_lower_bounds
) -> StatementResult:
    """Lemma A.2 on random policies (peaked to flat, A in [2, 64]), margins ε − KL >= 0.

    ``bounds(eps)`` replaces (e^{-ε}, 1 − ε) (tests pass wrong ones).
    """
    rng = np.random.default_rng(seed)
    res = StatementResult("lemma_a_2", "Lemma A.2 KL(delta||pi) = -log pi(a*), pi(a*) >= e^-eps")
    fixed = [(np.array([1.0 - 1e-3, 1e-3]), 0), (np.array([0.5, 0.5]), 1), (np.array([1.0]), 0)]
    for pi, a_star in fixed:
        _check_one(res, pi, a_star, 0.0, bounds)
        res.configs += 1
    for _ in range(num_configs):
        pi, a_star = _random_policy(rng)
        margin = 0.0 if rng.random() < 0.5 else float(rng.exponential(0.5))
        _check_one(res, pi, a_star, margin, bounds)
        res.configs += 1
    res.notes.append(
        "Exact; the bound pi(a*) >= e^-eps is tight (equality at eps = KL), "
        "e^-eps >= 1 - eps holds for every eps (vacuous for eps >= 1)."
    )
    return res
