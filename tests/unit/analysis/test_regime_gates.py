"""The regime diagnostic's pass@k estimator by hand, and gates G0-G5 and G4′ on hand-made
reports, each passing and failing at its boundary (analysis/diagnostics/regime/: passk.py,
gates.py). The verdicts they give on the committed design runs are pinned apart, in
tests/results/test_regime_design_gates.py."""

from __future__ import annotations

import copy
import math

import pytest

from analysis.campaigns.regime_design.gates import (
    g0_fit,
    g1_headroom,
    g2_support,
    g3_signal,
    g4_low_goal,
    g4_prime,
    g5_sft_rc,
    gates,
)
from analysis.diagnostics.regime.passk import headroom, pass_at_k, suite_pass_at_k

# --- pass@k --------------------------------------------------------------------------------


def test_pass_at_k_hand_values():
    # n=8, c=2, k=1: 1 - C(6,1)/C(8,1) = 1 - 6/8 = 0.25 (= c/n, the plain success rate)
    assert pass_at_k(8, 2, 1) == pytest.approx(0.25)
    # n=8, c=2, k=2: 1 - C(6,2)/C(8,2) = 1 - 15/28 = 13/28
    assert pass_at_k(8, 2, 2) == pytest.approx(13 / 28)
    # n=8, c=1, k=4: 1 - C(7,4)/C(8,4) = 1 - 35/70 = 0.5 (half the 4-subsets hold the success)
    assert pass_at_k(8, 1, 4) == pytest.approx(0.5)
    # n=5, c=2, k=3: 1 - C(3,3)/C(5,3) = 1 - 1/10 = 0.9
    assert pass_at_k(5, 2, 3) == pytest.approx(0.9)
    # n=4, c=1, k=2: 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5; product form (1 - 2/4) = 0.5
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)


def test_pass_at_k_edges():
    # c = 0: no subset holds a success
    assert pass_at_k(8, 0, 1) == 0.0
    assert pass_at_k(8, 0, 8) == 0.0
    # c = n: every subset does
    assert pass_at_k(8, 8, 1) == 1.0
    # k > n - c: n=8, c=3, k=6 -> C(5,6) = 0, every 6-subset holds a success
    assert pass_at_k(8, 3, 6) == 1.0
    # k = n: 1 iff c > 0
    assert pass_at_k(8, 1, 8) == 1.0
    for bad in [(8, 9, 1), (8, -1, 1), (8, 2, 0), (8, 2, 9)]:
        with pytest.raises(ValueError):
            pass_at_k(*bad)


def test_pass_at_k_matches_binomials_everywhere():
    for n in range(1, 9):
        for c in range(n + 1):
            for k in range(1, n + 1):
                exact = 1 - math.comb(n - c, k) / math.comb(n, k)
                assert pass_at_k(n, c, k) == pytest.approx(exact, abs=1e-12)


def test_suite_pass_at_k_and_headroom():
    # three tasks, n=2: c = 0, 1, 2 -> pass@1 = (0 + 0.5 + 1)/3, pass@2 = (0 + 1 + 1)/3
    assert suite_pass_at_k([0, 1, 2], 2, [1, 2]) == pytest.approx([0.5, 2 / 3])
    # greedy fails on tasks 0, 1, 3; of those 1 and 3 have a sampled success
    out = headroom([False, False, True, False], [0, 3, 0, 1])
    assert out["greedy_failures"] == 3 and out["greedy_fail_sample_success"] == 2
    assert out["share_of_tasks"] == pytest.approx(0.5)
    assert out["share_of_greedy_failures"] == pytest.approx(2 / 3)


# --- gates ---------------------------------------------------------------------------------


def _condition(greedy: float, pass8: float, pass1: float | None = None, share=0.3, **extra):
    ks = [pass1 if pass1 is not None else greedy] + [pass8] * 7
    out = {
        "greedy": {"overall": greedy},
        "pass_at_k": {"overall": ks},
        "headroom": {"share_of_tasks": share},
        "support": {},
        "failure_kinds": {"greedy": {}, "sampled": {}},
    }
    out.update(extra)
    return out


def _sft(**kw):
    none = _condition(0.60, 0.80, **kw)
    return {"conditions": {"none": none, "high": _condition(0.60, 0.80)}}


def test_g1_boundary():
    # pass@8 - greedy = 0.815 - 0.615 = 0.20 exactly (0.19999999999999996 in floats): holds
    report = {"conditions": {"none": _condition(0.615, 0.815, share=0.25)}}
    gate = g1_headroom(report)
    assert gate.holds is True
    assert gate.values["pass8_minus_greedy"] == pytest.approx(0.20)
    report["conditions"]["none"]["pass_at_k"]["overall"][7] = 0.8149
    assert g1_headroom(report).holds is False
    # the share: 0.25 holds, 0.2499 fails
    report = {"conditions": {"none": _condition(0.5, 0.9, share=0.2499)}}
    assert g1_headroom(report).holds is False
    assert g1_headroom(None).holds is None


def _support(share, p_right, chance):
    return {"share_of_failures": share, "p_right": p_right, "chance": chance, "tasks": 10}


