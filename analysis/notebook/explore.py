r"""Exploring RL runs: which runs, their per-step dashboard, a step's groups.

The tables and figures of ``notebooks/03_training_dynamics.ipynb`` (the notebook only calls
them; the drill-down to one group's conversations is :mod:`analysis.notebook.drilldown`):

- :func:`pick_runs` picks run folders: the given ones, the RL runs under search folders, or by
  default the campaign's factorial of one seed (:func:`campaign_runs`: ``runs/campaign``
  first, the committed light copies in ``results/campaign`` otherwise), :func:`overview`
  tabulates them;
- :func:`step_frame` / :func:`dashboard`: the per-step collapse metrics of the runs, with the
  between/within-goal advantage split recomputed from the rollout table where a run did not
  log it (:mod:`analysis.diagnostics.goal_split`);
- :func:`step_groups`: one row per group generated at a step: rewards, goals, advantages,
  group statistics from :func:`rcgrpo.group_diagnostics` (the trainer's own function), the
  observed collapse next to its prediction :math:`s^G+(1-s)^G`, and the group's split
  (:func:`readable` for display); :func:`compare_step`: a step's tasks side by side across
  runs;
- :func:`separation_entropy_view`: the runs-over-theory figure for the chosen runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis import REPO_ROOT
from analysis.campaign import arms as registry
from analysis.diagnostics.goal_split import run_split, two_goals
from analysis.notebook.instrumentation import Panel, plot_instrumentation
from analysis.runs import Run, load_runs
from analysis.runs.sources import discover_runs
from rcgrpo import group_advantages, group_diagnostics
from rcgrpo.advantage_split import advantage_split
from rcgrpo.train.config import upgrade_config

GROUP_KEYS = ["round", "prompt"]
FACTORIAL_ARMS = tuple(a.preset for a in registry.arms("pool", "factorial"))
"""The paper's 2x2 (init x sampling) in the campaign's order: the notebook's default arms."""
DASHBOARD: tuple[Panel, ...] = (
    Panel(
        "zero-variance groups",
        "fraction of groups",
        (
            ("group/zero_var_frac", "observed"),
            ("group/zero_var_predicted", "predicted, per group"),
            ("group/zero_var_predicted_pooled", r"predicted, pooled $\bar s$"),
        ),
    ),
    Panel("advantage spread", r"$\max_j A_j-\min_j A_j$", (("adv/gap_mean", "mean"),)),
    Panel(
        "group reward variance",
        r"$\sigma_g^2$",
        (("group/var_mean", "observed"), ("theory/var_bound_iid", r"$\kappa\hat\varepsilon^2$")),
    ),
    Panel("mode separation", r"$\hat\mu_h-\hat\mu_l$", (("group/mode_sep_pooled", "pooled"),)),
    Panel(
        "where the update comes from",
        "share of the advantage weight",
        (("adv/between_share", "between goals"), ("adv/high_within_share", "within, high goal")),
    ),
    Panel("entropy", "nats / token", (("policy/entropy", "all"),)),
)
"""The collapse dashboard: one panel per question, every run overlaid."""


def arm(run: Run) -> str:
    """The run's arm as the figures name it (e.g. ``SFT + GRPO``), else its preset or name."""
    preset = run.config.get("preset") or run.name
    record = registry.arm(preset)
    return record.label if record is not None else preset


def find_runs(
    paths: Iterable[str | Path] = (),
    search: Iterable[str | Path] = ("runs", "results"),
    arms: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Run]:
    """The given run folders, else the RL runs under ``search``, keeping those whose preset is
    in ``arms`` (None: all), at most ``limit``. Relative paths in ``paths`` and ``search`` are
    relative to the repository root, whatever the working directory (a notebook's is
    ``notebooks/``): ``RUNS = ["runs/x"]`` means ``<repo>/runs/x``; absolute paths as given."""
    found = [REPO_ROOT / p for p in paths] or [
        run for folder in search for run in discover_runs(REPO_ROOT / folder, kind="rl")
    ]
    runs = load_runs(found)
    if arms is not None:
        wanted = set(arms)
        runs = [r for r in runs if r.config.get("preset") in wanted]
    return runs[:limit] if limit is not None else runs


