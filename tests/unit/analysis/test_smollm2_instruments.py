"""``smollm2-instruments``: its runs are the frozen recipe homed here, and its readings
(``docs/protocols/smollm2-instruments.md``) on hand-made diagnostics at each boundary."""

from __future__ import annotations

import pytest

from analysis.campaign.mechanics import Checkpoint
from analysis.campaigns.smollm2_collapse import design as frozen
from analysis.campaigns.smollm2_instruments import design
from analysis.campaigns.smollm2_instruments import readings as rd


def test_the_runs_are_the_frozen_recipe_in_this_home():
    old, new = frozen.stage1(retry=True), design.stage1()
    assert new["base"].argv == (*old["base"].argv, "--sft.threads", "2")
    assert [str(a) for a in new["rctp"].argv] == [str(a) for a in old["rctp"].argv]
    starts = [a.run for a in new["rctp"].argv if isinstance(a, Checkpoint)]
    assert starts == [new["base"], new["base"]] and new["rctp"].keep == ("final",)
    assert {s.home for s in new.values()} == {design.HOME}
    command = design.transfer_command()
    out = command[command.index("--out") + 1]
    assert out == "results/diagnostics/transfer-smol-inst-rctp-s31.json"
    assert command[command.index("--init") + 1] == "results/smollm2-instruments/rctp-s31/final"
    assert command[command.index("--tasks") + 1] == "50"


def _report(p_high, p_low, ci, rho=1.0, rho_ci=(0.95, 1.05), batches=4, cos_ci=(0.95, 1.0)):
    diff = p_high - p_low
    collapse = {
        g: {
            "observed": 0.8,
            "predicted": 0.7,
            "diff": 0.1,
            "ci": c,
            "all_fail": 0.6,
            "success": 0.2,
            "group": 5,
        }
        for g, c in (("high", (0.06, 0.14)), ("low", (-0.03, 0.04)))
    }
    return {
        "goal_effect": {
            "kinds": {"any": {"p_high": p_high, "p_low": p_low, "diff": diff, "ci": ci}},
            "start_collapse": collapse,
        },
        "transfer": {
            "estimate": rho,
            "ci": list(rho_ci),
            "informative_batches": batches,
            "gradient": {
                "cosine": {"estimate": 0.98, "ci": list(cos_ci)},
                "gain_ratio": {"estimate": 1.0, "ci": [0.9, 1.1]},
            },
        },
    }


@pytest.mark.parametrize(
    ("p_high", "p_low", "ci", "expected"),
    [
        (0.30, 0.30, (-0.02, 0.02), "inert: carries over"),
        (0.50, 0.30, (0.12, 0.28), "separated: does not carry over"),
        (0.33, 0.30, (-0.01, 0.07), "unclear"),
        (0.02, 0.02, (-0.01, 0.01), "stopped at P0 (floor)"),
        (0.97, 0.99, (-0.04, 0.01), "stopped at P0 (ceiling)"),
    ],
)
def test_f1_reads_gate_r_behind_the_floor(p_high, p_low, ci, expected):
    assert rd.f1(_report(p_high, p_low, ci)["goal_effect"]).reading == expected


@pytest.mark.parametrize(
    ("rho_ci", "batches", "expected"),
    [
        ((0.93, 1.04), 4, "holds"),
        ((0.5, 0.8), 4, "does not hold"),
        ((1.12, 1.3), 3, "does not hold"),
        ((0.85, 1.02), 4, "inconclusive"),
        ((0.93, 1.04), 1, "not estimable"),
    ],
)
def test_f2a_bands_rho_hat(rho_ci, batches, expected):
    tr = _report(0.3, 0.3, (0, 0), rho_ci=rho_ci, batches=batches)["transfer"]
    assert rd.f2a(tr).reading == expected


@pytest.mark.parametrize(
    ("cos_ci", "expected"),
    [((0.92, 1.0), "holds"), ((0.1, 0.3), "does not hold"), ((0.8, 0.99), "inconclusive")],
)
def test_f2b_bands_the_cosine(cos_ci, expected):
    assert rd.f2b(_report(0.3, 0.3, (0, 0), cos_ci=cos_ci)["transfer"]).reading == expected


def test_f3_reads_each_goal_and_a_report_without_it_says_not_measured():
    got = {r.id: r.reading for r in rd.readings(_report(0.3, 0.3, (-0.01, 0.01)))}
    assert got["F3-high"] == "exceeds" and got["F3-low"] == "equivalent within ±0.05"
    assert [r.reading for r in rd.f3({"kinds": {}})] == ["not measured"]


def test_markdown_says_not_run_without_the_diagnostic(tmp_path):
    assert rd.markdown(tmp_path / "none.json", tmp_path).startswith("Not run")
