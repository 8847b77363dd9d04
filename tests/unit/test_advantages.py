"""Hand-computed advantages of every estimator of the registry (rcgrpo/advantages.py)."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo import group_advantages
from rcgrpo.advantages import (
    ADV_ESTIMATORS,
    dr_grpo_advantages,
    grpo_advantages,
    grpo_batch_advantages,
    rloo_advantages,
)


def test_binary_group_half_success():
    # r = [0, 0, 1, 1]: μ = 0.5, σ² = (4 · 0.25)/4 = 0.25 (ddof 0), σ = 0.5
    # A = (r - 0.5)/0.5 = [-1, -1, 1, 1] (eps_stab = 0 to get the exact value)
    r = torch.tensor([[0.0, 0.0, 1.0, 1.0]], dtype=torch.float64)
    expected = torch.tensor([[-1.0, -1.0, 1.0, 1.0]], dtype=torch.float64)
    torch.testing.assert_close(group_advantages(r, eps_stab=0.0), expected)
    # with the default eps_stab = 1e-6: A = ±0.5 / (0.5 + 1e-6)
    a = 0.5 / (0.5 + 1e-6)
    torch.testing.assert_close(group_advantages(r), expected * a)


def test_single_success_reaches_the_sqrt_g_minus_1_bound():
    # r = [0, 0, 0, 1]: μ = 1/4, σ² = (3 · 1/16 + 9/16)/4 = 3/16, σ = √3/4
    # A = [-(1/4)/(√3/4)] * 3 + [(3/4)/(√3/4)] = [-1/√3]*3 + [√3]; √3 = √(G-1) is the max |A|.
    r = torch.tensor([[0.0, 0.0, 0.0, 1.0]], dtype=torch.float64)
    s3 = math.sqrt(3.0)
    expected = torch.tensor([[-1 / s3, -1 / s3, -1 / s3, s3]], dtype=torch.float64)
    torch.testing.assert_close(group_advantages(r, eps_stab=0.0), expected)


def test_ddof_one_uses_the_sample_std():
    # r = [0, 1]: sample std = sqrt(((0.5)² + (0.5)²)/(2-1)) = √0.5 ⇒ A = ±0.5/√0.5 = ±√0.5
    r = torch.tensor([[0.0, 1.0]], dtype=torch.float64)
    h = math.sqrt(0.5)
    torch.testing.assert_close(
        group_advantages(r, eps_stab=0.0, ddof=1), torch.tensor([[-h, h]], dtype=torch.float64)
    )


def test_dr_grpo_is_mean_centring():
    # r = [0, 1, 1]: μ = 2/3 ⇒ A = r - μ = [-2/3, 1/3, 1/3] (no std: eps_stab plays no part)
    r = torch.tensor([[0.0, 1.0, 1.0]], dtype=torch.float64)
    expected = torch.tensor([[-2 / 3, 1 / 3, 1 / 3]], dtype=torch.float64)
    torch.testing.assert_close(group_advantages(r, "dr-grpo"), expected)
    torch.testing.assert_close(dr_grpo_advantages(r), expected)


def test_rloo_binary_group():
    # r = [1, 0, 0]: A_0 = 1 - (0 + 0)/2 = 1, A_1 = 0 - (1 + 0)/2 = -1/2, A_2 = -1/2
    # (= G/(G-1) · (r - μ) = 3/2 · [2/3, -1/3, -1/3])
    r = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)
    expected = torch.tensor([[1.0, -0.5, -0.5]], dtype=torch.float64)
    torch.testing.assert_close(group_advantages(r, "rloo"), expected)
    torch.testing.assert_close(rloo_advantages(r), expected)


def test_rloo_real_valued_groups():
    # r = [2, 4, 9]: A_0 = 2 - (4 + 9)/2 = -4.5, A_1 = 4 - (2 + 9)/2 = -1.5,
    #                A_2 = 9 - (2 + 4)/2 = 6 (sum 0)
    # r = [1, 3, 3]: A_0 = 1 - (3 + 3)/2 = -2, A_1 = 3 - (1 + 3)/2 = 1, A_2 = 1
    # r = [1, 3]:    A_0 = 1 - 3 = -2, A_1 = 3 - 1 = 2 (G = 2: twice Dr. GRPO's ±1)
    r = torch.tensor([[2.0, 4.0, 9.0], [1.0, 3.0, 3.0]], dtype=torch.float64)
    expected = torch.tensor([[-4.5, -1.5, 6.0], [-2.0, 1.0, 1.0]], dtype=torch.float64)
    torch.testing.assert_close(group_advantages(r, "rloo"), expected)
    two = torch.tensor([[1.0, 3.0]], dtype=torch.float64)
    torch.testing.assert_close(rloo_advantages(two), torch.tensor([[-2.0, 2.0]], dtype=two.dtype))


def test_the_registry_holds_the_documented_estimators():
    assert list(ADV_ESTIMATORS) == ["grpo", "grpo-batch", "dr-grpo", "rloo"]
    r = torch.tensor([[0.0, 0.0, 0.0, 1.0]], dtype=torch.float64)
    # the named functions are the registry's: grpo with its std convention passed through
    torch.testing.assert_close(
        group_advantages(r, "grpo", eps_stab=1e-4, ddof=1), grpo_advantages(r, 1e-4, 1)
    )


def test_grpo_batch_divides_by_the_batch_std():
    # rewards [[0, 1], [1, 1]]: all four values have mean 3/4 and population variance
    # (9/16 + 3 · 1/16)/4 = 3/16, σ_batch = √3/4. Group 1 is centred to ±1/2 ⇒ ±(1/2)/(√3/4)
    # = ±2/√3; group 2 is constant ⇒ exactly 0.
    r = torch.tensor([[0.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    v = 2 / math.sqrt(3.0)
    expected = torch.tensor([[-v, v], [0.0, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(group_advantages(r, "grpo-batch", eps_stab=0.0), expected)
    torch.testing.assert_close(grpo_batch_advantages(r, eps_stab=0.0), expected)


@pytest.mark.parametrize("estimator", ["grpo", "grpo-batch", "dr-grpo", "rloo"])
@pytest.mark.parametrize("eps_stab", [0.0, 1e-6, 1.0])
def test_constant_group_is_exactly_zero(estimator, eps_stab):
    # A constant group (Def. 4.1) has σ_g = 0: every A_j = 0 exactly — also with
    # eps_stab = 0 (0/0 would be NaN) and for a value whose float mean is inexact (0.1·3/3).
    r = torch.tensor([[0.1, 0.1, 0.1], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    out = group_advantages(r, estimator, eps_stab=eps_stab)
    assert torch.equal(out, torch.zeros_like(r))


def test_dtypes():
    r64 = torch.tensor([[0.0, 1.0]], dtype=torch.float64)
    assert group_advantages(r64).dtype == torch.float64
    # bool and integer rewards are promoted to float32: [True, False] = [1, 0] ⇒ A = [1, -1]·a
    out = group_advantages(torch.tensor([[True, False]]), eps_stab=0.0)
    assert out.dtype == torch.float32
    assert torch.equal(out, torch.tensor([[1.0, -1.0]]))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rewards": torch.zeros(4)}, "rewards"),  # 1-D
        ({"rewards": torch.zeros(2, 3, 1)}, "rewards"),  # 3-D
        ({"rewards": torch.zeros(3, 1)}, "G >= 2"),  # G = 1
        ({"rewards": torch.zeros(0, 3)}, "rewards"),  # no group
        ({"rewards": torch.tensor([[0.0, float("nan")]])}, "rewards"),
        ({"rewards": torch.tensor([[0.0, float("inf")]])}, "rewards"),
        ({"rewards": [[0.0, 1.0]]}, "rewards"),  # not a tensor
        ({"rewards": torch.zeros(2, 2), "eps_stab": -1e-6}, "eps_stab"),
        ({"rewards": torch.zeros(2, 2), "eps_stab": float("nan")}, "eps_stab"),
        ({"rewards": torch.zeros(2, 2), "estimator": "group"}, "estimator"),
        ({"rewards": torch.zeros(2, 2), "estimator": "rloo", "ddof": 2}, "ddof"),
        ({"rewards": torch.zeros(2, 2), "ddof": 2}, "ddof"),
        ({"rewards": torch.zeros(2, 2), "ddof": True}, "ddof"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        group_advantages(**kwargs)


def test_subnormal_spread_with_zero_eps_is_finite():
    # rewards (0, 5e-324): the mean 2.5e-324 rounds to 0 and σ underflows to 0, so the plain
    # formula divides by 0. In the scaled space y = R/m, m = 5e-324, the group is (0, 1) with
    # σ/m = 1/2 and mean 1/2, hence A = ((0, 1) - 1/2) / (1/2) = (-1, 1).
    adv = group_advantages(torch.tensor([[0.0, 5e-324]], dtype=torch.float64), eps_stab=0.0)
    assert adv.tolist() == [[-1.0, 1.0]]
