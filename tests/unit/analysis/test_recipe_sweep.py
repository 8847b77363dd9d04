"""The recipe sweep's criterion on hand-made metrics (analysis.campaigns.rl_recipe.recipe_sweep)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from analysis.campaigns.rl_recipe import recipe_sweep as sw


def _metrics(success: list[float], evals: dict[int, float], kl: float = 0.01) -> pd.DataFrame:
    rows = [
        {
            "step": t + 1,
            "reward/success_rate": s,
            "policy/kl_ref": kl,
            "policy/clipfrac": 0.1,
            "policy/grad_norm": 2.0,
            "group/zero_var_frac": 0.5,
        }
        for t, s in enumerate(success)
    ]
    for step, value in evals.items():
        row = next((r for r in rows if r["step"] == step), None)
        if row is None:
            row = {"step": step}
            rows.append(row)
        row["reward/eval_success"] = value
    return pd.DataFrame(rows)


SETTING = sw.Setting("x", 1e-4)


def test_rise_is_last_window_minus_first_window():
    # 40 steps: first 20 at 0.40, last 20 at 0.55 -> rise 0.15; held-out 0.60 -> 0.59
    out = sw.outcome(SETTING, _metrics([0.4] * 20 + [0.55] * 20, {0: 0.60, 40: 0.59}))
    assert out.train_rise == pytest.approx(0.15)
    assert out.heldout_change == pytest.approx(-0.01)
    assert out.learns


def test_held_out_fall_beyond_the_margin_fails():
    out = sw.outcome(SETTING, _metrics([0.4] * 20 + [0.6] * 20, {0: 0.60, 40: 0.56}))
    assert out.heldout_change == pytest.approx(-0.04) and not out.learns


def test_rise_below_threshold_fails_and_short_runs_are_nan():
    assert not sw.outcome(SETTING, _metrics([0.4] * 20 + [0.49] * 20, {0: 0.6, 40: 0.6})).learns
    short = sw.outcome(SETTING, _metrics([0.4] * 30, {0: 0.6, 30: 0.6}))
    assert math.isnan(short.train_rise) and not short.learns


def test_missing_step_zero_evaluation_is_not_a_pass():
    out = sw.outcome(SETTING, _metrics([0.4] * 20 + [0.6] * 20, {40: 0.7}))
    assert math.isnan(out.heldout_start) and not out.learns


def _outcome(tag, lr, prompts, rise, change=0.0):
    return sw.Outcome(
        sw.Setting(tag, lr, prompts=prompts), rise, 0.6, 0.6 + change, 0.0, 0.0, 0.0, 0.0
    )


def test_choose_largest_rise_ties_go_to_cheaper_then_smaller_lr():
    a = _outcome("a", 2e-4, 8, 0.20)
    b = _outcome("b", 1e-4, 8, 0.19)  # tied with a (0.01 <= TIE): smaller lr wins
    c = _outcome("c", 2e-4, 16, 0.205)  # the best, but 16 prompts cost more than a tie
    d = _outcome("d", 3e-4, 8, 0.30, change=-0.10)  # largest rise, but held-out falls
    assert sw.choose([a, b, c, d]).setting.tag == "b"
    assert sw.choose([a, _outcome("e", 3e-4, 8, 0.25)]).setting.tag == "e"
    assert sw.choose([d, _outcome("f", 1e-4, 8, 0.05)]) is None
    rows = sw.summarise([a, b, d])
    assert [r["chosen"] for r in rows] == [False, True, False]
    assert [r["learns"] for r in rows] == [True, True, False]


def test_grid_flags_name_the_overridden_fields():
    flags = sw.Setting("t", 2e-4, kl_beta=0.02, prompts=16).flags()
    assert flags == (
        "--optim.lr",
        "0.0002",
        "--algo.kl-beta",
        "0.02",
        "--rollout.prompts-per-step",
        "16",
        "--tasks.num-train",
        str(sw.FULL_TASKS),  # the preset's pool is the recipe the sweep chose, not the sweep's
    )
    assert len({s.tag for s in sw.GRID}) == len(sw.GRID)


def test_follow_up_settings_are_candidates_with_their_aggregation_flag():
    assert (*sw.GRID, *sw.FOLLOW_UP, *sw.POOL_FOLLOW_UP) == sw.CANDIDATES
    assert not set(sw.CANDIDATES) & set(sw.DIAGNOSES)
    tags = [s.tag for s in (*sw.CANDIDATES, *sw.DIAGNOSES)]
    assert len(set(tags)) == len(tags)
    flags = sw.Setting("t", 1e-4, loss_agg="seq-mean-token-mean").flags()
    assert flags[-2:] == ("--algo.loss-agg", "seq-mean-token-mean")
    assert "--algo.loss-agg" not in sw.Setting("t", 1e-4).flags()


def test_paired_rise_removes_the_task_draw_shared_with_the_frozen_run():
    steps = list(range(1, 101))
    draw = [0.4 if t <= 50 else 0.2 for t in steps]  # harder tasks in the second half
    frozen = pd.DataFrame({"step": steps, "reward/success_rate": draw})
    learner = pd.DataFrame(
        {
            "step": steps,
            "reward/success_rate": [d + 0.001 * t for t, d in zip(steps, draw, strict=True)],
        }
    )
    # the criterion sees the draw: 0.2 lower at the end, +0.08 of learning
    assert sw.outcome(sw.GRID[0], learner).train_rise == pytest.approx(-0.2 + 0.08)
    assert sw.paired_rise(learner, frozen) == pytest.approx(0.08)
    assert sw.paired_rise(frozen, frozen) == 0.0
    assert math.isnan(sw.paired_rise(learner.head(30), frozen))


def test_a_longer_setting_runs_its_steps_and_ties_go_to_fewer_prompts_sampled():
    from analysis.campaigns.pool.driver import build_campaign

    long = sw.POOL_FOLLOW_UP[0]
    argv = build_campaign().runs[f"sweep-{long.tag}"].argv
    assert argv[argv.index("--run.steps") + 1] == str(long.steps)
    assert argv[argv.index("--tasks.num-train") + 1] == str(long.train_tasks)
    nan = math.nan
    short, longer = sw.Setting("a", 2e-4), sw.Setting("b", 1e-4, steps=200)
    outs = [sw.Outcome(s, 0.12, 0.6, 0.6, nan, nan, nan, nan) for s in (short, longer)]
    assert sw.choose(outs).setting == short  # 800 prompts sampled against 1,600


@pytest.mark.results
def test_the_campaign_recipe_is_the_one_the_committed_sweep_chooses():
    from analysis.campaigns.pool.driver import RECIPE
    from analysis.runs import is_finished, load_run

    root = Path(__file__).resolve().parents[3] / "results" / "campaign"
    outcomes = []
    for setting in sw.CANDIDATES:
        folder = root / f"sweep-{setting.tag}"
        if not is_finished(folder):
            pytest.fail(f"the sweep's run {folder.name} is not committed")
        outcomes.append(sw.outcome(setting, load_run(folder).metrics))
    chosen = sw.choose(outcomes)
    assert chosen is not None and chosen.setting == RECIPE
