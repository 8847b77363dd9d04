"""The collapse campaign's per-seed report (``collapse-seeds``): each column read from the
committed files it names, hand-built here, and "—" for a seed whose run is not committed."""

from __future__ import annotations

import json

from analysis.report import collapse_tables as ct
from analysis.verdicts import collapse as kv


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
