"""A resumed SFT run ends with exactly the weights and metric rows of an uninterrupted one."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from transformers import AutoModelForCausalLM

from rcgrpo.train.cli import run_command
from rcgrpo.train.errors import RunFinished
from rcgrpo.train.stage1.config import preset, with_overrides
from rcgrpo.train.stage1.sft import run_sft
from rcgrpo.train.validate import ConfigError


def _cfg(root, name, resume=False):
    return with_overrides(
        preset("sft-synth-cpu"),
        model={"path": "micro"},
        tasks={"num_train": 10, "num_eval": 2},
        sft={
            "batch_size": 4,
            "vocab_size": 300,
            "eval_modes": ["multi_turn"],
            "eval_max_new_tokens": 4,
            "weak_snapshot_frac": 0.0,
            "threads": 1,
        },
        optim={"lr": 3e-3, "warmup_steps": 1},
        run={
            "root": str(root),
            "name": name,
            "steps": 4,
            "checkpoint_every": 2,
            "keep_checkpoints": 5,
            "progress": False,
            "tensorboard": False,
            "resume": resume,
        },
    )


def _weights(path):
    return AutoModelForCausalLM.from_pretrained(path).state_dict()


def _rows(run):
    return [
        {
            k: v
            for k, v in json.loads(line).items()
            if "time" not in k and "per_s" not in k and "cpu" not in k and "rss" not in k
        }
        for line in (run / "metrics.jsonl").read_text().splitlines()
    ]


def test_resume_reproduces_the_uninterrupted_run(tmp_path):
    run_sft(_cfg(tmp_path, "straight"))
    run_sft(_cfg(tmp_path, "cut"))
    cut = tmp_path / "cut"
    # simulate a kill after step 2: drop what steps 3-4 produced, then resume
    shutil.rmtree(cut / "checkpoints" / "step_4")
    shutil.rmtree(cut / "final")
    (cut / "summary.json").unlink()  # written last: a killed run has none
    run_sft(_cfg(tmp_path, "cut", resume=True))
    a, b = _weights(tmp_path / "straight" / "final"), _weights(cut / "final")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert _rows(cut) == _rows(tmp_path / "straight")
    assert [r["step"] for r in _rows(cut)] == [1, 2, 3, 4]


def test_a_fresh_start_refuses_a_folder_that_holds_a_run(tmp_path):
    run_sft(_cfg(tmp_path, "done"))
    done = tmp_path / "done"
    before = {p: p.read_bytes() for p in (done / "config.json", done / "summary.json")}
    weights = _weights(done / "final")
    with pytest.raises(ConfigError, match=r"already holds a run; pass --run.resume"):
        run_sft(with_overrides(_cfg(tmp_path, "done"), optim={"lr": 1e-3}))
    assert {p: p.read_bytes() for p in before} == before  # nothing rewritten
    after = _weights(done / "final")
    assert all(torch.equal(weights[k], after[k]) for k in weights)


def test_a_resumed_run_must_have_the_config_it_started_with(tmp_path):
    run_sft(_cfg(tmp_path, "cut"))
    cut = tmp_path / "cut"
    shutil.rmtree(cut / "checkpoints" / "step_4")
    config = (cut / "config.json").read_bytes()
    changed = with_overrides(_cfg(tmp_path, "cut", resume=True), optim={"lr": 1e-3})
    with pytest.raises(ConfigError, match=r"config: optim\.lr is 0\.001 but the run being resumed"):
        run_sft(changed)
    assert (cut / "config.json").read_bytes() == config


def _files(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_resuming_a_finished_run_stops_and_leaves_every_file_byte_identical(tmp_path):
    run_sft(_cfg(tmp_path, "done"))
    before = _files(tmp_path / "done")
    with pytest.raises(RunFinished, match=r"done holds a finished run \(summary\.json\)"):
        run_sft(_cfg(tmp_path, "done", resume=True))
    assert _files(tmp_path / "done") == before
    assert run_command("sft", lambda: run_sft(_cfg(tmp_path, "done", resume=True))) == 0


def test_a_corrupt_latest_checkpoint_falls_back_and_all_corrupt_is_refused(tmp_path, capsys):
    run_sft(_cfg(tmp_path, "straight"))
    run_sft(_cfg(tmp_path, "cut"))
    cut = tmp_path / "cut"
    shutil.rmtree(cut / "final")
    (cut / "summary.json").unlink()  # killed after its last checkpoint
    weights = cut / "checkpoints" / "step_4" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:64])
    for step in (4, 2):  # every checkpoint corrupt: refused, nothing rewritten
        weights = cut / "checkpoints" / f"step_{step}" / "model.safetensors"
        saved = weights.read_bytes()
        weights.write_bytes(saved[:64])
    before = _files(cut)
    with pytest.raises(ConfigError, match=r"^run\.resume: no checkpoint of .* \(step_2, step_4\)"):
        run_sft(_cfg(tmp_path, "cut", resume=True))
    assert _files(cut) == before
    weights.write_bytes(saved)  # step_2 good again, step_4 corrupt: resumes from step_2
    logged = (cut / "metrics.jsonl").read_text().splitlines()
    run_sft(_cfg(tmp_path, "cut", resume=True))
    assert "skipping corrupt checkpoint" in capsys.readouterr().err
    assert (cut / "metrics.jsonl").read_text().splitlines()[:2] == logged[:2]
    assert _rows(cut) == _rows(tmp_path / "straight")
