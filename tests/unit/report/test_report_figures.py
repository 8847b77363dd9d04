"""Result figures listed from the figure builder's sidecars."""

from __future__ import annotations

import json

from analysis.report.figure_list import figures_tex, result_sidecars


def test_only_built_figures_that_read_runs(tmp_path):
    side = {
        "figure": "collapse_runs",
        "caption": "Zero-variance groups: 50% vs σ ≥ 0",
        "experiments": ["factorial"],
        "runs": {"factorial": [{"path": "a"}, {"path": "b"}]},
    }
    (tmp_path / "collapse_runs.json").write_text(json.dumps(side))
    (tmp_path / "collapse_runs.pdf").write_bytes(b"%PDF")
    theory = {"figure": "theory_variance", "experiments": [], "runs": {}}
    (tmp_path / "theory_variance.json").write_text(json.dumps(theory))
    (tmp_path / "theory_variance.pdf").write_bytes(b"%PDF")
    unbuilt = {"figure": "gap", "experiments": ["factorial"], "runs": {}}  # no PDF
    (tmp_path / "gap.json").write_text(json.dumps(unbuilt))
    (tmp_path / "theory_report.json").write_text(json.dumps({"statements": []}))
    (tmp_path / "torn.json").write_text("{")
    found = result_sidecars(tmp_path)
    assert [s["figure"] for s in found] == ["collapse_runs"]
    tex = figures_tex(found)
    assert r"\includegraphics[width=\linewidth]{../figures/collapse_runs.pdf}" in tex
    assert r"Zero-variance groups: 50\% vs $\sigma$ $\geq$ 0. Experiments: factorial; 2 run" in tex
    assert r"\label{fig:collapse_runs}" in tex


def test_no_result_figure_is_said_explicitly():
    assert "Not yet built" in figures_tex([])
