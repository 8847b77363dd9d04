"""Separation half-life estimator on hand-made curves (analysis.verdicts.half_life)."""

import math

import pandas as pd

from analysis.verdicts.half_life import half_life


def test_half_life_hand_made_curve():
    # steps 1..6 at 0.4, then 0.1: trailing 2-step means 0.4 (steps 2-6), 0.25 (7), 0.1 (8...)
    values = pd.Series([0.4] * 6 + [0.1] * 6, index=range(1, 13))
    assert half_life(values, level=0.25, window=2) == 7.0
    assert half_life(values, level=0.1, window=2) == 8.0
    assert math.isnan(half_life(values, level=0.05, window=2))  # never reached
