"""analysis.campaigns.regime_separation.verdicts: the registered rules' bookkeeping, and two rules decided on
constructed run folders (evaluations at every 25 steps, hand-known values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.campaign.arms import arm
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10 import verdict_table as vt
from analysis.campaigns.regime_separation import verdicts as sep
from analysis.verdicts import family as fm
from analysis.verdicts import rules as rv

TASKS = tuple(f"t{i}" for i in range(12))


def test_families_partition_the_rules_and_every_arm_is_registered():
    ids = [r.id for r in sep.RULES]
    assert sorted(ids) == sorted(i for f in sep.FAMILIES.values() for i in f)
    assert len(set(ids)) == len(ids)
    for r in sep.RULES:
        assert all(arm(a) is not None and arm(a).start == "rctp" for a in r.arms), r.id
        assert (r.id in sep.EQUIVALENCE) == (r.threshold == 0.0)


def write_run(root: Path, preset: str, seed: int, high: tuple, low: tuple) -> Path:
    """Evaluations at steps 0, 25, …, 200: per task reward ``high[i]`` under the high goal and
    ``low[i]`` under the low goal, at every step."""
    d = root / f"{preset}-s{seed}"
    (d / "eval").mkdir(parents=True)
    config = {"run": {"seed": seed}, "algo": {"eval_condition": "high"}}
    (d / "config.json").write_text(json.dumps(config))
    (d / "metrics.jsonl").write_text(json.dumps({"step": 0}) + "\n")
    (d / "rollouts.jsonl").write_text("")
    for step in range(0, 201, 25):
        conds = {
            goal: {
                "per_task": [{"task_id": t, "reward": y} for t, y in zip(TASKS, ys, strict=True)]
            }
            for goal, ys in (("high", high), ("low", low))
        }
        (d / "eval" / f"step_{step}.json").write_text(json.dumps({"conditions": conds}))
    (d / "summary.json").write_text("{}")
    return d


def test_anchored_goals_kept_apart_and_goal_blind_rc_grpo_unchanged(tmp_path):
    # anchored: high succeeds on 9 of 12 tasks, low on none -> separation .75 on every seed;
    # the task component alone: MS_A = 3/11 * (9 * .0625 + 3 * .5625) = .6136, SE = √(MS_A /
    # 36) = .1306, t = (.75 - .10)/.1306 = 4.98 on 11 df -> p < .001: X1c holds. within-goal normalisation = RC-GRPO task by task -> difference 0 with
    # se 0 on speed and final: X3s, X3f are equivalent within ±5 points
    found: dict[str, list[Path]] = {}
    for s in (3, 4, 5):
        found.setdefault(sep.ANCHORED, []).append(
            write_run(tmp_path, sep.ANCHORED, s, (1,) * 9 + (0,) * 3, (0,) * 12)
        )
        for preset in (sep.GOALNORM, sep.RC):
            found.setdefault(preset, []).append(
                write_run(tmp_path, preset, s, (1, 0) * 6, (1, 0) * 6)
            )
    arms = pop.load_arms(found, "admitted")
    chosen = [r for r in sep.RULES if r.id in ("X1c", "X3s", "X3f")]
    outs = [rv.evaluate(r, arms, {}) for r in chosen]
    decided = fm.decide(outs, sep.FAMILIES, sep.EQUIVALENCE, sep.MARGIN)
    verdicts = {d.rule.id: d.verdict for d in decided}
    assert verdicts == {
        "X1c": "holds",
        "X3s": "equivalent within ±5 points",
        "X3f": "equivalent within ±5 points",
    }
    assert outs[0].interval.mean == 0.75
    assert outs[0].interval.se == pytest.approx((0.6136364 / 36) ** 0.5, rel=1e-6)
    assert vt.interval_text(outs[1].interval) == "0.000 [0.000, 0.000]"
