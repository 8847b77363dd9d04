r"""The RL recipe sweep: SFT + GRPO settings and the criterion that picks the factorial's recipe.

Written down before the sweep ran. Every setting is preset ``cpu-grpo`` (SFT start, no reward
token, G 5) from the Stage-1 SFT model of :data:`SEED` — a seed the factorial does not use —
for :data:`STEPS` steps, with flags over the preset. The preset then trained on all
:data:`FULL_TASKS` training tasks; it now carries the recipe this sweep chose (a 16-task pool),
so every setting names its number of training tasks. A setting *learns* when

.. math:: \Delta_{train} = \overline{s}_{last\ 20} - \overline{s}_{first\ 20} \ge 0.10
          \quad\text{and}\quad \Delta_{held-out} = e_{end} - e_{0} \ge -0.03,

where :math:`s_t` is ``reward/success_rate`` (the training rollouts of step t, sampled at
τ = 1) and :math:`e` is ``reward/eval_success`` (greedy, the 200 held-out synth tasks).
With P·G = 40 rollouts a step, the standard error of :math:`\Delta_{train}` is about 0.025
at s ≈ 0.5, so 0.10 is four of them; 0.03 on 200 held-out tasks is under one standard error
of a success rate near 0.6 (≈ 0.035), i.e. "does not fall" beyond noise.

The recipe is the learning setting with the largest :math:`\Delta_{train}`; settings within
0.02 of it count as tied and the tie goes to the cheaper one (fewer prompts sampled: prompts
per step x steps), then the smaller learning rate. No setting learning is a result too
(:func:`choose` returns None), and then the diagnostics in :func:`summarise` (KL to π_ref,
clip fraction, gradient norm, zero-variance share) say why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SEED = 3
"""Stage-1 seed of the sweep's SFT start and the RL seed (the factorial uses 0, 1, 2)."""
STEPS = 100
"""RL steps per setting (the criterion compares the first and last 20)."""
EVAL_EVERY = 50
"""Held-out evaluation steps: 0, 50, 100."""
WINDOW = 20
"""Steps in each of the two windows of Δ_train."""
MIN_TRAIN_RISE = 0.10
"""Δ_train a learning setting reaches."""
MAX_HELDOUT_DROP = 0.03
"""Largest held-out fall a learning setting may show."""
TIE = 0.02
"""Δ_train differences at or below this are ties."""
FULL_TASKS = 6000
"""Training tasks of a setting without a pool: the whole synth training set the preset had
when the sweep ran."""


@dataclass(frozen=True)
class Setting:
    """One sweep setting: flags over ``cpu-grpo``."""

    tag: str
    """Run-name suffix: the run is ``sweep-<tag>``."""
    lr: float
    """``optim.lr``."""
    kl_beta: float = 0.1
    """``algo.kl_beta`` (the preset's 0.1 by default)."""
    prompts: int = 8
    """``rollout.prompts_per_step`` (the preset's 8 by default)."""
    train_tasks: int = 0
    """``tasks.num_train`` (0 = :data:`FULL_TASKS`, the whole training set)."""
    loss_agg: str = "token-mean"
    """``algo.loss_agg`` (the preset's token-mean by default)."""
    steps: int = STEPS
    """``run.steps`` (the criterion compares the first and last :data:`WINDOW` of them)."""

    def flags(self) -> tuple[str, ...]:
        agg = ("--algo.loss-agg", self.loss_agg) if self.loss_agg != "token-mean" else ()
        return (
            *("--optim.lr", f"{self.lr:g}", "--algo.kl-beta", f"{self.kl_beta:g}"),
            *("--rollout.prompts-per-step", str(self.prompts)),
            *("--tasks.num-train", str(self.train_tasks or FULL_TASKS)),
            *agg,
        )

    @property
    def cost(self) -> int:
        """Prompts sampled in the run (the tie-break of :func:`choose`)."""
        return self.prompts * self.steps