def campaign_runs(arms: Iterable[str] = FACTORIAL_ARMS, seed: int = 0) -> tuple[list[Run], list]:
    """The complete runs of ``arms`` for ``seed`` in that order, as the campaign of their regime
    has them (where :func:`analysis.campaign.mechanics.locate` finds them: ``runs/<home>``, else
    ``results/<home>``), and the run names it has no complete run for."""
    from analysis.campaign import registry
    from analysis.campaign.arms import arm
    from analysis.campaign.mechanics import locate

    arms = list(arms)
    camp = registry.campaign(arm(arms[0]).regime).build()
    names = [f"{a}-s{seed}" for a in arms]
    where = {n: locate(camp.runs[n]) if n in camp.runs else None for n in names}
    return load_runs(p for p in where.values() if p is not None), [n for n in names if not where[n]]


def pick_runs(
    paths: Sequence[str | Path] = (),
    search: Sequence[str | Path] = (),
    arms: Sequence[str] | None = FACTORIAL_ARMS,
    seed: int = 0,
    limit: int | None = None,
) -> tuple[list[Run], str]:
    """The runs to explore and a sentence saying which and from where: ``paths`` as given;
    else the RL runs under ``search`` of ``arms`` (None: all); else :func:`campaign_runs`."""
    if paths or search:
        runs = find_runs(paths, search or ("runs", "results"), None if paths else arms, limit)
        if not runs:
            return runs, (
                f"No RL run folders found under {', '.join(map(str, search))}. Train one, e.g.\n"
                "    python -m rcgrpo train --preset cpu-grpo --run.steps 5\n"
                "or run the experiment campaign (make runs), then re-run this notebook, "
                "or set RUNS to run folders in the parameters cell."
            )
        return runs, f"{len(runs)} RL run(s) found; loaded {len(runs)}: " + ", ".join(
            r.name for r in runs
        )
    runs, missing = campaign_runs(arms or FACTORIAL_ARMS, seed)
    runs = runs[:limit] if limit is not None else runs
    if not runs:
        return runs, (
            f"The campaign has no complete run of {', '.join(missing)}: run them (make runs), "
            "or set RUNS or SEARCH in the parameters cell."
        )
    folders = sorted({str(Path(r.root).parent.relative_to(REPO_ROOT)) for r in runs})
    text = f"seed {seed} of the campaign ({', '.join(folders)}): " + ", ".join(
        f"{arm(r)} ({r.name})" for r in runs
    )
    return runs, text + (f"; no complete run of {', '.join(missing)}" if missing else "")


def overview(runs: Sequence[Run]) -> pd.DataFrame:
    """One row per run: arm, preset, steps, rollouts, conversation rows and their steps,
    held-out success (greedy, the run's evaluation goal) at the first and last evaluation."""
    from analysis.runs.extractors import first, last

    rows = []
    for r in runs:
        conv = r.conversations
        steps = f"{conv['step'].min()}-{conv['step'].max()}" if not conv.empty else "none"
        rows.append(
            {
                "run": r.name,
                "arm": arm(r),
                "steps": int(r.metrics["step"].max()),
                "rollouts": len(r.rollouts),
                "conversations": len(conv),
                "conversation steps": steps,
                "held-out success, start": first("reward/eval_success")(r),
                "held-out success, end": last("reward/eval_success")(r),
            }
        )
    return pd.DataFrame(rows)


def step_frame(run: Run) -> pd.DataFrame:
    """Training steps (index) × metrics, the split columns filled from the rollout table when
    the run did not log them."""
    df = run.metrics
    if "step" not in df:
        return pd.DataFrame()
    frame = df[df["step"] >= 1].set_index("step")
    split = run_split(run).drop(columns="source", errors="ignore")
    missing = [c for c in split.columns if c not in frame]
    return frame.join(split[missing]) if missing else frame