def test_g2_boundary_and_ignored_kinds():
    sft = _sft()
    sup = sft["conditions"]["none"]["support"]
    sup["wrong_tool"] = _support(0.5, 0.5, 0.25)  # exactly 2x chance: holds
    sup["wrong_extension"] = _support(0.09, 0.1, 1 / 6)  # under 10%: not checked
    sup["parse_error"] = _support(0.05, 0.0, None)  # under 10%: not checked
    gate = g2_support(sft)
    assert gate.holds is True
    assert set(gate.detail) == {"wrong_tool"}
    assert gate.values["min_ratio"] == pytest.approx(2.0)
    sup["wrong_tool"]["p_right"] = 0.4999
    assert g2_support(sft).holds is False
    sup["wrong_tool"]["p_right"] = 0.9
    sup["wrong_extension"]["share_of_failures"] = 0.10  # now checked: 0.1 < 2/6
    gate = g2_support(sft)
    assert gate.holds is False and gate.values["min_ratio"] == pytest.approx(0.6)
    sup["wrong_extension"]["share_of_failures"] = 0.05
    sup["parse_error"]["share_of_failures"] = 0.1  # a kind without countable options
    gate = g2_support(sft)
    assert gate.holds is False and gate.detail["parse_error"]["ratio"] is None


def test_g3_boundary():
    # cosines 0.1, 0.1, 0.1, 0.1 (+-0.05 alternating): mean 0.1, SE = s/2
    cos = [0.15, 0.05, 0.15, 0.05]
    s = math.sqrt(4 * 0.05**2 / 3)
    sft = {"grad_noise": {"b_noise": 400.0, "step_cosines": cos, "groups": 32}}
    gate = g3_signal(sft)
    assert gate.values["cosine_mean"] == pytest.approx(0.1)
    assert gate.values["cosine_se"] == pytest.approx(s / 2)  # 0.0289: 0.1 >= 3 SE = 0.0866
    assert gate.holds is True
    sft["grad_noise"]["b_noise"] = 400.01
    assert g3_signal(sft).holds is False
    sft["grad_noise"]["b_noise"] = math.inf
    assert g3_signal(sft).holds is False
    # mean 0.1 but noisier: cosines 0.4, -0.2, 0.4, -0.2 -> s = sqrt(4 * 0.09 / 3), SE 0.173
    sft["grad_noise"].update(b_noise=100.0, step_cosines=[0.4, -0.2, 0.4, -0.2])
    assert g3_signal(sft).holds is False
    sft["grad_noise"]["step_cosines"] = [0.0999] * 4
    assert g3_signal(sft).holds is False
    assert g3_signal({"conditions": {}}).holds is None


def _rctp(low_success, parse, failures, high_greedy, high_pass8, high_pass1=None):
    low = _condition(0.0, 0.5, pass1=low_success)
    low["failure_kinds"]["sampled"] = {"parse_error": parse, "wrong_argument": failures - parse}
    high = _condition(high_greedy, high_pass8, pass1=high_pass1)
    return {"conditions": {"low": low, "high": high}}


def test_g4_boundaries():
    sft = _sft()  # SFT greedy 0.60
    good = _rctp(0.1, 19, 100, 0.60, 0.75)  # every check exactly at (or inside) its bound
    gate = g4_low_goal(good, sft)
    assert gate.holds is True, gate.detail
    assert gate.values["low_parse_share"] == pytest.approx(0.19)
    for bad, check in [
        (_rctp(0.0999, 19, 100, 0.60, 0.75), "low_success_in_range"),
        (_rctp(0.5001, 19, 100, 0.60, 0.75), "low_success_in_range"),
        (_rctp(0.3, 20, 100, 0.60, 0.75), "low_parse_share"),  # 20% is not < 20%
        (_rctp(0.3, 10, 100, 0.5999, 0.75), "high_no_worse"),
        (_rctp(0.3, 10, 100, 0.60, 0.7499), "high_headroom"),
        (_rctp(0.3, 10, 100, 0.60, 0.75, high_pass1=0.3999), "goals_separate"),
    ]:
        gate = g4_low_goal(bad, sft)
        assert gate.holds is False and gate.detail[check] is False, check
    assert g4_low_goal(_rctp(0.5, 0, 100, 0.7, 0.85), sft).holds is True
    # pass@1 high - low = 0.40 - 0.30 = 0.10 exactly (0.10000000000000003 in floats): holds
    gate = g4_low_goal(_rctp(0.3, 10, 100, 0.60, 0.75, high_pass1=0.4), sft)
    assert gate.holds is True and gate.values["separation"] == pytest.approx(0.10)
    assert g4_low_goal(None, sft).holds is None


def _rl(gain, p, condition="high"):
    return {"condition": condition, "gain": gain, "mcnemar": {"b": 0, "c": 0, "n": 1000, "p": p}}


