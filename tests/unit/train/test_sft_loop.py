"""SFT maths and loop pieces: the masked loss, the lr schedule, batching, config presets."""

from __future__ import annotations

import pytest
import torch

from rcgrpo.losses import sft_loss
from rcgrpo.metrics import validate_metric_names
from rcgrpo.train.cli import command_presets, parse_cli
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.stage1.config import RCTPConfig, SFTConfig, preset, with_overrides
from rcgrpo.train.stage1.data import batch_schedule
from rcgrpo.train.stage1.sft import window_metrics
from rcgrpo.train.validate import validate_config


def test_batch_schedule_is_a_deterministic_partition_with_little_padding():
    lengths = [(i * 37) % 101 + 10 for i in range(300)]
    a = batch_schedule(lengths, 8, seed=0, epoch=0)
    assert sorted(i for b in a for i in b) == list(range(300))
    assert all(len(b) == 8 for b in a[:-1]) or sum(len(b) < 8 for b in a) <= 2
    assert a == batch_schedule(lengths, 8, seed=0, epoch=0)
    assert a != batch_schedule(lengths, 8, seed=0, epoch=1)
    padded = sum(len(b) * max(lengths[i] for i in b) for b in a)
    assert padded < 1.1 * sum(lengths)  # bucketing keeps padding under 10% here


def test_length_curriculum_opens_epoch_0_with_the_shortest_batches():
    lengths = [(i * 37) % 101 + 10 for i in range(300)]
    plain = batch_schedule(lengths, 8, seed=0, epoch=0)
    warm = batch_schedule(lengths, 8, seed=0, epoch=0, curriculum=0.5)
    mean = lambda b: sum(lengths[i] for i in b) / len(b)  # noqa: E731
    head = warm[:19]  # ceil(0.5 * 38 batches)
    assert sorted(map(sorted, warm)) == sorted(map(sorted, plain))  # same batches, reordered
    assert [mean(b) for b in head] == sorted(mean(b) for b in head)
    assert max(mean(b) for b in head) <= min(mean(b) for b in warm[19:])
    assert warm[19:] == [b for b in plain if b not in head]  # the rest keeps its shuffled order
    assert batch_schedule(lengths, 8, seed=0, epoch=1, curriculum=0.5) == batch_schedule(
        lengths, 8, seed=0, epoch=1
    )  # later epochs are plain
    assert batch_schedule(lengths, 8, seed=0, epoch=0, curriculum=1.0)[0] == min(warm, key=mean)


def test_window_metrics_are_registry_names_and_token_weighted():
    window = [
        {"ce_sum": 6.0, "n": 3, "correct": 3, "grad_norm": 1.0, "finite": True, "tokens": 10},
        {"ce_sum": 1.0, "n": 1, "correct": 0, "grad_norm": 3.0, "finite": True, "tokens": 10},
    ]
    m = window_metrics(window, seconds=4.0, lr=1e-3, epoch=0.5)
    validate_metric_names(m)
    assert m["loss/sft"] == pytest.approx(7 / 4) and m["sft/token_acc"] == pytest.approx(3 / 4)
    assert m["sft/tokens_per_s"] == pytest.approx(5.0) and m["policy/grad_norm"] == 2.0


def test_presets_validate_and_gpu_presets_carry_the_paper_values():
    for name in {**command_presets("sft"), **command_presets("rctp")}:  # own and the campaigns'
        cfg = validate_config(preset(name))
        assert cfg.stage == name.removeprefix("quick-").split("-")[0]
        assert isinstance(cfg, RCTPConfig) == (cfg.stage == "rctp")
    sft, rctp = preset("sft-bfcl-gpu"), preset("rctp-bfcl-gpu")
    assert (sft.optim.lr, sft.sft.batch_size, sft.sft.epochs) == (1e-5, 16, 2.0)
    assert (rctp.optim.lr, rctp.sft.batch_size, rctp.sft.epochs) == (1e-5, 16, 5.0)
    assert sft.sft.modes == ("multi_turn",) and rctp.failures.temperature == 0.7
    # CPU Stage 1 = the RL suite and prompt (the pool campaign's presets: synth "cpu", combined)
    for name in ("sft-synth-cpu", "rctp-synth-cpu"):
        cfg = preset(name)
        assert cfg.sft.modes == ("combined",) and cfg.sft.synth_preset == "cpu"
    assert preset("sft-synth-cpu").sft.prompt_loss_weight == 1.0
    assert preset("rctp-synth-cpu").sft.prompt_loss_weight == 0.0


