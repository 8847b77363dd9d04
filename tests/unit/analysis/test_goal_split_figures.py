"""The runs-over-theory, Fig. 2 and advantage-split figures, and the offline split, on
hand-made run folders."""

from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from analysis.campaigns.pool import (
    fig_rl_advantage_split,
    fig_rl_separation_entropy,
    fig_rl_spread_reward,
)
from analysis.diagnostics import goal_split  # noqa: E402
from analysis.runs import load_run  # noqa: E402

CONDITIONING = {
    "cpu-grpo": "none",
    "cpu-sft-rc": "iid",
    "cpu-rctp-grpo": "high",
    "cpu-rcgrpo": "iid",
}
# one group of G = 4 per step: R = [1, 1, 0, 0]; with goals [h, h, l, l] (RC arms) the
# advantages A = [1, 1, -1, -1] are all between-goal; mu_h = 1, mu_l = 0
GROUP = [(1.0, "high", 1.0), (1.0, "high", 1.0), (0.0, "low", -1.0), (0.0, "low", -1.0)]


def _run(root, preset, seed, entropy, sep, steps=3, evals=(0.4, 0.6)):
    d = root / f"{preset}-s{seed}"
    d.mkdir()
    cond = CONDITIONING.get(preset, "none")
    cfg = {"preset": preset, "run": {"seed": seed}, "rollout": {"group_size": 4}}
    cfg["algo"] = {"conditioning": cond, "p_high": 0.5}
    (d / "config.json").write_text(json.dumps(cfg))
    rows = [{"step": 0, "reward/eval_success": evals[0]}]
    for s in range(1, steps + 1):
        row = {"step": s, "policy/entropy": entropy, "adv/gap_mean": 2.0, "reward/mean": 0.5}
        if cond == "iid":
            row.update({"group/mode_sep_pooled": sep, "group/var_mean": 0.25})
            row["policy/entropy_high"] = entropy - 0.1
            row["theory/var_bound_iid"] = 0.1875 * sep**2
        rows.append(row)
    rows[-1]["reward/eval_success"] = evals[1]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = []
    for s in range(1, steps + 1):
        for j, (reward, goal, adv) in enumerate(GROUP):
            token = None if cond == "none" else ("high" if cond == "high" else goal)
            table.append(
                {
                    "step": s,
                    "round": 0,
                    "prompt": 0,
                    "group": j,
                    "reward": reward,
                    "reward_token": token,
                    "advantage": adv,
                    "kept": True,
                }
            )
    (d / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in table))
    return d


def _factorial(tmp_path):
    return [
        _run(tmp_path, p, s, entropy=0.2 + 0.1 * s, sep=0.4 + 0.2 * s)
        for p in CONDITIONING
        for s in (0, 1)
    ]


def test_offline_split_kept_groups_only():
    # step 1: a kept group (all between-goal) and a dropped group; step 2: a one-goal group
    rows = (
        [
            {
                "step": 1,
                "round": 0,
                "prompt": 0,
                "group": j,
                "reward_token": t,
                "advantage": a,
                "kept": True,
            }
            for j, (_, t, a) in enumerate(GROUP)
        ]
        + [
            {
                "step": 1,
                "round": 0,
                "prompt": 1,
                "group": j,
                "reward_token": "high",
                "advantage": None,
                "kept": False,
            }
            for j in range(4)
        ]
        + [
            {
                "step": 2,
                "round": 0,
                "prompt": 0,
                "group": j,
                "reward_token": "high",
                "advantage": a,
                "kept": True,
            }
            for j, a in enumerate([1.5, -0.5, -0.5, -0.5])
        ]
    )
    out = goal_split.split_by_step(pd.DataFrame(rows))
    assert list(out.index) == [1, 2]
    assert out.loc[1, "adv/between_share"] == 1.0 and out.loc[1, "adv/between_abs_mean"] == 1.0
    # one goal: b = 0, w = A, mean |w| = (1.5 + 3 * 0.5) / 4 = 0.75
    assert out.loc[2, "adv/between_share"] == 0.0 and out.loc[2, "adv/within_abs_mean"] == 0.75
    with pytest.raises(ValueError, match="lacks columns"):
        goal_split.split_by_step(pd.DataFrame(rows).drop(columns=["kept"]))


