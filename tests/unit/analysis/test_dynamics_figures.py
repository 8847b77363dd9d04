"""Training-dynamics figure helpers and modules on hand-made run folders."""

from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from analysis.campaigns.pool import (
    fig_rl_baselines,
    fig_rl_collapse,
    fig_rl_factorial,
    fig_rl_modes,
    fig_rl_stratified,
    fig_stage1,
)
from analysis.figures import dynamics as dyn  # noqa: E402
from analysis.runs import load_run  # noqa: E402

KEYS = (
    "group/zero_var_frac",
    "group/zero_var_predicted_pooled",
    "adv/gap_mean",
    "group/var_mean",
    "reward/success_rate",
    "reward/success_high",
    "reward/success_low",
    "group/between_frac",
    "policy/entropy",
)


def _run(root, name, preset, seed, values, stage=None, final=None, data=None):
    d = root / name
    d.mkdir()
    cfg = {"preset": preset, "run": {"seed": seed}}
    if stage:
        cfg.update(stage=stage, sft={"eval_modes": ["combined"]})
    (d / "config.json").write_text(json.dumps(cfg))
    rows = [{"step": 0, "reward/eval_success": 0.3, "reward/eval_success_low": 0.1}]
    rows += [{"step": s, **{k: v for k in KEYS}} for s, v in enumerate(values, start=1)]
    rows[-1].update({"reward/eval_success": 0.5, "reward/eval_success_low": 0.05})
    if stage:
        rows = [{"step": s, "loss/sft": 1.0 / s} for s in range(1, 5)]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if final is not None:
        (d / "summary.json").write_text(json.dumps({"final_metrics": final}))
    if data is not None:
        (d / "data.json").write_text(json.dumps(data))
    return d


def test_band_is_seed_mean_with_t_interval(tmp_path):
    a = load_run(_run(tmp_path, "a", "cpu-grpo", 0, [0.0, 1.0]))
    b = load_run(_run(tmp_path, "b", "cpu-grpo", 1, [0.5, 0.5]))
    band = dyn.band([a, b], "adv/gap_mean", smooth=1)
    assert list(band.index) == [1, 2]
    # step 1: values 0, .5 → mean .25, s = .3536, half = t_.975,1 · s/√2 = 12.706 · .25
    half = stats.t.ppf(0.975, 1) * 0.25
    assert band.loc[1, "mean"] == pytest.approx(0.25)
    assert band.loc[1, "hi"] - band.loc[1, "mean"] == pytest.approx(half)
    assert band.loc[2, "mean"] == pytest.approx(0.75)
    # trailing mean over 2 steps: run a → (0 + 1)/2 at step 2
    assert dyn.series(a, "adv/gap_mean", smooth=2).tolist() == [0.0, 0.5]
    assert math.isnan(dyn.last_value(a, "no/such_key"))
    assert dyn.run_mean(a, "reward/eval_success") == pytest.approx(0.5)  # step 0 excluded
    assert dyn.first_value(a, "reward/eval_success") == pytest.approx(0.3)


def test_by_preset_orders_arms(tmp_path):
    paths = [
        _run(tmp_path, f"r{i}", p, 0, [0.1])
        for i, p in enumerate(["cpu-rcgrpo", "cpu-grpo", "cpu-rctp-grpo"])
    ]
    assert list(dyn.by_preset(paths + [None])) == ["cpu-grpo", "cpu-rctp-grpo", "cpu-rcgrpo"]


