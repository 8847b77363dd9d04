r"""The start's collapse: the zero-variance share of a checkpoint's sampled groups against the
i.i.d. prediction.

Task i sampled K times under one goal with :math:`k_i` successes. A group of G ≤ K of those
samples, drawn without replacement, has zero reward variance when all G agree, with chance

.. math::
    U_i = \frac{\binom{k_i}{G} + \binom{K-k_i}{G}}{\binom{K}{G}},

the U-statistic of the kernel 1[all G equal]: unbiased for :math:`s_i^G + (1-s_i)^G` when the K
samples are i.i.d. with success :math:`s_i` (Def. 4.1, :mod:`analysis.theory.collapse`). The
**observed** share is :math:`\bar U = \frac1n\sum_i U_i`; the **predicted** share is the i.i.d.
formula at the pooled success :math:`\bar s = \frac1n\sum_i k_i/K`,
:math:`\bar s^G + (1-\bar s)^G`, the trainer's ``group/zero_var_predicted_pooled``. The map
:math:`x \mapsto x^G + (1-x)^G` is convex, so tasks that differ in :math:`s_i` make the observed
share exceed the prediction (Jensen); the difference is how much that heterogeneity adds to the
collapse. The **all-fail** share is :math:`\frac1n\sum_i \binom{K-k_i}{G}/\binom{K}{G}`.

Interval for observed − predicted: the basic bootstrap over tasks of
:mod:`~analysis.diagnostics.transfer.coupling` (``REPLICATES`` multinomial resamples from
``numpy.random.default_rng(seed)``, both terms recomputed on each resample).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np

from analysis.diagnostics.transfer.coupling import REPLICATES, basic_interval, resample_counts


def zero_var_share(k: int, samples: int, group: int) -> float:
    """:math:`U_i` of the module docstring for k successes of K = ``samples``."""
    if not 0 <= k <= samples or not 2 <= group <= samples:
        raise ValueError(f"need 0 <= k <= K and 2 <= G <= K, got k={k}, K={samples}, G={group}")
    return (comb(k, group) + comb(samples - k, group)) / comb(samples, group)


def all_fail_share(k: int, samples: int, group: int) -> float:
    """:math:`\\binom{K-k}{G} / \\binom{K}{G}`: every sample of a G-group failed."""
    zero_var_share(k, samples, group)  # validates
    return comb(samples - k, group) / comb(samples, group)


def _predicted(success: np.ndarray, group: int) -> np.ndarray:
    return success**group + (1.0 - success) ** group


def start_collapse(
    successes: Sequence[int], samples: int, group: int, seed: int = 0, replicates: int = REPLICATES
) -> dict:
    """``observed``, ``predicted``, their ``diff`` with its basic bootstrap ``ci``,
    ``all_fail``, the pooled ``success``, ``n`` tasks, K ``samples`` and G ``group``."""
    k = np.asarray(successes, dtype=np.int64)
    n = len(k)
    if n < 2:
        raise ValueError(f"a bootstrap over tasks needs n >= 2, got {n}")
    u = np.array([zero_var_share(int(x), samples, group) for x in k])
    s = k / samples
    observed, predicted = float(u.mean()), float(_predicted(s.mean(), group))
    counts = resample_counts(n, replicates, seed)
    diffs = counts @ u / n - _predicted(counts @ s / n, group)
    return {
        "observed": observed,
        "predicted": predicted,
        "diff": observed - predicted,
        "ci": basic_interval(diffs, observed - predicted),
        "all_fail": float(np.mean([all_fail_share(int(x), samples, group) for x in k])),
        "success": float(s.mean()),
        "n": n,
        "samples": samples,
        "group": group,
        "bootstrap": {"replicates": replicates, "seed": seed, "method": "basic, tasks resampled"},
    }
