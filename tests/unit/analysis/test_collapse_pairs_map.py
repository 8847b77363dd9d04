"""The collapse-pairs-map campaign (analysis/campaigns/collapse_pairs_map/): its runs, the walk's
order and rule-outs on hand-made measurements, the map on empty results, and what the entry
trains for each step."""

from __future__ import annotations

import json

from analysis.campaign.mechanics import Checkpoint
from analysis.campaigns.collapse_pairs_map import campaign, design, gates
from analysis.campaigns.collapse_pairs_map import walk as wk


def _flags(argv) -> dict[str, tuple[str, ...]]:
    out, key = {}, None
    for a in argv:
        if isinstance(a, str) and a.startswith("--"):
            key = a
            out[key] = ()
        elif key:
            out[key] += (str(a),)
    return out


def test_a_cells_rctp_is_collapse_pairs_recipe_at_its_dose_and_weight():
    spec = design.rctp(5, 1.5, 31)
    f = _flags(spec.argv)
    assert spec.name == "rctp-k5-w1.5-s31" and spec.home == "collapse-pairs-map"
    assert f["--model.path"] == f["--failures.policy"] == ("results/collapse/sft-c2-s31/final",)
    assert f["--failures.pairs"] == ("5",) and f["--failures.pair_weight"] == ("1.5",)
    assert f["--failures.skip_keep"] == ("0",) and spec.argv[2] == "rctp-collapse"


def test_the_rows_matched_sft_reads_its_first_cells_mix():
    camp = design.build({(10, 31): 2.0})
    sft = camp.runs["sft-k10-s31"]
    mix = [(a.run.name, a.sub) for a in sft.argv if isinstance(a, Checkpoint)]
    assert mix == [("rctp-k10-w2-s31", "mix")]
    assert "sft-k10-s31" in camp.experiments["cell-k10-w2"]
    assert "sft-k10-s31" not in camp.experiments["cell-k10-w3"]
    pilot = camp.runs["pilot-c-k10-s31"]
    assert [a.run.name for a in pilot.argv if isinstance(a, Checkpoint)] == ["sft-k10-s31"]
    # 9 cells x 2 seeds, each an RCTP-FT and a C' pilot; 3 rows x 2 seeds, an SFT and a C pilot
    assert len(camp.runs) == 18 * 2 + 6 * 2
    assert list(camp.experiments)[:3] == ["cell-k5-w3", "cell-k5-w2", "cell-k5-w1.5"]


def _cell(k, w, diff=None, high=0.1, cprime=None, seed=31):
    r = None
    if diff is not None:  # a CI of +-0.03 around the difference
        r = {"diff": diff, "ci": [diff - 0.03, diff + 0.03], "p_high": high, "p_low": high - diff}
    return wk.Cell(k, w, seed, r, cprime)


def test_the_walk_starts_with_the_cheapest_cell_and_its_rows_gate_c():
    assert wk.walk({}, {}) == wk.Step("measure", (5, 3.0), 31, ("R", "C"))
    # R measured, C not yet: the same cell, for C
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.0)}
    assert wk.walk(cells, {}) == wk.Step("measure", (5, 3.0), 31, ("C",))


def test_no_separation_rules_out_fewer_pairs_and_smaller_weights():
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.02)}  # 0.02 < 0.10: no separation
    c = {5: 0.7}
    assert wk.ruled_out((5, 2.0), cells, c) == "no separation at (5 pairs, ×3)"
    assert wk.ruled_out((5, 1.5), cells, c) == "no separation at (5 pairs, ×3)"
    assert wk.ruled_out((10, 3.0), cells, c) is None
    assert wk.walk(cells, c) == wk.Step("measure", (10, 3.0), 31, ("R", "C"))


def test_a_high_goal_already_right_rules_out_more_pairs_and_larger_weights():
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.5, high=0.6)}
    c = {5: 0.7}
    assert wk.ruled_out((10, 3.0), cells, c) == "P(right | high) > 0.30 at (5 pairs, ×3)"
    assert wk.ruled_out((20, 3.0), cells, c) is not None
    assert wk.ruled_out((10, 2.0), cells, c) is None  # a smaller weight is not implied
    assert wk.walk(cells, c) == wk.Step("measure", (5, 2.0), 31, ("R",))


def test_c_failing_at_a_row_ends_the_map_for_it_and_every_larger_dose():
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.5, high=0.1)}
    c = {5: 0.2}  # the matched SFT does not collapse
    assert wk.ruled_out((20, 1.5), cells, c) == "C fails at 5 pairs"
    assert wk.walk(cells, c) == wk.Step("ended")


