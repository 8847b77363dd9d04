"""The verdict's paragraph reads its own numbers right (rcgrpo.diagnose.verdict): the kind of
constant group that dominates, a tie named as one, groups constant at a reward that is neither a
pass nor a fail apart from both, and the gap to the i.i.d. prediction in percentage points.
Every expected sentence is worked by hand from the shares in the comment above it."""

from __future__ import annotations

import pytest
import torch

from rcgrpo.advantages import group_advantages
from rcgrpo.diagnose.instruments import step_instruments
from rcgrpo.diagnose.verdict import iid_sentence, kinds_sentence, verdict


def _row(step=1, *, z, passed, failed, other=0.0, predicted=0.2, success=0.5) -> dict:
    return {
        "step": step,
        "group/zero_var_frac": z,
        "group/zero_var_success_frac": passed,
        "group/zero_var_fail_frac": failed,
        "group/zero_var_other_frac": other,
        "group/zero_var_predicted_pooled": predicted,
        "reward/success_rate": success,
    }


def test_a_three_way_tie_with_constant_groups_from_a_reward_grid():
    # P = 6 groups of G = 3: one all-pass, one all-fail, one constant at 0.5, three mixed
    rewards = torch.tensor(
        [[1, 1, 1], [0, 0, 0], [0.5, 0.5, 0.5], [1, 0, 0], [1, 1, 0], [1, 0, 0]],
        dtype=torch.float64,
    )
    row = {"step": 1, **step_instruments(rewards, group_advantages(rewards))}
    # zero-variance 3/6 = 50%, each kind 1/6 = 17%; 7 of 18 rollouts pass: s̄ = 7/18 and
    # s̄³ + (1 - s̄)³ = (343 + 1331)/5832 = 0.2870 -> 29%; 50 - 28.70 = 21.3 -> 21 points
    assert row["group/zero_var_other_frac"] == pytest.approx(1 / 6)
    assert row["group/zero_var_predicted_pooled"] == pytest.approx(1674 / 5832)
    text = verdict([row])["text"]
    assert (
        "No kind of collapsed group dominates (all-pass, all-fail and constant tie): of the "
        "groups, 17% were all-pass, 17% all-fail and 17% constant at another reward (neither a "
        "pass nor a fail)." in text
    )
    assert (
        "The i.i.d. prediction s^G + (1-s)^G at the step's success rate (0.39 on average) "
        "gives 29%, 21 points below the observed 50%, more than the 10-point margin" in text
    )
    assert "Most" not in text


@pytest.mark.parametrize(
    ("shares", "sentence"),
    [
        # README's verl dump: steps 1-2 all-pass (0.5 + 0.5)/2, all-fail (0 + 0.5)/2
        (
            {"passed": 0.5, "failed": 0.25},
            "Most collapsed groups are all-pass (the policy already solves them): of the groups, "
            "50% were all-pass and 25% all-fail.",
        ),
        (
            {"passed": 0.25, "failed": 0.25},
            "No kind of collapsed group dominates (all-pass and all-fail tie): of the groups, "
            "25% were all-pass and 25% all-fail.",
        ),
        # 30 > 20 and 20: leads, but 30 < 20 + 20 is no majority
        (
            {"passed": 0.2, "failed": 0.3, "other": 0.2},
            "The commonest collapsed groups are all-fail (the prompts are out of reach): of the "
            "groups, 20% were all-pass, 30% all-fail and 20% constant at another reward (neither "
            "a pass nor a fail).",
        ),
        # 40 > 10 + 10: constant groups are most of the collapsed ones
        (
            {"passed": 0.1, "failed": 0.1, "other": 0.4},
            "Most collapsed groups are constant at another reward (a partial reward the whole "
            "group shares): of the groups, 10% were all-pass, 10% all-fail and 40% constant at "
            "another reward (neither a pass nor a fail).",
        ),
        # 16.6% and 17.4% both print as 17%: compared as printed, a tie
        (
            {"passed": 0.166, "failed": 0.174},
            "No kind of collapsed group dominates (all-pass and all-fail tie): of the groups, "
            "17% were all-pass and 17% all-fail.",
        ),
        ({"passed": 0.0, "failed": 0.0}, ""),  # nothing constant: no sentence
    ],
)
def test_which_kind_dominates(shares, sentence):
    v = {"all_pass": shares["passed"], "all_fail": shares["failed"]}
    assert kinds_sentence({**v, "constant": shares.get("other", 0.0)}) == sentence


@pytest.mark.parametrize(
    ("observed", "predicted", "explained", "ending"),
    [
        # 0.50 - 0.14 = 0.36: 36 percentage points (not "36% less", which reads as relative)
        (
            0.5,
            0.14,
            False,
            "gives 14%, 36 points below the observed 50%, more than the 10-point "
            "margin: success is concentrated on some prompts and absent on others, not spread "
            "evenly.",
        ),
        (
            0.3,
            0.25,
            True,
            "gives 25%, 5 points below the observed 30%, within the 10-point "
            "margin: the success rate explains it.",
        ),
        (
            0.3,
            0.4,
            True,
            "gives 40%, at least the observed 30%, so the success rate alone explains it.",
        ),
    ],
)
def test_the_iid_gap_is_in_points(observed, predicted, explained, ending):
    v = {
        "observed": observed,
        "predicted_iid": predicted,
        "explained_by_iid": explained,
        "success_rate": 0.5,
        "rule": {"margin": 0.1},
    }
    assert iid_sentence(v) == (
        "The i.i.d. prediction s^G + (1-s)^G at the step's success rate (0.50 on average) " + ending
    )


def test_the_paragraph_joins_the_three_sentences():
    # one step, window 5: m = 0.75 >= 0.5, collapsed from step 4; 0.75 > 0.2 + 0.1
    v = verdict([_row(4, z=0.75, passed=0.5, failed=0.25)])
    assert v["constant"] == 0.0 and not v["explained_by_iid"]
    assert v["text"] == (
        "Collapsed: from step 4 to the last step (4) the 5-step mean zero-variance share stayed "
        ">= 0.5; over steps 4-4 75% of the groups had identical rewards and gave no gradient. "
        "Most collapsed groups are all-pass (the policy already solves them): of the groups, "
        "50% were all-pass and 25% all-fail. The i.i.d. prediction s^G + (1-s)^G at the step's "
        "success rate (0.50 on average) gives 20%, 55 points below the observed 75%, more than "
        "the 10-point margin: success is concentrated on some prompts and absent on others, not "
        "spread evenly."
    )
