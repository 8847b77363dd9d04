r"""Exploring an RL run: from a step to its groups, from a group to its conversations.

The functions behind ``notebooks/03_training_dynamics.ipynb`` (the notebook only calls them):

- :func:`find_runs` picks run folders (given, or the RL runs under search folders), by arm;
- :func:`step_frame` / :func:`dashboard`: the per-step collapse metrics of the runs, with the
  between/within-goal advantage split recomputed from the rollout table where a run did not
  log it (:mod:`analysis.goal_split`);
- :func:`step_groups`: one row per group generated at a step: rewards, goals, advantages,
  group statistics from :func:`rcgrpo.group_diagnostics` (the trainer's own function), the
  observed collapse next to its prediction :math:`s^G+(1-s)^G`, and the group's split;
- :func:`group_rollouts` / :func:`render_group`: the G rollouts of one group with reward,
  goal, advantage and its two parts, rendered as conversations when the run folder has
  ``conversations.jsonl`` (full run folders; the committed light copies keep only the table);
- :func:`separation_entropy_view`: the runs-over-theory figure for the chosen runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from analysis.episodes import format_conversation
from analysis.goal_split import run_split
from analysis.instrumentation import Panel, plot_instrumentation
from analysis.report.sources import REPO_ROOT, discover_runs
from analysis.runs import Run, load_runs
from rcgrpo import group_advantages, group_diagnostics
from rcgrpo.advantage_split import advantage_split

GROUP_KEYS = ["round", "prompt"]
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


def find_runs(
    paths: Iterable[str | Path] = (),
    search: Iterable[str | Path] = ("runs", "results"),
    arms: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Run]:
    """The given run folders, else the RL runs under ``search`` (relative to the repository),
    keeping those whose preset is in ``arms`` (None: all), at most ``limit``."""
    found = [Path(p) for p in paths] or [
        run for folder in search for run in discover_runs(REPO_ROOT / folder, kind="rl")
    ]
    runs = load_runs(found)
    if arms is not None:
        wanted = set(arms)
        runs = [r for r in runs if r.config.get("preset") in wanted]
    return runs[:limit] if limit is not None else runs


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


def dashboard(runs: Sequence[Run], panels: Sequence[Panel] = DASHBOARD, ncols: int = 3) -> Figure:
    """:func:`~analysis.instrumentation.plot_instrumentation` of :func:`step_frame`: colour =
    run, style = metric; a panel with nothing to show says *not logged*."""
    frames = {r.name: step_frame(r).reset_index() for r in runs}
    return plot_instrumentation(runs, panels, ncols, frames)


def _step_rows(run: Run, step: int) -> pd.DataFrame:
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
    algo = run.config.get("algo", {})
    eps, ddof = float(algo.get("eps_stab", 1e-6)), int(algo.get("adv_ddof", 0))
    scale = algo.get("adv_scale", "group")
    own = group_advantages(rewards, eps, "group" if scale == "batch" else scale, ddof)
    values = np.where(kept[:, None], pd.DataFrame(logged).fillna(0.0).to_numpy(float), own)
    return torch.tensor(values, dtype=torch.float64)


def _fmt(values: Iterable[float], sign: bool = False) -> str:
    return " ".join(f"{v:+.2f}" if sign else f"{v:g}" for v in values)


def step_groups(run: Run, step: int) -> pd.DataFrame:
    """One row per group generated at ``step`` (module docstring)."""
    rows = _step_rows(run, step)
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


def step_summary(groups: pd.DataFrame, step: int) -> str:
    """One line: groups, kept, observed collapse against its mean prediction."""
    n = len(groups)
    return (
        f"step {step}: {n} groups ({int(groups['kept'].sum())} kept); zero-variance groups "
        f"observed {int(groups['zero_var'].sum())}/{n} = {groups['zero_var'].mean():.3f}, "
        f"predicted mean s^G + (1-s)^G = {groups['p_collapse'].mean():.3f}"
    )


def group_rollouts(run: Run, step: int, prompt: int, round_: int = 0) -> pd.DataFrame:
    """The G rollouts of one group: goal, reward, advantage and its between / within parts
    (NaN without goals or for a dropped group), calls, tool errors, failure reason."""
    rows = _step_rows(run, step)
    rows = rows[(rows["prompt"] == prompt) & (rows["round"] == round_)]
    if rows.empty:
        raise ValueError(f"step {step} of run {run.name} has no group (round {round_}, {prompt})")
    out = rows[["group", "reward_token", "reward", "advantage", "calls", "tool_errors"]].copy()
    out["failure_reason"] = rows.get("failure_reason", pd.Series("", index=rows.index)).fillna("")
    out["between"] = out["within"] = np.nan
    kept = bool(rows["kept"].iloc[0])
    if kept and rows["reward_token"].notna().all():
        adv = torch.tensor(rows["advantage"].to_numpy(float), dtype=torch.float64)[None]
        b, w = advantage_split(adv, torch.tensor((rows["reward_token"] == "high").to_numpy())[None])
        out["between"], out["within"] = b[0].numpy(), w[0].numpy()
    return out.rename(columns={"reward_token": "goal"}).reset_index(drop=True)


def _conversation(run: Run, step: int, prompt: int, round_: int, group: int) -> list | None:
    conv = run.conversations
    if conv.empty:
        return None
    hit = conv[
        (conv["step"] == step)
        & (conv["prompt"] == prompt)
        & (conv["round"] == round_)
        & (conv["group"] == group)
    ]
    return None if hit.empty else list(hit["messages"].iloc[0])


def render_group(
    run: Run, step: int, prompt: int, round_: int = 0, max_chars: int | None = 400
) -> str:
    """The group's rollouts as text: a header per rollout (goal, reward, advantage = between
    + within, calls, errors, failure reason), then its conversation when it was logged."""
    table = group_rollouts(run, step, prompt, round_)
    blocks = []
    for r in table.itertuples(index=False):
        adv = "dropped group (no advantage)" if pd.isna(r.advantage) else f"A = {r.advantage:+.3f}"
        if not pd.isna(r.between):
            adv += f" = between {r.between:+.3f} + within {r.within:+.3f}"
        head = (
            f"--- rollout {r.group}: goal {r.goal or 'none'}, reward {r.reward:g}, {adv}; "
            f"{r.calls} calls, {r.tool_errors} tool errors"
        )
        if r.failure_reason:
            head += f"; {r.failure_reason[:160]}"
        messages = _conversation(run, step, prompt, round_, int(r.group))
        body = (
            format_conversation(messages, max_chars)
            if messages is not None
            else "(conversation not logged: no conversations.jsonl in this run folder)"
        )
        blocks.append(f"{head}\n{body}")
    return "\n\n".join(blocks)


def separation_entropy_view(runs: Sequence[Run]) -> Figure:
    """:mod:`analysis.figures.fig_rl_separation_entropy` for the chosen runs."""
    from analysis.figures import fig_rl_separation_entropy

    return fig_rl_separation_entropy.make_figure(
        {"factorial": [r.root for r in runs], "baselines": []}
    )
