r"""Remark 4.4 (convergence implication) on the exact two-mode model.

The remark (text not recovered) reads: since :math:`E[\sigma_g^2]\ge\kappa\varepsilon^2`,
the expected update does not vanish and RC-GRPO avoids the stall of Prop. 4.2. We train
the two-mode policy of :mod:`analysis.theory.two_mode` by gradient ascent on the *exact*
expected GRPO gradient (every group outcome enumerated; no sampling noise), G = 5, p = ½:

- GRPO from a peaked SFT start (success probability ``s0``), plain, at temperature τ = 2,
  and with an entropy bonus β·∇H (the entropy-raising alternatives);
- RCTP + GRPO (every token high) and RC-GRPO (i.i.d. tokens) from an RCTP start whose
  modes are separated by construction (``rctp_start``: s_low, s_high), and RC-GRPO from an
  RCTP start that failed to separate them.

What the exact model shows (numbers in :func:`check`'s notes and the dynamics figure):
GRPO's update norm is :math:`\le(1-P_{collapse})/(2\tau)` and it stalls for ~1/(lr·s0)
steps; with separated modes RC-GRPO's E[σ_g²] stays ≥ κΔ² and rises to κ while conditional
entropy falls (variance follows separation, not entropy). The remark needs an extra
assumption: the *update* is bounded by :math:`\tfrac{2\sqrt{G-1}}{\tau}\sum_rf_rs_r(1-s_r)`,
so it vanishes whenever both conditionals are peaked, whatever the variance. Usually that is
convergence (s_high → 1), but with inverted conditioning (s_high = 10⁻³, s_low = 1 − 10⁻³,
|μ_h − μ_l| ≈ 1) E[σ_g²] ≈ κ while the evaluated policy fails and barely moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import torch

from analysis.theory.report import StatementResult, bernstein_halfwidth, exact_tol
from analysis.theory.stratified import expected_group_variance_stratified
from analysis.theory.two_mode import (
    binary_entropy,
    entropy_gradient,
    expected_statistics,
    sample_group_gradients,
    success_probs,
    token_fractions,
)
from analysis.theory.variance_guarantee import expected_group_variance_iid, kappa
from rcgrpo.conditioning import stratified_count


def logit(s: float) -> float:
    """log(s / (1 − s))."""
    return float(np.log(s / (1.0 - s)))


@dataclass(frozen=True)
class Method:
    """One training run of the two-mode model."""

    label: str  # legend text (mathtext allowed)
    start: tuple[float, float]  # initial success probabilities (s_low, s_high)
    scheme: str  # "high" (GRPO), "iid" (RC-GRPO) or "stratified"
    tau: float = 1.0  # sampling temperature
    entropy_coef: float = 0.0  # β of the entropy bonus β·H̄ added to the objective
    style: str = "-"  # matplotlib line style


def default_methods(s0: float = 0.002, rctp_start=(0.001, 0.3)) -> dict[str, Method]:
    """The runs of the dynamics figure: peaked SFT start ``s0``, separated RCTP start."""
    return {
        "grpo": Method("GRPO", (s0, s0), "high"),
        "grpo_tau2": Method(r"GRPO, $\tau=2$", (s0, s0), "high", tau=2.0),
        "grpo_entropy": Method(
            r"GRPO + entropy bonus $\beta=0.5$", (s0, s0), "high", entropy_coef=0.5
        ),
        "rctp_grpo": Method("RCTP + GRPO (high token)", rctp_start, "high", style="--"),
        "rc_grpo": Method("RCTP + RC-GRPO", rctp_start, "iid"),
        "rc_grpo_unsep": Method("RC-GRPO, unseparated RCTP", (s0 / 10, s0), "iid", style=":"),
    }


def simulate(
    method: Method, steps: int = 400, lr: float = 1.0, group_size: int = 5, p: float = 0.5
) -> dict[str, np.ndarray]:
    """Exact expected-gradient ascent; per-step arrays of the quantities the figure plots.

    ``success`` is σ(z_high) at τ = 1 (the evaluated policy), ``update_norm`` is
    ‖lr·(E[g] + β∇H̄)‖, ``separation`` s_high − s_low and ``entropy`` the token-averaged
    binary entropy (nats) of the sampling policy.
    """
    z = np.array([logit(method.start[0]), logit(method.start[1])])
    frac = token_fractions(group_size, p, method.scheme)
    keys = (
        "success",
        "update_norm",
        "grad_norm",
        "variance",
        "entropy",
        "separation",
        "p_collapse",
        "grad_norm_bound",
        "s_low",
        "s_high",
    )
    out = {k: np.empty(steps) for k in keys}
    for t in range(steps):
        st = expected_statistics(z, group_size, p, method.scheme, method.tau)
        update = lr * (st["mean_grad"] + method.entropy_coef * entropy_gradient(z, frac))
        s_tau = st["success"]
        row = (
            success_probs(z)[1],
            float(np.linalg.norm(update)),
            st["mean_grad_norm"],
            st["expected_variance"],
            float(frac @ binary_entropy(s_tau)),
            s_tau[1] - s_tau[0],
            st["p_collapse"],
            st["grad_norm_bound"],
            s_tau[0],
            s_tau[1],
        )
        for k, v in zip(keys, row, strict=True):
            out[k][t] = v
        z = z + update
    return out


def closed_form_variance(logits, group_size: int, p: float, scheme: str, tau: float) -> float:
    """E[σ_g²] of the two-mode model from Prop. 4.3 / statement 6's closed forms."""
    s_low, s_high = success_probs(logits, tau)
    low, high = (
        (np.array([0.0, 1.0]), np.array([1 - s_low, s_low])),
        (np.array([0.0, 1.0]), np.array([1 - s_high, s_high])),
    )
    if scheme == "iid":
        return expected_group_variance_iid(high, low, p, group_size)
    k = group_size if scheme == "high" else stratified_count(p, group_size)
    return expected_group_variance_stratified(high, low, k, group_size)


