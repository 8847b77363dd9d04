r"""Beyond the paper (statement 7): near-collapse — advantages when σ_g is small.

With the population std (ddof = 0) the advantages of one group satisfy exactly

.. math::
    \sum_j A_j^2 = G\,\frac{\sigma_g^2}{(\sigma_g+\varepsilon_{stab})^2},\qquad
    \max_j|A_j| \le \sqrt{G-1}\,\frac{\sigma_g}{\sigma_g+\varepsilon_{stab}}
    \quad\text{(Samuelson)},

so a group's gradient weight :math:`w_g=\sqrt{\tfrac1G\sum_jA_j^2}=\sigma_g/(\sigma_g+\varepsilon_{stab})`
depends only on :math:`\sigma_g/\varepsilon_{stab}`: reward differences far below
:math:`\varepsilon_{stab}` are suppressed (:math:`w_g\approx\sigma_g/\varepsilon_{stab}`),
while differences far above it — even pure noise — get full-size advantages
(:math:`w_g\to1`). For Gaussian noise :math:`X_j=b+\delta Z_j`,
:math:`G\sigma_g^2/\delta^2\sim\chi^2_{G-1}` and :math:`E[w_g]` is a 1-d integral
(:func:`gaussian_expected_weight`).

Binary rewards with success probability s: m ~ Binomial(G, s) successes, and for
1 ≤ m ≤ G − 1 a success gets :math:`A=(1-m/G)/(\sigma_m+\varepsilon)`, a failure
:math:`A=-(m/G)/(\sigma_m+\varepsilon)`, :math:`\sigma_m=\sqrt{m(G-m)}/G`; the lone success
of an otherwise failed group has :math:`|A|\approx\sqrt{G-1}`. The expected number of
informative (non-collapsed) groups in a batch of P prompts is
:math:`\sum_i\big(1-s_i^G-(1-s_i)^G\big)`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy import integrate

from analysis.theory.report import StatementResult, bernstein_halfwidth, exact_tol
from rcgrpo import group_advantages

EPS_GRID = (0.0, 1e-6, 1e-4, 1e-2)


def population_std(rewards: torch.Tensor) -> torch.Tensor:
    """[P] population std of each row, computed as m·std(c/m) (m = max|c|) so that rows
    whose spread is ~1e-200 do not underflow to 0."""
    centred = rewards - rewards.mean(dim=1, keepdim=True)
    scale = centred.abs().amax(dim=1, keepdim=True)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    return (scale * (centred / scale).std(dim=1, correction=0, keepdim=True)).squeeze(1)


def binomial_pmf(group_size: int, s: float) -> np.ndarray:
    """[G + 1] P(m successes) = C(G, m) s^m (1 − s)^(G − m), safe for subnormal s.

    (``scipy.stats.binom.pmf`` overflows at s = 2.2e-308, found by hypothesis.)
    """
    m = np.arange(group_size + 1)
    coef = np.array([math.comb(group_size, int(k)) for k in m], dtype=np.float64)
    return coef * s**m * (1.0 - s) ** (group_size - m)


def binary_advantage_distribution(s: float, group_size: int, eps_stab: float = 1e-6):
    """Exact law of |A_j| of one rollout (binary reward): (values [M], probs [M])."""
    if not 0.0 <= s <= 1.0 or group_size < 2:
        raise ValueError(f"need s in [0, 1] and G >= 2, got s={s}, G={group_size}")
    m = np.arange(group_size + 1)
    p_m = binomial_pmf(group_size, s)
    sigma = np.sqrt(m * (group_size - m)) / group_size
    denom = sigma + eps_stab
    inner = (m > 0) & (m < group_size)
    a_succ = np.where(inner, (1 - m / group_size) / np.where(inner, denom, 1.0), 0.0)
    a_fail = np.where(inner, (m / group_size) / np.where(inner, denom, 1.0), 0.0)
    values = np.concatenate([a_succ, a_fail])
    probs = np.concatenate([p_m * m / group_size, p_m * (group_size - m) / group_size])
    return values, probs


def binary_expected_weight(s: float, group_size: int, eps_stab: float = 1e-6) -> float:
    r""":math:`E[w_g]=E[\sigma_m/(\sigma_m+\varepsilon)]` for binary rewards."""
    m = np.arange(group_size + 1)
    sigma = np.sqrt(m * (group_size - m)) / group_size
    weight = np.where(sigma > 0, sigma / (sigma + eps_stab + (sigma == 0)), 0.0)
    return float(binomial_pmf(group_size, s) @ weight)


def expected_informative_groups(s: np.ndarray, group_size: int) -> float:
    r""":math:`\sum_i(1-s_i^G-(1-s_i)^G)`: expected non-collapsed groups among P prompts."""
    s = np.asarray(s, dtype=np.float64)
    return float(np.sum(1.0 - s**group_size - (1.0 - s) ** group_size))


def gaussian_expected_weight(delta: float, group_size: int, eps_stab: float) -> float:
    r""":math:`E[\sigma_g/(\sigma_g+\varepsilon)]` for :math:`X_j=b+\delta Z_j` by quadrature."""
    if delta <= 0:
        raise ValueError(f"delta must be > 0, got {delta}")
    half = (group_size - 1) / 2.0
    log_norm = half * math.log(2.0) + math.lgamma(half)

    def integrand(y: float) -> float:  # sigma/(sigma+eps) times the chi^2_{G-1} density
        if y <= 0.0:
            return 0.0
        sigma = delta * math.sqrt(y / group_size)
        return sigma / (sigma + eps_stab) * math.exp((half - 1) * math.log(y) - y / 2 - log_norm)

    value, _ = integrate.quad(integrand, 0.0, np.inf, epsabs=1e-13, epsrel=1e-11, limit=200)
    return float(value)


def weights_mc(rewards: torch.Tensor, eps_stab: float) -> np.ndarray:
    """[P] sampled w_g = sqrt(mean_j A_j²) via ``group_advantages``."""
    adv = group_advantages(rewards, eps_stab=eps_stab)
    return (adv**2).mean(dim=1).sqrt().numpy()


def _check_identity(res: StatementResult, rng: np.random.Generator, group_size: int) -> None:
    eps = float(rng.choice(EPS_GRID))
    delta = float(np.exp(rng.uniform(np.log(1e-9), 0.0)))
    base = rng.random((256, 1))
    rewards = torch.from_numpy(base + delta * rng.standard_normal((256, group_size)))
    cfg = {"G": group_size, "eps_stab": eps, "delta": delta}
    adv = group_advantages(rewards, eps_stab=eps).numpy()
    sigma = population_std(rewards).numpy()
    predicted = group_size * (sigma / (sigma + eps)) ** 2
    # centred rewards carry a few ulps of |R| ~ 1 of rounding: relative error ~ 1e-15 / sigma
    rel_err = np.abs((adv**2).sum(axis=1) - predicted) / predicted
    tol = float(np.max(1e-12 + 64 * np.finfo(float).eps / sigma))
    res.add("sum A^2 = G s^2/(s+eps)^2 (max rel err)", "==", 0.0, rel_err.max(), tol, "exact", cfg)
    bound = math.sqrt(group_size - 1) * sigma / (sigma + eps)
    slack = (bound - np.abs(adv).max(axis=1)) / bound
    res.add("max|A| <= sqrt(G-1) s/(s+eps) (rel)", ">=", 0.0, slack.min(), tol, "exact", cfg)


def _check_binary(
    res, rng: np.random.Generator, group_size: int, gen, num_mc: int, informative
) -> None:
    s, eps = float(rng.random()), float(rng.choice(EPS_GRID[1:]))
    cfg = {"G": group_size, "s": s, "eps_stab": eps}
    rewards = (torch.rand(num_mc, group_size, generator=gen, dtype=torch.float64) < s).double()
    # slots of one group are dependent: average within groups, groups are i.i.d.
    adv = group_advantages(rewards, eps_stab=eps).abs().mean(dim=1).numpy()
    values, probs = binary_advantage_distribution(s, group_size, eps)
    exact_mean = float(probs @ values)
    hw = bernstein_halfwidth(adv, math.sqrt(group_size - 1))
    res.add("E|A_j| binary: exact vs MC", "==", exact_mean, adv.mean(), hw, "monte carlo", cfg)
    w = weights_mc(rewards, eps)
    exact_w = binary_expected_weight(s, group_size, eps)
    res.add(
        "E[w_g] binary: exact vs MC",
        "==",
        exact_w,
        w.mean(),
        bernstein_halfwidth(w, 1.0),
        "monte carlo",
        cfg,
    )
    num_prompts, num_batches = int(rng.integers(1, 17)), max(2, num_mc // 4)
    s_i = rng.beta(0.3, 0.3, size=num_prompts)  # peaked per-prompt success rates
    shape = (num_batches, num_prompts, group_size)
    batches = (
        torch.rand(shape, generator=gen, dtype=torch.float64) < torch.from_numpy(s_i)[None, :, None]
    ).double()
    adv = group_advantages(batches.reshape(-1, group_size))
    counts = (adv != 0).any(dim=1).reshape(num_batches, -1).double().sum(dim=1).numpy()
    exact_n = informative(s_i, group_size)
    hw = bernstein_halfwidth(counts, float(num_prompts))
    res.add(
        "informative groups per batch",
        "==",
        exact_n,
        counts.mean(),
        hw,
        "monte carlo",
        cfg | {"P": num_prompts},
    )


def _check_gaussian(res, rng: np.random.Generator, group_size: int, gen, num_mc: int) -> None:
    eps = float(rng.choice(EPS_GRID[1:]))
    delta = eps * float(np.exp(rng.uniform(np.log(1e-3), np.log(1e3))))
    cfg = {"G": group_size, "delta": delta, "eps_stab": eps}
    noise = torch.randn(num_mc, group_size, generator=gen, dtype=torch.float64)
    w = weights_mc(0.5 + delta * noise, eps)
    exact_w = gaussian_expected_weight(delta, group_size, eps)
    hw = bernstein_halfwidth(w, 1.0) + exact_tol(1.0) + 1e-9  # quadrature error << 1e-9
    res.add(
        "E[w_g] Gaussian noise: quadrature vs MC", "==", exact_w, w.mean(), hw, "monte carlo", cfg
    )


def check(
    num_configs: int = 200,
    seed: int = 0,
    num_mc: int = 6000,
    informative=expected_informative_groups,
) -> StatementResult:
    """Statement 7 on random groups (G in [2, 16]) plus the paper's G = 5.

    ``informative(s, G)`` replaces the informative-group count (tests pass a wrong one).
    """
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    res = StatementResult(
        "near_collapse", "Near-collapse: w_g = s/(s+eps), |A| law, informative groups"
    )
    for i in range(num_configs + 1):
        group_size = 5 if i == 0 else int(rng.integers(2, 17))
        _check_identity(res, rng, group_size)
        _check_binary(res, rng, group_size, gen, num_mc, informative)
        _check_gaussian(res, rng, group_size, gen, num_mc)
        res.configs += 1
    lo, hi = gaussian_expected_weight(1e-8, 5, 1e-6), gaussian_expected_weight(1e-4, 5, 1e-6)
    res.notes.append(
        "A group's advantage scale depends only on sigma_g / eps_stab: at G = 5, eps_stab = 1e-6, "
        f"Gaussian reward noise of size 1e-8 gives E[w_g] = {lo:.4f}, noise of size 1e-4 gives "
        f"{hi:.4f} (full-size advantages from noise). With eps_stab = 0 any nonzero spread, even "
        "float rounding, is scaled to |A| ~ 1."
    )
    res.notes.append(
        "Binary rewards: the lone success in a failed group gets |A| = sqrt(G-1) (2 at G = 5); "
        "informative groups per batch = sum_i (1 - s_i^G - (1 - s_i)^G)."
    )
    return res