GRID: tuple[Setting, ...] = (
    Setting("lr1e-4", 1e-4),
    Setting("lr2e-4", 2e-4),
    Setting("lr3e-4", 3e-4),
    Setting("lr2e-4-beta0.02", 2e-4, kl_beta=0.02),
    Setting("lr2e-4-p16", 2e-4, prompts=16),
)
"""The settings, chosen from two probes of the 5e-5 preset (nothing moves in 40 steps: KL to
π_ref 0.0015) and of 5e-4 (held-out 0.59 -> 0.29, KL 0.34): the learning rates between them,
a weaker KL anchor, and twice the prompts per step against gradient noise (at one learning
rate: a 16-prompt step costs two 8-prompt steps of the 2-core budget)."""


FOLLOW_UP: tuple[Setting, ...] = (
    Setting("lr1e-4-seqmean", 1e-4, loss_agg="seq-mean-token-mean"),
    Setting("lr2e-4-seqmean", 2e-4, loss_agg="seq-mean-token-mean"),
)
"""Recipe candidates ADDED AFTER the grid's results (no grid setting learned), under the same
criterion, seed and budget. They test one hypothesis from the grid's runs: under token-mean
aggregation the failed rollouts, 1.3x longer than the successes (58.7 against 44.6 generated
tokens in ``sweep-lr1e-4``; the token-weighted mean advantage is -0.09 where the per-rollout
mean is 0), carry most of the loss weight, so the update mostly pushes probability away from
sampled tokens that successes share too (``loss/pg`` > 0 and the entropy not falling in every
grid run). ``seq-mean-token-mean`` gives each rollout the weight of its advantage whatever its
length (Shao et al. 2024's GRPO as printed; TRL's ``loss_type="grpo"``)."""

POOL_FOLLOW_UP: tuple[Setting, ...] = (
    Setting("lr1e-4-pool16-s200", 1e-4, train_tasks=16, steps=200),
    Setting("lr1e-4-pool64-s200", 1e-4, train_tasks=64, steps=200),
)
"""Recipe candidates ADDED AFTER the follow-up and the gradient-noise diagnosis
(:mod:`analysis.diagnostics.grad_noise`, ``results/diagnostics/``), same criterion. At the
seed-3 SFT model the expected gradient over the 6,000 training tasks is indistinguishable from zero
(|G|² = 8.7e-5 ± 2.3e-4, B_noise ≈ 22,000 groups from 512 groups), while over a pool
of n tasks it is |G|² ≈ s/n with s ≈ 0.08 (n = 16: 5.0e-3 ± 1.1e-3, B_noise
382; n = 128: 7.6e-4 ± 3.2e-4, B_noise 2,116): what a step can learn is task-specific, and a
run learns only where it revisits its tasks. The paper's RL revisits each of its 720 tasks
~140 times (256 prompts x 400 steps); 200 steps of 8 prompts revisit a pool of 16 tasks 100
times and one of 64 tasks 25 times (1,600 groups = 4.2 and, by s/n, about 1 B_noise)."""

CANDIDATES: tuple[Setting, ...] = (*GRID, *FOLLOW_UP, *POOL_FOLLOW_UP)
"""Every setting the recipe may come from: the grid and its follow-ups."""


DIAGNOSES: tuple[Setting, ...] = (
    Setting("diag-lr2e-4-16tasks", 2e-4, train_tasks=16),
    Setting("diag-frozen", 1e-10),
)
"""Runs that explain the grid's result, added after the grid's first runs showed no setting
learning, and never candidates for the recipe: the same update on 16 training tasks, each
seen ~50 times in 100 steps. If training success rises there, the update points the right
way and the grid's settings lack samples, not a working gradient; if it does not, the update
itself fails on this policy.

``diag-frozen`` (lr 1e-10: the start policy, added after the follow-up) samples the same task
sequence as every setting (the RL seed fixes it), so its Δ_train is the part of every
setting's Δ_train that comes from which tasks the two windows drew, not from learning; see
:func:`paired_rise`."""


