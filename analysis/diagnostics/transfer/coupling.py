r"""The coupling of the two goals' log-odds in gradient form: pure functions of Gram matrices.

**Setting.** n tasks i, each with :math:`m_i` decision points; :math:`z_{g,i}` the mean
log-odds of task i's points under goal g (:mod:`~analysis.diagnostics.transfer.logodds`) and
:math:`G_g` [n, P] the matrix of their parameter gradients :math:`\nabla_\theta z_{g,i}`. For
task weights w [n] (w ≥ 0, Σw = 1) the pooled gradient is :math:`\nabla\bar z_g(w) = G_g^\top
w`; the probe's :math:`\bar z_g` (the mean over all :math:`M=\sum_i m_i` points) has
:math:`w_i = m_i/M`. With the Gram matrices :math:`K_{ab} = G_a G_b^\top` [n, n]
(:func:`coupling`):

.. math::
    \langle\nabla\bar z_h,\nabla\bar z_l\rangle = w^\top K_{hl} w,\qquad
    \|\nabla\bar z_g\| = \sqrt{w^\top K_{gg} w},\qquad
    \cos = \frac{\langle\nabla\bar z_h,\nabla\bar z_l\rangle}
                {\|\nabla\bar z_h\|\,\|\nabla\bar z_l\|},\qquad
    \gamma = \frac{\|\nabla\bar z_l\|}{\|\nabla\bar z_h\|},

and the cross-to-own ratios of a step along each goal's gradient (Δθ = ε∇z̄_g moves
:math:`\bar z_{g'}` by :math:`\varepsilon\langle\nabla\bar z_{g'},\nabla\bar z_g\rangle + O(\varepsilon^2)`):

.. math::
    \rho_l = \frac{\langle\nabla\bar z_h,\nabla\bar z_l\rangle}{\|\nabla\bar z_l\|^2}
           = \frac{\cos}{\gamma},\qquad
    \rho_h = \frac{\langle\nabla\bar z_h,\nabla\bar z_l\rangle}{\|\nabla\bar z_h\|^2}
           = \gamma\cos.

Per task: w = the i-th unit vector (the diagonals of the K). **What the transfer model
assumes** (:mod:`analysis.theory.transfer`): one coupling ρ in both directions and the same
gain for both goals' own updates, i.e. γ = 1, and then :math:`\rho_l = \rho_h = \cos`.

**Interval** (:func:`bootstrap`): tasks resampled with replacement, R replicates from
``numpy.random.default_rng(seed)``; replicate r has counts :math:`c^r \sim
\mathrm{Multinomial}(n, 1/n)` and weights :math:`w^r_i = c^r_i m_i / \sum_j c^r_j m_j` (the
resample's mean over its points). The interval is the basic bootstrap interval
:math:`[2\hat\theta - q_{97.5\%},\ 2\hat\theta - q_{2.5\%}]`, q the quantiles of the
statistic over the replicates (``numpy.quantile``, linear), and ``bias`` is their mean minus
:math:`\hat\theta`. Not the percentile interval :math:`[q_{2.5\%}, q_{97.5\%}]`: the pooled
quadratic forms are biased upward, :math:`E\|\bar g\|^2 = \|\mu\|^2 + \mathrm{tr}\,\Sigma/n`
for n tasks' gradients of mean μ and covariance Σ, and a resample that repeats tasks adds the
same term again, so its replicates sit above :math:`\hat\theta` (on ``rctp-collapse-s3`` the
pooled ⟨∇z̄_h, ∇z̄_l⟩ lay below its whole percentile interval: the per-task gradients are over
twice as long as their mean). The basic interval subtracts that shift, to first order: it is an
interval for the statistic of the tasks' mean gradient, and the plug-in estimate, biased, can lie
outside it when the bias exceeds the spread (``bias`` says by how much). The mean
of a per-task statistic over tasks (``task_mean``) is resampled with the same counts,
:math:`\sum_i c^r_i s_i / n`.
"""

from __future__ import annotations

import numpy as np

STATS = ("inner", "norm_high", "norm_low", "cosine", "gain_ratio", "rho_low", "rho_high")
"""The statistics of :func:`coupling`, in report order (module docstring)."""
REPLICATES = 2000
"""Bootstrap replicates of every interval."""
LEVEL = 0.95
"""Two-sided coverage of every interval."""


