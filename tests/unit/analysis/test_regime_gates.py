"""The regime diagnostic's pass@k estimator by hand, and gates G1-G5 on hand-made reports,
each passing and failing at its boundary (analysis/diagnostics/regime/: passk.py, gates.py).
"The design diary" below is docs/lab-notes/2026-12-regime-design*.md."""

from __future__ import annotations

import copy
import json
import math

import pytest

from analysis.diagnostics.regime.gates import (
    G2_RATIO,
    G4_GAIN,
    G4_SEPARATION,
    g0_fit,
    g1_headroom,
    g2_support,
    g3_signal,
    g4_goal_clauses,
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

    def row(cat, greedy, kind, c, right, chance, kinds):
        return dict(category=cat, greedy=greedy, greedy_kind=kind, successes=c, right=right,
                    chance=chance, sample_kinds=kinds)  # fmt: skip

    rows = [
        row("a", True, None, 8, 0, None, {}),
        row("a", False, "wrong_tool", 2, 4, 0.5, {"wrong_tool": 6}),
        row("b", False, "wrong_tool", 0, 2, 0.25, {"wrong_tool": 8}),
        row("b", False, "parse_error", 0, 8, None, {"parse_error": 5, "truncated": 3}),
    ]
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


def test_the_committed_reports_fail_the_gates_as_measured():
    from analysis.figures import fig_regime as fig

    reports = fig.load_reports()
    sft, rctp = reports[fig.SFT_REPORT], reports[fig.RCTP_REPORT]
    none = sft["conditions"]["none"]
    assert none["tasks"] == 200 and none["greedy"]["overall"] == pytest.approx(0.615)
    # pass@8 from the per-task counts, by the estimator (c > 0 -> 1 at k = n = 8)
    rows = none["per_task"]
    assert none["pass_at_k"]["overall"][7] == pytest.approx(
        sum(r["successes"] > 0 for r in rows) / 200
    )
    verdicts = {g.name.split()[0]: g for g in gates(sft, rctp)}
    assert {k: g.holds for k, g in verdicts.items()} == dict.fromkeys(
        ["G1", "G2", "G3", "G4", "G5"], False
    )
    assert verdicts["G5"].values["difference"] == pytest.approx(0.25 - 0.615)
    assert verdicts["G4"].values["low_success"] == 0.0
    assert fig.gate_line(reports).count("fails") == 5


def test_g0_boundary_and_window():
    rows = [{"sft/token_acc": 0.5}] * 50 + [{"sft/token_acc": 0.95}] * 100
    gate = g0_fit(rows)  # only the last 100 steps count
    assert gate.holds is True and gate.values == {"token_acc": pytest.approx(0.95), "steps": 100}
    rows[-1] = {"sft/token_acc": 0.95 - 100 * 1e-6}  # mean 0.95 - 1e-6
    assert g0_fit(rows).holds is False
    assert g0_fit([{"loss/sft": 1.0}]).holds is None and g0_fit(None).holds is None


def test_g0_on_committed_stage1_runs():
    import json
    from pathlib import Path

    def fit(run):
        text = (Path(__file__).parents[3] / "results" / run / "metrics.jsonl").read_text()
        return g0_fit([json.loads(line) for line in text.splitlines()])

    # every pool-regime seed fits (0.98); the regime suite's first design run did not (0.81)
    assert all(fit(f"campaign/sft-s{s}").holds for s in range(4))
    gate = fit("regime/sft-s7")
    assert gate.holds is False and 0.80 < gate.values["token_acc"] < 0.82


@pytest.mark.parametrize(
    ("sft", "rctp", "want"),
    [
        # variant 2: G2 fails on missing_call (1.60x chance), G4 on the high goal's headroom
        ("sft-v2", "rctp-v2", [True, True, False, True, False, True]),
        # variant 3: every SFT gate holds; RCTP-FT at 0.5 epochs leaves the goals unseparated
        ("sft-v3", "rctp-v3", [True, True, True, True, False, True]),
        # variant 6: RCTP-FT at 2 epochs on variant 3's SFT still does not read its goal
        ("sft-v3", "rctp-v6", [True, True, True, True, False, True]),
        # variant 7: RCTP-FT from the base reads it weakly (separation +0.041 < 0.10)
        ("sft-v3", "rctp-v7", [True, True, True, True, False, True]),
        # variants 8 and 9: 4 and 3 epochs separate the goals (+0.22, +0.26) but leave the
        # high goal no headroom (+0.050, +0.045 < 0.15)
        ("sft-v3", "rctp-v8", [True, True, True, True, False, True]),
        ("sft-v3", "rctp-v9", [True, True, True, True, False, True]),
        # variant 10, 2.5 epochs: neither (separation +0.038, headroom +0.125)
        ("sft-v3", "rctp-v10", [True, True, True, True, False, True]),
    ],
)
def test_the_regime_suite_reports_give_the_measured_verdicts(sft, rctp, want):
    import json
    from pathlib import Path

    root = Path(__file__).parents[3] / "results"

    def report(run):
        return json.loads((root / "diagnostics" / f"regime-regime-{run}-s7.json").read_text())

    text = (root / "regime" / f"{sft}-s7" / "metrics.jsonl").read_text()
    fit = g0_fit([json.loads(line) for line in text.splitlines()])
    verdicts = [fit, *gates(report(sft), report(rctp))]
    assert [g.holds for g in verdicts] == want
    if rctp in ("rctp-v3", "rctp-v7"):
        g4 = verdicts[4]
        assert g4.detail == {
            "low_success_in_range": True,
            "low_parse_share": True,
            "high_no_worse": True,
            "high_headroom": True,
            "goals_separate": False,
        }


def test_g4_prime_on_the_committed_seed_8_runs_does_not_hold():
    """The verdict the design diary reports: every clause of G4′ holds at seed 8 except RL's
    room (RCTP-FT + GRPO from variant 9: 0.785 -> 0.795 under the high goal, 46 gained and
    36 lost of 1,000 held-out tasks)."""
    from analysis.figures import fig_regime_g4prime as fig

    pts = {(p["entry"].variant, p["entry"].seed): p for p in fig.points()}
    gate = pts[9, 8]["gate"]
    assert gate.holds is False
    assert [k for k, ok in gate.detail.items() if not ok] == ["rl_room"]
    rec = pts[9, 8]["record"]
    assert (rec["success_start"], rec["success_end"], rec["tasks"]) == (0.785, 0.795, 1000)
    assert (rec["mcnemar"]["c"], rec["mcnemar"]["b"]) == (46, 36)
    assert gate.values["separation"] == pytest.approx(0.3881, abs=1e-4)
    # seed 7 (exploratory) fails on the same clause alone: +0.060
    assert [k for k, ok in pts[9, 7]["gate"].detail.items() if not ok] == ["rl_room"]
    assert "v9: G4′ does not hold at seed 8" in fig.title(list(pts.values()))


def test_variant_11_at_seed_7_leaves_resolve_close_to_rl():
    """Variant 11's prediction (the design diary): its high goal makes every held-out
    resolve_close point wrong at step 0 (0 of 284), RL makes them right (273 of 284), and
    G4′ holds at the design seed (+0.190, 207 gained, 17 lost)."""
    from analysis.figures import fig_regime_g4prime as fig

    p = next(p for p in fig.points() if p["entry"][:2] == (11, 7))
    assert p["decisions"]["resolve_close"] == pytest.approx((0.0, 273 / 284))
    assert p["gate"].holds is True
    assert (p["record"]["mcnemar"]["c"], p["record"]["mcnemar"]["b"]) == (207, 17)
    assert p["values"]["rl_gain"] == pytest.approx(0.19)


def test_g4_prime_on_the_committed_seed_10_runs_holds():
    """The verdict the design diary reports for variant 11 on its deciding seed: G4′ holds
    (RCTP-FT + GRPO 0.596 -> 0.856 under the high goal, 279 gained and 19 lost), while G4 as
    written fails on the high goal's headroom."""
    from analysis.diagnostics.regime import gates as g
    from analysis.figures import fig_regime_g4prime as fig

    p = next(p for p in fig.points() if p["entry"][:2] == (11, 10))
    assert p["entry"].decides and p["gate"].holds is True
    rec = p["record"]
    assert (rec["success_start"], rec["success_end"], rec["tasks"]) == (0.596, 0.856, 1000)
    assert (rec["mcnemar"]["c"], rec["mcnemar"]["b"]) == (279, 19)
    assert p["decisions"]["resolve_close"] == pytest.approx((0.0, 264 / 284))
    sft, rctp = fig.load_reports(inputs=fig.reports(p["entry"])).values()
    g4 = g.g4_low_goal(rctp, sft)
    assert g4.holds is False and [k for k, ok in g4.detail.items() if not ok] == ["high_headroom"]
    assert "v11: G4′ holds at seed 10" in fig.title(fig.points())


def test_variant_12_fails_g4_at_seed_7_on_one_clause_each():
    """The verdict the design diary reports for variant 12: at share 0.03 the goal is not read
    (separation fails alone), at 0.10 it is read and the high goal makes the choice greedily
    (headroom fails alone)."""
    from analysis.figures import fig_regime_g4_share as fig

    failing = {
        p["point"].run: [k for k, ok in p["g4"].detail.items() if not ok]
        for p in fig.points()
        if p["point"].run.startswith("rctp-v12")
    }
    assert failing == {"rctp-v12a": ["goals_separate"], "rctp-v12b": ["high_headroom"]}


def test_variant_13_and_every_rctp_run_miss_g4s_corner():
    """Variant 13 (share 0.01) fails G4 on seed 7 on separation alone and on seed 17 on
    headroom alone; and no committed RCTP-FT diagnostic has both separation >= 0.10 and
    high-goal headroom >= 0.15 (the design diary, panel c of regime_g4_share)."""
    from analysis.figures import fig_regime_g4_share as fig

    pts = {(p["point"].run, p["point"].seed): p["g4"] for p in fig.points()}
    assert [k for k, ok in pts["rctp-v13", 7].detail.items() if not ok] == ["goals_separate"]
    assert [k for k, ok in pts["rctp-v13", 17].detail.items() if not ok] == ["high_headroom"]
    assert pts["rctp-v13", 17].values["separation"] == pytest.approx(0.3638, abs=1e-4)
    files = fig.load_reports(inputs=fig.ALL_RCTP)
    assert len(files) >= 28
    corner = [
        rel
        for rel, report in files.items()
        if (v := g4_goal_clauses(report))[0] >= G4_SEPARATION and v[1] >= G4_GAIN
    ]
    assert corner == []
    assert "G4 fails at every share; seed 17 at 0.01: G4 fails" in fig.title(fig.points())


def test_variant_14_passes_g4_at_seed_7_and_fails_g2_on_missing_call_at_both_seeds():
    """The verdict the design diary reports for variant 14 (``regime-wide-d10``): seed 7 is
    the first RCTP-FT checkpoint in G4's corner; the SFT fails G2 on ``missing_call`` at
    both seeds (just under 2x chance) and seed 18 does not read its goal."""
    from analysis.figures import fig_regime_g4_share as fig

    files = fig.load_reports(inputs=fig.INPUTS)
    failing = {}
    for seed in (7, 18):
        sft = files[f"results/diagnostics/regime-regime-sft-w14-s{seed}.json"]
        rctp = files[f"results/diagnostics/regime-regime-rctp-w14-s{seed}.json"]
        failing[seed] = [g.name.split()[0] for g in gates(sft, rctp) if not g.holds]
        support = sft["conditions"]["none"]["support"]["missing_call"]
        assert 1.85 < support["p_right"] / support["chance"] < G2_RATIO
    assert failing == {7: ["G2"], 18: ["G2", "G4"]}
    g4 = g4_low_goal(files["results/diagnostics/regime-regime-rctp-w14-s18.json"],
                     files["results/diagnostics/regime-regime-sft-w14-s18.json"])  # fmt: skip
    assert [k for k, ok in g4.detail.items() if not ok] == ["goals_separate"]
    assert "w14 s7 holds, w14 s18 fails" in fig.title(fig.points())


def test_variant_15_passes_every_gate_at_seed_7_and_misses_separation_at_seed_19():
    """The verdict the design diary reports for variant 15 (``regime-wide1-d10``): G0-G5 at the
    design seed 7; at the confirmation seed 19 only G4's separation clause fails."""
    from analysis.figures import fig_regime_g4_share as fig

    files = fig.load_reports(inputs=fig.INPUTS)
    report = lambda kind, seed: files[f"results/diagnostics/regime-regime-{kind}-w15-s{seed}.json"]  # noqa: E731
    seven = gates(report("sft", 7), report("rctp", 7))
    assert all(g.holds for g in seven)
    nineteen = gates(report("sft", 19), report("rctp", 19))
    assert [g.name.split()[0] for g in nineteen if not g.holds] == ["G4"]
    g4 = g4_low_goal(report("rctp", 19), report("sft", 19))
    assert [k for k, ok in g4.detail.items() if not ok] == ["goals_separate"]
    assert 0.09 < g4.values["separation"] < G4_SEPARATION
    assert "w15 s7 holds, w15 s19 fails" in fig.title(fig.points())


def test_variant_16_passes_every_gate_at_seed_7_and_does_not_read_its_goal_at_seed_20():
    """The verdict the design diary reports for variant 16 (RCTP-FT 4 epochs on
    ``regime-wide1-d10``): G1-G5 at the design seed 7, whose RCTP-FT starts from variant 15's
    SFT and is gated against that SFT's report; at seed 20 only G4 fails, on separation."""
    from analysis.figures import fig_regime_g4_share as fig

    files = fig.load_reports(inputs=fig.INPUTS)
    rctp = {s: f"results/diagnostics/regime-regime-rctp-w16-s{s}.json" for s in (7, 20)}
    assert fig.sft_report(rctp[7]) == "results/diagnostics/regime-regime-sft-w15-s7.json"
    assert fig.sft_report(rctp[20]) == "results/diagnostics/regime-regime-sft-w16-s20.json"
    verdicts = {s: gates(files[fig.sft_report(r)], files[r]) for s, r in rctp.items()}
    assert all(g.holds for g in verdicts[7])
    assert [g.name.split()[0] for g in verdicts[20] if not g.holds] == ["G4"]
    g4 = g4_low_goal(files[rctp[20]], files[fig.sft_report(rctp[20])])
    assert [k for k, ok in g4.detail.items() if not ok] == ["goals_separate"]
    assert abs(g4.values["separation"]) < 0.02
    assert "w16 s7 holds, w16 s20 fails" in fig.title(fig.points())


def test_variant_17_passes_every_gate_at_seeds_7_and_21():
    """The verdict the design diary reports for variant 17 (the goal rows started apart): G0-G5
    at the design seed 7 and at the confirmation seed 21, so issue 25's gates hold for
    ``regime-wide1-d10``; the figure of the regime carried forward draws it."""
    from analysis.figures import fig_regime_g4_share as fig
    from analysis.figures import fig_regime_suite

    files = fig.load_reports(inputs=fig.INPUTS)
    for seed, sft_run in ((7, "sft-w15-s7"), (21, "sft-w17-s21")):
        rctp = f"results/diagnostics/regime-regime-rctp-w17-s{seed}.json"
        assert fig.sft_report(rctp) == f"results/diagnostics/regime-regime-{sft_run}.json"
        metrics = fig.REPO_ROOT / "results" / "regime" / sft_run / "metrics.jsonl"
        fit = g0_fit([json.loads(line) for line in metrics.read_text().splitlines()])
        verdicts = [fit, *gates(files[fig.sft_report(rctp)], files[rctp])]
        assert [g.name.split()[0] for g in verdicts] == ["G0", "G1", "G2", "G3", "G4", "G5"]
        assert all(g.holds for g in verdicts), seed
    title = fig.title(fig.points())
    assert "w17 s7 holds" in title and "w17 s21 holds" in title
    assert fig_regime_suite.RCTP_REPORT == "results/diagnostics/regime-regime-rctp-w17-s7.json"
