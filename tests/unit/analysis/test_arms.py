"""One registry of arms (analysis/campaign/arms.py, gathering ARMS of each campaign folder's arms.py):
every reader takes an arm from it, so adding an arm is one record plus its preset values."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from analysis import REPO_ROOT
from analysis.campaign import arms as am
from analysis.campaign import spec
from analysis.campaigns import presets as ps
from analysis.campaigns.collapse import presets as collapse_presets
from analysis.campaigns.pool import driver as ex
from analysis.campaigns.pool import presets as pool_presets
from analysis.campaigns.pool import tables as tb
from analysis.campaigns.pool import verdicts as vd
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10 import presets as regime_d10_presets
from analysis.campaigns.regime_wide1 import presets as regime_wide1_presets
from analysis.campaigns.regime_wide1.arms import FACTORIAL as WIDE1_FACTORIAL
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from rcgrpo.train import presets as own
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.config import TrainConfig, from_dict, upgrade_config

THROWAWAY = am.Arm(
    "cpu-kl0", "sft", "no KL anchor", "GRPO, β 0", "orange", "baselines", "entropy", "pool"
)
"""A new baseline arm that takes over the entropy bonus's verdict role."""


@pytest.fixture
def registered(monkeypatch):
    """The registry with cpu-entropy replaced by :data:`THROWAWAY` (and its preset values)."""
    kept = tuple(a for a in am.ARMS if a.preset != "cpu-entropy")
    monkeypatch.setattr(am, "gather", lambda: (*kept, THROWAWAY))
    monkeypatch.setitem(ps.CHANGES, THROWAWAY.preset, {"algo": {"kl_beta": 0.0}})
    return THROWAWAY


def test_a_registered_arm_gets_its_preset_from_its_record_and_values(registered):
    cfg = from_dict(TrainConfig, ps.arm_sections(registered))
    assert (
        cfg.init == pool_presets.SFT_INIT and cfg.algo.kl_beta == 0.0
    )  # start "sft"; its one change
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
    assert tuple(d10[r] for r in ("rctp_rc", "rctp_grpo", "sft_rc", "sft_grpo")) == pop.FACTORIAL
    assert (pop.RCTP_STRAT, pop.TEMP_MATCHED, pop.COEF_MATCHED) == (
        "regime-rcgrpo-strat",
        "regime-rctp-grpo-temp",
        "regime-rctp-grpo-entcoef",
    )  # the names docs/protocols/regime-d10.md pre-registered


def test_every_arm_is_a_preset_and_every_campaign_preset_an_arm():
    presets = {a.preset for a in am.ARMS}
    assert len(presets) == len(am.ARMS)  # one record per arm
    assert presets == set(ps.RL) == set(ps.CHANGES)
    assert not presets & {*own.PRESETS, *own.TRL_PRESETS}  # the method names no arm
    for regime in am.REGIMES:
        assert len(am.roles(regime)) == len(am.arms(regime))  # a role held once
    assert {a.colour for a in am.ARMS} <= set(fs.PALETTE) == set(am.COLOURS)
    inits = {
        "pool": {"sft": pool_presets.SFT_INIT, "rctp": pool_presets.RCTP_INIT},
        "regime-d10": {"sft": regime_d10_presets.SFT_INIT, "rctp": regime_d10_presets.RCTP_INIT},
        "regime-wide1": {
            "sft": regime_wide1_presets.SFT_INIT,
            "rctp": regime_wide1_presets.RCTP_INIT,
        },
        "collapse": {
            "sft": collapse_presets.SFT_INIT,
            "rctp": collapse_presets.RCTP_INIT,
            "rctp-shuffled": collapse_presets.SHUFFLED_INIT,
        },
    }
    assert set(inits) == set(am.REGIMES)
    for a in am.ARMS:
        assert ps.RL[a.preset].init == inits[a.regime][a.start], a.preset