def _quadratic(k: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:math:`w^\\top K w` for ``k`` [n, n] and ``w`` [..., n]; returns [...]."""
    return np.einsum("...i,ij,...j->...", w, k, w)


def coupling(
    k_hh: np.ndarray, k_hl: np.ndarray, k_ll: np.ndarray, w: np.ndarray
) -> dict[str, np.ndarray]:
    """:data:`STATS` of the pooled gradients :math:`G_g^\\top w` (module docstring) for
    Gram matrices ``k_*`` [n, n] and weights ``w`` [..., n]; each value has shape [...]."""
    n = k_hh.shape[0]
    if not (k_hh.shape == k_hl.shape == k_ll.shape == (n, n)) or w.shape[-1] != n:
        raise ValueError(
            f"Gram matrices must be [n, n] and w [..., n], got {k_hh.shape}, {w.shape}"
        )
    inner = _quadratic(k_hl, w)
    norm_h, norm_l = np.sqrt(_quadratic(k_hh, w)), np.sqrt(_quadratic(k_ll, w))
    return {
        "inner": inner,
        "norm_high": norm_h,
        "norm_low": norm_l,
        "cosine": inner / (norm_h * norm_l),
        "gain_ratio": norm_l / norm_h,
        "rho_low": inner / norm_l**2,
        "rho_high": inner / norm_h**2,
    }


def task_weights(counts: np.ndarray, points: np.ndarray) -> np.ndarray:
    """:math:`w_i = c_i m_i / \\sum_j c_j m_j` for ``counts`` [..., n] and ``points`` [n]:
    the weights that make :math:`G^\\top w` the mean gradient over the counted tasks' points."""
    mass = counts * points
    return mass / mass.sum(axis=-1, keepdims=True)


def resample_counts(n: int, replicates: int, seed: int) -> np.ndarray:
    """[replicates, n] task counts of a bootstrap over n tasks (module docstring)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=replicates).astype(np.float64)


def basic_interval(values: np.ndarray, estimate: float, level: float = LEVEL) -> list[float]:
    r"""[lo, hi] = :math:`[2\hat\theta - q_{(1+level)/2},\ 2\hat\theta - q_{(1-level)/2}]`,
    q the quantiles of the bootstrap replicates ``values`` [R] (module docstring)."""
    lo, hi = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return [float(2 * estimate - hi), float(2 * estimate - lo)]


def _summary(estimate: float, values: np.ndarray) -> dict:
    """``estimate``, its basic ``ci`` and ``bias`` from the replicates ``values``."""
    return {
        "estimate": estimate,
        "ci": basic_interval(values, estimate),
        "bias": float(values.mean() - estimate),
    }


def bootstrap(
    k_hh: np.ndarray,
    k_hl: np.ndarray,
    k_ll: np.ndarray,
    points: np.ndarray,
    replicates: int = REPLICATES,
    seed: int = 0,
) -> dict:
    """Per statistic of :data:`STATS`: the pooled ``estimate`` (w = m / M) with its ``ci`` and
    ``bias``, the ``per_task`` values, and ``task_mean``, their mean over tasks with its ``ci``
    and ``bias``; then ``n_tasks``, ``points`` and the ``bootstrap`` settings (module
    docstring)."""
    n = k_hh.shape[0]
    if n < 2:
        raise ValueError(f"a bootstrap over tasks needs n >= 2, got {n}")
    counts = resample_counts(n, replicates, seed)
    pooled = coupling(k_hh, k_hl, k_ll, task_weights(np.ones(n), points))
    resampled = coupling(k_hh, k_hl, k_ll, task_weights(counts, points))
    per_task = coupling(k_hh, k_hl, k_ll, np.eye(n))
    out: dict = {}
    for name in STATS:
        tasks = per_task[name]
        out[name] = {
            **_summary(float(pooled[name]), resampled[name]),
            "task_mean": _summary(float(tasks.mean()), counts @ tasks / n),
            "per_task": [float(v) for v in tasks],
        }
    out["n_tasks"], out["points"] = n, int(points.sum())
    out["bootstrap"] = {
        "replicates": replicates,
        "seed": seed,
        "level": LEVEL,
        "method": "basic interval, tasks resampled with replacement",
    }
    return out