def test_rl_figures_draw_every_arm(tmp_path):
    fact = [
        _run(tmp_path, f"{p}-s{s}", p, s, [0.2 * s, 0.4, 0.6])
        for p in ("cpu-grpo", "cpu-sft-rc", "cpu-rctp-grpo", "cpu-rcgrpo")
        for s in (0, 1)
    ]
    base = [_run(tmp_path, f"{p}-s0", p, 0, [0.3, 0.3, 0.3]) for p in ("cpu-dapo", "cpu-drgrpo")]
    runs = {"factorial": fact, "baselines": base}
    fig = fig_rl_collapse.make_figure(runs)
    # panel (a): observed + predicted per arm; others one curve per arm
    assert len(fig.axes[0].lines) == 8 and len(fig.axes[1].lines) == 4
    fig = fig_rl_modes.make_figure(runs)
    assert len(fig.axes[0].lines) == 4  # high + low for the two token-sampling arms
    fig = fig_rl_factorial.make_figure(runs)
    # (a) held-out before and after RL, (b) training success first and last 10% of the steps
    # (3 steps: 1 step each; seeds 0, 1 -> early (0 + 0.2) / 2, late 0.6) per arm;
    # (c), (d) one bar per arm: seed means of 2 seeds
    assert len(fig.axes[0].patches) == 8 and len(fig.axes[2].patches) == 4
    assert sorted(round(p.get_height(), 3) for p in fig.axes[0].patches) == [0.3] * 4 + [0.5] * 4
    assert sorted(round(p.get_height(), 3) for p in fig.axes[1].patches) == [0.1] * 4 + [0.6] * 4
    fig = fig_rl_baselines.make_figure(runs)
    assert len(fig.axes[1].lines) == 4  # grpo, rcgrpo (seed 0) + two baselines
    strat = [_run(tmp_path, "strat-s1", "cpu-rcgrpo-strat", 1, [0.1, 0.1, 0.1])]
    fig = fig_rl_stratified.make_figure({**runs, "stratified": strat})
    # i.i.d. RC-GRPO of the stratified run's seed only (seed 1: 0.2, 0.4, 0.6) + stratified
    assert len(fig.axes[0].lines) == 2
    # (c) the paired difference of the zero-variance fraction averaged over training: 0.4 − 0.1
    assert [round(p.get_height(), 3) for p in fig.axes[2].patches] == [0.3]


def test_stage1_figure(tmp_path):
    sft = _run(
        tmp_path, "sft-s0", "sft-synth-cpu", 0, [], stage="sft", final={"sft/eval_combined": 0.6}
    )
    rows = [{"step": s, "loss/sft": 2.0 / s, "perf/cpu_time_s": 10.0 * s} for s in (1, 2, 3)]
    (sft / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rctp = _run(
        tmp_path,
        "rctp-s0",
        "rctp-synth-cpu",
        0,
        [],
        stage="rctp",
        final={"sft/eval_combined": 0.7, "sft/eval_combined_low": 0.05},
        data={
            "mix": {"failures": 8, "failure_modes": {"wrong_argument": 0.75, "early_stop": 0.25}}
        },
    )
    fig = fig_stage1.make_figure({"stage1": [sft, rctp]})
    loss, budget = fig.axes[0].lines  # the seed's loss against CPU time, the budget line
    assert loss.get_xdata().tolist() == [10.0, 20.0, 30.0]
    # trailing mean over up to 50 steps: 2, (2 + 1)/2, (2 + 1 + 2/3)/3
    assert loss.get_ydata().tolist() == pytest.approx([2.0, 1.5, 11 / 9])
    assert budget.get_xdata()[0] == fig_stage1.BUDGET_S
    heights = sorted(round(p.get_height(), 3) for p in fig.axes[1].patches)
    assert heights == [0.05, 0.6, 0.7]
    widths = sorted(round(p.get_width(), 3) for p in fig.axes[2].patches)
    assert widths == [0.25, 0.75]


def test_band_uses_the_seeds_that_logged_a_step(tmp_path):
    a = load_run(_run(tmp_path, "a", "cpu-grpo", 0, [0.2, 0.4]))
    b = load_run(_run(tmp_path, "b", "cpu-grpo", 1, [0.6]))
    band = dyn.band([a, b], "adv/gap_mean", smooth=1)
    assert band.loc[1, "mean"] == pytest.approx(0.4) and band.loc[1, "n"] == 2
    assert band.loc[2, "mean"] == pytest.approx(0.4) and band.loc[2, "n"] == 1
