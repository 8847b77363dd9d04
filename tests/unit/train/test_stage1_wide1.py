"""The Stage-1 presets of the chosen design (variant 17 on ``regime-wide1-d10``,
docs/regime.md) are the recipe of its committed Stage-1 runs: ``sft-regime-wide1`` of every
committed SFT of variants 15–17 and the proof seeds, ``rctp-regime-wide1`` of every committed
RCTP-FT of variant 17."""

from __future__ import annotations

import json

import pytest

from analysis import REPO_ROOT
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.config import to_dict, upgrade_config
from rcgrpo.train.stage1.config import preset

RESULTS = REPO_ROOT / "results" / "regime"
SFT_RUNS = ("sft-wide1-s0", "sft-wide1-s1", "sft-wide1-s2", "sft-w15-s7", "sft-w15-s19")
SFT_RUNS += ("sft-w16-s20", "sft-w17-s21")
RCTP_RUNS = ("rctp-w17-s7", "rctp-w17-s20", "rctp-w17-s21")
RUN_SPECIFIC = frozenset({"run.name", "run.seed", "model.path", "failures.policy"})
"""Keys the recipe does not fix, so the test ignores them: ``run.name`` (the folder, named by
variant and seed), ``run.seed``, ``model.path`` (the checkpoint it starts from: the pool SFT of
the seed, ``sft-s3`` for seeds without one; for RCTP-FT the seed's regime SFT) and
``failures.policy`` (that same SFT checkpoint). Everything else is compared, ``run.root``
(``runs/regime``) and ``sft.amp`` (fp32, as asked) included."""


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
    return out


def _recipe_differences(name: str, run: str) -> dict:
    """Committed key -> (committed value, preset value) where they differ, over every key of
    the committed config.json but :data:`RUN_SPECIFIC` (a key the preset lacks differs; one the
    code added since the run was trained is not in config.json, so not compared)."""
    have = _flat(json.loads((RESULTS / run / "config.json").read_text()))
    want = _flat(to_dict(preset(name)))
    missing = object()
    return {
        k: (v, want.get(k, missing))
        for k, v in have.items()
        if k not in RUN_SPECIFIC and want.get(k, missing) != v
    }


@pytest.mark.parametrize("run", SFT_RUNS)
@pytest.mark.results
def test_sft_regime_wide1_is_the_committed_sft_recipe(run):
    assert _recipe_differences("sft-regime-wide1", run) == {}


@pytest.mark.parametrize("run", RCTP_RUNS)
@pytest.mark.results
def test_rctp_regime_wide1_is_the_committed_rctp_recipe(run):
    assert _recipe_differences("rctp-regime-wide1", run) == {}


def test_the_rctp_preset_starts_from_and_samples_the_sft_preset():
    """RCTP-FT fine-tunes the regime SFT model and samples its failures from it (both keys
    ignored above): the preset names the SFT preset's final checkpoint for both."""
    sft, rctp = preset("sft-regime-wide1"), preset("rctp-regime-wide1")
    final = f"{sft.run.root}/{sft.run.name}/final"
    assert rctp.model.path == rctp.failures.policy == final == "runs/regime/sft-regime-wide1/final"


@pytest.mark.results
def test_the_documented_commands_write_the_committed_configs_byte_for_byte():
    """The preset plus the run-specific flags of docs/regime.md ("Measuring a design") resolve
    to the committed config.json exactly: seed 0's SFT from the pool SFT of seed 0 (the preset's
    default), the design seed 7's RCTP-FT from its SFT ``sft-w15-s7``."""
    sft = parse_cli(
        "sft", ["--preset", "sft-regime-wide1", "--run.seed", "0", "--run.name", "sft-wide1-s0"]
    )
    committed = json.loads((RESULTS / "sft-wide1-s0" / "config.json").read_text())
    assert to_dict(sft) == upgrade_config(committed)  # in today's keys: sft.successes_of ""
    start = "results/regime/sft-w15-s7/final"
    flags = ["--run.seed", "7", "--run.name", "rctp-w17-s7", "--model.path", start]
    rctp = parse_cli("rctp", ["--preset", "rctp-regime-wide1", *flags, "--failures.policy", start])
    committed = json.loads((RESULTS / "rctp-w17-s7" / "config.json").read_text())
    assert to_dict(rctp) == upgrade_config(committed)  # today's keys: goals.labels, failures.pairs


def _changes(base: str, name: str) -> dict:
    old, new = _flat(to_dict(preset(base))), _flat(to_dict(preset(name)))
    return {k: v for k, v in new.items() if old[k] != v}


def test_the_wide1_presets_differ_from_the_regime_presets_as_documented():
    """analysis/campaigns/regime_wide1/presets.py: the suite and fp32 for SFT; for RCTP-FT also its start,
    4 epochs, the four swaps skipped but for 0.4%, goal rows 0.6 apart."""
    suite = {"sft.synth_preset": "regime-wide1-d10", "sft.amp": "fp32"}
    assert _changes("sft-synth-regime", "sft-regime-wide1") == {
        **suite,
        "run.name": "sft-regime-wide1",
    }
    assert _changes("rctp-synth-regime", "rctp-regime-wide1") == {
        **suite,
        "model.path": "runs/regime/sft-regime-wide1/final",
        "sft.epochs": 4.0,
        "failures.policy": "runs/regime/sft-regime-wide1/final",
        "failures.skip_decisions": ["rename_copy", "resolve_close", "comment_post", "delete_view"],
        "failures.skip_keep": 0.004,
        "goals.spread": 0.6,
        "run.name": "rctp-regime-wide1",
    }
