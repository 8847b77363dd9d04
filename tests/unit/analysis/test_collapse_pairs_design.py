"""The collapse-pairs design runs (analysis/campaigns/collapse_pairs/design.py): the matched SFT
takes RCTP-FT's recipe, starts from the same base and reads the RCTP-FT's mix; the pilots are
the gates' 50 steps at G = 5."""

from __future__ import annotations

import dataclasses

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