def _check_config(res, cfg: dict, gen, num_mc: int, bound_scale: float) -> None:
    z, group_size, p, scheme, tau = cfg["logits"], cfg["G"], cfg["p"], cfg["scheme"], cfg["tau"]
    st = expected_statistics(np.array(z), group_size, p, scheme, tau)
    exact, tol = partial(res.add, method="exact", config=cfg), exact_tol(1.0)
    exact("total probability", "==", 1.0, st["total_prob"], tol)
    closed = closed_form_variance(z, group_size, p, scheme, tau)
    exact("E[sigma_g^2]: table vs closed form", "==", closed, st["expected_variance"], tol)
    if scheme == "iid":
        bound = kappa(group_size, p) * (st["success"][1] - st["success"][0]) ** 2
        exact("E[sigma_g^2] >= kappa Delta^2", ">=", bound, st["expected_variance"], tol)
    bound = bound_scale * st["grad_norm_bound"]
    exact("E||g|| <= 2 sqrt(G-1)/tau sum f s(1-s)", "<=", bound, st["mean_grad_norm"], tol)
    if not num_mc:
        return
    mc = partial(res.add, method="monte carlo", config=cfg)
    grads = sample_group_gradients(np.array(z), group_size, p, scheme, tau, num_mc, gen)
    for r, name in enumerate(("low", "high")):  # g_r in [-1/tau, 1/tau]
        hw = bernstein_halfwidth(grads[:, r], 2.0 / tau)
        mc(f"E[g_{name}]: exact vs MC", "==", st["mean_grad"][r], grads[:, r].mean(), hw)
    norms = np.linalg.norm(grads, axis=1)  # ||g|| in [0, 1/tau]
    mc(
        "E||g||: exact vs MC",
        "==",
        st["mean_grad_norm"],
        norms.mean(),
        bernstein_halfwidth(norms, 1.0 / tau),
    )


def _random_config(rng: np.random.Generator) -> dict:
    return {
        "logits": rng.uniform(-9.0, 9.0, size=2).tolist(),
        "G": int(rng.integers(2, 9)),
        "p": float(rng.uniform(0.05, 0.95)),
        "scheme": str(rng.choice(["iid", "stratified", "high"])),
        "tau": 1.0 if rng.random() < 0.5 else float(rng.uniform(0.5, 3.0)),
    }


