"""The ``transfer-diagnostics`` block (analysis.campaigns.collapse.transfer_table): a report
with the gradient-form coupling shows its cosine and gain ratio with their intervals and
ρ_l; a report made before shows dashes and marks its ρ̂ as the whole-call one; a ρ̂ without an
interval says so."""

from __future__ import annotations

import json
import math

from analysis.campaigns.collapse import transfer_table as tt


def _report(gradient: bool, ci: list[float]) -> dict:
    pooled = {"diff": 0.5, "ci": [0.25, 0.75], "p_high": 0.8}
    transfer = {
        "estimate": 0.9,
        "ci": ci,
        "informative_batches": 8 if math.isfinite(ci[0]) else 1,
        "finite_difference": {"max_rel_err": 0.001},
    }
    if gradient:
        transfer["gradient"] = {
            "cosine": {"estimate": 0.8, "ci": [0.7, 0.85]},
            "gain_ratio": {"estimate": 0.5, "ci": [0.4, 0.6]},
            "rho_low": {"estimate": 1.6},
        }
    return {
        "transfer": transfer,
        "goal_effect": {
            "kinds": {"any": pooled},
            "identical_share": {"identical": 0.25},
            "tasks": 60,
            "samples": 32,
        },
    }


def test_diagnostics_rows(tmp_path):
    runs = dict(zip(tt.DIAGNOSED, [(True, [0.8, 1.0]), (False, [0.8, 1.0])], strict=False))
    runs[tt.DIAGNOSED[2]] = (True, [math.nan, math.nan])
    for run, (gradient, ci) in runs.items():
        (tmp_path / f"transfer-{run}.json").write_text(json.dumps(_report(gradient, ci)))
    lines = tt.diagnostics_markdown(tmp_path).splitlines()
    assert len(lines) == 2 + len(tt.DIAGNOSED)
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert all(len(row) == len(tt.DIAGNOSTICS_HEADER) for row in cells)
    assert cells[0][1:7] == [
        "0.900 [0.800, 1.000]",
        "8",
        "0.800 [0.700, 0.850]",
        "0.500 [0.400, 0.600]",
        "1.600",
        "0.0010",
    ]
    assert cells[1][1] == "0.900 [0.800, 1.000] (whole-call z)" and cells[1][3:6] == ["—"] * 3
    assert cells[2][1:3] == ["0.900 (no interval)", "1"]
    assert cells[3][1] == "not measured"
