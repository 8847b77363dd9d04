r"""The paper's Tables 4–5 from the runs: entropy over training, and the training statistics.

- ``entropy`` (Table 4 analogue): per arm, the policy token entropy at the start, middle and
  end of RL (mean over the first / middle / last 10% of the training steps, at least one
  step each) and the Spearman rank correlation over steps between entropy and training
  reward (``policy/entropy`` vs ``reward/mean``, per run);
- ``training`` (Table 5 analogue): advantage spread (``adv/gap_mean``), KL to π_ref
  (``policy/kl_ref``, k3), gradient norm (``policy/grad_norm``, pre-clip) and entropy, each
  as the mean over all training steps and at the end (last 10%).

Every cell is the mean over seeds ± the 95% t half-width of the per-run number
(:func:`analysis.stats.mean_ci`), as in :mod:`analysis.campaigns.pool.tables`. A run whose entropy
or reward is constant over its steps has no rank correlation (NaN, dropped from the cell).

The tables are in :data:`analysis.campaigns.pool.tables.TABLES` (LaTeX, ``make paper``);
the pool campaign's ``dynamics`` block renders the same tables as markdown for
docs/experiments.md.
"""

from __future__ import annotations

from analysis.campaign.arms import arms
from analysis.report.runtable import Column, Row, TableSpec
from analysis.runs.extractors import mean_over_training, middle, spearman, window

ENTROPY, REWARD = "policy/entropy", "reward/mean"
TABLE_EXPERIMENTS = ("factorial", "baselines")
"""The pool campaign's experiments whose arms are the rows (:data:`analysis.campaign.arms.ARMS`),
each named by its ``start`` and ``method``."""


def _columns(markdown: bool) -> tuple[tuple[Column, ...], tuple[Column, ...]]:
    def h(latex: str, plain: str) -> str:
        return plain if markdown else latex

    entropy = (
        Column(h("$H$ start", "H start"), window(ENTROPY, "early"), 3),
        Column(h("$H$ middle", "H middle"), middle(ENTROPY), 3),
        Column(h("$H$ end", "H end"), window(ENTROPY, "late"), 3),
        Column(h("$\\rho_S(H, R)$", "Spearman ρ(H, R)"), spearman(ENTROPY, REWARD), 2),
    )
    training = []
    for key, latex, plain, digits in (
        ("adv/gap_mean", "gap", "adv. spread", 2),
        ("policy/kl_ref", "KL", "KL", 4),
        ("policy/grad_norm", "$\\|\\nabla\\|$", "grad norm", 2),
        (ENTROPY, "$H$", "H", 3),
    ):
        training.append(
            Column(h(f"{latex} mean", f"{plain} mean"), mean_over_training(key), digits)
        )
        training.append(Column(h(f"{latex} end", f"{plain} end"), window(key, "late"), digits))
    return entropy, tuple(training)


def dynamics_tables(experiments: dict[str, str], markdown: bool = False) -> tuple[TableSpec, ...]:
    """The two tables for the report's experiment map ``experiments`` (role -> group);
    ``markdown`` swaps the LaTeX headers for plain ones."""
    entropy, training = _columns(markdown)
    chosen = (a for e in TABLE_EXPERIMENTS for a in arms("pool", e))
    rows = tuple(Row((a.init, a.method), experiments[a.role]) for a in chosen)
    note = (
        "Start / middle / end = mean over the first / middle / last 10\\% of the RL steps. "
        "$\\rho_S(H, R)$ = Spearman correlation over steps between token entropy and the "
        "mean training reward, per run. Entropy in nats per generated token."
    )
    return (
        TableSpec(
            name="entropy",
            caption="Policy entropy over RL and its rank correlation with the training reward "
            "(the paper's Table~4).",
            label="tab:entropy",
            label_headers=("init", "stage 2"),
            columns=entropy,
            rows=rows,
            note=note,
            size="footnotesize",
            colsep="3pt",
        ),
        TableSpec(
            name="training",
            caption="Advantage spread, KL to $\\pi_{\\mathrm{ref}}$, gradient norm and entropy "
            "during RL, mean over training and at the end (the paper's Table~5).",
            label="tab:training",
            label_headers=("init", "stage 2"),
            columns=training,
            rows=rows,
            note="Gap = mean over groups of $\\max_j A_j-\\min_j A_j$; KL = $k_3$ estimate "
            "per token; $\\|\\nabla\\|$ = global gradient norm before clipping; end = last "
            "10\\% of the steps.",
            size="scriptsize",
            colsep="2pt",
        ),
    )
