r"""The separation study's β predictions, written down before the β runs.

For each seed of the separation study the start is the committed RC-GRPO run's (mean training
success per goal over steps 1–5, ``(s_low, s_high)``), the update the exact expected
k3-regularised RC-GRPO update on the goal-blind two-goal bandit
(:func:`analysis.theory.separation_dynamics.simulate`, G = 8, p = ½) and the learning rate the
*effective* η fitted on seeds 3 and 4 at β = 0.1
(:func:`analysis.figures.fig_theory_separation_fit.results`; nothing is fitted here). Changing
β alone gives, at step 200:

- ε(200) = :math:`|s_h-s_l|`, the predicted training separation (Q1 reads the held-out one);
- the half-life :math:`t_{1/2}` = first t with ε(t) ≤ ε(0)/2
  (:func:`~analysis.theory.separation_dynamics.half_life`; "> 200" if not within the run);
- :math:`s_h(200)`, the predicted success under the high goal (a stronger anchor holds the
  high mode back as much as the low one, so it predicts slower learning).

:func:`half_life_table` gives t_{1/2} as a function of β and η from the seeds' mean start.
``python -m analysis.theory.separation_predictions`` prints both tables as Markdown, the text
``docs/protocols/regime-d10-separation-beta.md`` registered (its test recomputes them).
"""

from __future__ import annotations

import numpy as np

from analysis.theory.separation_dynamics import (
    bandit,
    bandit_rewards,
    half_life,
    half_life_grid,
    simulate,
)

BETAS = (0.1, 1.0, 3.0)
"""β of the committed runs and of the two β arms."""
GRID_BETAS = (0.03, 0.1, 0.3, 1.0, 3.0)
GRID_LR_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)
"""η as multiples of the fitted effective η (the trainer's lr 1e-4 is scale 1)."""
STEPS, GROUP, P = 200, 8, 0.5


def predict(start: tuple[float, float], beta: float, lr: float, steps: int = STEPS) -> dict:
    """ε(steps), its half-life (None: not within ``steps``) and s_h(steps) from ``start``."""
    out = simulate(
        (bandit(start[0]), bandit(start[1])), bandit_rewards(), beta, lr, steps, GROUP, P
    )
    return {
        "eps0": float(out["eps"][0]),
        "eps_end": float(out["eps"][-1]),
        "half_life": half_life(out["eps"]),
        "s_high_end": float(out["s_high"][-1]),
        "s_low_end": float(out["s_low"][-1]),
    }


def predictions(starts: dict[str, tuple[float, float]], lr: float) -> dict[str, dict]:
    """{run: {β: :func:`predict`}} for every start and every β of :data:`BETAS`."""
    return {name: {b: predict(st, b, lr) for b in BETAS} for name, st in starts.items()}


def half_life_table(start: tuple[float, float], lr: float) -> np.ndarray:
    """[len(GRID_BETAS), len(GRID_LR_SCALES)] t_{1/2} (NaN: > :data:`STEPS`)."""
    lrs = np.array(GRID_LR_SCALES) * lr
    return half_life_grid(np.array(GRID_BETAS), lrs, start, STEPS, GROUP, P)


def _hl(x) -> str:
    return f"> {STEPS}" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{int(x)}"


def markdown(fit: dict) -> str:
    """Both tables from :func:`analysis.figures.fig_theory_separation_fit.results`' output."""
    lr = fit["effective_lr"]
    starts = {name: tuple(r["start"]) for name, r in fit["runs"].items()}
    pred = predictions(starts, lr)
    lines = [
        f"Effective η = {lr:g} (fitted on seeds {fit['fit_seeds']} at β = {fit['beta']}).",
        "",
        "| start run | s_low, s_high at start | β | ε(0) | ε(200) | t½ | s_high(200) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, by_beta in pred.items():
        for b, r in by_beta.items():
            st = ", ".join(f"{x:.3f}" for x in starts[name])
            lines.append(
                f"| {name} | {st} | {b:g} | {r['eps0']:.3f} | {r['eps_end']:.3f} "
                f"| {_hl(r['half_life'])} | {r['s_high_end']:.3f} |"
            )
    mean = tuple(float(np.mean([s[i] for s in starts.values()])) for i in range(2))
    grid = half_life_table(mean, lr)
    head = " | ".join(f"{s:g}η" for s in GRID_LR_SCALES)
    lines += [
        "",
        f"Half-life t½ (steps) from the mean start ({mean[0]:.3f}, {mean[1]:.3f}):",
        "",
        f"| β | {head} |",
        "|---" * (len(GRID_LR_SCALES) + 1) + "|",
    ]
    for b, row in zip(GRID_BETAS, grid, strict=True):
        lines.append(f"| {b:g} | " + " | ".join(_hl(x) for x in row) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    from analysis.figures.fig_theory_separation_fit import results

    print(markdown(results()), end="")


if __name__ == "__main__":
    main()