def _legends(fig: Figure, runs: Sequence[Run]) -> None:
    """One figure legend for the runs (colour) under the panels, and per panel a key of its
    line styles below the axis, so no legend covers a curve; a run a panel cannot show
    (e.g. mode separation of a run without two goals) is named in the panel."""
    colours: dict[str, str] = {}
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        styles, shown = {}, set()
        for line in ax.get_lines():
            name, _, label = line.get_label().rpartition(": ")
            name = name or runs[0].name
            colours.setdefault(name, line.get_color())
            styles.setdefault(label, line.get_linestyle())
            shown.add(name)
        if ax.get_legend():
            ax.get_legend().remove()
        absent = [r for r in runs if r.name not in shown]
        if absent and shown:
            why = ": no two goals" if not any(two_goals(r) for r in absent) else ""
            names = ", ".join(arm(r) for r in absent)
            ax.set_title(f"{ax.get_title()}\n(undefined for {names}{why})", fontsize=7)
        if len(styles) > 1:
            handles = [Line2D([], [], color="0.3", ls=s, label=lab) for lab, s in styles.items()]
            ax.legend(
                handles=handles,
                fontsize=6.5,
                ncol=len(handles),
                frameon=False,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.28),
            )
    labels = {r.name: f"{arm(r)} ({r.name})" for r in runs}
    handles = [Line2D([], [], color=c, label=labels.get(n, n)) for n, c in colours.items()]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(4, len(handles)), fontsize=8)


def dashboard(
    runs: Sequence[Run], panels: Sequence[Panel] = DASHBOARD, ncols: int = 3, smooth: int = 1
) -> Figure:
    """:func:`~analysis.notebook.instrumentation.plot_instrumentation` of :func:`step_frame`, each
    metric a trailing mean over ``smooth`` steps (1: as logged): colour = run (legend under
    the grid), line style = metric (key under each panel); a panel with nothing to show says
    so."""
    if smooth < 1:
        raise ValueError(f"smooth must be >= 1, got {smooth}")
    frames = {
        r.name: step_frame(r).select_dtypes("number").rolling(smooth, min_periods=1).mean()
        for r in runs
    }
    fig = plot_instrumentation(runs, panels, ncols, {k: f.reset_index() for k, f in frames.items()})
    fig.set_size_inches(3.6 * ncols, fig.get_size_inches()[1] + 1.2)
    _legends(fig, runs)
    return fig


def step_rows(run: Run, step: int) -> pd.DataFrame:
    table = run.rollouts
    rows = table[table["step"] == step] if "step" in table else table.iloc[:0]
    if rows.empty:
        steps = sorted(set(table["step"])) if "step" in table else []
        have = f"{steps[0]}..{steps[-1]}" if steps else "none"
        raise ValueError(f"run {run.name} has no rollouts at step {step} (steps: {have})")
    return rows.sort_values([*GROUP_KEYS, "group"])


def _grid(rows: pd.DataFrame, column: str, size: int) -> np.ndarray:
    return rows[column].to_numpy().reshape(-1, size)


def _advantages(run: Run, rewards: torch.Tensor, logged: np.ndarray, kept: np.ndarray):
    """The logged advantages of kept groups; dropped groups (no advantage in the update)
    get their own group-scaled advantage, for the spread column only."""
    algo = upgrade_config(run.config).get("algo", {})
    eps, ddof = float(algo.get("eps_stab", 1e-6)), int(algo.get("adv_ddof", 0))
    estimator = algo.get("adv_estimator", "grpo")
    own_estimator = "grpo" if estimator == "grpo-batch" else estimator
    own = group_advantages(rewards, own_estimator, eps_stab=eps, ddof=ddof)
    values = np.where(kept[:, None], pd.DataFrame(logged).fillna(0.0).to_numpy(float), own)
    return torch.tensor(values, dtype=torch.float64)


def _fmt(values: Iterable[float], sign: bool = False) -> str:
    return " ".join(f"{v:+.2f}" if sign else f"{v:g}" for v in values)


