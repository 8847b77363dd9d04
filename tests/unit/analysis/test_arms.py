"""One registry of arms (rcgrpo/train/arms.py): every reader takes an arm from it, so adding
an arm is one record plus its preset values."""

from __future__ import annotations

import re

import pytest

from analysis.campaign import experiments as ex
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.report import tables as tb
from analysis.verdicts import pool as vd
from analysis.verdicts import regime as rv
from rcgrpo.train import arms as am
from rcgrpo.train import presets as ps
from rcgrpo.train.config import TrainConfig, from_dict

THROWAWAY = am.Arm("cpu-kl0", "sft", "no KL anchor", "GRPO, β 0", "orange", "baselines", "entropy")
"""A new baseline arm that takes over the entropy bonus's verdict role."""


@pytest.fixture
def registered(monkeypatch):
    """The registry with cpu-entropy replaced by :data:`THROWAWAY` (and its preset values)."""
    kept = tuple(a for a in am.ARMS if a.preset != "cpu-entropy")
    monkeypatch.setattr(am, "ARMS", (*kept, THROWAWAY))
    monkeypatch.setitem(ps._CHANGES, THROWAWAY.preset, {"algo": {"kl_beta": 0.0}})
    return THROWAWAY


def test_a_registered_arm_gets_its_preset_from_its_record_and_values(registered):
    cfg = from_dict(TrainConfig, ps.arm_sections(registered))
    assert cfg.init == ps.SFT_INIT and cfg.algo.kl_beta == 0.0  # start "sft"; its one change
    assert ps.arm_sections(am.arm("cpu-grpo")) | {"algo": {}} == ps.arm_sections(registered) | {
        "algo": {}
    }  # nothing else differs from cpu-grpo


def test_a_registered_arm_is_trained_styled_tabled_and_judged(registered):
    camp = ex.build_campaign()
    runs = [n for n in camp.experiments["baselines"] if n.startswith("cpu-kl0-")]
    assert runs == [f"cpu-kl0-s{s}" for s in ex.SEEDS]
    assert all(camp.runs[n].needs == (f"sft-s{s}",) for n, s in zip(runs, ex.SEEDS, strict=True))
    assert not any(n.startswith("cpu-entropy-") for n in camp.runs)
    assert dyn.label("cpu-kl0") == "no KL anchor" and dyn.color("cpu-kl0") == fs.ORANGE
    assert list(dyn.styles())[-1] == "cpu-kl0"  # in registry order: registered last
    tables = {t.name: t for t in tb.tables()}
    rows = {r.experiment: r.labels for r in tables["baselines"].rows}
    assert rows["cpu-kl0"] == ("GRPO, β 0",) and "cpu-entropy" not in rows
    assert ("SFT", "GRPO, β 0") in [r.labels for r in tables["entropy"].rows]
    assert tb.experiments()["entropy"] == "cpu-kl0"
    rule_7a = next(r for r in vd.arm_rules() if r.claim.startswith("7a"))
    assert rule_7a.arms == ("cpu-kl0", "cpu-rcgrpo")


def test_without_the_throwaway_the_readers_see_the_committed_arms():
    cells = ["cpu-grpo", "cpu-sft-rc", "cpu-rctp-grpo", "cpu-rcgrpo"]
    assert [a.preset for a in am.arms("pool", "factorial")] == cells
    assert ex.build_campaign().experiments["factorial"][:4] == [f"{c}-s0" for c in cells]
    rule_7a = next(r for r in vd.RULES if r.claim.startswith("7a"))
    assert rule_7a.arms == ("cpu-entropy", "cpu-rcgrpo")
    d10 = am.roles("regime-d10")
    assert tuple(d10[r] for r in ("rctp_rc", "rctp_grpo", "sft_rc", "sft_grpo")) == rv.FACTORIAL
    assert (rv.RCTP_STRAT, rv.TEMP_MATCHED, rv.COEF_MATCHED) == (
        "regime-rcgrpo-strat",
        "regime-rctp-grpo-temp",
        "regime-rctp-grpo-entcoef",
    )  # the names docs/protocols/regime-d10.md pre-registered


def test_every_arm_is_a_preset_and_every_campaign_preset_an_arm():
    presets = {a.preset for a in am.ARMS}
    assert len(presets) == len(am.ARMS)  # one record per arm
    assert presets == {p for p in ps.PRESETS if not p.startswith("paper-")} == set(ps._CHANGES)
    for regime in am.REGIMES:
        assert len(am.roles(regime)) == len(am.arms(regime))  # a role held once
    assert {a.colour for a in am.ARMS} <= set(fs.PALETTE) == set(am.COLOURS)
    inits = {
        "pool": {"sft": ps.SFT_INIT, "rctp": ps.RCTP_INIT},
        "regime-d10": {"sft": ps.REGIME_SFT_INIT, "rctp": ps.REGIME_RCTP_INIT},
    }
    assert set(inits) == set(am.REGIMES)
    for a in am.ARMS:
        assert ps.PRESETS[a.preset].init == inits[a.regime][a.start], a.preset


def test_the_presets_docstring_table_lists_the_pool_arms():
    """The table in rcgrpo/train/presets.py: preset, init, reward token of every pool arm."""
    rows = re.findall(r"^``(cpu-[\w-]+)``\s+(SFT|RCTP-FT)\s+(.+?)\s{2,}", ps.__doc__, re.M)
    token = {"none": "none", "iid": "iid, p = 0.5", "stratified": "stratified", "high": "high"}
    want = {
        a.preset: (a.init, token[ps.PRESETS[a.preset].algo.conditioning]) for a in am.arms("pool")
    }
    assert {p: (i, t) for p, i, t in rows} == want
    assert len(rows) == len(want)


def test_the_arms_one_regime_figure_draws_together_have_distinct_colours():
    from analysis.figures import fig_regime_baselines, fig_regime_factorial

    for drawn in (fig_regime_baselines.ARMS, fig_regime_factorial.ARMS):
        colours = [next(a.colour for a in am.ARMS if a.preset == p) for p in drawn]
        assert len(set(colours)) == len(colours), dict(zip(drawn, colours, strict=True))
