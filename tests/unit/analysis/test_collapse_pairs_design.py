"""The collapse-pairs design runs (analysis/campaigns/collapse_pairs/design.py): the matched SFT
takes RCTP-FT's recipe, starts from the same base and reads the RCTP-FT's mix; the pilots are
the gates' 50 steps at G = 5."""

from __future__ import annotations

import dataclasses
import json

import pytest

from analysis.campaign.mechanics import Checkpoint
from analysis.campaigns.collapse_pairs import design
from rcgrpo.train import presets as rl_presets
from rcgrpo.train.stage1.config import preset


def _flags(argv) -> dict[str, tuple[str, ...]]:
    out, key = {}, None
    for a in argv:
        if isinstance(a, str) and a.startswith("--"):
            key = a
            out[key] = ()
        elif key:
            out[key] += (str(a),)
    return out


def test_matched_sft_takes_rctp_fts_recipe_from_the_same_base():
    runs = design.stage1("p1", 31)
    rctp, sft = _flags(runs["rctp"].argv), _flags(runs["sft"].argv)
    assert rctp["--model.path"] == sft["--model.path"] == (design.BASE[31],)
    assert rctp["--failures.pairs"] == ("50",) and rctp["--failures.skip_keep"] == ("0",)
    ref = dataclasses.asdict(preset("rctp-collapse"))
    for flag, *values in design.MATCHED:
        section, field = flag[2:].split(".")
        want = ref[section][field]
        got = [type(want[0])(v) for v in values] if isinstance(want, tuple | list) else None
        assert (got == list(want)) if got is not None else type(want)(values[0]) == want, flag
    mix = [a for a in runs["sft"].argv if isinstance(a, Checkpoint)]
    assert [(m.run.name, m.sub) for m in mix] == [("rctp-p1-s31", "mix")]


def test_pilots_are_the_gates_fifty_steps_at_g5():
    runs = design.stage1("p2", 32)
    pilots = design.pilots("p2", 32, runs)
    assert set(pilots) == {"c", "cprime"}
    for gate, start in (("c", "sft-p2-s32"), ("cprime", "rctp-p2-s32")):
        argv = pilots[gate].argv
        assert _flags(argv)["--run.steps"] == ("50",)
        assert [a.run.name for a in argv if isinstance(a, Checkpoint)] == [start]
        assert rl_presets.preset(str(argv[2])).rollout.group_size == 5


def test_build_has_every_variant_and_seed_once():
    camp = design.build()
    assert list(camp.experiments) == ["design-p1", "design-p2", "design-p3"]
    assert len(camp.runs) == 3 * 2 * 4
    assert design.experiments(camp) == list(camp.experiments)


def test_p4_weighs_the_decision_tokens_at_its_dose_only():
    runs = design.stage1("p4", 31, p4_pairs=150)
    flags = _flags(runs["rctp"].argv)
    assert flags["--failures.pairs"] == ("150",)
    assert flags["--failures.pair_weight"] == (str(design.P4_WEIGHT),)
    assert "--failures.pair_weight" not in _flags(design.stage1("p3", 31)["rctp"].argv)
    assert "--failures.pair_weight" not in _flags(runs["sft"].argv)
    with pytest.raises(ValueError, match="needs its dose"):
        design.stage1("p4", 31)


def _measured(tmp_path, diffs: dict[str, float]):
    """Transfer diagnostics of variants at seed 31 (the gates read them with the pilots)."""
    diag = tmp_path / "diagnostics"
    diag.mkdir(exist_ok=True)
    for v, diff in diffs.items():
        block = {"diff": diff, "ci": [diff - 0.01, diff + 0.01], "p_high": 0.2}
        report = {
            "goal_effect": {"kinds": {"any": block}},
            "transfer": {"estimate": 1, "ci": [1, 1]},
        }
        (diag / f"transfer-rctp-{v}-s31.json").write_text(json.dumps(report))
    return diag


def test_p4_dose_follows_the_protocols_rule(tmp_path, monkeypatch):
    from analysis.campaigns.collapse_pairs import gates

    shares = {}
    monkeypatch.setattr(gates, "all_fail_share", lambda folder: shares.get(folder.name))
    diag = _measured(tmp_path, {"p1": 0.001, "p2": 0.04, "p3": 0.02})
    # a pilot not yet run: no decision
    shares.update({f"pilot-{g}-{v}-s31": 0.2 for g in ("c", "cprime") for v in ("p1", "p2")})
    assert gates.p4_dose(tmp_path, diag) is None
    # all measured, none passes: the dose of the largest R difference (P2)
    shares.update({"pilot-c-p3-s31": 0.6, "pilot-cprime-p3-s31": 0.6})
    assert gates.p4_dose(tmp_path, diag) == design.VARIANTS["p2"]
    # a variant passing every gate: no P4
    _measured(tmp_path, {"p3": 0.2})
    assert gates.passes("p3", 31, tmp_path, diag) == (0.2, True)
    assert gates.p4_dose(tmp_path, diag) is None


def test_the_transfer_diagnostic_reads_the_variants_rctp_and_writes_its_gate_file():
    argv = design.transfer_command("p4", 31, 450)
    flags = _flags(argv[2:])
    assert argv[:3] == ["python", "-m", "analysis.diagnostics.transfer"]
    assert flags["--init"][0].endswith("rctp-p4-s31/final")
    assert flags["--out"][0].endswith("results/diagnostics/transfer-rctp-p4-s31.json")
    assert (flags["--tasks"], flags["--samples"]) == (("200",), ("32",))
    with pytest.raises(ValueError, match="needs its dose"):
        design.transfer_command("p4", 31)
