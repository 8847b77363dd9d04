r"""The paper's Tables 4–5 from the runs: entropy over training, and the training statistics.

- ``entropy`` (Table 4 analogue): per arm, the policy token entropy at the start, middle and
  end of RL (mean over the first / middle / last 10% of the training steps, at least one
  step each) and the Spearman rank correlation over steps between entropy and training
  reward (``policy/entropy`` vs ``reward/mean``, per run);
- ``training`` (Table 5 analogue): advantage spread (``adv/gap_mean``), KL to π_ref
  (``policy/kl_ref``, k3), gradient norm (``policy/grad_norm``, pre-clip) and entropy, each
  as the mean over all training steps and at the end (last 10%).

Every cell is the mean over seeds ± the 95% t half-width of the per-run number
(:func:`analysis.stats.mean_ci`), as in :mod:`analysis.report.tables`. A run whose entropy
or reward is constant over its steps has no rank correlation (NaN, dropped from the cell).

The tables are registered in :data:`analysis.report.tables.TABLES` (LaTeX, ``make paper``);
:func:`dynamics_markdown` renders the same tables as markdown for the README's results.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _scipy_stats

from analysis.report.runtable import Column, Extractor, Row, TableSpec, _series, window
from analysis.runs import Run
from rcgrpo.train.arms import arms

ENTROPY, REWARD = "policy/entropy", "reward/mean"
TABLE_EXPERIMENTS = ("factorial", "baselines")
"""The pool campaign's experiments whose arms are the rows (:data:`rcgrpo.train.arms.ARMS`),
each named by its ``start`` and ``method``."""


def middle(metric: str, fraction: float = 0.1) -> Extractor:
    """Mean over the ``fraction`` of training steps centred on the middle (at least one)."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction}")

    def extract(run: Run) -> float:
        s = _series(run, metric)
        if not len(s):
            return math.nan
        k = max(1, math.ceil(fraction * len(s)))
        lo = max(0, (len(s) - k) // 2)
        return float(s.iloc[lo : lo + k].mean())

    return extract


def spearman(a: str, b: str) -> Extractor:
    """Spearman ρ over the training steps where both metrics are logged (NaN if constant)."""

    def extract(run: Run) -> float:
        x, y = _series(run, a), _series(run, b)
        steps = x.index.intersection(y.index)
        if len(steps) < 3:
            return math.nan
        xs, ys = x.loc[steps].to_numpy(), y.loc[steps].to_numpy()
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            return math.nan
        return float(_scipy_stats.spearmanr(xs, ys).statistic)

    return extract


def mean_all(metric: str) -> Extractor:
    """Mean over every training step."""
    return lambda run: float(s.mean()) if len(s := _series(run, metric)) else math.nan


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
        training.append(Column(h(f"{latex} mean", f"{plain} mean"), mean_all(key), digits))
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
            size="footnotesize",
            colsep="2.5pt",
        ),
    )


def dynamics_markdown(found: dict | None = None) -> str:
    """Both tables as markdown (headings included) from ``found`` (experiment -> finished
    run folders; default: the committed light copies, as the README's results block)."""
    from analysis.report.readme_results import COMMITTED, markdown_table
    from analysis.report.sources import collect, layout_resolver
    from analysis.report.tables import EXPERIMENTS

    specs = dynamics_tables(EXPERIMENTS, markdown=True)
    if found is None:
        found = collect([e for s in specs for e in s.requires], layout_resolver(COMMITTED))
    titles = {
        "entropy": "Entropy over RL (Table 4 analogue)",
        "training": "Training statistics (Table 5 analogue)",
    }
    blocks = [f"**{titles[s.name]}**\n\n{markdown_table(s, found)}" for s in specs]
    return "\n".join(blocks)
