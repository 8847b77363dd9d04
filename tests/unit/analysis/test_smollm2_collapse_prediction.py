"""The registered prediction of smollm2-collapse (analysis/campaigns/smollm2_collapse/prediction.py)
on hand-made gate measurements: the i.i.d. collapse share, laws of the speed ratios, the crossing
ρ, the η fit's recovery, and the rule that the prediction is written only before the main runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.campaigns.smollm2_collapse import gates, prediction


def test_zero_variance_share_hand_worked():
    # s = 0.2, G = 5: 0.2^5 + 0.8^5 = 0.00032 + 0.32768
    assert prediction.zero_var(0.2) == pytest.approx(0.328)
    assert prediction.zero_var(0.5) == pytest.approx(2 / 32)


@pytest.mark.parametrize("s", [0.1, 0.3, 0.6])
def test_an_inert_token_makes_rc_grpo_the_same_policy_as_rctp_ft_grpo(s):
    # s_h = s_l and ρ = 1: one policy; a group's two goals share every advantage, so RC-GRPO's
    # per-goal weights sum to GRPO's and the speed ratio is 1 in both variants
    for variant in prediction.ratios(s, s, 1.0).values():
        assert variant["Q1"] == pytest.approx(1.0, rel=1e-9)


def test_the_crossing_rho_equalises_rc_grpo_and_the_anchored_arm():
    s_h, s_l = 0.12, 0.05
    rho = prediction.crossing(s_h, s_l)
    rc = prediction.speed_h("rc_grpo", s_h, s_l, rho, True)
    assert rc == pytest.approx(prediction.speed_h("anchored", s_h, s_l, 0.0, True), rel=1e-9)


def test_the_eta_fit_recovers_a_simulated_step_size():
    eta = 0.05
    curve = prediction._curve("rctp_grpo", (0.2, 0.2), 1.0, eta, False, 20)
    assert prediction.fit_eta([(curve, (0.2, 0.2), 1.0)], False) == pytest.approx(eta, rel=1e-2)
    assert prediction.fit_eta([(np.full(20, 0.2), (0.2, 0.2), 1.0)], False) is None  # no learning


def _report(s_h=0.1, s_l=0.0, rho=0.98):
    return {
        "goal_effect": {"success": {"p_high": s_h, "p_low": s_l}},
        "transfer": {"estimate": rho, "ci": [rho - 0.02, rho + 0.02]},
    }


def test_the_prediction_records_its_inputs_and_moves_an_edge_inside():
    pilot = prediction._curve("rctp_grpo", (0.2, 0.2), 1.0, 0.05, True, 20)
    out = prediction.predict(_report(), pilot)
    assert out["edge"] == ["s_low"]  # s_l = 0 moved 1e-4 inside for the log-odds
    assert out["inputs"]["s_sft"] == pytest.approx(float(np.mean(pilot[:5])))
    assert out["zero_var"]["rc"] == pytest.approx(prediction.zero_var(0.05))
    assert set(out["ratios"]) == {"rho", "rho_ci_low", "rho_ci_high"}
    assert set(out["contrasts"]["noise"]) == {"Q1", "Q2", "Q3", "Q4"}
    assert json.loads(json.dumps(out)) == out


def test_the_prediction_is_written_only_before_the_main_runs(tmp_path, monkeypatch):
    pilot = tmp_path / "pilot-sft-grpo-s31"
    pilot.mkdir()
    rows = [{"step": s, "reward/success_rate": 0.2} for s in range(1, 21)]
    (pilot / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (pilot / "summary.json").write_text("{}")
    monkeypatch.setattr(gates, "RESULTS", tmp_path)
    monkeypatch.setattr(gates, "PREDICTION", tmp_path / "prediction.json")
    monkeypatch.setattr(gates, "diagnostic", lambda path=None: _report(0.1, 0.05))
    monkeypatch.setattr(
        gates,
        "committed",
        lambda root=tmp_path: lambda n: tmp_path / n if (tmp_path / n).is_dir() else None,
    )
    assert prediction.main(["--write"]) == 0
    assert json.loads((tmp_path / "prediction.json").read_text())["inputs"]["s_high"] == 0.1
    (tmp_path / "smol-rcgrpo-s3").mkdir()
    assert prediction.main(["--write"]) == 1
