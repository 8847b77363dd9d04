r"""Instrument 2, the transfer probe: how much a low-goal update moves the high-goal policy.

Tasks: the first B·P tasks of the training split that carry a planted decision (an RL step
samples training tasks), cut into B disjoint batches of P tasks; the probe set is every
decision point of those B·P tasks, fixed for all batches (:mod:`.logodds`: the log-odds
:math:`z_g` of the right option under goal g at the decision token, on the expert prefix).

**The coupling in gradient form** (``gradient``; :mod:`.coupling`): at θ, each task's
gradients :math:`\nabla z_{h,i}`, :math:`\nabla z_{l,i}` and, per task and pooled over the
probe set (the gradients of :math:`\bar z_g`, the mean over the points), the inner product
:math:`\langle\nabla\bar z_h,\nabla\bar z_l\rangle`, both norms, the cosine, the gain ratio
γ = ‖∇z̄_l‖ / ‖∇z̄_h‖ (the transfer model assumes γ = 1) and the cross-to-own ratios
:math:`\rho_l`, :math:`\rho_h` of a step along each goal's gradient, with basic bootstrap
intervals over tasks (seeded by ``--seed``). It needs no sampling: every task informs it,
whatever the goals' success.

**The one-step ratio** (``estimate``): per batch b, G rollouts per task under
``<|low_reward|>`` at the preset's sampling settings
(the trainer's engine, :func:`rcgrpo.train.rl.setup.make_engine`, seeded
``derive_seed(seed, "transfer", b, attempt)``), their advantages
(:func:`rcgrpo.group_advantages` with the preset's estimator, [P, G]), and the gradient
:math:`g_b = \nabla_\theta L_b` of the trainer's own loss on that batch alone
(:func:`rcgrpo.train.rl.update.run_update`: its forward, aggregation and denominators; one
update, so the ratio is 1 and the clip inactive; no KL, β = 0; no gradient clipping). A batch
whose groups are all constant has :math:`g_b = 0`; it is resampled with the next attempt
seed, up to :data:`ATTEMPTS` times, then left out. The step is plain SGD,

.. math::
    \Delta\theta_b = -\eta_b\, g_b,\qquad \eta_b = s\,\|\theta\| / \|g_b\|,

so every batch moves the parameters by the same relative amount s (the first of ``--steps``,
default 1e-6). It is applied to a float64 copy of the model, where z is measured (so rounding
does not blur a change of order s): :func:`float64_copy`, whose RMSNorms and attention softmax
stay in float64 (``transformers``' compute them in float32 whatever the weights' dtype, a
rounding floor near 1e-9 in Δz that swamped the second-order term below steps of ~1e-5). The
step must be small enough for the first-order picture: SGD concentrates the step on the few
directions where the loss gradient is large, and z is curved along them. The other ``--steps`` are reported under ``larger_steps``, the same numbers
at a larger step. With :math:`\bar z_g` the mean over the probe set,

.. math::
    \Delta\bar z_{g,b} = \bar z_g(\theta + \Delta\theta_b) - \bar z_g(\theta),\qquad
    \hat\rho = \frac{\frac1B\sum_b \Delta\bar z_{high,b}}{\frac1B\sum_b \Delta\bar z_{low,b}},

``estimate`` and ``ci``: the ratio of means over the informative batches with its
delta-method 95% interval (:func:`~analysis.diagnostics.transfer.estimates.ratio_of_means`;
stable when a batch's :math:`\Delta\bar z_{low}` is near 0, where a per-batch ratio explodes);
``mean_of_ratios``: the t interval over the per-batch ratios, for comparison. ρ̂ = 1: the
update moves both goals alike (a goal-blind policy; the goal token does not separate them);
ρ̂ = 0: the high-goal policy does not move. ``own`` / ``other``: the same ratio on the points
of the batch's own tasks / of the other batches' tasks (direct effect / across tasks);
``kinds``: per decision kind of the probe, its points, z̄ and the mean σ(z) under each goal
before the step (σ(z): the probability of the right branch at the decision token, between the
two), and ρ̂ on its points. Leaving out a zero-gradient batch changes no ratio of sums: it
would add 0 to both. With few informative batches (goals that separate leave the low goal's
groups all-fail) ρ̂ has no interval; ``gradient`` does not depend on them.

**ρ̂ against the gradient form.** To first order, :math:`\Delta\bar z_{g,b} =
\langle\nabla\bar z_g,\Delta\theta_b\rangle + O(s^2) = -\eta_b\langle\nabla\bar z_g,
g_b\rangle`, so

.. math::
    \hat\rho \approx \frac{\langle\nabla\bar z_h, u\rangle}{\langle\nabla\bar z_l, u\rangle},
    \qquad u = -\sum_b \eta_b\, g_b

(``first_order``). If the low-goal update points along the low goal's log-odds, :math:`u =
a\nabla\bar z_l + r` with r orthogonal to both gradients (the transfer model: the loss sees
only the decision, and a low-goal batch's expected update is :math:`c_l s_l(1-s_l)\nabla z_l`,
tasks weighted as in z̄), then

.. math::
    \hat\rho \approx \frac{\langle\nabla\bar z_h,\nabla\bar z_l\rangle}{\|\nabla\bar z_l\|^2}
    = \rho_l = \frac{\cos}{\gamma}.

The real loss also carries the gradients of every other token the rollouts write (arguments,
other calls), whose components along the two gradients enter both sums, and the batches weigh
tasks unevenly, so :math:`\hat\rho = \rho_l` is a prediction the report tests
(``gradient.rho_low`` beside ``estimate``), not an identity.

Finite-difference check: the first-order prediction
:math:`\langle\nabla_\theta\bar z_g, \Delta\theta_b\rangle` (autograd at θ, float64) against
the measured :math:`\Delta\bar z_{g,b}`: relative error
:math:`|\Delta\bar z - \langle\nabla\bar z,\Delta\theta\rangle| / |\langle\nabla\bar z,
\Delta\theta\rangle|`, which is O(s) (the second-order term over the first); ``first_order``
is :math:`\hat\rho` from the predictions.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import torch

from analysis.diagnostics.transfer.coupling import bootstrap
from analysis.diagnostics.transfer.estimates import mean_of_ratios, ratio_of_means, t_interval
from analysis.diagnostics.transfer.logodds import Item, log_odds, task_gradients, task_points

ATTEMPTS = 4
"""Samplings of a batch before it is left out for having no informative group."""
GOALS = ("high", "low")


class GradCatcher(torch.optim.Optimizer):
    """An optimizer whose step records the parameters' gradients and changes nothing."""

    def __init__(self, params: Sequence[torch.nn.Parameter]):
        super().__init__(list(params), {"lr": 0.0})
        self.grads: list[torch.Tensor] = []

    @torch.no_grad()
    def step(self, closure=None) -> None:
        self.grads = [p.grad.detach().clone() for g in self.param_groups for p in g["params"]]


