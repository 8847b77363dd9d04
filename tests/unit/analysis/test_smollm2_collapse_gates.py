"""The gates of smollm2-collapse and the protocol's order over them, on hand-made run folders
(thresholds of docs/protocols/smollm2-collapse.md: B ≥ 0.10, H ≤ 0.50, C ≥ 0.50; R separated at
≥ 0.10 with the interval above 0.05, inert inside ±0.05), and the budget rule of the anchored
arm."""

from __future__ import annotations

import json

import pytest

from analysis.campaigns.smollm2_collapse import budget, gates
from analysis.runs import load_run


def _stage1(root, name, success, low=None, cpu_s=3600.0):
    folder = root / name
    folder.mkdir(parents=True)
    metrics = {"reward/eval_success": success} | (
        {} if low is None else {"reward/eval_success_low": low}
    )
    (folder / "summary.json").write_text(json.dumps({"final_metrics": metrics, "cpu_s": cpu_s}))


def _rl(root, name, zero_var=0.8, steps=4, cpu_s=3600.0):
    folder = root / name
    folder.mkdir(parents=True)
    rows = [
        {
            "step": s,
            "group/zero_var_frac": zero_var,
            "group/zero_var_fail_frac": zero_var / 2,
            "group/zero_var_predicted_pooled": 0.3,
            "reward/success_rate": 0.2,
            "perf/cpu_time_s": cpu_s * s / steps,
        }
        for s in range(1, steps + 1)
    ]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "summary.json").write_text(json.dumps({"wall_s": 1.0}))


def _report(diff, lo, hi):
    block = {"diff": diff, "ci": [lo, hi], "p_high": 0.1, "p_low": 0.1 - diff}
    return {"goal_effect": {"kinds": {"any": block}}, "transfer": {"estimate": 0.99}}


def test_r_reads_separated_inert_or_unclear():
    assert gates.reading(_report(0.12, 0.06, 0.18)["goal_effect"]["kinds"]["any"]) == "separated"
    assert gates.reading(_report(0.12, 0.04, 0.18)["goal_effect"]["kinds"]["any"]) == "unclear"
    assert gates.reading(_report(0.001, -0.002, 0.004)["goal_effect"]["kinds"]["any"]) == "inert"
    assert gates.reading(_report(0.03, -0.01, 0.07)["goal_effect"]["kinds"]["any"]) == "unclear"


def test_group_shares_average_the_steps_of_the_window(tmp_path):
    _rl(tmp_path, "run", zero_var=0.8, steps=6)
    run = load_run(tmp_path / "run")
    shares = gates.group_shares(run, gates.START)
    assert shares == pytest.approx(
        {"zero_var": 0.8, "all_fail": 0.4, "predicted": 0.3, "success": 0.2}
    )


def test_the_order_trains_the_next_part_and_stops_at_a_failing_gate(tmp_path):
    diag, pred = tmp_path / "diag.json", tmp_path / "prediction.json"

    def status():
        return gates.status(gates.committed(tmp_path), diag, pred)

    assert status().runs == ("sft-base-s31",)
    _stage1(tmp_path, "sft-base-s31", 0.05)  # B fails: its one retry
    assert (status().part, status().runs) == ("1 (gate B's retry)", ("sft-base2-s31",))
    _stage1(tmp_path, "sft-base2-s31", 0.0625)
    assert status().kind == "stopped" and "B fails twice" in status().said
    (tmp_path / "sft-base2-s31" / "summary.json").unlink()
    (tmp_path / "sft-base2-s31").rmdir()
    _stage1(tmp_path, "sft-base2-s31", 0.2)
    assert (status().part, status().runs) == ("2", ("rctp-s31",))
    _stage1(tmp_path, "rctp-s31", 0.25, low=0.25)
    assert status().runs == ("sft-matched-s31", "pilot-sft-grpo-s31")
    _stage1(tmp_path, "sft-matched-s31", 0.55)  # H fails: no pilot is trained
    assert status().kind == "stopped" and status().said.startswith("H fails")


def _through_part3(root, diag, pred, zero_var=0.8):
    _stage1(root, "sft-base-s31", 0.2)
    _stage1(root, "rctp-s31", 0.25, low=0.25)
    _stage1(root, "sft-matched-s31", 0.3)
    _rl(root, "pilot-sft-grpo-s31", zero_var=zero_var)
    diag.write_text(json.dumps(_report(0.001, -0.002, 0.004) | {"time_s": {"total": 3600.0}}))
    pred.write_text("{}")


def test_c_stops_the_rl_and_the_main_parts_come_in_order(tmp_path):
    diag, pred = tmp_path / "diag.json", tmp_path / "prediction.json"
    _through_part3(tmp_path, diag, pred, zero_var=0.45)
    st = gates.status(gates.committed(tmp_path), diag, pred)
    assert st.kind == "stopped" and st.said.startswith("C fails")
    other = tmp_path / "other"
    _through_part3(other, diag, pred)
    measured = gates.measure(gates.committed(other), diag)
    assert (measured.r, measured.rho, measured.holds) == ("inert", 0.99, dict.fromkeys("BHC", True))
    st = gates.status(gates.committed(other), diag, pred)
    assert (st.part, st.runs, st.not_run) == ("4", ("smol-rctp-grpo-s3", "smol-rcgrpo-s3"), ())
    pred.unlink()
    assert gates.status(gates.committed(other), diag, pred).kind == "measure"


def test_the_anchored_arm_runs_only_within_the_budget(tmp_path):
    diag, pred = tmp_path / "diag.json", tmp_path / "prediction.json"
    for cpu_h, fits in ((1.7, True), (2.5, False)):
        root = tmp_path / str(cpu_h)
        _through_part3(root, diag, pred)
        for names in gates.PARTS[3:7]:
            for name in names:
                _rl(root, name, cpu_s=cpu_h * 3600)
        st = gates.status(gates.committed(root), diag, pred)
        # spent: three Stage-1 runs, the pilot and the diagnostic (an hour each), 8 RL runs;
        # then 3 more RL runs: 5 + 11 × 1.7 = 23.7 fits, 5 + 11 × 2.5 = 32.5 does not
        spent = 3 + 1 + 1 + 8 * cpu_h
        assert budget.anchored_allowed(spent, [cpu_h] * 8) is fits
        assert (st.not_run == gates.ANCHORED) is not fits
        assert st.runs == (
            ("smol-sft-grpo-s5", "smol-rcgrpo-anchored-s3") if fits else ("smol-sft-grpo-s5",)
        )


def test_the_budget_rule_and_measured_hours_hand_worked(tmp_path):
    assert budget.anchored_allowed(20.0, [1.7, 1.7]) is True  # 20 + 3 × 1.7 = 25.1
    assert budget.anchored_allowed(25.0, [2.0]) is False  # 25 + 6 = 31
    assert budget.rl_cpu_s(40, 280) == 40 * 20 * 4.5 + 280 * 8 + 200 == 6040
    _stage1(tmp_path, "s1", 0.2, cpu_s=7200)
    _rl(tmp_path, "rl", cpu_s=1800)
    assert budget.measured_cpu_h(load_run(tmp_path / "s1")) == 2.0
    assert budget.measured_cpu_h(load_run(tmp_path / "rl")) == 0.5
