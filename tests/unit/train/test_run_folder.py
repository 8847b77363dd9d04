"""The run-folder life cycle both stages share (:mod:`rcgrpo.train.run_folder`)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from rcgrpo.train.config import to_dict
from rcgrpo.train.run_folder import check_folder, check_same_run, holds_run, seed_all
from rcgrpo.train.runlog import RunPaths
from rcgrpo.train.stage1.config import preset, with_overrides
from rcgrpo.train.validate import ConfigError


def _draws() -> tuple[float, float, float]:
    return random.random(), float(np.random.rand()), float(torch.rand(()))


def test_seed_all_seeds_random_numpy_and_torch():
    seed_all(7)
    first = _draws()
    seed_all(7)
    assert _draws() == first
    seed_all(8)
    assert all(a != b for a, b in zip(_draws(), first, strict=True))
    seed_all(2**40 + 7)  # numpy takes seeds < 2**32: reduced, not refused
    assert float(np.random.rand()) == pytest.approx(first[1])


@pytest.mark.parametrize("what", ["metrics", "summary", "checkpoint"])
def test_a_folder_with_rows_a_summary_or_a_checkpoint_holds_a_run(tmp_path, what):
    paths = RunPaths(tmp_path / "run").make()
    (paths.root / "metrics.jsonl").write_text("")  # an empty log is not a run
    assert not holds_run(paths)
    check_folder(paths, resume=False)
    if what == "metrics":
        paths.metrics.write_text('{"step": 1}\n')
    elif what == "summary":
        (paths.root / "summary.json").write_text("{}\n")
    else:
        (paths.checkpoints / "step_2").mkdir()
        (paths.checkpoints / "step_2" / "manifest.json").write_text("{}")
    assert holds_run(paths)
    with pytest.raises(ConfigError, match="already holds a run"):
        check_folder(paths, resume=False)
    check_folder(paths, resume=True)


def test_a_resumed_config_may_change_only_the_resumable_keys(tmp_path):
    paths = RunPaths(tmp_path / "run").make()
    cfg = preset("sft-synth-cpu")
    paths.config.write_text(json.dumps(to_dict(cfg)))
    check_same_run(with_overrides(cfg, run={"resume": True, "progress": False}), paths)
    with pytest.raises(ConfigError, match=r"^config: run\.steps is 9 but the run being resumed"):
        check_same_run(with_overrides(cfg, run={"steps": 9}), paths)
    check_same_run(with_overrides(cfg, run={"steps": 9}), paths, ("run.steps",))
    with pytest.raises(ConfigError, match=r"sft\.amp is 'fp32' but .* used 'auto'"):
        check_same_run(with_overrides(cfg, sft={"amp": "fp32"}), paths)
    check_same_run(cfg, RunPaths(tmp_path / "no-config"))  # nothing to compare with


def test_a_run_started_before_the_estimator_registry_resumes_under_its_new_name(tmp_path):
    # a config.json written with algo.adv_scale "none" is the run of adv_estimator dr-grpo
    import dataclasses

    from rcgrpo.train.presets import preset as rl_preset

    paths = RunPaths(tmp_path / "run").make()
    cfg = rl_preset("cpu-drgrpo")
    stored = to_dict(cfg)
    stored["algo"]["adv_scale"] = {"dr-grpo": "none"}[stored["algo"].pop("adv_estimator")]
    paths.config.write_text(json.dumps(stored))
    check_same_run(cfg, paths)
    grpo = dataclasses.replace(cfg, algo=dataclasses.replace(cfg.algo, adv_estimator="grpo"))
    with pytest.raises(ConfigError, match=r"algo\.adv_estimator is 'grpo' but .* used 'dr-grpo'"):
        check_same_run(grpo, paths)