def test_g4_prime_drops_only_the_headroom_clause_and_reads_rl():
    sft = _sft()  # SFT greedy 0.60
    no_headroom = _rctp(0.3, 10, 100, 0.72, 0.75, high_pass1=0.5)  # G4 fails on headroom alone
    assert g4_low_goal(no_headroom, sft).detail["high_headroom"] is False
    gate = g4_prime(no_headroom, sft, _rl(0.10, 0.0499))  # both at their bounds: holds
    assert gate.holds is True, gate.detail
    assert "high_headroom" not in gate.detail and gate.values["rl_gain"] == 0.10
    assert g4_prime(no_headroom, sft, _rl(0.0999, 1e-9)).detail["rl_room"] is False
    assert g4_prime(no_headroom, sft, _rl(0.30, 0.05)).holds is False  # p = 0.05 is not < 0.05
    # every other clause of G4 still decides
    for bad, check in [
        (_rctp(0.0999, 10, 100, 0.72, 0.75, high_pass1=0.5), "low_success_in_range"),
        (_rctp(0.3, 20, 100, 0.72, 0.75, high_pass1=0.5), "low_parse_share"),
        (_rctp(0.3, 10, 100, 0.5999, 0.75, high_pass1=0.5), "high_no_worse"),
        (_rctp(0.3, 10, 100, 0.72, 0.75, high_pass1=0.3999), "goals_separate"),
    ]:
        gate = g4_prime(bad, sft, _rl(0.5, 1e-100))
        assert gate.holds is False and gate.detail[check] is False, check
    assert g4_prime(no_headroom, sft, None).holds is None
    assert g4_prime(None, sft, _rl(0.5, 1e-9)).holds is None
    with pytest.raises(ValueError, match="high goal"):
        g4_prime(no_headroom, sft, _rl(0.5, 1e-9, condition="none"))


def test_g5_boundary():
    sft = _sft()
    sft["conditions"]["high"]["greedy"]["overall"] = 0.57  # 3 points below: holds
    assert g5_sft_rc(sft).holds is True
    sft["conditions"]["high"]["greedy"]["overall"] = 0.6301
    assert g5_sft_rc(sft).holds is False
    sft["conditions"]["high"]["greedy"]["overall"] = 0.135  # the measurement
    gate = g5_sft_rc(sft)
    assert gate.holds is False and gate.values["difference"] == pytest.approx(-0.465)
    del sft["conditions"]["high"]
    assert g5_sft_rc(sft).holds is None


def test_gates_lists_all_five_in_order():
    sft = copy.deepcopy(_sft())
    names = [g.name.split()[0] for g in gates(sft)]
    assert names == ["G1", "G2", "G3", "G4", "G5"]
    assert [g.holds for g in gates(sft)] == [True, True, None, None, True]


def test_summarise_hand_records():
    from analysis.diagnostics.regime.passk import summarise

    keys = ("category", "greedy", "greedy_kind", "successes", "right", "chance", "sample_kinds")
    table = [
        ("a", True, None, 8, 0, None, {}),
        ("a", False, "wrong_tool", 2, 4, 0.5, {"wrong_tool": 6}),
        ("b", False, "wrong_tool", 0, 2, 0.25, {"wrong_tool": 8}),
        ("b", False, "parse_error", 0, 8, None, {"parse_error": 5, "truncated": 3}),
    ]
    rows = [dict(zip(keys, row, strict=True)) for row in table]
    out = summarise(rows, 8)
    assert out["greedy"]["overall"] == pytest.approx(0.25)
    assert out["greedy"]["per_category"] == {"a": 0.5, "b": 0.0}
    # pass@1 = mean c/n = (1 + 0.25 + 0 + 0)/4; pass@8 = (1 + 1 + 0 + 0)/4
    assert out["pass_at_k"]["overall"][0] == pytest.approx(1.25 / 4)
    assert out["pass_at_k"]["overall"][7] == pytest.approx(0.5)
    assert out["pass_at_k"]["per_category"]["a"][7] == pytest.approx(1.0)
    assert out["headroom"]["share_of_tasks"] == pytest.approx(0.25)  # task 2 of 4
    assert out["failure_kinds"]["greedy"] == {"parse_error": 1, "wrong_tool": 2}
    assert out["failure_kinds"]["sampled"] == {"parse_error": 5, "truncated": 3, "wrong_tool": 14}
    tool = out["support"]["wrong_tool"]
    # P(right) = (4/8 + 2/8)/2 = 0.375; chance = (0.5 + 0.25)/2 = 0.375; 2 of 3 failures
    assert tool["p_right"] == pytest.approx(0.375) and tool["chance"] == pytest.approx(0.375)
    assert tool["share_of_failures"] == pytest.approx(2 / 3)
    assert out["support"]["parse_error"]["chance"] is None


def test_g0_boundary_and_window():
    rows = [{"sft/token_acc": 0.5}] * 50 + [{"sft/token_acc": 0.95}] * 100
    gate = g0_fit(rows)  # only the last 100 steps count
    assert gate.holds is True and gate.values == {"token_acc": pytest.approx(0.95), "steps": 100}
    rows[-1] = {"sft/token_acc": 0.95 - 100 * 1e-6}  # mean 0.95 - 1e-6
    assert g0_fit(rows).holds is False
    assert g0_fit([{"loss/sft": 1.0}]).holds is None and g0_fit(None).holds is None
