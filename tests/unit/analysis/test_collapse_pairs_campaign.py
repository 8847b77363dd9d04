"""``make campaign C=collapse-pairs`` trains what the protocol's order calls for next, and
nothing once the design has ended (analysis/campaigns/collapse_pairs/campaign.py)."""

from __future__ import annotations

from analysis.campaigns.collapse_pairs import campaign, gates
from analysis.campaigns.collapse_pairs import verdict as vd


def _patch(monkeypatch, st: vd.Status, measured_r: bool):
    trained = []
    monkeypatch.setattr(vd, "status", lambda *a: st)
    monkeypatch.setattr(gates, "p4_dose", lambda *a: 450)
    monkeypatch.setattr(
        gates,
        "measure",
        lambda v, s, *a: gates.Measure(
            v, s, {"diff": 0} if measured_r else None, None, None, None, None
        ),
    )
    monkeypatch.setattr(campaign.cp, "run_all", lambda camp, todo, *a: trained.append(todo))
    return trained


def test_it_trains_the_next_measurement_and_names_its_diagnostic(monkeypatch, capsys):
    trained = _patch(monkeypatch, vd.Status("measuring", "p4", 32, ()), measured_r=False)
    experiments = campaign.design.experiments(campaign.build())
    campaign.run(experiments, 1, False, True)
    assert trained == [["rctp-p4-s32", "sft-p4-s32", "pilot-c-p4-s32", "pilot-cprime-p4-s32"]]
    out = capsys.readouterr().out
    assert "next: P4 at seed 32" in out and "rctp-p4-s32/final" in out and "--seed 32" in out
    # an experiment left out by --only: nothing trained
    campaign.run(["design-p1"], 1, False, True)
    assert trained[-1] == []


def test_an_ended_design_trains_nothing(monkeypatch, capsys):
    trained = _patch(monkeypatch, vd.Status("conflict", None, None, ()), measured_r=True)
    campaign.run(["design-p4"], 1, False, True)
    assert trained == [] and "the design has ended (conflict" in capsys.readouterr().out
