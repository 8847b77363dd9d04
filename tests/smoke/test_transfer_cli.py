"""``python -m analysis.diagnostics.transfer`` end to end at a tiny size on the committed
collapse RCTP-FT checkpoint: the report's sizes, provenance and the identities its numbers
obey, the gradient-form coupling included."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analysis.diagnostics.transfer.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT = ROOT / "results/collapse/rctp-collapse-s3/final"


@pytest.mark.slow
def test_transfer_cli_writes_a_consistent_report(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "transfer.json"
    argv = ["--init", str(CHECKPOINT), "--synth-preset", "collapse1-d10", "--seed", "0"]
    argv += ["--tasks", "2", "--samples", "2", "--batches", "2", "--prompts", "2"]
    argv += ["--group-size", "2", "--steps", "1e-6", "--out", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["preset"] == "collapse-rcgrpo" and report["rollout"]["temperature"] == 1.0
    assert re.fullmatch(r"[0-9a-f]{40}", report["git_commit"])
    assert report["command"] == ["python", "-m", "analysis.diagnostics.transfer", *argv]
    assert report["host"]["device"] == "cpu" and report["time_s"]["total"] > 0
    effect = report["goal_effect"]
    assert (effect["tasks"], effect["samples"]) == (2, 2)
    assert effect["kinds"]["any"]["n"] == 2 and effect["kinds"]["any"]["points"] == 2  # one each
    assert effect["identical_share"]["pairs"] == 4
    row = effect["kinds"]["any"]
    assert row["diff"] == pytest.approx(row["p_high"] - row["p_low"])
    transfer = report["transfer"]
    assert transfer["probe"] == {"points": 4, "tasks": 4} and len(transfer["batches"]) == 2
    assert sum(k["points"] for k in transfer["kinds"].values()) == 4
    for b in transfer["batches"]:
        if not b["informative"]:
            continue
        # every step has the same relative size: lr·‖g‖ = step·‖θ‖
        assert b["lr"] * b["grad_norm"] == pytest.approx(b["step_norm"], rel=1e-12)
        assert b["ratio"] == pytest.approx(b["high"]["dz"] / b["low"]["dz"])
    grad = transfer["gradient"]
    assert grad["n_tasks"] == 4 and grad["points"] == 4 and len(grad["tasks"]) == 4
    assert grad["bootstrap"]["seed"] == 0 and grad["bootstrap"]["replicates"] == 2000
    for name in ("inner", "norm_high", "norm_low", "cosine", "gain_ratio", "rho_low"):
        row = grad[name]
        assert len(row["per_task"]) == 4 and row["ci"][0] <= row["ci"][1], name
    assert -1 <= grad["cosine"]["estimate"] <= 1
    ratio = grad["norm_low"]["estimate"] / grad["norm_high"]["estimate"]
    assert grad["gain_ratio"]["estimate"] == pytest.approx(ratio, rel=1e-12)
    # ρ_l = cos / γ, the first-order prediction of a step along ∇z̄_l
    rho = grad["cosine"]["estimate"] / grad["gain_ratio"]["estimate"]
    assert grad["rho_low"]["estimate"] == pytest.approx(rho, rel=1e-12)
