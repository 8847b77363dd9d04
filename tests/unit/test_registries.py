"""The goal-scheme and estimator registries, hand-checked: declarations decide what a draw
and an estimator get, what the scope hands a sub-group, and what validation asks of a run.
Toys are registered by a fixture and removed afterwards."""

from __future__ import annotations

import pytest
import torch

from rcgrpo import group_advantages
from rcgrpo.advantage_scope import scoped_advantages
from rcgrpo.advantage_split import split_applies
from rcgrpo.advantages import ADV_ESTIMATORS, register_estimator
from rcgrpo.conditioning import (
    SCHEMES,
    bound_p,
    goal_schemes,
    register_scheme,
    sample_reward_tokens,
    scheme_uses_token,
)
from rcgrpo.train.config import TrainConfig
from rcgrpo.train.validate import ConfigError, validate_config

T, F = True, False


@pytest.fixture
def toys():
    """``lengths-centred``: A = L - mean L of the group, reading lengths only; ``counted``: a
    goal scheme whose state counts its draws, all high after the first."""

    @register_estimator("lengths-centred", inputs=("rewards", "lengths"))
    def lengths_centred(rewards, lengths):
        x = lengths.to(rewards.dtype)
        return x - x.mean(dim=1, keepdim=True)

    @register_scheme(
        "counted", init_state=lambda: 0, update_state=lambda state, goals, rewards: state + 1
    )
    def counted(num_prompts, group_size, generator, *, state):
        return torch.full((num_prompts, group_size), state > 0)

    yield
    ADV_ESTIMATORS.pop("lengths-centred")
    SCHEMES.pop("counted")


def test_the_built_in_declarations():
    assert list(SCHEMES) == ["iid", "stratified", "high", "low", "none"]
    assert [n for n, s in SCHEMES.items() if s.per_rollout] == ["iid", "stratified"]
    assert [n for n, s in SCHEMES.items() if s.needs_p] == ["iid", "stratified"]
    assert goal_schemes() == ("iid", "stratified", "high", "low")
    assert (bound_p("iid", 0.3), bound_p("stratified", 0.3), bound_p("high", 0.3)) == (
        0.3,
        None,
        None,
    )
    for est in ADV_ESTIMATORS.values():  # each reads the rewards only; all centred
        assert est.inputs == ("rewards",) and est.centred and split_applies(est.name)
    assert [n for n, e in ADV_ESTIMATORS.items() if e.options] == ["grpo", "grpo-batch"]


def test_an_estimator_gets_its_declared_inputs(toys):
    r = torch.zeros(1, 4)
    lengths = torch.tensor([[1, 2, 3, 6]])
    # mean length 3: A = (-2, -1, 0, 3)
    want = torch.tensor([[-2.0, -1.0, 0.0, 3.0]])
    assert torch.equal(group_advantages(r, "lengths-centred", lengths=lengths), want)
    with pytest.raises(ValueError, match="estimator 'lengths-centred' reads lengths, got None"):
        group_advantages(r, "lengths-centred")
    with pytest.raises(ValueError, match=r"lengths must be a integer tensor of shape \(1, 4\)"):
        group_advantages(r, "lengths-centred", lengths=lengths.float())
    assert not split_applies("lengths-centred")
    # grpo ignores inputs it does not declare
    assert torch.equal(group_advantages(r, lengths=lengths), group_advantages(r))


def test_the_goal_scope_hands_each_sub_group_its_slice(toys):
    lengths = torch.tensor([[1, 5, 3, 9]])
    high = torch.tensor([[T, T, F, F]])
    # high sub-group lengths (1, 5): mean 3 -> (-2, 2); low (3, 9): mean 6 -> (-3, 3)
    got = scoped_advantages(torch.zeros(1, 4), high, "goal", "lengths-centred", lengths=lengths)
    assert torch.equal(got, torch.tensor([[-2.0, 2.0, -3.0, 3.0]]))
    # the group scope: mean 4.5 over all four
    got = scoped_advantages(torch.zeros(1, 4), high, "group", "lengths-centred", lengths=lengths)
    assert torch.equal(got, torch.tensor([[-3.5, 0.5, -1.5, 4.5]]))


def test_a_scheme_gets_its_state(toys):
    assert not scheme_uses_token("none") and scheme_uses_token("counted")
    assert "counted" not in goal_schemes()  # TRL draws each round from its seed alone
    assert not sample_reward_tokens(1, 2, scheme="counted").any()  # the first state: 0
    assert sample_reward_tokens(1, 2, scheme="counted", state=1).all()
    spec = SCHEMES["counted"]
    assert spec.keeps_state and spec.update_state(1, None, None) == 2


def test_registering_twice_or_wrong_declarations_is_an_error():
    with pytest.raises(ValueError, match="'iid' is already registered"):
        register_scheme("iid")
    with pytest.raises(ValueError, match="needs both init_state and update_state"):
        register_scheme("half", init_state=dict)
    with pytest.raises(ValueError, match="'grpo' is already registered"):
        register_estimator("grpo")
    with pytest.raises(ValueError, match="inputs must start with 'rewards'"):
        register_estimator("x", inputs=("rewards", "tokens"))
    with pytest.raises(ValueError, match="options must be of"):
        register_estimator("x", options=("beta",))
    assert "half" not in SCHEMES and "x" not in ADV_ESTIMATORS


@pytest.mark.parametrize(
    ("algo", "message"),
    [
        ({"conditioning": "high", "adv_scope": "goal"}, "algo.adv_scope needs a scheme drawing"),
        ({"conditioning": "none", "low_goal_gradient": False}, "algo.low_goal_gradient False"),
    ],
)
def test_validation_reads_the_declarations(algo, message):
    cfg = TrainConfig()
    for key, value in algo.items():
        setattr(cfg.algo, key, value)
    with pytest.raises(ConfigError, match=message):
        validate_config(cfg)


def test_an_estimator_reading_goals_needs_goal_tokens():
    @register_estimator("goal-sign", inputs=("rewards", "goals"))
    def goal_sign(rewards, goals):
        return goals.to(rewards.dtype) * 2 - 1

    try:
        cfg = TrainConfig()
        cfg.algo.adv_estimator = "goal-sign"
        validate_config(cfg)  # iid draws goals
        cfg.algo.conditioning = "none"
        with pytest.raises(ConfigError, match="reads goals: needs a scheme with goal tokens"):
            validate_config(cfg)
    finally:
        ADV_ESTIMATORS.pop("goal-sign")
