"""The exploration functions behind notebook 03 (analysis/explore.py), on a hand-made run."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from analysis import explore  # noqa: E402
from analysis.runs import load_run  # noqa: E402

# step 1, G = 4, two groups:
#   prompt 0: R = [1, 1, 0, 0], goals h h l l, A = [1, 1, -1, -1] (all between-goal)
#   prompt 1: R = [0, 0, 0, 0], goals h l h l, A = 0 (collapsed)
GROUPS = {
    0: [(1.0, "high", 1.0), (1.0, "high", 1.0), (0.0, "low", -1.0), (0.0, "low", -1.0)],
    1: [(0.0, "high", 0.0), (0.0, "low", 0.0), (0.0, "high", 0.0), (0.0, "low", 0.0)],
}


def _run(tmp_path, conversations=True, preset="cpu-rcgrpo"):
    d = tmp_path / f"{preset}-s0"
    d.mkdir()
    cfg = {"preset": preset, "algo": {"conditioning": "iid", "eps_stab": 0.0}}
    (d / "config.json").write_text(json.dumps(cfg))
    metrics = [{"step": 0}, {"step": 1, "group/zero_var_frac": 0.5, "adv/gap_mean": 1.0}]
    (d / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    rows, convs = [], []
    for p, group in GROUPS.items():
        for g, (reward, goal, adv) in enumerate(group):
            key = {"step": 1, "round": 0, "prompt": p, "group": g}
            rows.append(
                {
                    **key,
                    "task_id": f"t{p}",
                    "reward": reward,
                    "reward_token": goal,
                    "advantage": adv,
                    "kept": True,
                    "calls": 2,
                    "tool_errors": 0,
                    "failure_reason": "" if reward else "state mismatch",
                }
            )
            convs.append({**key, "messages": [{"role": "assistant", "content": f"reply {p}{g}"}]})
    (d / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if conversations:
        (d / "conversations.jsonl").write_text("".join(json.dumps(c) + "\n" for c in convs))
    return d


def test_step_groups_table(tmp_path):
    run = load_run(_run(tmp_path))
    groups = explore.step_groups(run, 1)
    assert groups["goals"].tolist() == ["hhll", "hlhl"]
    assert groups["rewards"].tolist() == ["1 1 0 0", "0 0 0 0"]
    assert groups["advantages"].iloc[0] == "+1.00 +1.00 -1.00 -1.00"
    # group 0: mu = .5, var = .25, s = .5 -> P(collapse) = 2 * .5^4 = .125; all between-goal
    assert groups["reward_var"].tolist() == [0.25, 0.0]
    assert groups["p_collapse"].tolist() == pytest.approx([0.125, 1.0])
    assert groups["zero_var"].tolist() == [False, True]
    assert groups["between_share"].iloc[0] == 1.0 and groups["mode_sep"].iloc[0] == 1.0
    line = explore.step_summary(groups, 1)
    assert "2 groups (2 kept)" in line and "observed 1/2 = 0.500" in line
    assert "predicted mean s^G + (1-s)^G = 0.562" in line  # (0.125 + 1) / 2
    with pytest.raises(ValueError, match="no rollouts at step 7"):
        explore.step_groups(run, 7)


def test_group_drill_down_renders_conversations(tmp_path):
    run = load_run(_run(tmp_path))
    table = explore.group_rollouts(run, 1, 0)
    assert table["between"].tolist() == [1.0, 1.0, -1.0, -1.0]
    assert table["within"].tolist() == [0.0] * 4
    text = explore.render_group(run, 1, 0)
    assert text.count("--- rollout ") == 4 and "[assistant]\nreply 02" in text
    assert "goal high, reward 1, A = +1.000 = between +1.000 + within +0.000" in text
    assert "state mismatch" in text
    (tmp_path / "light").mkdir()
    light = load_run(_run(tmp_path / "light", conversations=False))
    assert "conversation not logged" in explore.render_group(light, 1, 1)
    with pytest.raises(ValueError, match="no group"):
        explore.group_rollouts(run, 1, 5)


def test_runs_frames_and_dashboard(tmp_path):
    _run(tmp_path)
    (tmp_path / "other").mkdir()
    _run(tmp_path / "other", preset="cpu-grpo")
    picked = explore.find_runs(search=[tmp_path], arms=["cpu-rcgrpo"])
    assert [r.name for r in picked] == ["cpu-rcgrpo-s0"]
    frame = explore.step_frame(picked[0])
    # the run did not log the split: filled from the rollout table (step 1: all between-goal)
    assert frame.loc[1, "adv/between_share"] == 1.0 and frame.loc[1, "adv/gap_mean"] == 1.0
    fig = explore.dashboard(picked)
    drawn = [len(ax.lines) for ax in fig.axes if ax.get_visible()]
    assert len(drawn) == 6 and drawn[0] == 1 and drawn[4] == 2  # split: between + high within
    assert "not logged" in [t.get_text() for t in fig.axes[5].texts]  # no entropy logged