def _check_runs(res: StatementResult, runs: dict, group_size: int, p: float) -> None:
    """Per step of the G = 5 runs: κΔ² for RC-GRPO, the Prop. 4.2 update bound for GRPO."""
    k, tol = kappa(group_size, p), exact_tol(1.0)
    for name, (method, out) in runs.items():
        for t in range(len(out["variance"])):
            add = partial(res.add, method="exact", config={"run": name, "G": group_size, "step": t})
            if method.scheme == "iid":
                bound = k * out["separation"][t] ** 2
                add("run: E[sigma_g^2] >= kappa Delta^2", ">=", bound, out["variance"][t], tol)
            if method.scheme == "high":
                bound = (1.0 - out["p_collapse"][t]) / (2.0 * method.tau)
                add(
                    "run: E||g|| <= (1 - P(collapse))/(2 tau)",
                    "<=",
                    bound,
                    out["grad_norm"][t],
                    tol,
                )


def steps_to(values: np.ndarray, level: float) -> int | None:
    """First step at which ``values`` reaches ``level`` (None if never)."""
    hit = np.nonzero(values >= level)[0]
    return int(hit[0]) if hit.size else None


def inverted_conditioning_example(group_size: int = 5, p: float = 0.5) -> dict:
    """s_high = 1e-3, s_low = 1 − 1e-3: full variance, failing policy, vanishing update."""
    st = expected_statistics(np.array([logit(1 - 1e-3), logit(1e-3)]), group_size, p, "iid")
    return {
        "variance": st["expected_variance"],
        "kappa": kappa(group_size, p),
        "grad_norm": st["mean_grad_norm"],
        "success": 1e-3,
    }


def check(
    num_configs: int = 200,
    seed: int = 0,
    num_mc: int = 8000,
    steps: int = 400,
    bound_scale: float = 1.0,
) -> StatementResult:
    """Remark 4.4: exact two-mode statistics on random configs, and the G = 5, p = ½ runs.

    ``bound_scale`` multiplies the update-norm bound (tests pass a too small one).
    """
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    res = StatementResult("remark_4_4", "Remark 4.4 two-mode dynamics: variance vs update")
    for _ in range(num_configs):
        _check_config(res, _random_config(rng), gen, num_mc, bound_scale)
        res.configs += 1
    runs = {name: (m, simulate(m, steps)) for name, m in default_methods().items()}
    _check_runs(res, runs, 5, 0.5)
    res.configs += len(runs)
    summary = []
    for name, (_, out) in runs.items():
        hit = steps_to(out["success"], 0.5)
        reach = "never" if hit is None else hit
        summary.append(
            f"{name}: success {out['success'][0]:.3f} -> {out['success'][-1]:.3f} (0.5 at step "
            f"{reach}), update {out['update_norm'][0]:.1e} -> {out['update_norm'][-1]:.1e}, "
            f"E[sigma^2] {out['variance'][-1]:.3f} at entropy {out['entropy'][-1]:.3f} nats"
        )
    res.notes.append(
        "Exact expected-gradient runs (G = 5, p = 1/2, lr = 1, 400 steps): "
        + "; ".join(summary)
        + "."
    )
    inv = inverted_conditioning_example()
    res.notes.append(
        "Needs an extra assumption (conditionals not peaked): E||g|| <= 2 sqrt(G-1)/tau sum_r f_r "
        "s_r (1 - s_r) holds on every config, so the update vanishes when both conditionals are "
        f"peaked whatever E[sigma_g^2] is. Counterexample: inverted conditioning s_high = 1e-3, "
        f"s_low = 1 - 1e-3 has E[sigma_g^2] = {inv['variance']:.3f} (kappa = {inv['kappa']:.2f}) "
        f"but E||g|| = {inv['grad_norm']:.1e} and success 1e-3. Without separation RC-GRPO stalls "
        "longer than GRPO (half of each group carries the low token)."
    )
    return res
