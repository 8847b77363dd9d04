"""The rules and the side-by-side table of smollm2-collapse before any run: every rule and every
SmolLM2 cell reads "not run", the rules are in their registered families with their tiny
analogues, and the cells of a hand-made diagnostic."""

from __future__ import annotations

from analysis.campaigns.smollm2_collapse import side_by_side as sb
from analysis.campaigns.smollm2_collapse import tiny
from analysis.campaigns.smollm2_collapse import verdicts as vd


def test_rules_families_and_tiny_analogues():
    ids = [r.id for r in vd.RULES]
    assert ids == ["S1", "S2", "S3", "Q1s", "Q1f", "Q2s", "Q2f", "Q3s", "Q3f", "Q4s", "Q4f"]
    assert sorted(i for f in vd.FAMILIES.values() for i in f) == sorted(ids)
    decided = vd.decisions({a.name: {} for a in vd.ARMS}, "inert")
    assert {d.verdict for d in decided} == {"not run"}
    tiny_of = {d.rule.id: vd.row(d)[-1] for d in decided}
    assert (tiny_of["S1"], tiny_of["S3"], tiny_of["Q1s"], tiny_of["Q2f"], tiny_of["Q4f"]) == (
        "K1",
        "—",
        "K3s",
        "—",
        "M2f",
    )


def test_spread_hand_worked():
    assert tiny.spread([0.2, 0.4, float("nan")]) == "0.300 (0.200 to 0.400, n = 2)"
    assert tiny.spread([0.5]) == "0.500 (n = 1)"
    assert tiny.spread([]) == "—"


def test_before_any_run_every_smollm2_cell_is_not_run(tmp_path):
    cells = sb.smol_cells(tmp_path, tmp_path / "no-diagnostic.json")
    assert cells == {}
    table = sb.markdown({"rho": "0.998 (0.997 to 0.999, n = 3)"}, cells)
    body = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert len(body) == len(sb.ROWS)
    assert all(line.endswith(" | not run | — |") for line in body)
    assert (
        "| ρ̂, one SGD step on a low-goal batch | 0.998 (0.997 to 0.999, n = 3) | not run | — |"
        in table
    )
    inst = sb.instrument_cells(tmp_path, tmp_path / "no-diagnostic.json")
    assert {inst[k] for k in sb.INSTRUMENT_ROWS} == {"not run"}
    assert {v for k, v in inst.items() if k not in sb.INSTRUMENT_ROWS} == {"—"}
    both = [
        ln for ln in sb.markdown({}, {}, inst).splitlines() if ln.endswith("| not run | not run |")
    ]
    assert len(both) == len(sb.INSTRUMENT_ROWS)


def test_a_diagnostic_fills_the_goal_effect_cells():
    row = {"diff": 0.1234, "ci": [0.08, 0.16], "p_high": 0.2, "p_low": 0.0766}
    report = {
        "goal_effect": {
            "success": {"diff": 0.05, "ci": [0.01, 0.09], "p_high": 0.1, "p_low": 0.05},
            "kinds": {"any": row},
            "identical_share": {"identical": 0.25},
        },
        "transfer": {"estimate": 0.5, "ci": [0.3, 0.7]},
    }
    nan = float("nan")
    no_ci = {"estimate": 0.9963, "ci": [nan, nan], "informative_batches": 1}
    assert sb._rho(no_ci) == "0.996 (no interval: 1 informative batch)"
    assert sb._groups_cells(report) == {}  # a diagnostic from before the start's collapse
    report["goal_effect"]["start_collapse"] = {
        "high": {"observed": 0.9, "predicted": 0.8, "diff": 0.1, "ci": [0.05, 0.15]}
    }
    assert sb._groups_cells(report) == {"groups_high": "0.900 / 0.800, +0.100 [+0.050, +0.150]"}
    cells = sb._diagnostic_cells(report)
    assert cells["right_diff"] == "+0.1234 [+0.0800, +0.1600]"
    assert (cells["reading"], cells["rho"], cells["cos_gain"]) == (
        "separated",
        "0.500 [0.300, 0.700]",
        "—",
    )


def test_the_verdict_and_prediction_tables_before_any_run(tmp_path):
    text = vd.verdict_markdown(tmp_path)
    rows = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == len(vd.RULES) and all("| not run |" in r for r in rows)
    assert "gain over its 40 steps — (seeds none)" in text
    pred = vd.prediction_markdown(tmp_path).splitlines()
    assert [r.split(" | ")[0] for r in pred[2:]] == ["| Q1s", "| Q2s", "| Q3s", "| Q4s"]
    assert pred[2] == "| Q1s | — / — | — / — | — | — | — |"


def test_the_latex_cells_set_every_character(monkeypatch):
    """ρ̂ is ρ plus a combining circumflex, which pdflatex cannot set: it becomes \\hat\\rho;
    every other symbol of the rows goes through the report's escape, so no non-ASCII is left."""
    assert sb._tex("ρ̂, one step") == "$\\hat\\rho$, one step"
    assert sb._tex("a − b ≥ 0.10") == "a $-$ b $\\geq$ 0.10"
    monkeypatch.setattr(sb, "tiny_cells", lambda: {"rho": "0.998 (0.997 to 0.999, n = 3)"})
    monkeypatch.setattr(sb, "smol_cells", lambda: {})
    tex = sb.latex_table()
    assert tex.isascii() and "\\label{tab:smollm2-side-by-side}" in tex
    assert tex.count("\\\\\n") == len(sb.ROWS) + 1  # the header and one line per row