def test_config_loading_is_strict_and_validated():
    with pytest.raises(ValueError, match=r"unknown config key 'sft\.epoch'"):
        with_overrides(SFTConfig(), sft={"epoch": 1})
    with pytest.raises(ValueError, match="sft.modes"):
        validate_config(with_overrides(SFTConfig(), sft={"modes": ["both"]}))
    with pytest.raises(ValueError, match="sft.schedule"):
        validate_config(with_overrides(SFTConfig(), sft={"schedule": "step"}))
    with pytest.raises(ValueError, match="sft.decay_frac"):
        validate_config(with_overrides(SFTConfig(), sft={"schedule": "wsd", "decay_frac": 0.0}))
    with pytest.raises(ValueError, match="sft.length_curriculum"):
        validate_config(with_overrides(SFTConfig(), sft={"length_curriculum": 1.5}))
    cfg = with_overrides(preset("sft-synth-cpu"), run={"seed": 3}, sft={"modes": ["combined"]})
    assert cfg.run.seed == 3 and cfg.sft.modes == ("combined",)


def test_cli_preset_then_file_then_flags(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"optim": {"lr": 0.01}, "run": {"seed": 7}}')
    argv = ["--preset", "sft-bfcl-tiny", "--config", str(path), "--run.seed", "9"]
    cfg = parse_cli("sft", argv)
    assert cfg.tasks.source == "bfcl" and cfg.optim.lr == 0.01 and cfg.run.seed == 9
    with pytest.raises(ConfigError, match="preset 'rctp-synth-cpu' is a preset of rctp, not sft"):
        parse_cli("sft", ["--preset", "rctp-synth-cpu"])
    with pytest.raises(ConfigError, match=r"^config: stage must be 'sft'"):
        parse_cli("sft", ["--stage", "rctp"])


def test_train_step_prompt_weight_adds_the_non_assistant_loss():
    # micro model, one batch: the reported prompt loss is the CE on real non-assistant
    # tokens; with weight 0 it is not computed and the update differs from weight 1.
    from rcgrpo.policy.models import build_tiny_policy
    from rcgrpo.policy.tokenizer import role_corpus, train_tiny_tokenizer
    from rcgrpo.train.stage1.sft import train_step

    tok = train_tiny_tokenizer(role_corpus(20) + ["call f(a=1) ok"] * 20, vocab_size=300)
    ids = torch.tensor([[5, 6, 7, 8, 9, 10], [5, 6, 7, 8, 0, 0]])
    attn = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]], dtype=torch.bool)
    mask = torch.tensor([[0, 0, 0, 1, 1, 0], [0, 0, 1, 1, 0, 0]], dtype=torch.bool)
    batch = {"input_ids": ids, "attention_mask": attn, "loss_mask": mask}
    updated = []
    for weight in (0.0, 1.0):
        model, _ = build_tiny_policy("micro", tokenizer=tok, seed=0)
        with torch.no_grad():
            logits = model(input_ids=ids, attention_mask=attn.long()).logits
        want_prompt = sft_loss(logits, ids, attn & ~mask)[0].item() if weight else 0.0
        want_main = sft_loss(logits, ids, mask)[0].item()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        stats = train_step(model, opt, batch, 1e-2, 1.0, prompt_weight=weight)
        assert stats["prompt_loss"] == pytest.approx(want_prompt, rel=1e-5)
        assert stats["ce_sum"] / stats["n"] == pytest.approx(want_main, rel=1e-5)
        assert stats["n"] == 4 and stats["tokens"] == 10 and stats["finite"]
        updated.append(model.lm_head.weight.detach().clone())
    assert not torch.equal(updated[0], updated[1])