def test_the_presets_docstring_table_lists_the_pool_arms():
    """The table in analysis/campaigns/pool/presets.py: preset, init, reward token of every pool
    arm."""
    rows = re.findall(
        r"^``(cpu-[\w-]+)``\s+(SFT|RCTP-FT)\s+(.+?)\s{2,}", pool_presets.__doc__, re.M
    )
    token = {"none": "none", "iid": "iid, p = 0.5", "stratified": "stratified", "high": "high"}
    want = {a.preset: (a.init, token[ps.RL[a.preset].algo.conditioning]) for a in am.arms("pool")}
    assert {p: (i, t) for p, i, t in rows} == want
    assert len(rows) == len(want)


def test_the_arms_one_regime_figure_draws_together_have_distinct_colours():
    from analysis.campaigns.regime_d10 import fig_regime_baselines, fig_regime_factorial

    for drawn in (fig_regime_baselines.ARMS, fig_regime_factorial.ARMS):
        colours = [next(a.colour for a in am.ARMS if a.preset == p) for p in drawn]
        assert len(set(colours)) == len(colours), dict(zip(drawn, colours, strict=True))


def test_the_wide1_arms_are_the_regime_d10_factorial_on_regime_wide1():
    """The regime-wide1 campaign's arms: the regime-d10 factorial's cells (start, names,
    colours, roles, order), each preset its regime-d10 cell but for the suite and the
    Stage-1 checkpoints."""
    d10, wide1 = am.arms("regime-d10", "regime-factorial"), am.arms("regime-wide1")
    assert (
        [a.preset for a in wide1]
        == list(WIDE1_FACTORIAL)
        == [
            "regime-wide1-grpo",
            "regime-wide1-sft-rc",
            "regime-wide1-rctp-grpo",
            "regime-wide1-rcgrpo",
        ]
    )
    assert {a.experiment for a in wide1} == {"regime-wide1-factorial"}
    same = ("start", "label", "method", "colour", "role", "tex")
    for a, b in zip(d10, wide1, strict=True):
        assert [getattr(a, f) for f in same] == [getattr(b, f) for f in same], b.preset
        have, want = ps.arm_sections(a), ps.arm_sections(b)
        inits = {"sft": regime_wide1_presets.SFT_INIT, "rctp": regime_wide1_presets.RCTP_INIT}
        assert (
            want["init"] == inits[b.start] and want["tasks"]["synth_preset"] == "regime-wide1-d10"
        )
        have["tasks"]["synth_preset"] = want["tasks"]["synth_preset"]
        assert have | {"init": want["init"]} == want, b.preset
    assert am.roles("regime-wide1") == {
        "sft_grpo": "regime-wide1-grpo",
        "sft_rc": "regime-wide1-sft-rc",
        "rctp_grpo": "regime-wide1-rctp-grpo",
        "rctp_rc": "regime-wide1-rcgrpo",
    }
    assert not set(WIDE1_FACTORIAL) & set(pop.ROLES.values())  # regime-d10 readers skip them


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.results
def test_regime_wide1_grpo_is_the_recipe_of_the_committed_wide1_proof_runs(seed):
    """The proof runs on regime-wide1-d10 were ``--preset regime-grpo --tasks.synth_preset
    regime-wide1-d10 --run.eval-every 100`` (docs/regime.md); ``regime-wide1-grpo`` with the
    same evaluation cadence resolves to their config.json but for the preset's name and the
    machine's paths (a field added to the code since is no difference)."""
    folder = REPO_ROOT / "results" / "regime" / f"regime-wide1-grpo-s{seed}"
    have = json.loads((folder / "config.json").read_text())
    argv = ["--preset", "regime-wide1-grpo", "--run.seed", str(seed), "--run.eval-every", "100"]
    cfg = parse_cli("train", [*argv, "--init", "X"])
    want = json.loads(json.dumps(dataclasses.asdict(cfg)))
    skip = frozenset({"preset", "init", "run.root", "run.resume"})
    assert spec.differences(upgrade_config(have), want, skip) == []
    assert (have["preset"], want["run"]["name"]) == ("regime-grpo", folder.name)


def test_an_unknown_regime_is_refused_not_empty():
    from analysis.campaign.arms import arms

    assert arms("regime-d10", "regime-separation")  # the separation study's arms
    with pytest.raises(ValueError, match="unknown regime 'new'"):
        arms("new")
