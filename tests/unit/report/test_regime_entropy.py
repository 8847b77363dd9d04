"""The regime suite's entropy and calibration tables (analysis/campaigns/regime_d10/entropy_tables.py) on
fake run folders, by hand."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from analysis.campaigns.regime_d10 import calibration as cal
from analysis.campaigns.regime_d10.entropy_tables import calibration_block, entropy_block


def write_run(root: Path, arm: str, seed: int, entropy: float) -> None:
    """Finished run ``<arm>-s<seed>`` whose high-goal token entropy is ``entropy`` on its two
    training steps (step 0, with no training, logs 9.0 and must not count)."""
    d = root / f"{arm}-s{seed}"
    (d / "eval").mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"run": {"seed": seed}}))
    rows = [{"step": 0, "policy/entropy_high": 9.0}]
    rows += [{"step": s, "policy/entropy_high": entropy} for s in (1, 2)]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "summary.json").write_text("{}")


def cells(block: str) -> dict[str, list[str]]:
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()[2:]]
    return {r[1]: r for r in rows}


def test_entropy_rows_by_hand(tmp_path):
    write_run(tmp_path, "regime-rcgrpo", 3, 0.2)
    write_run(tmp_path, "regime-rcgrpo", 4, 0.4)
    write_run(tmp_path, "regime-rcgrpo", 9, 5.0)  # the calibration seed never counts
    for s in (3, 4, 5):  # seed 5 has no RC-GRPO run: not in g
        write_run(tmp_path, "regime-rctp-dapo", s, 0.39 if s < 5 else 3.0)
    rows = cells(entropy_block(tmp_path))
    # RC: mean .3, s = .1414, half = 12.706 · .1414 / √2 = 1.271
    assert rows["RC-GRPO"][2:] == ["3, 4", "0.300 ± 1.271", "+0.000", "3, 4", "yes"]
    # DAPO: mean (.39 + .39 + 3) / 3 = 1.26, s = √(2.2707) = 1.5069, half 4.303 · s / √3 =
    # 3.743; g over seeds 3, 4 = .39 / .3 − 1 = +.3 (seed 5's 3.0 left out of g)
    dapo = rows["GRPO (high goal) + DAPO"][2:]
    assert dapo == ["3, 4, 5", "1.260 ± 3.743", "+0.300", "3, 4", "no"]
    # a factorial cell without runs: dashes; an arm without runs outside it: no row
    assert rows["RC sampling"][2:] == ["—"] * 5
    assert "Dr. GRPO (high goal)" not in rows


def test_calibration_block_by_hand(tmp_path):
    assert calibration_block(tmp_path) == "No calibration run is committed yet."
    # target .2: τ 1.0 at .19 (g −.05), τ 1.15 at .23 (g +.15) -> 1.0 chosen
    choice = cal.choose("temperature", [1.15, 1.0], [0.23, 0.19], 0.2)
    (tmp_path / "calib-temperature.json").write_text(json.dumps(asdict(choice)))
    # entropy coef: .1 and .12 against .2 -> neither matched nor bracketing: extend
    choice = cal.choose("entropy_coef", [0.0, 0.02], [0.1, 0.12], 0.2)
    (tmp_path / "calib-entropy_coef.json").write_text(json.dumps(asdict(choice)))
    lines = calibration_block(tmp_path).splitlines()[2:]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    assert rows == [
        ["temperature", "1", "0.1900", "0.2000", "-0.050", "chosen", "chosen 1"],
        ["temperature", "1.15", "0.2300", "0.2000", "+0.150", "—", "chosen 1"],
        ["entropy_coef", "0", "0.1000", "0.2000", "-0.500", "—", "extend the grid"],
        ["entropy_coef", "0.02", "0.1200", "0.2000", "-0.400", "—", "extend the grid"],
    ]


def test_calibration_block_names_the_interpolated_run(tmp_path):
    # target .2 bracketed by τ 1.0 (.1) and 1.3 (.4): next = 1.0 + (.2 − .1)·.3/.3 = 1.1
    choice = cal.choose("temperature", [1.0, 1.3], [0.1, 0.4], 0.2)
    (tmp_path / "calib-temperature.json").write_text(json.dumps(asdict(choice)))
    rules = {line.split("|")[-2].strip() for line in calibration_block(tmp_path).splitlines()[2:]}
    assert rules == {"next run at 1.1"}
