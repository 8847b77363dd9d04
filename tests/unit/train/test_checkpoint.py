"""Checkpoints: round trip of model, optimizer and RNG; atomicity; corruption is detected."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from rcgrpo.train.checkpoint import (
    CheckpointError,
    latest_checkpoint,
    list_checkpoints,
    load_trainer_state,
    save_checkpoint,
    set_rng_state,
)


def _tiny_model(seed: int = 0) -> Qwen2ForCausalLM:
    torch.manual_seed(seed)
    cfg = Qwen2Config(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=32,
    )
    return Qwen2ForCausalLM(cfg)


def test_round_trip_restores_weights_optimizer_and_rng(tmp_path):
    model = _tiny_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.tensor([[1, 2, 3]]), labels=torch.tensor([[1, 2, 3]])).loss.backward()
    opt.step()
    gen = torch.Generator().manual_seed(7)
    torch.rand(3, generator=gen)
    path = save_checkpoint(
        tmp_path,
        3,
        model,
        optimizer=opt,
        generators={"rollout": gen},
        data_state={"epoch": 1, "cursor": 17},
    )
    expected = (
        random.random(),
        np.random.rand(),
        torch.rand(1).item(),
        torch.rand(1, generator=gen).item(),
    )

    state = load_trainer_state(path)
    gen2 = torch.Generator()
    set_rng_state(state["rng"], {"rollout": gen2})
    got = (
        random.random(),
        np.random.rand(),
        torch.rand(1).item(),
        torch.rand(1, generator=gen2).item(),
    )
    assert got == expected
    assert state["step"] == 3 and state["data"] == {"epoch": 1, "cursor": 17}

    reloaded = Qwen2ForCausalLM.from_pretrained(path)
    for a, b in zip(model.parameters(), reloaded.parameters(), strict=True):
        assert torch.equal(a, b)
    opt2 = torch.optim.AdamW(reloaded.parameters(), lr=1e-3)
    opt2.load_state_dict(state["optimizer"])
    assert opt2.state_dict()["state"][0]["step"] == opt.state_dict()["state"][0]["step"]


def test_keep_last_and_temp_folders_are_ignored(tmp_path):
    model = _tiny_model()
    for step in (1, 2, 3):
        save_checkpoint(tmp_path, step, model, keep_last=2)
    (tmp_path / ".tmp_step_4_123").mkdir()  # what a kill mid-write leaves behind
    assert [p.name for p in list_checkpoints(tmp_path)] == ["step_2", "step_3"]
    assert latest_checkpoint(tmp_path).name == "step_3"


def test_corrupt_checkpoint_is_reported_and_skipped(tmp_path):
    model = _tiny_model()
    save_checkpoint(tmp_path, 1, model)
    bad = save_checkpoint(tmp_path, 2, model)
    weights = bad / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="model.safetensors is corrupt"):
        load_trainer_state(bad)
    with pytest.warns(UserWarning, match="skipping corrupt checkpoint"):
        assert latest_checkpoint(tmp_path).name == "step_1"
    (bad / "manifest.json").unlink()
    with pytest.raises(CheckpointError, match="no manifest.json"):
        load_trainer_state(bad)
