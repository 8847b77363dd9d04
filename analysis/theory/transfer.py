r"""What reward-conditioned sampling can add: the per-goal expected update and cross-goal transfer.

**Model.** One planted binary decision, two goals r ∈ {l, h} (low, high), and for each goal a
logit :math:`z_r` of the right option, :math:`s_r=\sigma(z_r)`; the reward is the decision's
outcome :math:`X\sim\mathrm{Bernoulli}(s_r)` and ignores the goal. A group draws each of its G
goals i.i.d., high with probability p (``conditioning.scheme iid``), and normalises the rewards
with :func:`rcgrpo.group_advantages` over all G rollouts.

**Bernoulli mixture.** Marginally each reward is Bernoulli(s̄), :math:`\bar s=p s_h+(1-p)s_l`,
i.i.d. across the group, so :math:`P(\sigma_g=0)=\bar s^G+(1-\bar s)^G` and
:math:`E[\sigma_g^2]=\tfrac{G-1}{G}\bar s(1-\bar s)`: GRPO's at success s̄ (Prop. 4.3's
between-goal term is part of this, not extra). Where :math:`s_l<s_h<\tfrac12` a low mode that
separates makes all-fail groups *more* likely.

**Per-goal update.** Given the other rollouts a rollout's advantage is affine in its own reward,
:math:`A_j=\alpha+\beta X_j`; the α part multiplies :math:`E[\nabla\log\pi]=0`, so the expected
policy gradient is :math:`\sum_r c_r\nabla s_r` with (``docs/theory-checks.md``)

.. math:: c_r=\frac{E\big[w\sum_{j:r_j=r,\,j\ \text{trained}}A_j(X_j-s_r)\big]}{s_r(1-s_r)},

w the weight of one rollout in the loss. The group's composition (and with it the between-goal
variance) changes only the scalars :math:`c_r`, never adds a direction.

**Transfer.** The goals share the network: a step along the low goal's gradient that moves
:math:`z_l` by δ moves :math:`z_h` by ρδ (and symmetrically), ρ the coupling in log-odds — what
:mod:`analysis.diagnostics.transfer`'s probe measures. ρ = 1 is one policy (an inert token),
ρ = 0 two separate policies. (In success units the issue's "change in s_h per unit change in
s_l" is :math:`\rho\,s_h(1-s_h)/(s_l(1-s_l))`; the two agree where :math:`s_h=s_l`.) Gradient
ascent with step η then gives the high goal's expected learning speed

.. math:: \dot s_h=\eta\,s_h(1-s_h)\,\big[c_h\,s_h(1-s_h)+\rho\,c_l\,s_l(1-s_l)\big].

In gradient form the step is :math:`\Delta\theta=\eta\sum_r c_r s_r(1-s_r)\nabla z_r`, so
:math:`\dot z_h=\eta[c_h s_h(1-s_h)\|\nabla z_h\|^2+c_l s_l(1-s_l)\langle\nabla z_h,\nabla z_l\rangle]`
and the same with h and l exchanged. The equation above is this with
:math:`\|\nabla z_h\|=\|\nabla z_l\|` (absorbed into η) and ρ their cosine: it assumes
**equal gains**, the gain ratio γ = ‖∇z_l‖/‖∇z_h‖ = 1. Otherwise the transfer term of ż_h
carries :math:`\langle\nabla z_h,\nabla z_l\rangle/\|\nabla z_h\|^2=\gamma\cos`, while a low
step's cross-to-own ratio (what the probe's ρ̂ estimates) is :math:`\cos/\gamma`: the two differ
by γ². The probe reports the cosine and γ with intervals
(:mod:`analysis.diagnostics.transfer.coupling`).

**Arms** (:data:`ARMS`): ``rctp_grpo`` (every rollout high, p = 1), ``rc_grpo`` (RC-GRPO at G,
p), ``grpo_n`` (GRPO with n high rollouts per group, the rollout-matched baseline) and
``anchored`` (RC-GRPO's advantages, but the low rollouts are not trained on: no low update, no
transfer).

**Loss aggregation** (``aggregation``): ``"batch-mean"`` is the trainer's token-mean (and
seq-mean) with rollouts of equal length — each trained rollout weighs 1 / (rollouts trained on in
the batch), so the anchored low mode, whose batch holds only the high rollouts, weighs each of
them G / E[n_high] = 1/p times more than RC-GRPO does (the expected count over a batch of many
prompts replaces the count); ``"fixed"`` divides by G whatever is trained (a constant normaliser).

**Noise** (``noise=True``): under Adam in a noise-dominated regime the step is the expected
gradient divided by its per-step noise, so speed is :math:`\dot s_h/\sqrt{V}` with
:math:`V=E[w^2\sum_{j\ \text{trained}}A_j^2]`, the second moment of the loss weights (a
constant weight cancels: Adam is scale-free). This is what sample counts buy; the expected
update alone is blind to them. The KL term is left out (β ≪ the signal here).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, fsum

import numpy as np

from analysis.theory.separation_dynamics import advantage_values

ARMS = ("rctp_grpo", "rc_grpo", "grpo_n", "anchored")
AGGREGATIONS = ("batch-mean", "fixed")


def powers(x: float, n: int) -> np.ndarray:
    """[n + 1] x^0 .. x^n by repeated multiplication: correctly rounded products, so the same
    bits on every CPU (numpy's ``**`` may take a SIMD ``pow`` that differs in the last bit)."""
    return np.cumprod(np.concatenate([[1.0], np.full(n, float(x))]))


def binom_pmf(n: int, s: float) -> np.ndarray:
    """[n + 1] P(K = k), K ~ Binomial(n, s), k = 0..n (exact products, no scipy call)."""
    k = np.arange(n + 1)
    return (
        np.array([comb(n, i) for i in k], dtype=np.float64) * powers(s, n) * powers(1 - s, n)[::-1]
    )


def mixture_success(s_high: float, s_low: float, p: float) -> float:
    """s̄ = p·s_h + (1 − p)·s_l, the marginal success of one rollout."""
    return p * s_high + (1.0 - p) * s_low


@lru_cache(maxsize=32)
def _patterns(group_size: int) -> dict[str, np.ndarray]:
    """Every (n high tokens, k_l, k_h successes) of a group as flat arrays, with the binomial
    coefficients of each factor and the advantages of a success and a failure there."""
    rows = [
        (n, kl, kh)
        for n in range(group_size + 1)
        for kl in range(group_size - n + 1)
        for kh in range(n + 1)
    ]
    n, kl, kh = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    coef = np.array(
        [comb(group_size, a) * comb(group_size - a, b) * comb(a, c) for a, b, c in rows],
        dtype=np.float64,
    )
    a = advantage_values(group_size)
    k = kl + kh
    return {"n": n, "kl": kl, "kh": kh, "coef": coef, "a1": a[k, 1], "a0": a[k, 0], "k": k}


@lru_cache(maxsize=4096)
def group_moments(s_high: float, s_low: float, group_size: int, p: float) -> dict[str, float]:
    r"""Exact expectations over one group (enumerated over n high tokens, k_h, k_l successes).

    Returns ``num_h``/``num_l`` = :math:`E[\tfrac1G\sum_{j:r_j=r}A_j(X_j-s_r)]`,
    ``sq_h``/``sq_l`` = :math:`E[\tfrac1G\sum_{j:r_j=r}A_j^2]`, ``zero_var`` = P(σ_g = 0),
    ``var`` = E[σ_g²] (ddof 0) and ``n_high`` = E[n] = pG. One vectorised pass over
    :func:`_patterns` (the loop of :func:`group_moments_loop`, tested equal), powers by
    :func:`powers` and sums by ``math.fsum`` (exactly rounded): the same bits on every CPU.
    """
    g = _patterns(group_size)
    n, kl, kh, size = g["n"], g["kl"], g["kh"], group_size
    pw = {x: powers(x, size) for x in (p, 1 - p, s_low, 1 - s_low, s_high, 1 - s_high)}
    prob = g["coef"] * pw[p][n] * pw[1 - p][size - n]
    prob = prob * pw[s_low][kl] * pw[1 - s_low][size - n - kl]
    prob = prob * pw[s_high][kh] * pw[1 - s_high][n - kh]
    out = {}
    for tag, s, kr, nr in (("l", s_low, kl, size - n), ("h", s_high, kh, n)):
        fails = nr - kr
        num = kr * g["a1"] * (1 - s) - fails * g["a0"] * s
        out[f"num_{tag}"] = fsum(prob * num) / size
        out[f"sq_{tag}"] = fsum(prob * (kr * g["a1"] * g["a1"] + fails * g["a0"] * g["a0"])) / size
    k = g["k"]
    out["zero_var"] = fsum(prob[(k == 0) | (k == size)])
    out["var"] = fsum(prob * ((k / size) * (1 - k / size)))
    out["n_high"] = p * size
    return out


def group_moments_loop(s_high: float, s_low: float, group_size: int, p: float) -> dict[str, float]:
    """:func:`group_moments` as a loop over n with a meshgrid per n (the reference)."""
    a = advantage_values(group_size)
    s = (s_low, s_high)
    out = dict.fromkeys(("num_l", "num_h", "sq_l", "sq_h", "zero_var", "var"), 0.0)
    for n in range(group_size + 1):
        counts = (group_size - n, n)
        kl, kh = np.meshgrid(np.arange(counts[0] + 1), np.arange(counts[1] + 1), indexing="ij")
        prob = binom_pmf(group_size, p)[n] * binom_pmf(counts[0], s[0])[kl]
        prob = prob * binom_pmf(counts[1], s[1])[kh]
        k = kl + kh
        for r, kr, tag in ((0, kl, "l"), (1, kh, "h")):
            fails = counts[r] - kr
            num = kr * a[k, 1] * (1 - s[r]) - fails * a[k, 0] * s[r]
            out[f"num_{tag}"] += float((prob * num).sum()) / group_size
            out[f"sq_{tag}"] += float((prob * (kr * a[k, 1] ** 2 + fails * a[k, 0] ** 2)).sum())
        out["zero_var"] += float(prob[(k == 0) | (k == group_size)].sum())
        frac = k / group_size
        out["var"] += float((prob * frac * (1 - frac)).sum())
    out["sq_l"] /= group_size
    out["sq_h"] /= group_size
    out["n_high"] = p * group_size
    return out


def _arm_setting(arm: str, group_size: int, p: float, n_high: int | None) -> tuple[int, float]:
    """(group size, P(high)) of the groups an arm samples."""
    if arm == "rctp_grpo":
        return group_size, 1.0
    if arm in ("rc_grpo", "anchored"):
        return group_size, p
    if arm == "grpo_n":
        if n_high is None or n_high < 1:
            raise ValueError(f"grpo_n needs n_high >= 1, got {n_high!r}")
        return n_high, 1.0
    raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")


def goal_coefficients(
    arm: str,
    s_high: float,
    s_low: float,
    group_size: int = 5,
    p: float = 0.5,
    n_high: int | None = None,
    aggregation: str = "batch-mean",
) -> dict[str, float]:
    r"""The arm's per-goal weights ``c_h``, ``c_l`` (module docstring, weight w included) and
    ``noise`` = V, the second moment of its loss weights per group (in units of 1/G²).

    ``grpo_n`` samples groups of ``n_high`` rollouts (all high); its loss weighs each 1/n_high.
    ``anchored`` zeroes the low goal's term and, under ``"batch-mean"``, weighs each trained
    rollout 1/p times RC-GRPO's.
    """
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {aggregation!r}")
    size, p_arm = _arm_setting(arm, group_size, p, n_high)
    if size < 2:  # a group of one rollout has no relative advantage
        return {"c_h": 0.0, "c_l": 0.0, "noise": 0.0}
    # an arm without low rollouts does not depend on s_low (one cache entry per s_high)
    m = group_moments(float(s_high), float(s_low if p_arm < 1 else s_high), size, p_arm)
    # w relative to 1/size (the moments already carry 1/size): the trained share of the batch
    scale = 1.0
    if arm == "anchored" and aggregation == "batch-mean":
        scale = 1.0 / p
    if arm == "grpo_n" and aggregation == "fixed":
        scale = size / group_size  # a normaliser of G, though the group holds n_high
    spread = np.array([s_low * (1 - s_low), s_high * (1 - s_high)])
    safe = np.where(spread > 0, spread, 1.0)
    c_l, c_h = np.where(spread > 0, np.array([m["num_l"], m["num_h"]]) / safe, 0.0) * scale
    if arm == "anchored":
        c_l, noise = 0.0, scale**2 * m["sq_h"] / size
    else:
        noise = scale**2 * (m["sq_h"] + m["sq_l"]) / size
    return {"c_h": float(c_h), "c_l": float(c_l), "noise": float(noise)}


def learning_speed(
    arm: str,
    s_high: float,
    s_low: float,
    rho: float,
    group_size: int = 5,
    p: float = 0.5,
    n_high: int | None = None,
    aggregation: str = "batch-mean",
    noise: bool = False,
) -> tuple[float, float]:
    r"""(ṡ_h, ṡ_l) per unit η (module docstring); ``noise`` divides by √V (Adam, noise-bound).

    The low goal's own policy moves by the mirror image: :math:`\dot s_l=s_l(1-s_l)[c_l
    s_l(1-s_l)+\rho\,c_h s_h(1-s_h)]`; under ``rctp_grpo`` and ``grpo_n`` it follows the high
    goal's update through ρ alone.
    """
    c = goal_coefficients(arm, s_high, s_low, group_size, p, n_high, aggregation)
    dh, dl = s_high * (1 - s_high), s_low * (1 - s_low)
    z_h = c["c_h"] * dh + rho * c["c_l"] * dl
    z_l = c["c_l"] * dl + rho * c["c_h"] * dh
    norm = np.sqrt(c["noise"]) if noise else 1.0
    if norm == 0.0:
        return 0.0, 0.0
    return float(dh * z_h / norm), float(dl * z_l / norm)


def composition_term(s_high: float, s_low: float, group_size: int = 5, p: float = 0.5) -> float:
    r""":math:`c_h^{RC}-E_{n\sim\mathrm{Bin}(G,p)}[\tfrac nG c^{GRPO}(s_h,n)]`: what normalising
    the high rollouts against the whole group (not their own sub-group) changes in c_h.

    With ρ = 0 RC-GRPO's speed is GRPO's on the n ~ Bin(G, p) high rollouts (weighed 1/G each,
    as the batch holds the low ones too) plus η s_h²(1 − s_h)² times this term.
    """
    rc = goal_coefficients("rc_grpo", s_high, s_low, group_size, p)["c_h"]
    within = 0.0
    for n in range(2, group_size + 1):
        c_n = goal_coefficients("grpo_n", s_high, s_low, group_size, 1.0, n)["c_h"]
        within += binom_pmf(group_size, p)[n] * (n / group_size) * c_n
    return rc - within


def simulate(
    arm: str,
    s_high: float,
    s_low: float,
    rho: float,
    eta: float,
    steps: int,
    **kwargs,
) -> np.ndarray:
    """[steps + 1, 2] (s_h, s_l) under the expected update, Euler in the logits (each goal's
    logit moves by its speed / (s(1 − s)) per step); ``kwargs`` as :func:`learning_speed`."""
    z = np.log([s_high / (1 - s_high), s_low / (1 - s_low)])
    out = np.empty((steps + 1, 2))
    for t in range(steps + 1):
        s = 1.0 / (1.0 + np.exp(-z))
        out[t] = s
        if t == steps:
            break
        vh, vl = learning_speed(arm, float(s[0]), float(s[1]), rho, **kwargs)
        z = z + eta * np.array([vh, vl]) / np.maximum(s * (1 - s), 1e-12)
    return out
