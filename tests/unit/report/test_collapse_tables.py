"""The collapse campaign's per-seed report (``collapse-seeds``): each column read from the
committed files it names, hand-built here, and "—" for a seed whose run is not committed."""

from __future__ import annotations

import json

import pytest

from analysis.campaigns.collapse import tables as ct
from analysis.campaigns.collapse import verdicts as kv


def _finish(folder, metrics, evals=None, data=None):
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"algo": {"eval_condition": "high"}}))
    (folder / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    for step, conditions in (evals or {}).items():
        (folder / "eval").mkdir(exist_ok=True)
        doc = {"conditions": {g: {"overall": {"reward": {"mean": v}}} for g, v in conditions}}
        (folder / "eval" / f"step_{step}.json").write_text(json.dumps(doc))
    if data is not None:
        (folder / "data.json").write_text(json.dumps(data))
    (folder / "summary.json").write_text("{}")


def test_a_seeds_row_reads_each_column_from_its_run(tmp_path):
    _finish(tmp_path / "rctp-collapse-s3", [{"step": 1}], data={"tasks": {"with_skipped_kind": 41}})
    # RC-GRPO: steps 1-12; the start is the mean of steps 1-10 per goal (0.2 and 0.1 here)
    rc = [{"step": s, "reward/success_high": 0.2, "reward/success_low": 0.1} for s in range(1, 11)]
    rc += [{"step": s, "reward/success_high": 1.0, "reward/success_low": 1.0} for s in (11, 12)]
    _finish(tmp_path / f"{kv.RC}-s3", rc, evals={0: [("high", 0.25), ("low", 0.125)]})
    # SFT + GRPO: zero-variance 0.75 then 0.85 (mean 0.8), all-fail 0.5 and 0.7 (0.6)
    grpo = [
        {"step": 0},  # the step-0 evaluation line carries no group metric
        {"step": 1, "group/zero_var_frac": 0.75, "group/zero_var_fail_frac": 0.5}
        | {"group/zero_var_predicted_pooled": 0.3},
        {"step": 2, "group/zero_var_frac": 0.85, "group/zero_var_fail_frac": 0.7}
        | {"group/zero_var_predicted_pooled": 0.2},
    ]
    _finish(tmp_path / f"{kv.SFT_GRPO}-s3", grpo)
    assert ct.seed_row(tmp_path, 3) == [
        "3",
        "41",
        "0.250",
        "0.125",
        "0.200",
        "0.100",
        "0.800",
        "0.600",
        "0.250",
    ]
    assert ct.seed_row(tmp_path, 4) == ["4"] + ["—"] * 8  # nothing of seed 4 committed


def test_the_block_has_a_row_per_registered_seed(tmp_path):
    lines = ct.seeds_markdown(tmp_path).splitlines()
    assert len(lines) == 2 + len(ct.SEEDS) and lines[0].count("|") == len(ct.SEED_HEADER) + 1
    assert [line.split("|")[1].strip() for line in lines[2:]] == [str(s) for s in ct.SEEDS]


def _diagnostic(path, conditions):
    """A minimal init diagnostic: per goal, (greedy success, sampled right-swap rate)."""
    doc = {
        "rollout": {"samples": ct.INIT_SAMPLES},
        "conditions": {
            g: {"greedy": {"overall": greedy}, "decision_kinds": {"any": {"p_right_sampled": p}}}
            for g, (greedy, p) in conditions.items()
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def test_the_control_row_reads_its_arm_and_the_three_init_diagnostics(tmp_path):
    root, diag = tmp_path / "runs", tmp_path / "diagnostics"
    _finish(root / f"{kv.SHUFFLED}-s3", [{"step": 1}], evals={0: [("high", 0.25)]})
    _diagnostic(ct.init_path("sft-collapse-s3", diag), {"none": (0.2, 0.02)})
    _diagnostic(ct.init_path("rctp-collapse-s3", diag), {"high": (0.3, 0.1), "low": (0.3, 0.08)})
    _diagnostic(
        ct.init_path("rctp-collapse-shuffled-s3", diag), {"high": (0.25, 0.125), "low": (0.5, 0.0)}
    )
    assert ct.control_values(root, 3, diag) == [0.25, 0.25, 0.5, 0.02, 0.1, 0.08, 0.125, 0.0]
    # seed 4: only the SFT diagnostic is committed
    _diagnostic(ct.init_path("sft-collapse-s4", diag), {"none": (0.2, 0.04)})
    four = ct.control_values(root, 4, diag)
    assert four[3] == 0.04 and sum(v == v for v in four) == 1  # the rest are NaN
    lines = ct.control_markdown(root, diag).splitlines()
    assert len(lines) == 2 + len(ct.SEEDS) + 1
    assert lines[0].count("|") == len(ct.CONTROL_HEADER) + 1  # no | inside a header cell
    cells = [c.strip() for c in lines[2].split("|")[1:-1]]
    assert cells == ["3", "0.250", "0.250", "0.500", "0.020", "0.100", "0.080", "0.125", "0.000"]
    mean = [c.strip() for c in lines[-1].split("|")[1:-1]]
    # SFT: seeds 3 and 4, mean 0.03, t(0.975, 1) * sd / sqrt 2 = 12.706 * 0.01414 / 1.414 = 0.127
    assert mean[0] == "mean" and mean[4] == "0.030 ± 0.127 (n = 2)"
    assert mean[1] == "0.250 (n = 1)"  # one seed: no interval


def test_an_init_diagnostic_with_other_samples_is_refused(tmp_path):
    path = ct.init_path("sft-collapse-s3", tmp_path)
    _diagnostic(path, {"none": (0.2, 0.02)})
    doc = json.loads(path.read_text())
    doc["rollout"]["samples"] = 32
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="32 samples per task"):
        ct.control_values(tmp_path / "runs", 3, tmp_path)
