"""The RL update: teacher-forced log-probs, hand-computed losses, accumulation = full batch,
no signal = no change, non-finite skip, minibatch / epoch counts."""

from __future__ import annotations

import copy
import math

import pytest
import torch
from rl_fakes import fake_rollout
from transformers import Qwen2Config, Qwen2ForCausalLM

from rcgrpo.policy.recompute import sequence_logprobs
from rcgrpo.train.config import TrainConfig
from rcgrpo.train.distributed import DistInfo
from rcgrpo.train.rl.update import (
    TrainBatch,
    UpdateSettings,
    padded,
    run_update,
    teacher_forced,
)

SOLO = DistInfo()
PAD = 0


def _model(seed: int = 0) -> Qwen2ForCausalLM:
    torch.manual_seed(seed)
    cfg = Qwen2Config(
        vocab_size=32,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
        pad_token_id=PAD,
    )
    return Qwen2ForCausalLM(cfg)


def _batch(adv, lengths=(2, 3, 1), high=None) -> TrainBatch:
    """Rollouts with a 3-token prompt and ``lengths`` generated tokens, one group each."""
    rollouts = [
        fake_rollout([5, 6, 7] + [8 + (b + t) % 20 for t in range(n)], gen_from=3, p=b)
        for b, n in enumerate(lengths)
    ]
    return TrainBatch(
        rollouts, torch.tensor(adv, dtype=torch.float32), list(range(len(lengths))), high
    )


def _cfg(**algo) -> TrainConfig:
    cfg = TrainConfig()
    cfg.algo.kl_beta = 0.0
    cfg.rollout.max_context = 64
    cfg.optim.lr = 1e-2
    for key, value in algo.items():
        setattr(cfg.algo, key, value)
    return cfg


def _update(model, batch, cfg, ref=None, sgd=False):
    if sgd:  # linear in the gradient: parameter differences ARE gradient differences
        opt = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=0.0)
    settings = UpdateSettings.of(cfg)
    return run_update(
        model, ref or copy.deepcopy(model), opt, batch, settings, SOLO, cfg.optim.lr, PAD
    )


def test_teacher_forced_matches_recompute_and_entropy_definition():
    model, batch = _model(), _batch([1.0, -1.0, 0.5])
    pad = padded(batch.rollouts, PAD)
    logp, ent = teacher_forced(model, pad, 0.7, "detached")
    ref = sequence_logprobs(model, pad["input_ids"], pad["attention_mask"], pad["loss_mask"], 0.7)
    assert torch.allclose(logp, ref, atol=1e-6)
    # entropy of row 0 at its first generated token (position 3, predicted from logits[2])
    with torch.no_grad():
        z = model(input_ids=pad["input_ids"]).logits[0, 2] / 0.7
    probs = z.softmax(-1)
    assert ent[0, 3].item() == pytest.approx(-(probs * probs.log()).sum().item(), rel=1e-5)
    assert ent[0, :3].abs().sum() == 0 and ent[2, 4:].abs().sum() == 0  # prompt / padding


def test_token_mean_loss_at_ratio_one_is_minus_token_weighted_advantage():
    # one update, π_old = π_θ -> ρ = 1, β = 0: loss = -Σ_j A_j n_j / N
    # A = (1, -1, 0.5), n = (2, 3, 1): -(2 - 3 + 0.5) / 6 = 1/12
    stats = _update(_model(), _batch([1.0, -1.0, 0.5]), _cfg())
    assert float(stats.sums["loss/pg"]) == pytest.approx(1 / 12, rel=1e-6)
    assert float(stats.sums["tokens"]) == 6 and stats.updates == 1 and stats.skipped == 0
    assert float(stats.sums["policy/ratio_mean"]) / 6 == pytest.approx(1.0)


def test_dr_grpo_divides_by_rows_times_constant_length():
    # seq-mean-token-sum-norm: -Σ_j A_j n_j / (B' L) with L = rollout.max_context = 64
    cfg = _cfg(loss_agg="seq-mean-token-sum-norm")
    stats = _update(_model(), _batch([1.0, -1.0, 0.5]), cfg)
    assert float(stats.sums["loss/pg"]) == pytest.approx(0.5 / (3 * 64), rel=1e-6)


@pytest.mark.parametrize("agg", ["token-mean", "seq-mean-token-mean"])
def test_micro_batches_give_the_full_batch_gradient(agg):
    # each micro-batch divides by the minibatch's count, so the summed gradient is the
    # full-batch gradient (the same argument makes N ranks equal one process)
    base, batch = _model(), _batch([1.0, -1.0, 0.5], lengths=(2, 5, 1))
    whole, micro = copy.deepcopy(base), copy.deepcopy(base)
    cfg = _cfg(kl_beta=0.1, entropy_coef=0.01, loss_agg=agg)
    cfg.optim.lr, cfg.optim.max_grad_norm = 1.0, 1e9  # SGD step = -gradient, no clipping
    a = _update(whole, batch, cfg, ref=copy.deepcopy(base), sgd=True)
    cfg.optim.micro_batch = 1
    b = _update(micro, batch, cfg, ref=copy.deepcopy(base), sgd=True)
    assert a.grad_norms[0] > 0 and a.grad_norms == pytest.approx(b.grad_norms, rel=1e-5)
    for (name, p), q in zip(whole.named_parameters(), micro.parameters(), strict=True):
        assert torch.allclose(p, q, atol=1e-6), name


def test_no_signal_no_change():
    # all advantages 0, β = 0, no entropy bonus, no weight decay: the gradient is exactly 0
    model = _model()
    before = copy.deepcopy(model.state_dict())
    stats = _update(model, _batch([0.0, 0.0, 0.0]), _cfg())
    assert stats.grad_norms == [0.0]
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_non_finite_update_is_skipped():
    model = _model()
    before = copy.deepcopy(model.state_dict())
    stats = _update(model, _batch([math.nan, 1.0, 0.0]), _cfg())
    assert stats.skipped == 1 and stats.updates == 1
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_minibatches_and_epochs_count_updates_and_start_on_policy():
    cfg = _cfg()
    cfg.optim.minibatches, cfg.optim.inner_epochs = 2, 2
    stats = _update(_model(), _batch([1.0, -1.0, 0.5]), cfg)
    assert stats.updates == 4  # 2 epochs x 2 minibatches (groups 0, 2 | group 1)
    assert float(stats.sums["tokens"]) == 2 * 6
    # the first update sees ρ = 1 against the recomputed π_old; later ones drift from 1
    assert float(stats.ratio_min) <= 1.0 <= float(stats.ratio_max)
    assert float(stats.ratio_max) > 1.0 or float(stats.ratio_min) < 1.0


def test_entropy_split_by_reward_token():
    high = torch.tensor([True, False, True])
    stats = _update(_model(), _batch([1.0, -1.0, 0.5], high=high), _cfg(conditioning="iid"))
    assert float(stats.sums["tokens_high"]) == 3 and float(stats.sums["tokens_low"]) == 3
    total = float(stats.sums["policy/entropy"])
    split = float(stats.sums["policy/entropy_high"]) + float(stats.sums["policy/entropy_low"])
    assert split == pytest.approx(total, rel=1e-6)


def test_empty_batch_makes_no_update():
    # DAPO with no kept group: no tokens anywhere, so no optimizer step at all
    model = _model()
    before = copy.deepcopy(model.state_dict())
    empty = TrainBatch([], torch.zeros(0), [], None)
    stats = _update(model, empty, _cfg())
    assert stats.updates == 0 and stats.grad_norms == []
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
