r"""Learning-rate schedules of both stages — pure functions of the step count.

Stage 2 (RL, :mod:`rcgrpo.train.rl.loop`) uses a linear warm-up and then the constant
``optim.lr``; Stage 1 (:mod:`rcgrpo.train.stage1.sft`) warms up the same way and then decays with
one of :data:`SCHEDULES`. Both return a multiplier of the base learning rate.

Step conventions differ on purpose and are kept: an RL step ``s`` counts the updates taken
INCLUDING this one (1-based), a Stage-1 step is the number taken BEFORE it (0-based), so
both first updates use ``1 / warmup`` of the base rate.
"""

from __future__ import annotations

import math


def _cosine(progress: float, decay_frac: float) -> float:
    return 0.5 * (1 + math.cos(math.pi * progress))


def _linear(progress: float, decay_frac: float) -> float:
    return 1 - progress


def _constant(progress: float, decay_frac: float) -> float:
    return 1.0


def _wsd(progress: float, decay_frac: float) -> float:
    return min(1.0, (1 - progress) / decay_frac) if decay_frac > 0 else 1.0


SCHEDULES = {"cosine": _cosine, "linear": _linear, "constant": _constant, "wsd": _wsd}
"""Stage-1 decay shape after the warm-up, name -> shape(p, d) in [0, 1] (:func:`lr_factor`)."""


def linear_warmup(step: int, warmup_steps: int) -> float:
    r"""Linear warm-up factor :math:`\min(1, s / \max(1, W))` of the ``step``-th update
    (1-based, ``s`` >= 1) over ``warmup_steps`` W; W = 0 means no warm-up (factor 1).

    The RL stage multiplies ``optim.lr`` by it at every step."""
    if warmup_steps < 0:
        raise ValueError(f"warmup_steps must be >= 0, got {warmup_steps}")
    return min(1.0, step / max(1, warmup_steps))


def lr_factor(
    step: int, total: int, warmup: int, schedule: str, min_ratio: float, decay_frac: float = 0.2
) -> float:
    r"""Stage-1 multiplier of the base lr before update ``step`` (0-based) of ``total``.

    Linear warm-up over the first W = ``warmup`` steps, :func:`linear_warmup` of ``step + 1``;
    after it, with :math:`p = (s - W) / (\mathrm{total} - W)` clipped to 1, m = ``min_ratio``
    and d = ``decay_frac``:

    - cosine:   :math:`m + (1 - m)\,(1 + \cos \pi p) / 2`
    - linear:   :math:`m + (1 - m)\,(1 - p)`
    - constant: 1
    - wsd:      :math:`m + (1 - m)\,\min(1, (1 - p) / d)` — constant until the last fraction
      d of the post-warm-up steps, then linear to m (warmup-stable-decay, Hu et al. 2024,
      "MiniCPM"); d = 1 is the linear schedule.
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {sorted(SCHEDULES)}, got {schedule!r}")
    if warmup > 0 and step < warmup:
        return linear_warmup(step + 1, warmup)
    if schedule == "constant" or total <= warmup:
        return 1.0
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return min_ratio + (1 - min_ratio) * SCHEDULES[schedule](progress, decay_frac)
