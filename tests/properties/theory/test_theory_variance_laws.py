"""Lemmas A.3/A.4, Prop. 4.3 and stratified tokens on random settings (hypothesis)."""

from fractions import Fraction

import numpy as np
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.theory import total_variance as tv
from analysis.theory import variance_guarantee as vg
from analysis.theory.report import bernstein_halfwidth
from rcgrpo.conditioning import stratified_count

DELTA = 1e-6

atoms = st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.01, 1.0)), min_size=1, max_size=3)


def dist(pairs):
    values = np.array([v for v, _ in pairs])
    probs = np.array([w for _, w in pairs])
    return values, probs / probs.sum()


@settings(max_examples=40)
@given(
    table=st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=1, max_size=3),
    values=st.lists(st.integers(-5, 5), min_size=3, max_size=3, unique=True),
    group_size=st.integers(2, 5),
)
@example(table=[[0, 0, 1], [0, 0, 0]], values=[0, 1, 2], group_size=2)  # degenerate: X constant
def test_total_variance_and_expected_population_variance(table, values, group_size):
    total = sum(map(sum, table))
    if total == 0:
        table[0][0], total = 1, 1
    joint = [[Fraction(c, total) for c in row] for row in table]
    vals = [Fraction(v) for v in values]
    var_x, within, between = tv.total_variance_terms(joint, vals)
    assert var_x == within + between and var_x >= between  # exact rationals
    marginal = [sum(row[k] for row in joint) for k in range(3)]
    assert (
        tv.expected_population_variance(vals, marginal, group_size)
        == Fraction(group_size - 1, group_size) * var_x
    )


@settings(max_examples=40)
@given(high=atoms, low=atoms, p=st.floats(0.0, 1.0), group_size=st.integers(2, 5))
@example(high=[(1.0, 1.0)], low=[(0.0, 1.0)], p=0.5, group_size=5)  # the tight case: kappa exactly
@example(high=[(0.3, 1.0)], low=[(0.3, 1.0)], p=0.5, group_size=5)  # no separation: bound 0
def test_prop_4_3_and_stratified_exact(high, low, p, group_size):
    high, low = dist(high), dist(low)
    eps = abs(vg.moments(high)[0] - vg.moments(low)[0])
    iid = vg.expected_group_variance_iid(high, low, p, group_size)
    assert (
        abs(iid - vg.expected_group_variance_enumerated(high, low, p, group_size, "iid")) <= 1e-12
    )
    assert iid >= vg.kappa(group_size, p) * eps**2 - 1e-12
    k = stratified_count(p, group_size)
    strat = vg.expected_group_variance_stratified(high, low, k, group_size)
    assert (
        abs(strat - vg.expected_group_variance_enumerated(high, low, p, group_size, "stratified"))
        <= 1e-12
    )
    assert strat >= vg.kappa_stratified(group_size, k) * eps**2 - 1e-12
    if p == 0.5:
        assert vg.kappa_stratified(group_size, k) >= vg.kappa(group_size, p)


@settings(max_examples=15)
@given(
    high=atoms,
    low=atoms,
    p=st.floats(0.0, 1.0),
    group_size=st.integers(2, 16),
    scheme=st.sampled_from(["iid", "stratified"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_monte_carlo_through_group_advantages(high, low, p, group_size, scheme, seed):
    high, low = dist(high), dist(low)
    gen = torch.Generator().manual_seed(seed)
    samples = vg.group_variance_mc(high, low, p, group_size, scheme, 3000, gen)
    if scheme == "iid":
        exact = vg.expected_group_variance_iid(high, low, p, group_size)
    else:
        exact = vg.expected_group_variance_stratified(
            high, low, stratified_count(p, group_size), group_size
        )
    # tolerance: empirical Bernstein, sigma_g^2 in [0, 1/4] for rewards in [0, 1], delta = 1e-6
    assert abs(samples.mean() - exact) <= bernstein_halfwidth(samples, 0.25, DELTA)


@settings(max_examples=10)
@given(
    ab=st.tuples(*[st.floats(0.2, 5.0)] * 4),
    p=st.floats(0.0, 1.0),
    group_size=st.integers(2, 12),
    scheme=st.sampled_from(["iid", "stratified"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_continuous_conditionals_closed_form(ab, p, group_size, scheme, seed):
    """Beta(a, b) conditional rewards: the closed forms need only the conditional moments."""
    from rcgrpo import group_advantages, sample_reward_tokens

    a_h, b_h, a_l, b_l = ab

    def beta_moments(a, b):
        return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))

    (mu_h, v_h), (mu_l, v_l) = beta_moments(a_h, b_h), beta_moments(a_l, b_l)

    # a two-atom distribution with the same mean and variance stands in for Beta in the closed form
    def atoms(mu, v):
        sd = np.sqrt(v)
        return np.array([mu - sd, mu + sd]), np.array([0.5, 0.5])

    n = 4000
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    tokens = sample_reward_tokens(n, group_size, p=p, scheme=scheme, generator=gen)
    x = np.where(
        tokens.numpy(), rng.beta(a_h, b_h, (n, group_size)), rng.beta(a_l, b_l, (n, group_size))
    )
    samples = (group_advantages(torch.from_numpy(x), "dr-grpo") ** 2).mean(dim=1).numpy()
    if scheme == "iid":
        exact = vg.expected_group_variance_iid(atoms(mu_h, v_h), atoms(mu_l, v_l), p, group_size)
    else:
        k = stratified_count(p, group_size)
        exact = vg.expected_group_variance_stratified(
            atoms(mu_h, v_h), atoms(mu_l, v_l), k, group_size
        )
    # tolerance: empirical Bernstein, sigma_g^2 in [0, 1/4], delta = 1e-6
    assert abs(samples.mean() - exact) <= bernstein_halfwidth(samples, 0.25, DELTA)
    assert exact >= vg.kappa(group_size, p) * (mu_h - mu_l) ** 2 - 1e-12 or scheme == "stratified"
