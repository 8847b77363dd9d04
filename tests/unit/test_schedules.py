"""Hand-computed learning-rate schedules of both stages (``rcgrpo.schedules``)."""

from __future__ import annotations

import pytest

from rcgrpo.schedules import SCHEDULES, linear_warmup, lr_factor


def test_linear_warmup_rl_steps():
    # RL step s (1-based) with W = 5: s / 5 up to 1, then 1; W = 0 is no warm-up
    assert [linear_warmup(s, 5) for s in range(1, 8)] == [0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0]
    assert [linear_warmup(s, 0) for s in (1, 2, 100)] == [1.0, 1.0, 1.0]
    assert linear_warmup(1, 1) == 1.0
    with pytest.raises(ValueError, match="warmup_steps must be >= 0"):
        linear_warmup(1, -1)


def test_linear_warmup_is_the_former_inline_rl_formula():
    # rcgrpo.train.rl.loop used lr * min(1.0, step / max(1, warmup_steps)) inline: same floats
    lr = 5e-5
    for warmup in (0, 1, 3, 5, 7):
        for step in range(1, 20):
            assert lr * linear_warmup(step, warmup) == lr * min(1.0, step / max(1, warmup))


def test_stage1_warmup_is_linear_warmup_of_the_updates_taken_plus_one():
    # Stage-1 step 0 is the first update: (0 + 1) / W, as RL step 1
    assert [lr_factor(s, 100, 4, "wsd", 0.1) for s in range(4)] == [
        linear_warmup(s + 1, 4) for s in range(4)
    ]


def test_lr_factor_warmup_cosine_linear_constant():
    # warm-up 4 steps: (s+1)/4; then cosine from 1 to min 0.1 over the remaining 10 steps
    assert [lr_factor(s, 14, 4, "cosine", 0.1) for s in range(4)] == [0.25, 0.5, 0.75, 1.0]
    assert lr_factor(4, 14, 4, "cosine", 0.1) == pytest.approx(1.0)
    assert lr_factor(9, 14, 4, "cosine", 0.1) == pytest.approx(0.55)  # half-way: 0.1 + 0.9/2
    assert lr_factor(14, 14, 4, "cosine", 0.1) == pytest.approx(0.1)
    assert lr_factor(9, 14, 4, "linear", 0.0) == pytest.approx(0.5)
    assert lr_factor(13, 14, 4, "constant", 0.1) == 1.0


def test_lr_factor_wsd_is_flat_then_decays_linearly_over_the_last_fraction():
    # warm-up 4, then 100 post-warm-up steps; decay_frac 0.2 -> flat up to p = 0.8 (step 84),
    # then linear to 0.1 at step 104: at p = 0.9 (step 94) the factor is 0.1 + 0.9 * 0.5.
    assert lr_factor(3, 104, 4, "wsd", 0.1, 0.2) == 1.0
    assert lr_factor(50, 104, 4, "wsd", 0.1, 0.2) == 1.0
    assert lr_factor(84, 104, 4, "wsd", 0.1, 0.2) == pytest.approx(1.0)
    assert lr_factor(94, 104, 4, "wsd", 0.1, 0.2) == pytest.approx(0.55)
    assert lr_factor(104, 104, 4, "wsd", 0.1, 0.2) == pytest.approx(0.1)
    # decay_frac 1 is the linear schedule
    assert all(
        lr_factor(s, 104, 4, "wsd", 0.1, 1.0) == pytest.approx(lr_factor(s, 104, 4, "linear", 0.1))
        for s in range(105)
    )


def test_unknown_schedule_is_one_line_error():
    assert sorted(SCHEDULES) == ["constant", "cosine", "linear", "wsd"]
    with pytest.raises(ValueError, match=r"schedule must be one of \['constant', 'cosine'"):
        lr_factor(10, 20, 2, "step", 0.1)
