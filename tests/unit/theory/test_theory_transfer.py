"""The transfer model on hand-computed cases (analysis/theory/transfer.py).

G = 2, GRPO advantages (ε_stab = 1e-6): a mixed group (1, 0) has mean ½ and std ½, so
A = ±½/(½ + 1e-6) = ±a with a = 1/(1 + 2e-6); a uniform group has A = 0.

- RCTP-FT + GRPO at s: only mixed groups count; for (1, 0), Σ_j A_j (X_j − s) = a(1 − s) + a s
  = a, the same for (0, 1), so E[½ Σ] = ½ · 2 s(1 − s) · a and c = a.
- RC-GRPO at p = ½: tokens (h, h) w.p. ¼ give ½ · 2 s_h(1 − s_h) a = s_h(1 − s_h) a; tokens
  (h, l) or (l, h) w.p. ½: the high rollout's E[A (X − s_h)] = a s_h(1 − s_l)(1 − s_h)
  + a (1 − s_h) s_l s_h = a s_h(1 − s_h), times ½ (the 1/G). Sum: ¼ a + ¼ a, so c_h = c_l = a/2
  whatever s_l.
- Anchored (batch-mean): the same c_h, weighed 1/p = 2: c_h = a, c_l = 0.
- GRPO with one high rollout: no relative advantage, c = 0.
"""

import numpy as np
import pytest

from analysis.theory.transfer import (
    binom_pmf,
    composition_term,
    goal_coefficients,
    group_moments,
    learning_speed,
    mixture_success,
    simulate,
)

A = 1.0 / (1.0 + 2e-6)


def test_g2_coefficients_by_hand():
    for s_low in (0.05, 0.3, 0.9):
        rc = goal_coefficients("rc_grpo", 0.3, s_low, 2, 0.5)
        assert rc["c_h"] == pytest.approx(A / 2, rel=1e-12)
        assert rc["c_l"] == pytest.approx(A / 2, rel=1e-12)
    assert goal_coefficients("rctp_grpo", 0.3, 0.1, 2)["c_h"] == pytest.approx(A, rel=1e-12)
    anchored = goal_coefficients("anchored", 0.3, 0.1, 2, 0.5)
    assert (anchored["c_h"], anchored["c_l"]) == (pytest.approx(A, rel=1e-12), 0.0)
    assert goal_coefficients("anchored", 0.3, 0.1, 2, 0.5, aggregation="fixed")["c_h"] == (
        pytest.approx(A / 2, rel=1e-12)
    )
    assert goal_coefficients("grpo_n", 0.3, 0.1, 5, n_high=1) == {
        "c_h": 0.0,
        "c_l": 0.0,
        "noise": 0.0,
    }


def test_g2_speed_by_hand():
    # RC-GRPO − RCTP-FT + GRPO = s_h(1 − s_h) · a/2 · [ρ s_l(1 − s_l) − s_h(1 − s_h)]
    s_h, s_l, rho = 0.2, 0.4, 0.8
    dh, dl = s_h * (1 - s_h), s_l * (1 - s_l)
    rc = learning_speed("rc_grpo", s_h, s_l, rho, 2, 0.5)[0]
    grpo = learning_speed("rctp_grpo", s_h, s_l, rho, 2, 0.5)[0]
    assert rc - grpo == pytest.approx(dh * A / 2 * (rho * dl - dh), rel=1e-10)
    assert rc - grpo > 0  # 0.8 · 0.24 = 0.192 > 0.16: a low goal nearer ½ adds speed
    assert learning_speed("rc_grpo", s_h, 0.1, rho, 2, 0.5)[0] < grpo


def test_g2_noise_by_hand():
    # RCTP-FT + GRPO, G = 2: Σ A² = 2a² on a mixed group (P = 2s(1 − s)), V = E[Σ A²]/G² = a² s(1 − s)
    s = 0.3
    assert goal_coefficients("rctp_grpo", s, s, 2)["noise"] == pytest.approx(A**2 * s * (1 - s))


