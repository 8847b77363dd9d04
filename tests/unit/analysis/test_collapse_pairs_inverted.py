"""The positive control (analysis/campaigns/collapse_pairs_inverted/): its runs, gate I and the
seed plan, the three readings, the registered prediction from a hand-made instrument JSON, the
rule table on empty results, and what the entry trains."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from analysis.campaign.mechanics import Checkpoint
from analysis.campaigns.collapse_pairs_inverted import campaign, design, prediction, verdict
from analysis.campaigns.collapse_pairs_inverted import gate as ig
from analysis.campaigns.collapse_pairs_inverted import readings as rd
from analysis.theory.transfer import learning_speed, simulate


def test_stage1_is_p4s_recipe_with_inverted_pair_labels_from_the_seeds_collapse_sft():
    spec = design.stage1(4, 450)
    argv = [str(a) for a in spec.argv]
    for flag, value in (
        ("--model.path", "results/collapse/sft-collapse-s4/final"),
        ("--failures.policy", "results/collapse/sft-collapse-s4/final"),
        ("--failures.pairs", "450"),
        ("--failures.pair_weight", "4.0"),
        ("--failures.skip_keep", "0"),
        ("--failures.pair_labels", "inverted"),
        ("--run.seed", "4"),
    ):
        assert argv[argv.index(flag) + 1] == value, flag
    arms = design.arms(4, spec)
    assert {a: str(s.argv[2]) for a, s in arms.items()} == design.ARMS
    assert all(
        [x.run for x in s.argv if isinstance(x, Checkpoint)] == [spec] for s in arms.values()
    )
    camp = design.build(450)
    assert list(camp.experiments) == ["stage1", "arms"] and len(camp.runs) == 5 + 15


def test_gate_i_is_gate_r_with_the_goals_exchanged():
    block = {"diff": -0.84, "ci": [-0.88, -0.80], "p_high": 0.06, "p_low": 0.90}
    inv = ig.inverted(block)
    assert inv["diff"] == pytest.approx(0.84) and inv["ci"] == pytest.approx([0.80, 0.88])
    assert ig.holds(block)
    assert not ig.holds({**block, "p_high": 0.31, "p_low": 0.9, "diff": -0.59, "ci": [-0.7, -0.5]})
    # 0.11 >= 0.10 but the interval reaches 0.04, not above 0.05
    assert not ig.holds({"diff": -0.11, "ci": [-0.18, -0.04], "p_high": 0.1, "p_low": 0.21})
    assert not ig.holds({"diff": 0.3, "ci": [0.2, 0.4], "p_high": 0.3, "p_low": 0.0})


def test_the_plan_takes_seeds_in_order_and_replaces_a_failing_one():
    assert ig.plan({}) == ig.Plan("measuring", (3, 4, 5), (), ())
    assert ig.plan({3: True, 4: False}) == ig.Plan("measuring", (5, 6), (3,), (4,))
    assert ig.plan({3: True, 4: False, 5: True, 6: True}) == ig.Plan(
        "admitted", (3, 5, 6), (3, 5, 6), (4,)
    )
    stopped = ig.plan({3: False, 4: False, 5: False, 6: True, 11: True})
    assert stopped == ig.Plan("stopped", (), (6, 11), (3, 4, 5))


def test_readings_hand_computed():
    # measured [0.02, 0.06] meets predicted [0.05, 0.10] on [0.05, 0.06]
    assert rd.reading("holds", 3, (0.02, 0.06), (0.05, 0.10)) == rd.WITHIN
    assert rd.reading("holds", 3, (0.00, 0.05), (0.05, 0.10)) == rd.WITHIN  # closed ends
    assert (
        rd.reading("holds", 3, (0.00, 0.04), (0.05, 0.10)) == f"{rd.WRONG}: smaller than predicted"
    )
    assert (
        rd.reading("holds", 5, (0.11, 0.20), (0.05, 0.10)) == f"{rd.WRONG}: larger than predicted"
    )
    eq = "equivalent within ±3 points"
    assert rd.reading(eq, 3, (0.0, 0.01), (0.05, 0.1)) == f"no gain ({eq})"
    assert rd.reading("inconclusive", 3, None, None) == "no gain (inconclusive)"
    assert rd.reading("holds", 2, (0.05, 0.06), (0.05, 0.1)) == "not decided (n = 2)"
    # per-seed intervals [0.01, 0.05] and [0.03, 0.09]: the mean ends 0.02 and 0.07
    assert rd.predicted_interval([(0.01, 0.05), (0.03, 0.09)]) == pytest.approx((0.02, 0.07))
    assert rd.predicted_interval([]) is None
    assert rd.with_premise(rd.WITHIN, ["P1"]) == f"{rd.WITHIN} (premise not met: P1)"


REPORT = {
    "command": ["python", "-m", "analysis.diagnostics.transfer", "--seed", "3"],
    "goal_effect": {
        "success": {"p_high": 0.05, "p_low": 0.6},
        "kinds": {"any": {"diff": -0.84, "ci": [-0.88, -0.80], "p_high": 0.06, "p_low": 0.9}},
    },
    "transfer": {
        "estimate": 0.5,
        "ci": [0.3, 0.7],
        "gradient": {
            "cosine": {"estimate": 0.6, "ci": [0.6, 0.6]},
            "rho_high": {"estimate": 0.6, "ci": [0.6, 0.6]},
            "gain_ratio": {"estimate": 1.0, "ci": [0.9, 1.1]},
            "rho_low": {"estimate": 0.6},
        },
    },
}
"""A gate I diagnostic by hand: an inverted start (success 0.05 high, 0.6 low), its coupling
pinned at 0.6 so the ρ range is one point."""


def test_inputs_and_ranges_hand_worked(tmp_path):
    path = tmp_path / "transfer-rctp-inv-s3.json"
    path.write_text(json.dumps(REPORT))
    inp = prediction.inputs(json.loads(path.read_text()))
    assert (inp.s_high, inp.s_low) == (0.05, 0.6)  # success, not the right share
    assert (inp.right_high, inp.right_low) == (0.06, 0.9)
    wide = prediction.Inputs(
        0.05, 0.6, 0.06, 0.9, (0.5, 0.6, 0.7), (0.4, 0.55, 0.65), (1, 1, 1), 0.6, (0.3, 0.5, 0.7)
    )
    assert prediction.rho_range(wide) == (0.4, 0.6, 0.7)  # min(0.5, 0.4), cos, max(0.7, 0.65)
    etas = {3: 0.008, 4: 0.0075, 5: 0.009}
    assert prediction.eta_range(etas, 3) == (0.0075, 0.008, 0.009)
    curve = np.arange(201, dtype=float)
    assert prediction.window(curve, (25, 175)) == 100.0  # (25 + 175) / 2
    assert prediction.window(curve, (191, 200)) == 195.5
    with pytest.raises(ValueError, match="no transfer.gradient"):
        prediction.inputs({**REPORT, "transfer": {"estimate": 0.5, "ci": [0.3, 0.7]}})


def test_the_prediction_from_a_hand_made_instrument_json(tmp_path):
    path = tmp_path / "transfer-rctp-inv-s3.json"
    path.write_text(json.dumps(REPORT))
    etas, share = {3: 0.008, 4: 0.008}, 0.737
    out = prediction.prediction(json.loads(path.read_text()), 3, etas, share)
    json.dumps(out)  # JSON-able
    assert out["model"]["rho"] == {"low": 0.6, "centre": 0.6, "high": 0.6}
    assert out["model"]["eta"]["centre"] == 0.008 and out["inputs"]["decision_share"] == share
    # one grid point: the contrast is the simulated curves' window means, by hand
    sims = {
        a: simulate(a, 0.05, 0.6, 0.6, 0.008, 200, noise=True)[:, 0]
        for a in ("rc_grpo", "rctp_grpo")
    }
    want = sims["rc_grpo"][25:176].mean() - sims["rctp_grpo"][25:176].mean()
    got = out["contrasts"]["I1s"]
    assert got["decision_tasks"]["centre"] == pytest.approx(want, rel=1e-12)
    assert got["training_success"]["centre"] == pytest.approx(share * want, rel=1e-12)
    assert (
        got["decision_tasks"]["low"]
        == got["decision_tasks"]["high"]
        == got["decision_tasks"]["centre"]
    )
    assert out["curves"]["rc_grpo"]["centre"] == pytest.approx(list(sims["rc_grpo"]))
    ratio = learning_speed("rc_grpo", 0.05, 0.6, 0.6, noise=True)[0]
    ratio /= learning_speed("rctp_grpo", 0.05, 0.6, 0.6, noise=True)[0]
    assert out["speed_ratio"]["centre"] == pytest.approx(ratio)
    # at this start the noise-bound model's gain needs transfer: RC-GRPO's initial speed is
    # below RCTP-FT + GRPO's with no coupling and above it with full coupling
    assert prediction.speed_ratio(0.05, 0.6, 0.0) < 1 < prediction.speed_ratio(0.05, 0.6, 1.0)


def test_decision_share_and_the_refusals(tmp_path):
    ev = {"conditions": {"high": {"decisions": {"right": {"n": 737}}, "overall": {"n": 1000}}}}
    path = tmp_path / "step_0.json.gz"
    path.write_bytes(gzip.compress(json.dumps(ev).encode()))
    assert prediction.decision_share(path) == 0.737
    out = tmp_path / "p.json"
    assert prediction.problem(3, out, False, None) == "no gate I diagnostic"
    failing = {
        **REPORT,
        "goal_effect": {
            **REPORT["goal_effect"],
            "kinds": {"any": {"diff": 0.0, "ci": [-0.1, 0.1], "p_high": 0.1, "p_low": 0.1}},
        },
    }
    assert prediction.problem(3, out, False, failing) == "gate I fails"
    assert prediction.problem(3, out, False, REPORT) is None
    out.write_text("{}")
    assert "exists" in prediction.problem(3, out, False, REPORT)
    assert prediction.problem(3, out, True, REPORT) is None


def test_p2_reads_the_low_minus_high_success_over_steps_1_to_25():
    class FakeRun:
        rollouts = pd.DataFrame(
            {
                "step": [1, 1, 2, 2, 25, 25, 26],
                "reward_token": ["low", "high", "low", "high", "low", "high", "high"],
                "reward": [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
            }
        )

    # low 2/3, high 1/3 over steps 1-25 (step 26 left out): 1/3
    assert verdict.low_minus_high(FakeRun()) == pytest.approx(1 / 3)


def test_the_rule_table_on_empty_results_says_not_run(tmp_path):
    text = verdict.verdict_markdown(tmp_path / "runs", tmp_path / "diag")
    assert "Gate I to measure next at seeds 3, 4, 5." in text
    rows = [ln for ln in text.splitlines() if ln.startswith("| I1s") or ln.startswith("| P1")]
    assert len(rows) == 2 and all("| not run |" in r for r in rows)
    assert [d.rule.id for d in verdict.decisions({})] == ["P1", "P2", "I1s", "I1f", "I2s", "I2f"]


def test_the_entry_trains_stage1_then_waits_for_the_predictions(monkeypatch, tmp_path, capsys):
    trained = []
    monkeypatch.setattr(campaign, "dose", lambda: 450)
    monkeypatch.setattr(campaign.cp, "run_all", lambda camp, todo, *a: trained.append(todo))
    monkeypatch.setattr(design.cp, "locate", lambda spec: None)
    monkeypatch.setattr(design, "DIAGNOSTICS", tmp_path)
    monkeypatch.setattr(design, "report_path", lambda s, d=tmp_path: d / f"r{s}.json")
    monkeypatch.setattr(design, "prediction_path", lambda s, d=tmp_path: d / f"p{s}.json")
    monkeypatch.setattr(ig, "status", lambda *a: ig.Plan("measuring", (5, 6), (3,), (4,)))
    campaign.run(["stage1", "arms"], 1, False, True)
    assert trained == [["rctp-inv-s5", "rctp-inv-s6"]]
    assert (
        capsys.readouterr().out.count("then gate I: python -m analysis.diagnostics.transfer") == 2
    )
    admitted = ig.Plan("admitted", (3, 5, 6), (3, 5, 6), (4,))
    monkeypatch.setattr(ig, "status", lambda *a: admitted)
    campaign.run(["stage1", "arms"], 1, False, True)
    assert len(trained) == 1 and "--seed 5" in capsys.readouterr().out
    for s in (3, 5, 6):
        (tmp_path / f"p{s}.json").write_text("{}")
    campaign.run(["stage1", "arms"], 1, False, True)
    assert trained[-1] == [f"{a}-s{s}" for s in (3, 5, 6) for a in design.ARMS]


def test_the_report_table_before_any_run_is_ascii_and_says_where_stage1_stands(tmp_path):
    from analysis.campaigns.collapse_pairs_inverted import verdict as iv

    tex = iv.verdict_latex(tmp_path, tmp_path)
    assert tex.isascii() and "\\label{tab:collapse-pairs-inverted}" in tex
    assert "Gate I to measure next at seeds 3, 4, 5." in tex
    assert tex.count(" & not run & not run & --- & not run & not run \\\\") == 6
