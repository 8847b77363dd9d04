"""The exploration functions behind notebook 03 (analysis/notebook/explore.py,
analysis/notebook/drilldown.py), on hand-made runs."""

from __future__ import annotations

import gzip
import json

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from analysis.notebook import drilldown, explore  # noqa: E402
from analysis.runs import load_run  # noqa: E402

# step 1, G = 4, two groups:
#   prompt 0: R = [1, 1, 0, 0], goals h h l l, A = [1, 1, -1, -1] (all between-goal)
#   prompt 1: R = [0, 0, 0, 0], goals h l h l, A = 0 (collapsed)
GROUPS = {
    0: [(1.0, "high", 1.0), (1.0, "high", 1.0), (0.0, "low", -1.0), (0.0, "low", -1.0)],
    1: [(0.0, "high", 0.0), (0.0, "low", 0.0), (0.0, "high", 0.0), (0.0, "low", 0.0)],
}


def _run(tmp_path, conversations=True, preset="cpu-rcgrpo", groups=GROUPS):
    d = tmp_path / f"{preset}-s0"
    d.mkdir()
    goals = "iid" if any(goal for group in groups.values() for _, goal, _ in group) else "none"
    cfg = {"preset": preset, "algo": {"conditioning": goals, "eps_stab": 0.0}}
    (d / "config.json").write_text(json.dumps(cfg))
    metrics = [{"step": 0}, {"step": 1, "group/zero_var_frac": 0.5, "adv/gap_mean": 1.0}]
    (d / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    rows, convs = [], []
    for p, group in groups.items():
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
    table = drilldown.group_rollouts(run, 1, 0)
    assert table["between"].tolist() == [1.0, 1.0, -1.0, -1.0]
    assert table["within"].tolist() == [0.0] * 4
    text = drilldown.render_group(run, 1, 0)
    assert text.count("--- rollout ") == 4 and "[assistant]\nreply 02" in text
    assert "goal high, reward 1, A = +1.000 = between +1.000 + within +0.000" in text
    assert "state mismatch" in text and "; 2 calls, 0 tool errors" in text
    # sum of A = 0; between + within = A exactly
    assert drilldown.group_check(run, 1, 0) == (
        "4 rollouts, sum of advantages +0.000, max |A - (between + within)| = 0.0e+00"
    )
    assert "logged them (conversations.jsonl)" in drilldown.conversation_note(run)
    (tmp_path / "light").mkdir()
    light = load_run(_run(tmp_path / "light", conversations=False))
    assert "a light copy keeps the rollout table only" in drilldown.render_group(light, 1, 1)
    assert "keeps no conversations" in drilldown.conversation_note(light)
    with pytest.raises(ValueError, match="no group"):
        drilldown.group_rollouts(run, 1, 5)


def test_committed_sample_is_read_like_the_log(tmp_path):
    """A light copy's conversations.jsonl.gz (+ its source note) is what Run.conversations
    reads; a step outside the sample says which steps it has."""
    d = _run(tmp_path, conversations=False)
    # rollouts 2 and 3 wrote what rollouts 0 and 1 wrote
    convs = [
        {
            **dict(step=1, round=0, prompt=0, group=g),
            "messages": [{"role": "assistant", "content": f"call {g % 2}"}],
        }
        for g in range(4)
    ]
    lines = [json.dumps(c) for c in convs]
    (d / "conversations.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode()))
    source = {"kind": "rerun", "steps": [1, 1], "code": "0123456789abcdef"}
    (d / "conversations.source.json").write_text(json.dumps(source))
    run = load_run(d)
    assert len(run.conversations) == 4 and run.conversations_source["kind"] == "rerun"
    text = drilldown.render_group(run, 1, 0)
    assert text.count("[assistant]\ncall 1") == 1 and "(the same messages as rollout 1)" in text
    assert text.index("--- rollout 2") < text.index("(the same messages as rollout 0)")
    assert "steps 1-1 regenerated" in drilldown.conversation_note(run)
    assert "0123456" in drilldown.conversation_note(run)


# the same two tasks under SFT + GRPO (no goals): t0 collapsed (all 1), t1 mixed
GRPO = {
    0: [(1.0, None, 0.0)] * 4,
    1: [(1.0, None, 1.0), (1.0, None, 1.0), (0.0, None, -1.0), (0.0, None, -1.0)],
}


def test_choose_group_contrasts_a_collapse_with_rc_grpo(tmp_path):
    """Under SFT + GRPO t0 collapsed (rewards 1 1 1 1) and t1 did not; under RC-GRPO t0 is
    mixed (1 1 0 0) and t1 collapsed: the only task that collapsed under GRPO and not under
    RC-GRPO at step 1 is t0."""
    rc = load_run(_run(tmp_path))
    (tmp_path / "g").mkdir()
    grpo = load_run(_run(tmp_path / "g", preset="cpu-grpo", groups=GRPO))
    choice = drilldown.choose_group([grpo, rc])
    assert (choice.step, choice.task_id, choice.read) == (1, "t0", (grpo.name, rc.name))
    assert "collapsed under SFT + GRPO and not under RCTP-FT + RC-GRPO (1 such task(s)" in (
        choice.reason
    )
    assert "under SFT + GRPO rewards 1 1 1 1 (collapsed: every advantage 0" in choice.reason
    assert "rewards 1 1 0 0, goals hhll (σ_g² = 0.25" in choice.reason
    text = drilldown.drill_down(grpo, choice)
    assert "no split" in text and "nan" not in text.lower()
    table = explore.compare_step([grpo, rc], 1)
    assert table.loc["t0"].tolist() == ["1 1 1 1 =", "1 1 0 0 (hhll)"]
    assert table.loc["t1"].tolist() == ["1 1 0 0", "0 0 0 0 (hlhl) ="]
    # one run only: the widest spread at its last step
    assert drilldown.choose_group([rc]).task_id == "t0"
    assert drilldown.choose_group([rc], task="t1").task_id == "t1"


def test_readable_marks_undefined_values(tmp_path):
    groups = explore.step_groups(load_run(_run(tmp_path)), 1)
    shown = explore.readable(groups)
    # group 1 collapsed: no advantage weight, so no between-goal share
    assert shown["between_share"].tolist() == ["1.000", "—"]
    assert shown["reward_var"].tolist() == ["0.250", "0.000"]


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
    # the run key is one figure legend; a panel with two styles keys them below its axis
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "RCTP-FT + RC-GRPO (cpu-rcgrpo-s0)"
    ]
    assert [t.get_text() for t in fig.axes[4].get_legend().get_texts()] == [
        "between goals",
        "within, high goal",
    ]
    assert fig.axes[0].get_legend() is None


def test_run_paths_are_relative_to_the_repository(monkeypatch, tmp_path):
    # a notebook's kernel runs in notebooks/: RUNS = ["results/campaign/x"] used to be looked
    # up as notebooks/results/campaign/x and failed; it is <repo>/results/campaign/x
    monkeypatch.chdir(explore.REPO_ROOT / "notebooks")
    runs, where = explore.pick_runs(["results/campaign/cpu-grpo-s0"])
    assert [r.name for r in runs] == ["cpu-grpo-s0"] and where.endswith("loaded 1: cpu-grpo-s0")
    assert runs[0].root == explore.REPO_ROOT / "results/campaign/cpu-grpo-s0"
    given = _run(tmp_path)  # an absolute path is taken as given
    assert [r.name for r in explore.find_runs([given])] == ["cpu-rcgrpo-s0"]


def test_pick_runs_defaults_to_the_committed_factorial():
    runs, where = explore.pick_runs()
    assert [r.config["preset"] for r in runs] == list(explore.FACTORIAL_ARMS)
    assert {r.name for r in runs} == {f"{a}-s0" for a in explore.FACTORIAL_ARMS}
    assert where.startswith("seed 0 of the campaign (") and "SFT + GRPO (cpu-grpo-s0)" in where
    given, where = explore.pick_runs([runs[0].root])
    assert [r.name for r in given] == ["cpu-grpo-s0"] and where.endswith("loaded 1: cpu-grpo-s0")
