"""Gate R of the collapse-pairs design on hand-written diagnostics (thresholds of the protocol:
difference >= 0.10, its interval's low end > 0.05, P(right | high) <= 0.30)."""

from analysis.campaigns.collapse_pairs.gates import r_gate


def _report(diff, lo, p_high):
    block = {"diff": diff, "ci": [lo, diff + 0.05], "p_high": p_high}
    return {"goal_effect": {"kinds": {"any": block}}}


def test_r_holds_only_with_separation_a_tight_interval_and_a_collapsed_high_goal():
    assert r_gate(_report(0.12, 0.06, 0.25))[1] is True
    assert r_gate(_report(0.09, 0.06, 0.25))[1] is False  # too little separation
    assert r_gate(_report(0.12, 0.04, 0.25))[1] is False  # interval reaches 0.05
    assert r_gate(_report(0.40, 0.30, 0.35))[1] is False  # the high goal solved it
    assert r_gate(None) == (None, None)