@dataclass(frozen=True)
class Outcome:
    """What the criterion reads from one run (NaN where a value is missing)."""

    setting: Setting
    train_rise: float
    heldout_start: float
    heldout_end: float
    kl_end: float
    """Mean ``policy/kl_ref`` over the last window."""
    clipfrac_end: float
    """Mean ``policy/clipfrac`` over the last window."""
    grad_norm: float
    """Mean ``policy/grad_norm`` over all steps."""
    zero_var: float
    """Mean ``group/zero_var_frac`` over all steps."""

    @property
    def heldout_change(self) -> float:
        return self.heldout_end - self.heldout_start

    @property
    def learns(self) -> bool:
        """The criterion of the module docstring (False when a value is missing)."""
        return self.train_rise >= MIN_TRAIN_RISE and self.heldout_change >= -MAX_HELDOUT_DROP


def _mean(values) -> float:
    values = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    return sum(values) / len(values) if values else math.nan


def outcome(setting: Setting, metrics) -> Outcome:
    """The criterion's quantities from a run's ``metrics`` DataFrame (``load_run().metrics``)."""
    steps = metrics[metrics["step"] >= 1].sort_values("step")

    def column(key: str):
        return steps[key] if key in steps else steps["step"] * math.nan

    success = column("reward/success_rate").dropna()
    rise = _mean(success.tail(WINDOW)) - _mean(success.head(WINDOW))
    if len(success) < 2 * WINDOW:
        rise = math.nan
    evals = (
        metrics.dropna(subset=["reward/eval_success"]) if "reward/eval_success" in metrics else None
    )
    start = end = math.nan
    if evals is not None and len(evals):
        evals = evals.sort_values("step")
        start = (
            float(evals["reward/eval_success"].iloc[0]) if evals["step"].iloc[0] == 0 else math.nan
        )
        end = float(evals["reward/eval_success"].iloc[-1]) if len(evals) > 1 else math.nan
    last = steps.tail(WINDOW)
    return Outcome(
        setting,
        rise,
        start,
        end,
        _mean(last["policy/kl_ref"]) if "policy/kl_ref" in last else math.nan,
        _mean(last["policy/clipfrac"]) if "policy/clipfrac" in last else math.nan,
        _mean(column("policy/grad_norm")),
        _mean(column("group/zero_var_frac")),
    )


def paired_rise(metrics, frozen) -> float:
    r""":math:`\Delta_{train}` of ``metrics`` minus that of the frozen start policy on the same
    task sequence (``frozen``: the ``diag-frozen`` run's metrics), computed on the per-step
    differences :math:`s_t - f_t` of the steps both logged. A diagnosis, not the criterion:
    it removes the share of :math:`\Delta_{train}` that comes from which tasks each window
    drew (NaN when fewer than two windows of common steps exist)."""

    def success(m):
        m = m[m["step"] >= 1].dropna(subset=["reward/success_rate"])
        return m.set_index("step")["reward/success_rate"]

    diff = (success(metrics) - success(frozen)).dropna().sort_index()
    if len(diff) < 2 * WINDOW:
        return math.nan
    return _mean(diff.tail(WINDOW)) - _mean(diff.head(WINDOW))


def choose(outcomes: list[Outcome]) -> Outcome | None:
    """The recipe (module docstring), or None when no setting learns."""
    learning = [o for o in outcomes if o.learns]
    if not learning:
        return None
    best = max(o.train_rise for o in learning)
    tied = [o for o in learning if best - o.train_rise <= TIE]
    return min(tied, key=lambda o: (o.setting.cost, o.setting.lr))


def summarise(outcomes: list[Outcome]) -> list[dict[str, object]]:
    """One row per setting for tables and the closing note."""
    chosen = choose(outcomes)
    return [
        {
            "setting": o.setting.tag,
            "train_rise": o.train_rise,
            "heldout": (o.heldout_start, o.heldout_end),
            "kl_end": o.kl_end,
            "clipfrac_end": o.clipfrac_end,
            "grad_norm": o.grad_norm,
            "zero_var": o.zero_var,
            "learns": o.learns,
            "chosen": chosen is not None and o.setting == chosen.setting,
        }
        for o in outcomes
    ]