def step_groups(run: Run, step: int) -> pd.DataFrame:
    """One row per group generated at ``step`` (module docstring); ``mode_sep`` and
    ``between_share`` (runs with goals) are NaN where undefined: one goal in the group, or
    no advantage weight (a collapsed group)."""
    rows = step_rows(run, step)
    size = int(rows.groupby(GROUP_KEYS).size().iloc[0])
    keys = rows.drop_duplicates(GROUP_KEYS)[[*GROUP_KEYS, "task_id", "kept"]].reset_index(drop=True)
    kept = keys["kept"].to_numpy(bool)
    rewards = torch.tensor(_grid(rows, "reward", size).astype(float), dtype=torch.float64)
    adv = _advantages(run, rewards, _grid(rows, "advantage", size), kept)
    tokens = _grid(rows, "reward_token", size)
    high = None if pd.isna(tokens).all() else torch.tensor(tokens == "high")
    diag = group_diagnostics(rewards, adv, high)
    goals = ["".join("h" if t == "high" else "l" for t in g) for g in tokens]
    out = keys.assign(
        rewards=[_fmt(r) for r in rewards.tolist()],
        goals=goals if high is not None else "",
        advantages=[_fmt(a, sign=True) for a in adv.tolist()],
        reward_mean=diag["reward_mean"].numpy(),
        reward_var=diag["reward_var"].numpy(),
        adv_gap=diag["adv_gap"].numpy(),
        zero_var=diag["zero_var"].numpy(),
        p_collapse=diag["zero_var_predicted"].numpy(),
    )
    if high is not None:
        b, w = advantage_split(adv, high)
        num, den = b.abs().sum(dim=1), (b.abs() + w.abs()).sum(dim=1)
        share = torch.where(den > 0, num / den.clamp(min=1e-300), torch.nan)
        out = out.assign(mode_sep=diag["mode_sep"].numpy(), between_share=share.numpy())
    return out


def readable(groups: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """:func:`step_groups` for display: numbers rounded, an undefined value as ``—``."""
    out = groups.copy()
    for column in out.select_dtypes("float").columns:
        out[column] = [("—" if pd.isna(v) else f"{v:.{digits}f}") for v in out[column]]
    return out


def step_summary(groups: pd.DataFrame, step: int) -> str:
    """One line: groups, kept, observed collapse against its mean prediction."""
    n = len(groups)
    return (
        f"step {step}: {n} groups ({int(groups['kept'].sum())} kept); zero-variance groups "
        f"observed {int(groups['zero_var'].sum())}/{n} = {groups['zero_var'].mean():.3f}, "
        f"predicted mean s^G + (1-s)^G = {groups['p_collapse'].mean():.3f}"
    )


def compare_step(runs: Sequence[Run], step: int, round_: int = 0) -> pd.DataFrame:
    """The tasks of ``step`` (round ``round_``) side by side: per run, each task's rewards
    (with the goals drawn, h/l) and ``=`` where its group collapsed (zero variance)."""
    columns = {}
    for run in runs:
        g = step_groups(run, step)
        g = g[g["round"] == round_].drop_duplicates("task_id").set_index("task_id")
        goals = g["goals"].where(g["goals"] == "", " (" + g["goals"] + ")")
        columns[arm(run)] = g["rewards"] + goals + g["zero_var"].map({True: " =", False: ""})
    return pd.DataFrame(columns).fillna("")


def separation_entropy_view(runs: Sequence[Run]) -> Figure:
    """The figure ``rl_separation_entropy`` of its campaign's folder
    (:func:`analysis.campaign.registry.figure_modules`) for the chosen runs."""
    import importlib

    from analysis.campaign import registry

    name = "fig_rl_separation_entropy"
    found = [m for _, p in registry.folders() for m in registry.figure_modules(p)]
    figure = importlib.import_module(next(m for m in found if m.rsplit(".", 1)[1] == name))
    return figure.make_figure({"factorial": [r.root for r in runs], "baselines": []})