def test_mixture_identity_example():
    # s̄ = ½·0.3 + ½·0.1 = 0.2: P(σ = 0) = 0.2⁵ + 0.8⁵ = 0.328, E[σ²] = 0.8 · 0.16 = 0.128
    m = group_moments(0.3, 0.1, 5, 0.5)
    assert mixture_success(0.3, 0.1, 0.5) == pytest.approx(0.2)
    assert m["zero_var"] == pytest.approx(0.328, abs=1e-12)
    assert m["var"] == pytest.approx(0.128, abs=1e-12)


def test_rho_one_inert_token_is_grpo_at_g():
    for s in (0.05, 0.2, 0.7):
        for noise in (False, True):
            rc = learning_speed("rc_grpo", s, s, 1.0, noise=noise)
            grpo = learning_speed("rctp_grpo", s, s, 1.0, noise=noise)
            assert rc == pytest.approx(grpo, rel=1e-12)


def test_noise_bound_speed_orders_sample_counts():
    # one policy at s = 0.1: Adam-like speed ∝ signal/√V; half the trained rollouts cost ~1/√2
    rc, _ = learning_speed("rc_grpo", 0.1, 0.1, 1.0, noise=True)
    anchored, _ = learning_speed("anchored", 0.1, 0.1, 1.0, noise=True)
    g3, _ = learning_speed("grpo_n", 0.1, 0.1, 1.0, n_high=3, noise=True)
    assert anchored < rc and g3 < rc
    assert anchored / rc == pytest.approx(np.sqrt(0.5), rel=0.05)
    # the expected update alone is blind to the anchored arm's halved sample (batch-mean weights)
    assert learning_speed("anchored", 0.1, 0.1, 1.0)[0] == pytest.approx(
        learning_speed("rc_grpo", 0.1, 0.1, 1.0)[0], rel=1e-12
    )


def test_composition_term_decomposes_rho_zero():
    s_h, s_l = 0.3, 0.1
    rc = learning_speed("rc_grpo", s_h, s_l, 0.0)[0]
    weights = binom_pmf(5, 0.5)
    within = sum(
        weights[n] * n / 5 * goal_coefficients("grpo_n", s_h, s_l, 5, n_high=n)["c_h"]
        for n in range(1, 6)
    )
    dh = s_h * (1 - s_h)
    assert rc == pytest.approx(dh * dh * (within + composition_term(s_h, s_l)), rel=1e-12)


def test_binom_pmf_by_hand():
    assert binom_pmf(2, 0.3) == pytest.approx([0.49, 0.42, 0.09])


def test_simulate_starts_at_the_start_and_learns():
    path = simulate("rctp_grpo", 0.1, 0.1, 1.0, eta=5.0, steps=50)
    assert path.shape == (51, 2) and tuple(path[0]) == pytest.approx((0.1, 0.1))
    assert np.all(np.diff(path[:, 0]) > 0)
    assert simulate("rctp_grpo", 0.1, 0.1, 1.0, eta=0.0, steps=5)[-1, 0] == pytest.approx(0.1)


def test_bad_input_one_line():
    with pytest.raises(ValueError, match="arm must be one of"):
        goal_coefficients("dapo", 0.1, 0.1)
    with pytest.raises(ValueError, match="aggregation must be one of"):
        goal_coefficients("rc_grpo", 0.1, 0.1, aggregation="sum")
    with pytest.raises(ValueError, match="grpo_n needs n_high"):
        goal_coefficients("grpo_n", 0.1, 0.1)


def test_check_passes_and_a_wrong_law_is_violated(monkeypatch):
    from analysis.theory import transfer_check as transfer

    assert transfer.check(num_configs=5, seed=1, num_mc=2000).status == "ok"
    monkeypatch.setattr(transfer, "mixture_success", lambda h, lo, p: h)  # forgets the low goal
    assert transfer.check(num_configs=5, seed=1, num_mc=0).status == "VIOLATED"