def loss_gradient(model, rollouts: Sequence, advantages: torch.Tensor, cfg, pad_id: int):
    """∇θ of the trainer's policy loss on ``rollouts`` with ``advantages`` [B] (group-major,
    whole groups of ``cfg.rollout.group_size``), β = 0, no clipping (module docstring)."""
    from rcgrpo.train.distributed import DistInfo
    from rcgrpo.train.rl.update import TrainBatch, UpdateSettings, run_update

    cfg = copy.deepcopy(cfg)
    cfg.algo.kl_beta, cfg.optim.max_grad_norm = 0.0, math.inf
    cfg.optim.inner_epochs = cfg.optim.minibatches = 1
    size = cfg.rollout.group_size
    ordinal = [i // size for i in range(len(rollouts))]
    batch = TrainBatch(list(rollouts), advantages.float(), ordinal, None)
    catcher = GradCatcher([p for p in model.parameters() if p.requires_grad])
    run_update(model, None, catcher, batch, UpdateSettings.of(cfg), DistInfo(), 0.0, pad_id)
    return catcher.grads


def _dot(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> float:
    return float(sum((x.double() * y.double()).sum() for x, y in zip(a, b, strict=True)))


def sample_batch(engine, tasks: Sequence, cfg, seed: int, b: int):
    """(rollouts, advantages [P·G], attempts) of batch ``b`` under the low goal; advantages
    all 0 after :data:`ATTEMPTS` samplings means no informative group."""
    from rcgrpo import group_advantages
    from rcgrpo.train.rollouts import derive_seed

    size, algo = cfg.rollout.group_size, cfg.algo
    low = torch.zeros(len(tasks), size, dtype=torch.bool)
    for attempt in range(ATTEMPTS):
        out = engine.run_groups(tasks, size, low, seed=derive_seed(seed, "transfer", b, attempt))
        adv = group_advantages(
            out.rewards(), algo.adv_estimator, eps_stab=algo.eps_stab, ddof=algo.adv_ddof
        )
        if bool((adv != 0).any()):
            break
    return out.rollouts, adv.reshape(-1), attempt + 1


def _rms_norm_in_dtype(self, hidden: torch.Tensor) -> torch.Tensor:
    """``transformers``' RMSNorm, w · h / sqrt(mean(h²) + ε), in ``hidden``'s dtype."""
    variance = hidden.pow(2).mean(-1, keepdim=True)
    return self.weight * (hidden * torch.rsqrt(variance + self.variance_epsilon))


def float64_copy(model) -> torch.nn.Module:
    """A float64 copy of ``model`` in eval mode that computes in float64 throughout: every
    ``*RMSNorm`` module's forward replaced by :func:`_rms_norm_in_dtype` and the attention set
    to SDPA (the eager path's softmax is float32); ``model`` is untouched."""
    copied = copy.deepcopy(model).double().eval()
    for module in copied.modules():
        if type(module).__name__.endswith("RMSNorm") and hasattr(module, "variance_epsilon"):
            module.forward = _rms_norm_in_dtype.__get__(module)
        config = getattr(module, "config", None)
        if getattr(config, "_attn_implementation", None) == "eager":
            config._attn_implementation = "sdpa"
    return copied


@dataclasses.dataclass
class Probe:
    """The probe set at θ: the float64 model, its points, z, the gradient of z̄ and the Gram
    matrices of the per-task gradients under each goal."""

    model: torch.nn.Module
    items: list[Item]
    temperature: float
    z: dict[str, torch.Tensor] = dataclasses.field(default_factory=dict)
    """goal -> z [points] at θ."""
    grad: dict[str, torch.Tensor] = dataclasses.field(default_factory=dict)
    """goal -> ∇θ z̄ [P] float64, z̄ the mean over the points."""
    gram: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    """``hh``, ``hl``, ``ll`` -> [tasks, tasks] inner products of the per-task gradients."""
    tasks: list[str] = dataclasses.field(default_factory=list)
    """The probe's tasks, the order of :attr:`gram` and :attr:`points`."""
    points: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    """[tasks] points per task (:func:`~analysis.diagnostics.transfer.logodds.task_points`)."""

    @classmethod
    def at(cls, model, items: list[Item], temperature: float) -> Probe:
        """A probe on :func:`float64_copy` of ``model``."""
        probe = cls(float64_copy(model), items, temperature)
        probe.tasks, points = task_points(items)
        rows = {}
        for goal in GOALS:
            probe.z[goal], rows[goal] = task_gradients(probe.model, items, goal, temperature)
            probe.grad[goal] = rows[goal].T @ (points / points.sum())
        high, low = rows["high"], rows["low"]
        probe.gram = {
            "hh": (high @ high.T).numpy(),
            "hl": (high @ low.T).numpy(),
            "ll": (low @ low.T).numpy(),
        }
        probe.points = points.numpy()
        return probe

    def coupling(self, seed: int) -> dict:
        """The ``gradient`` block (:func:`~analysis.diagnostics.transfer.coupling.bootstrap`),
        with the tasks in the order of its ``per_task`` lists and their decision kinds."""
        g = self.gram
        kinds = {t: sorted({it.kind for it in self.items if it.task_id == t}) for t in self.tasks}
        return {
            **bootstrap(g["hh"], g["hl"], g["ll"], self.points, seed=seed),
            "tasks": self.tasks,
            "task_kinds": ["+".join(kinds[t]) for t in self.tasks],
            "model_assumes": "gain_ratio = 1, so rho_low = rho_high = cosine",
        }

    def kinds(self) -> list[str]:
        """The decision kinds of the probe's points, sorted."""
        return sorted({it.kind for it in self.items})

    def before(self, kind: str | None = None) -> dict:
        """Per goal the mean z and σ(z) at θ over the points (of ``kind``), and their count."""
        sel = torch.tensor([kind in (None, it.kind) for it in self.items])
        return {
            "points": int(sel.sum()),
            "z_before": {g: float(self.z[g][sel].mean()) for g in GOALS},
            "p_right_before": {g: float(torch.sigmoid(self.z[g][sel]).mean()) for g in GOALS},
        }

    def params(self) -> list[torch.nn.Parameter]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def step(self, delta: Sequence[torch.Tensor]) -> dict[str, torch.Tensor]:
        """Per goal the change of z [n] when θ moves by ``delta`` (θ is restored after)."""
        saved = [p.detach().clone() for p in self.params()]
        with torch.no_grad():
            for p, d in zip(self.params(), delta, strict=True):
                p.add_(d.to(p.dtype))
        try:
            return {
                g: log_odds(self.model, self.items, g, self.temperature) - self.z[g] for g in GOALS
            }
        finally:
            with torch.no_grad():
                for p, s in zip(self.params(), saved, strict=True):
                    p.copy_(s)


def step_effect(probe: Probe, grads: Sequence[torch.Tensor], step: float, own: set) -> dict:
    """Measured and first-order Δz̄ per goal of the SGD step of relative size ``step`` along
    −``grads`` (module docstring); ``own``: the batch's task ids."""
    theta = math.sqrt(sum(float((p.detach().double() ** 2).sum()) for p in probe.params()))
    norm = math.sqrt(_dot(grads, grads))
    lr = step * theta / norm
    delta = [-lr * g.double() for g in grads]
    flat = torch.cat([d.reshape(-1) for d in delta])
    dz = probe.step(delta)
    mine = torch.tensor([it.task_id in own for it in probe.items])
    kinds = {k: torch.tensor([it.kind == k for it in probe.items]) for k in probe.kinds()}
    out: dict = {"step": step, "lr": lr, "grad_norm": norm, "step_norm": step * theta}
    for g in GOALS:
        pred, meas = float(probe.grad[g] @ flat), float(dz[g].mean())
        out[g] = {
            "dz": meas,
            "predicted": pred,
            "rel_err": abs(meas - pred) / abs(pred) if pred else math.inf,
            "dz_own": float(dz[g][mine].mean()) if mine.any() else math.nan,
            "dz_other": float(dz[g][~mine].mean()) if (~mine).any() else math.nan,
            "dz_kinds": {k: float(dz[g][sel].mean()) for k, sel in kinds.items()},
        }
    out["ratio"] = out["high"]["dz"] / out["low"]["dz"] if out["low"]["dz"] else math.nan
    return out


def batch_effect(probe: Probe, grads, steps: Sequence[float], own: set) -> dict:
    """:func:`step_effect` at each of ``steps`` (the first is the report's estimate), or
    ``{"informative": False}`` for a zero gradient."""
    if _dot(grads, grads) == 0:
        return {"informative": False}
    first, *rest = (step_effect(probe, grads, s, own) for s in steps)
    return {"informative": True, **first, "larger_steps": rest}


def _ratios(rows: Sequence[dict]) -> dict:
    """ρ̂ (ratio of means, delta method) and its companions over per-batch step records."""

    def col(goal: str, key: str) -> list[float]:
        return [b[goal][key] for b in rows]

    main = ratio_of_means(col("high", "dz"), col("low", "dz"))
    errs = [b[g]["rel_err"] for b in rows for g in GOALS]
    return {
        "estimate": main["estimate"],
        "ci": main["ci"],
        "ratio_of_means": main,
        "mean_of_ratios": mean_of_ratios(col("high", "dz"), col("low", "dz")),
        "first_order": ratio_of_means(col("high", "predicted"), col("low", "predicted")),
        "own": ratio_of_means(col("high", "dz_own"), col("low", "dz_own")),
        "other": ratio_of_means(col("high", "dz_other"), col("low", "dz_other")),
        "dz": {g: t_interval(col(g, "dz")) for g in GOALS},
        "finite_difference": {
            "max_rel_err": max(errs) if errs else math.nan,
            "median_rel_err": float(torch.tensor(errs).median()) if errs else math.nan,
            "rel_errs": errs,
        },
    }


def transfer_section(
    batches: Sequence[dict], probe: Probe, steps: Sequence[float], seed: int
) -> dict:
    """The report's ``transfer`` block from the per-batch records (module docstring): ρ̂ at
    ``steps[0]``, under ``larger_steps`` at each other step, and ``gradient``, the coupling in
    gradient form (bootstrap seeded ``seed``)."""
    ok = [b for b in batches if b["informative"]]
    out = _ratios(ok)
    out["finite_difference"]["step"] = steps[0]
    larger = []
    for k, step in enumerate(steps[1:]):
        block = _ratios([b["larger_steps"][k] for b in ok])
        larger.append({"step": step, **block})
    return {
        **out,
        "method": "ratio of means over batches, delta-method 95% t interval",
        "score": "log-odds at the decision token (first token where right and wrong differ)",
        "gradient": probe.coupling(seed),
        "step": steps[0],
        "larger_steps": larger,
        **{k: v for k, v in probe.before().items() if k != "points"},
        "kinds": {
            k: {
                **probe.before(k),
                "rho": ratio_of_means(
                    [b["high"]["dz_kinds"][k] for b in ok], [b["low"]["dz_kinds"][k] for b in ok]
                ),
            }
            for k in probe.kinds()
        },
        "batches": list(batches),
        "informative_batches": len(ok),
        "probe": {"points": len(probe.items), "tasks": len({it.task_id for it in probe.items})},
    }
