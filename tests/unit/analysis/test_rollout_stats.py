"""Group statistics recomputed from the per-rollout table equal the trainer's diagnostics."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.diagnostics.rollout_stats import (
    RECOMPUTED,
    compare_with_logged,
    group_table,
    step_table,
)
from analysis.runs import load_run
from rcgrpo import group_advantages
from rcgrpo.diagnostics import group_diagnostics


def table(groups: list[tuple[int, int, int, list[float], list[str | None]]]) -> pd.DataFrame:
    """Rollout rows from (step, round, prompt, rewards, tokens) groups."""
    rows = [
        {"step": s, "round": r, "prompt": p, "group": j, "reward": x, "reward_token": t}
        for s, r, p, rewards, tokens in groups
        for j, (x, t) in enumerate(zip(rewards, tokens, strict=True))
    ]
    return pd.DataFrame(rows)


H, L = "high", "low"
HAND = table(
    [
        (1, 0, 0, [1.0, 0.0, 0.0], [H, L, L]),
        (1, 0, 1, [1.0, 1.0, 1.0], [H, H, L]),
        (2, 0, 0, [0.0, 0.0, 0.0], [L, H, L]),
        (2, 1, 0, [1.0, 0.0, 1.0], [H, L, H]),  # a second (DAPO) round of step 2
    ]
)


def test_hand_computed_step_table():
    # var([1, 0, 0]) with ddof 0 = ((2/3)^2 + 2 (1/3)^2) / 3 = 2/9; constant groups 0.
    # step 1: var mean (2/9 + 0)/2 = 1/9, p50 = 1/9, p90 = 0 + 0.9 * 2/9 = 0.2;
    #         zero-var 1/2 (all success); mean 4/6; high rewards (1, 1, 1) -> 1,
    #         low (0, 0, 1) -> 1/3; both groups have both tokens -> no-diversity 0.
    # step 2: the rounds are separate groups: (0, 0, 0) all fail, (1, 0, 1) var 2/9;
    #         mean 2/6; high (0, 1, 1) -> 2/3, low (0, 0, 0) -> 0.
    out = step_table(HAND)
    expected = {
        1: {
            "group/var_mean": 1 / 9,
            "group/var_p50": 1 / 9,
            "group/var_p90": 0.2,
            "group/zero_var_frac": 0.5,
            "group/zero_var_success_frac": 0.5,
            "group/zero_var_fail_frac": 0.0,
            "reward/mean": 2 / 3,
            "reward/success_rate": 2 / 3,
            "reward/mean_high": 1.0,
            "reward/mean_low": 1 / 3,
            "group/no_token_diversity_frac": 0.0,
        },
        2: {
            "group/var_mean": 1 / 9,
            "group/zero_var_frac": 0.5,
            "group/zero_var_success_frac": 0.0,
            "group/zero_var_fail_frac": 0.5,
            "reward/mean": 1 / 3,
            "reward/mean_high": 2 / 3,
            "reward/mean_low": 0.0,
        },
    }
    for step, values in expected.items():
        for metric, value in values.items():
            assert out.at[step, metric] == pytest.approx(value, abs=1e-15), (step, metric)
    groups = group_table(HAND)
    assert len(groups) == 4 and groups["size"].tolist() == [3, 3, 3, 3]
    assert groups["n_high"].tolist() == [1, 2, 1, 2]


def test_a_token_nobody_drew_gives_nan():
    # found by the hypothesis law below: all-low tokens must give NaN mean_high, not a KeyError
    out = step_table(table([(1, 0, 0, [0.0, 1.0], [L, L])]))
    assert np.isnan(out.at[1, "reward/mean_high"]) and out.at[1, "reward/mean_low"] == 0.5
    assert out.at[1, "group/no_token_diversity_frac"] == 1.0


def test_no_tokens_and_bad_input():
    plain = HAND.assign(reward_token=None)
    out = step_table(plain)
    assert "group/no_token_diversity_frac" not in out and "reward/mean_high" not in out
    assert group_table(plain)["n_high"].isna().all()
    with pytest.raises(ValueError, match="lacks columns"):
        group_table(HAND.drop(columns=["round"]))


@settings(max_examples=60)
@given(
    st.integers(1, 6),
    st.integers(2, 5),
    st.data(),
)
def test_equals_group_diagnostics(num_prompts, group_size, data):
    # the trainer logs rcgrpo.group_diagnostics on the [P, G] grid; the table must give the same
    values = data.draw(
        st.lists(
            st.sampled_from([0.0, 0.5, 1.0]),
            min_size=num_prompts * group_size,
            max_size=num_prompts * group_size,
        )
    )
    highs = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    rewards = torch.tensor(values, dtype=torch.float64).view(num_prompts, group_size)
    high = torch.tensor(highs).view(num_prompts, group_size)
    diag = group_diagnostics(rewards, group_advantages(rewards), high)
    rows = table(
        [
            (1, 0, p, rewards[p].tolist(), [H if h else L for h in high[p].tolist()])
            for p in range(num_prompts)
        ]
    )
    out = step_table(rows).loc[1]
    for metric in RECOMPUTED:
        want = float(diag[metric])
        if np.isnan(want):
            assert np.isnan(out[metric]), metric
        else:
            assert out[metric] == pytest.approx(want, rel=1e-12, abs=1e-15), metric


def test_compare_with_logged_on_a_run_folder(tmp_path):
    rewards = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]], dtype=torch.float64)
    high = torch.tensor([[True, False, False], [True, True, False]])
    diag = group_diagnostics(rewards, group_advantages(rewards), high)
    logged = {k: float(v) for k, v in diag.items() if "/" in k}
    run = tmp_path / "r"
    run.mkdir()
    (run / "metrics.jsonl").write_text(
        json.dumps({"step": 0, "reward/eval_success": 0.5})
        + "\n"
        + json.dumps({"step": 1, **logged})
        + "\n"
    )
    (run / "rollouts.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in HAND[HAND.step == 1].to_dict("records"))
    )
    check = compare_with_logged(load_run(run))
    assert set(check["metric"]) == set(RECOMPUTED) and (check["step"] == 1).all()
    assert check["abs_err"].max() < 1e-15
    (run / "rollouts.jsonl").write_text(json.dumps(HAND.iloc[0].to_dict()) + "\n")  # incomplete
    assert compare_with_logged(load_run(run))["abs_err"].max() > 0.1
    (run / "rollouts.jsonl").write_text("")
    with pytest.raises(ValueError, match="no rollout table"):
        compare_with_logged(load_run(run))
