"""The collapse testbed's gates and the per-decision-kind tallies they read, on hand-made inputs.

Tallies: a real collapse-d10 task with one swap point, rolled out right (its ground truth) and
wrong (the swap), so every count is known. Gates: reports written by hand; each case's
arithmetic is in its comment.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from analysis.campaigns.collapse_design import gates as cg
from analysis.diagnostics.regime.decisions import ANY, decision_section, tally
from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks


def _one_swap_task():
    tasks = generate_synth_tasks(200, split="test", seed=0, config=SYNTH_PRESETS["collapse-d10"])
    return next(t for t in tasks if len(t.meta.get("decisions", ())) == 1)


def _rollout(calls):
    return SimpleNamespace(calls_per_turn=calls)


def test_tally_counts_right_and_wrong_choices():
    task = _one_swap_task()
    kind = task.meta["decisions"][0]["kind"]
    right = _rollout(task.ground_truth)
    wrong = _rollout(task.meta["demonstration"] if task.meta["decisions"][0]["erred"] else [])
    # greedy right; samples: 1 right + 3 wrong (a rollout that makes no call is not right)
    t = tally(task, right, [right, wrong, wrong, wrong])
    assert t == {
        kind: {"greedy_right": 1, "greedy_points": 1, "sampled_right": 1, "sampled_points": 4}
    }


def test_decision_section_pools_points_and_reads_pass_at_n():
    # task a: kind x, 1 point, 4 samples 1 right, successes 1, greedy fails
    # task b: kinds x and y, 4 samples: x 3 right, y 0 right, successes 0, greedy succeeds
    # task c: no points (not counted)
    row = lambda gr, gp, sr, sp: dict(  # noqa: E731
        greedy_right=gr, greedy_points=gp, sampled_right=sr, sampled_points=sp
    )
    records = [
        {"greedy": False, "successes": 1, "decisions": {"x": row(0, 1, 1, 4)}},
        {"greedy": True, "successes": 0, "decisions": {"x": row(1, 1, 3, 4), "y": row(0, 1, 0, 4)}},
        {"greedy": True, "successes": 4},
    ]
    s = decision_section(records, n=4)
    assert s["x"]["p_right_sampled"] == pytest.approx(4 / 8)
    assert s["y"]["p_right_sampled"] == 0.0 and s["y"]["tasks"] == 1
    assert s[ANY]["p_right_sampled"] == pytest.approx(4 / 12)  # (1 + 3 + 0) / (4 + 4 + 4)
    assert s[ANY]["greedy_right"] == pytest.approx(1 / 3)
    assert s["x"]["greedy_success"] == 0.5 and s["x"]["pass_at_n"] == 0.5  # a: 1 success, b: 0
    assert decision_section([{"greedy": True, "successes": 1}], n=4) == {}


def _report(**conds):
    return {
        "conditions": {c: {"decision_kinds": {ANY: {"n": n, **v}}} for c, (n, v) in conds.items()}
    }


def test_headroom_window_and_pass_gain():
    ok = {"p_right_sampled": 0.03, "pass_at_n": 0.55, "greedy_success": 0.02, "tasks": 140}
    g = cg.h_headroom(_report(none=(32, ok)))
    assert g.holds and g.values["pass_n_minus_greedy"] == pytest.approx(0.53)
    # 0.15 > 0.10: the decision is not collapsed
    assert cg.h_headroom(_report(none=(32, ok | {"p_right_sampled": 0.15}))).holds is False
    # 0.005 < 0.01: unreachable
    assert cg.h_headroom(_report(none=(32, ok | {"p_right_sampled": 0.005}))).holds is False
    # pass@n − greedy = 0.19 - 0.02 = 0.17 < 0.20
    assert cg.h_headroom(_report(none=(32, ok | {"pass_at_n": 0.19}))).holds is False
    assert cg.h_headroom(_report(none=(8, ok))).holds is None  # fewer than 32 samples


def test_rescue_needs_a_collapsed_high_goal_that_still_beats_low():
    high = {"p_right_sampled": 0.18}
    assert cg.r_rescue(_report(high=(32, high), low=(32, {"p_right_sampled": 0.03}))).holds
    # difference 0.18 − 0.12 = 0.06 < 0.10
    assert not cg.r_rescue(_report(high=(32, high), low=(32, {"p_right_sampled": 0.12}))).holds
    # 0.45 > 0.30: RCTP-FT alone removes the collapse
    too_good = _report(high=(32, {"p_right_sampled": 0.45}), low=(32, {"p_right_sampled": 0.0}))
    assert cg.r_rescue(too_good).holds is False
    assert cg.r_rescue(_report(high=(32, high))).holds is None


def test_collapse_reads_fifty_steps_at_g5():
    rows = [{"step": s, "group/zero_var_fail_frac": 0.6} for s in range(1, 51)]
    g = cg.c_collapse(rows, {0: 0.30, 25: 0.31, 50: 0.33}, group_size=5)
    assert g.holds and g.values["gain"] == pytest.approx(0.03)
    # gain 0.36 − 0.30 = 0.06 >= 0.05: it learns
    assert cg.c_collapse(rows, {0: 0.30, 50: 0.36}, 5).holds is False
    half = [{"step": s, "group/zero_var_fail_frac": 0.4 + 0.2 * (s % 2)} for s in range(1, 51)]
    assert cg.c_collapse(half, {0: 0.3, 50: 0.3}, 5).values["all_fail_share"] == pytest.approx(0.5)
    assert cg.c_collapse(rows[:49], {0: 0.3, 50: 0.3}, 5).holds is None  # 49 steps
    with pytest.raises(ValueError, match="G = 5"):
        cg.c_collapse(rows, {0: 0.3, 50: 0.3}, group_size=8)


def test_reachable_after_a_long_pilot_only():
    assert cg.h2_reachable({0: 0.02, 200: 0.5}).holds is None  # shorter than 400 steps
    assert cg.h2_reachable({0: 0.02, 400: 0.25}).holds is True  # +0.23
    assert cg.h2_reachable({0: 0.02, 400: 0.10}).holds is False  # +0.08
