"""Lemmas A.3/A.4 on a hand-worked joint table (exact fractions)."""

from fractions import Fraction as F

from analysis.theory import total_variance as tv


def test_total_variance_hand_example():
    # Y uniform on {0, 1}; X | Y=0 uniform on {0, 1}; X | Y=1 = 1.
    # P(X=1) = 3/4 -> Var X = 3/16; E[Var(X|Y)] = 1/2 * 1/4 = 1/8; Var(E[X|Y]) = Var{1/2, 1} = 1/16
    joint = [[F(1, 4), F(1, 4)], [F(0), F(1, 2)]]
    var_x, within, between = tv.total_variance_terms(joint, [F(0), F(1)])
    assert (var_x, within, between) == (F(3, 16), F(1, 8), F(1, 16))


def test_expected_population_variance_bernoulli():
    # Bernoulli(1/2), G = 2: S^2 = 1/4 when the two draws differ (prob 1/2) -> 1/8 = (1/2) * 1/4
    assert tv.expected_population_variance([F(0), F(1)], [F(1, 2), F(1, 2)], 2) == F(1, 8)
    # G = 5: (4/5) * 1/4 = 1/5
    assert tv.expected_population_variance([F(0), F(1)], [F(1, 2), F(1, 2)], 5) == F(1, 5)


def test_check_clean_and_wrong_factor_flagged():
    assert tv.check(num_configs=20, seed=2, num_mc=500).status == "ok"
    assert tv.check(num_configs=20, seed=2, num_mc=0, factor=lambda g: F(1)).status == "VIOLATED"