def test_null_share_is_the_permutation_mean(tmp_path):
    # goals [h, h, l, l] permuted in R = [1, 1, 0, 0]: 2 of the 6 arrangements put both highs
    # on the same outcome (share 1), the other 4 give mu_h = mu_l (share 0): E = 1/3
    run = load_run(_run(tmp_path, "cpu-rcgrpo", 0, 0.3, 0.5, steps=1))
    null = goal_split.null_between_share(run.rollouts, draws=4000, seed=1)
    assert null.loc[1] == pytest.approx(1 / 3, abs=0.03)
    assert goal_split.run_split(run).loc[1, "adv/between_share"] == 1.0


def test_separation_entropy_figure(tmp_path):
    fact = _factorial(tmp_path)
    base = [_run(tmp_path, "cpu-hightemp", 0, entropy=1.5, sep=0.0)]
    fig = fig_rl_separation_entropy.make_figure({"factorial": fact, "baselines": base})
    sft, rctp, bound = fig.axes[:3]
    # the RC-GRPO trajectory: seed means of separation (0.4, 0.6) and entropy (0.2, 0.3)
    line = next(ln for ln in rctp.lines if ln.get_label().startswith("RCTP-FT + RC-GRPO"))
    assert np.allclose(line.get_xdata(), 0.5) and np.allclose(line.get_ydata(), 0.25)
    high = next(ln for ln in rctp.lines if ln.get_label() == "RCTP-FT + RC-GRPO, high goal")
    assert np.allclose(high.get_ydata(), 0.15) and high.get_linestyle() == ":"
    # one-goal arms sit at separation 0, whatever their entropy
    line = next(ln for ln in sft.lines if ln.get_label().startswith("temperature 1.5"))
    assert np.allclose(line.get_xdata(), 0.0) and np.allclose(line.get_ydata(), 1.5)
    # (c): 0.25 >= 0.1875 sep^2 on all 2 seeds x 3 steps of each RC arm
    labels = bound.get_legend_handles_labels()[1]
    assert "RCTP-FT + RC-GRPO: 100% of 6 steps above" in labels
    assert "SFT + GRPO" not in " ".join(labels)


def test_guaranteed_variance_closed_form():
    # p = 1/2: min over s_l of (G-1)/G m(1-m), m in [D/2, 1 - D/2] -> (G-1)/G (D/2)(1 - D/2)
    delta = np.array([0.0, 0.5, 1.0, -0.5])
    got = fig_rl_separation_entropy.guaranteed_variance(delta, 5, 0.5)
    assert np.allclose(got, 0.8 * (np.abs(delta) / 2) * (1 - np.abs(delta) / 2), atol=1e-9)


def test_spread_reward_figure_eval_points(tmp_path):
    a = load_run(_run(tmp_path, "cpu-grpo", 0, 0.2, 0.0, evals=(0.4, 0.6)))
    b = load_run(_run(tmp_path, "cpu-grpo", 1, 0.2, 0.0, evals=(0.5, 0.8)))
    steps, mean, half = fig_rl_spread_reward.eval_points([a, b])
    assert list(steps) == [0, 3] and np.allclose(mean, [0.45, 0.7])
    # two seeds 0.2 apart at step 3: s = 0.1414, half = t_.975,1 * s / sqrt 2 = 12.706 * 0.1
    assert half[1] == pytest.approx(stats.t.ppf(0.975, 1) * 0.1)
    (tmp_path / "fact").mkdir()
    fig = fig_rl_spread_reward.make_figure({"factorial": _factorial(tmp_path / "fact")})
    assert len(fig.axes[0].lines) == 4 and len(fig.axes[1].lines) == 4


def test_advantage_split_figure(tmp_path):
    fig = fig_rl_advantage_split.make_figure({"factorial": _factorial(tmp_path)})
    share = {ln.get_label(): ln.get_ydata() for ln in fig.axes[0].lines}
    # the two-goal arms: every advantage is between-goal; the high-only arm: none is
    assert np.allclose(share["RCTP-FT + RC-GRPO (n=2)"], 1.0)
    assert np.allclose(share["RCTP-FT + GRPO (n=2)"], 0.0)
    assert "SFT + GRPO (n=2)" not in share  # no goals: no split
    assert not math.isnan(fig.axes[2].lines[0].get_ydata()[0])
