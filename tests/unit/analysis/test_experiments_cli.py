"""Every command of the campaign parses with the real CLI parsers, fresh and resumed."""

from __future__ import annotations

import pytest

from analysis import experiments as ex
from rcgrpo.train import rl, sft

CAMPAIGN = ex.build_campaign()


@pytest.mark.parametrize("name", sorted(CAMPAIGN.runs))
@pytest.mark.parametrize("resume", [False, True])
def test_campaign_command_parses(name, resume):
    spec = CAMPAIGN.runs[name]
    cmd = spec.command(resume)
    sub, argv = cmd[3], cmd[4:]  # [python, -m, rcgrpo, <sub>, ...]
    cfg = rl.parse_cli(argv) if sub == "train" else sft.parse_cli(argv, sub, f"rcgrpo {sub}")
    assert cfg.run.resume is resume
    assert cfg.run.name == name and str(cfg.run.root) == str(ex.CAMPAIGN)
    if sub == "train":
        assert cfg.run.steps == ex.RL_STEPS and cfg.run.eval_every == ex.RL_EVAL_EVERY
        # an RL run starts from the Stage-1 run it depends on, trained on the same suite
        (dep,) = spec.needs
        assert cfg.init == str(ex.CAMPAIGN / dep / "final")
        stage1 = CAMPAIGN.runs[dep].command(False)
        s1 = sft.parse_cli(stage1[4:], stage1[3], "rcgrpo")
        assert cfg.tasks.synth_preset == s1.sft.synth_preset


def test_experiments_cover_the_factorial_and_seeds():
    assert set(CAMPAIGN.experiments) == {
        "stage1",
        "stage1-curriculum",
        "stage1-wsd",
        "factorial",
        "factorial-wsd",
        "baselines",
        "baselines-wsd",
    }
    assert len(CAMPAIGN.experiments["factorial-wsd"]) == 4 * len(ex.WSD_RL_SEEDS)
    n_base = len(ex.BASELINES) * len(ex.BASELINE_SEEDS)
    assert len(CAMPAIGN.experiments["baselines-wsd"]) == n_base
    assert len(CAMPAIGN.experiments["stage1-curriculum"]) == 2 * len(ex.SEEDS)
    assert len(CAMPAIGN.experiments["stage1-wsd"]) == 2 * len(ex.SEEDS)
    assert len(CAMPAIGN.experiments["factorial"]) == 4 * len(ex.SEEDS)
    assert len(CAMPAIGN.experiments["stage1"]) == 2 * len(ex.SEEDS)