def test_c_prime_is_measured_where_r_holds_and_its_failure_rules_out_upwards():
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.3, high=0.2)}
    c = {5: 0.7}
    assert wk.walk(cells, c) == wk.Step("measure", (5, 3.0), 31, ("C′",))
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.3, high=0.2, cprime=0.1)}
    assert wk.ruled_out((10, 3.0), cells, c) == "C′ fails at (5 pairs, ×3)"
    assert wk.walk(cells, c) == wk.Step("measure", (5, 2.0), 31, ("R",))


def test_a_passing_cell_is_replicated_and_found_or_the_walk_goes_on():
    cells = {(5, 3.0): _cell(5, 3.0, diff=0.3, high=0.2, cprime=0.6)}
    c = {5: 0.7}
    assert wk.walk(cells, c) == wk.Step("replicate", (5, 3.0), 32, ("R", "C", "C′"))
    good = {(5, 3.0): _cell(5, 3.0, diff=0.3, high=0.2, cprime=0.6, seed=32)}
    assert wk.walk(cells, c, good, {5: 0.8}) == wk.Step("found", (5, 3.0), 32)
    bad = {(5, 3.0): _cell(5, 3.0, diff=0.01, high=0.2, cprime=0.6, seed=32)}
    # the replication fails: nothing is ruled out by it, the next cell in order runs
    assert wk.walk(cells, c, bad, {5: 0.8}) == wk.Step("measure", (5, 2.0), 31, ("R",))


def test_first_weights_take_the_first_cell_run_in_each_row():
    step = wk.Step("measure", (10, 2.0), 31, ("R", "C"))
    assert wk.first_weights({(5, 1.5), (5, 3.0)}, step, 31) == {5: 3.0, 10: 2.0}
    assert wk.first_weights(set(), step, 32) == {}


def test_the_map_on_empty_results_says_not_run_and_names_the_next_step(tmp_path):
    text = gates.map_markdown(tmp_path / "runs", tmp_path / "diag")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ")][1:]
    assert len(rows) == 9
    assert rows[0].endswith("| next: R, C |") and "| not run |" in rows[1]
    assert "coexist in no cell measured" in text
    assert gates.status(tmp_path / "runs", tmp_path / "diag") == wk.walk({}, {})


def test_the_map_reads_a_diagnostic_and_rules_out_by_it(tmp_path, monkeypatch):
    block = {"diff": 0.01, "ci": [-0.02, 0.04], "p_high": 0.05, "p_low": 0.04}
    report = {
        "goal_effect": {"kinds": {"any": block}},
        "transfer": {"estimate": 1.0, "ci": [0.9, 1.1]},
    }
    diag = tmp_path / "diag"
    diag.mkdir()
    (diag / "transfer-rctp-k5-w3-s31.json").write_text(json.dumps(report))
    shares = {"pilot-c-k5-s31": 0.8}
    monkeypatch.setattr(gates.pg, "all_fail_share", lambda folder: shares.get(folder.name))
    text = gates.map_markdown(tmp_path / "runs", diag)
    assert "| fails R |" in text and "ruled out: no separation at (5 pairs, ×3)" in text
    assert gates.status(tmp_path / "runs", diag) == wk.Step("measure", (10, 3.0), 31, ("R", "C"))


def test_the_entry_trains_the_runs_of_the_missing_gates(monkeypatch, capsys):
    trained = []
    monkeypatch.setattr(campaign.cp, "run_all", lambda camp, todo, *a: trained.append(todo))
    monkeypatch.setattr(campaign.cp, "locate", lambda spec: None)
    step = wk.Step("measure", (5, 3.0), 31, ("R", "C"))
    monkeypatch.setattr(gates, "status", lambda *a: step)
    campaign.run(design.experiments(campaign.build()), 1, False, True)
    assert trained == [["rctp-k5-w3-s31", "sft-k5-s31", "pilot-c-k5-s31"]]
    out = capsys.readouterr().out
    assert "next: 5 pairs, ×3 at seed 31: R, C" in out and "transfer-rctp-k5-w3-s31.json" in out
    step = wk.Step("measure", (10, 2.0), 31, ("C′",))
    monkeypatch.setattr(gates, "status", lambda *a: step)
    campaign.run(["cell-k10-w2"], 1, False, True)
    assert trained[-1] == ["pilot-cprime-k10-w2-s31"]
    monkeypatch.setattr(gates, "status", lambda *a: wk.Step("ended"))
    campaign.run(["cell-k5-w3"], 1, False, True)
    assert len(trained) == 2 and "the map has ended" in capsys.readouterr().out


def test_the_sentence_of_an_ended_map_names_no_cell():
    """An ended walk has no cell; the sentence must not read one (it did, and crashed)."""
    text = gates.sentence(wk.Step("ended"), {}, {5: 0.15})
    assert text.startswith("The map has ended: every cell of the grid is measured or ruled out.")
    assert "coexist in no cell measured" in text
