"""``python -m rcgrpo train`` for 2 steps of each mechanism arm of the regime suite (the
``regime-separation`` arms of :data:`analysis.campaign.arms.ARMS`) from the coin-flip start: the
run carries its one change, and the advantages it logged are the ones its scheme prescribes,
recomputed from the logged rewards and goals."""

from __future__ import annotations

import json

import pytest
import torch
from rl_smoke_helpers import SMALL_RUN, params, rows

from analysis.campaign.arms import arms
from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.advantage_scope import scoped_advantages

SEPARATION = tuple(a.preset for a in arms("regime-d10", "regime-separation"))
CHANGE = {
    "regime-rcgrpo-beta1": ("algo", "kl_beta", 1.0),
    "regime-rcgrpo-beta3": ("algo", "kl_beta", 3.0),
    "regime-rcgrpo-anchored": ("algo", "low_goal_gradient", False),
    "regime-rcgrpo-goalnorm": ("algo", "adv_scope", "goal"),
    "regime-rctp-grpo-g4": ("rollout", "group_size", 4),
}


def _argv(name: str, init, root) -> list[str]:
    flags = list(SMALL_RUN)
    if name == "regime-rctp-grpo-g4":  # G comes from the preset, not the small-run flag
        at = flags.index("--rollout.group-size")
        del flags[at : at + 2]
    flags += ["--tasks.num-eval-between", "0", "--algo.eps-stab", "0", "--run.steps", "2"]
    return ["train", "--preset", name, "--init", str(init), *flags, "--run.root", str(root)]


def _groups(table: list[dict], step: int):
    """(rewards [P, G], high [P, G] or None, logged advantages [P, G]) of one step."""
    by: dict[int, list[dict]] = {}
    for r in table:
        if r["step"] == step:
            by.setdefault(r["prompt"], []).append(r)
    groups = [sorted(g, key=lambda r: r["group"]) for _, g in sorted(by.items())]

    def grid(key: str) -> torch.Tensor:
        return torch.tensor([[r[key] for r in g] for g in groups], dtype=torch.float64)

    high = torch.tensor([[r["reward_token"] == "high" for r in g] for g in groups])
    return grid("reward"), high, grid("advantage")


def test_every_mechanism_arm_is_tested_here():
    assert set(SEPARATION) == set(CHANGE)


@pytest.mark.slow
@pytest.mark.parametrize("name", SEPARATION)
def test_two_steps_of_each_mechanism_arm(name, coin_flip, tmp_path):
    assert rcgrpo_main([*_argv(name, coin_flip, tmp_path), "--run.name", "r"]) == 0
    run = tmp_path / "r"
    config = json.loads((run / "config.json").read_text())
    section, key, value = CHANGE[name]
    assert config[section][key] == value
    table = rows(run / "rollouts.jsonl")
    for step in (1, 2):
        rewards, high, logged = _groups(table, step)
        assert rewards.shape[1] == config["rollout"]["group_size"]
        goal = config["algo"]["conditioning"] in ("iid", "stratified")
        scope = config["algo"]["adv_scope"]
        want = scoped_advantages(rewards, high if goal else None, scope, eps_stab=0.0)
        if not config["algo"]["low_goal_gradient"]:
            want = torch.where(high, want, torch.zeros_like(want))
        assert torch.allclose(logged, want, atol=1e-6), (name, step)
    metrics = rows(run / "metrics.jsonl")
    assert all(m["loss/nonfinite"] == 0 for m in metrics[1:])
    if any(m["adv/gap_max"] > 0 for m in metrics[1:]):
        before, after = params(coin_flip), params(run / "checkpoints" / "step_2")
        assert any(not torch.equal(before[k], after[k]) for k in before)
