"""Shared-prefix teacher forcing (rcgrpo.policy.teacher) equals the per-rollout pass.

Each case builds groups of rollouts that share a prompt prefix and compares, against
``teacher_forced`` on the right-padded rows (the path it replaces): log-probs and entropies
to 1e-5, and parameter gradients to 1e-4 relative. The cases are the ones the fast path
could get wrong: ragged groups, a reward goal that makes rows differ inside the prompt, no
shared prefix at all, a row that IS the shared prefix plus one token, a row with an empty
loss mask, a group of one row, and chunk sizes that split a group. The last tests run the
whole update (``run_update``, SGD so parameter deltas are gradients) both ways, with filtered
groups, several micro-batch sizes, minibatches and inner epochs.
"""

from __future__ import annotations

import copy

import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from rcgrpo.policy.teacher import SharedPrefixForward, common_prefix_length, shared_prefix_length
from rcgrpo.train.config import TrainConfig
from rcgrpo.train.distributed import DistInfo
from rcgrpo.train.rl.update import TrainBatch, UpdateSettings, run_update, teacher_forced
from tests.unit.train.rl_fakes import fake_rollout

PAD, V, TAU, LR = 0, 48, 0.8, 10.0


def _model(seed: int = 0, tied: bool = True) -> Qwen2ForCausalLM:
    torch.manual_seed(seed)
    cfg = Qwen2Config(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=tied,
        pad_token_id=PAD,
    )
    return Qwen2ForCausalLM(cfg)


def _group(seed: int, prefix: int, tails: list[int], goal_at: int | None = None):
    """Rows = shared prefix (+ a per-row goal token at ``goal_at``) + random generated tails;
    the loss mask is a random ~70% of the tail (a real mask has gaps: tool outputs)."""
    g = torch.Generator().manual_seed(seed)
    head = torch.randint(1, V, (prefix,), generator=g)
    ids, masks = [], []
    for b, n in enumerate(tails):
        row = head.clone()
        if goal_at is not None:
            row[goal_at] = 1 + b % 2  # the reward goal: high / low alternate
        row = torch.cat([row, torch.randint(1, V, (n,), generator=g)])
        mask = torch.zeros(row.numel(), dtype=torch.bool)
        mask[prefix:] = torch.rand(n, generator=g) < 0.7
        ids.append(row)
        masks.append(mask)
    return ids, masks


def _reference(model, ids, masks, entropy: str):
    width = max(r.numel() for r in ids)
    batch = {
        "input_ids": torch.full((len(ids), width), PAD, dtype=torch.long),
        "attention_mask": torch.zeros(len(ids), width, dtype=torch.bool),
        "loss_mask": torch.zeros(len(ids), width, dtype=torch.bool),
    }
    for b, (r, m) in enumerate(zip(ids, masks, strict=True)):
        batch["input_ids"][b, : r.numel()] = r
        batch["attention_mask"][b, : r.numel()] = True
        batch["loss_mask"][b, : r.numel()] = m
    return teacher_forced(model, batch, TAU, entropy)


def _objective(logp, ent, weights):
    """A loss touching every selected log-prob and entropy with distinct weights."""
    return (logp * weights[: logp.shape[1]]).sum() + 0.3 * (ent * weights[: ent.shape[1]]).sum()


def _grads(model) -> dict[str, torch.Tensor]:
    return {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


def _assert_grads_close(a, b, rel=1e-4):
    assert a.keys() == b.keys()
    for name in a:
        scale = b[name].norm().clamp_min(1e-8)
        assert float((a[name] - b[name]).norm() / scale) < rel, name


CASES = {
    "ragged": dict(prefix=10, tails=[5, 9, 3, 7]),
    "reward goal inside the prompt": dict(prefix=10, tails=[6, 4, 8, 5], goal_at=6),
    "goal at token 0: nothing shared": dict(prefix=6, tails=[4, 7, 2], goal_at=0),
    "one row is the prefix plus one token": dict(prefix=8, tails=[1, 6, 4]),
    "one row": dict(prefix=7, tails=[5]),
}


def test_common_prefix_lengths_by_hand():
    t = torch.tensor
    assert common_prefix_length([t([1, 2, 3, 4]), t([1, 2, 9]), t([1, 2, 3])]) == 2
    assert common_prefix_length([t([5, 6]), t([5, 6, 7])]) == 2  # one row is a prefix
    assert common_prefix_length([t([1, 2]), t([3, 2])]) == 0
    assert common_prefix_length([t([4, 5, 6])]) == 3
    assert common_prefix_length([]) == 0
    # K keeps one token per row: a row equal to the common prefix leaves K = its length - 1
    assert shared_prefix_length([t([5, 6]), t([5, 6, 7])]) == 1
    assert shared_prefix_length([t([1, 2, 3, 4]), t([1, 2, 9])]) == 2
    assert shared_prefix_length([t([7])]) == 0


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("chunk_size", [0, 1, 3])
def test_group_pass_equals_per_row_pass(case, chunk_size):
    model = _model()
    ids, masks = _group(seed=len(case), **CASES[case])
    masks[0][0] = True  # position 0 has no prediction: must be ignored by both paths
    weights = torch.linspace(0.5, 1.5, max(r.numel() for r in ids))
    logp0, ent0 = _reference(model, ids, masks, "grad")
    _objective(logp0, ent0, weights).backward()
    expected = _grads(model)
    model.zero_grad()
    forward = SharedPrefixForward(
        model, ids, masks, temperature=TAU, entropy="grad", chunk_size=chunk_size
    )
    seen = []
    for chunk in forward.chunks():
        for i, b in enumerate(chunk.rows):
            n = ids[b].numel()
            torch.testing.assert_close(chunk.logp[i, :n], logp0[b, :n], atol=1e-5, rtol=0)
            torch.testing.assert_close(chunk.entropy[i, :n], ent0[b, :n], atol=1e-5, rtol=0)
            assert bool((chunk.mask[i, :n] == (masks[b] & (torch.arange(n) > 0))).all())
            seen.append(b)
        objective = _objective(chunk.logp, chunk.entropy, weights)
        if objective.requires_grad:  # a chunk may select no position (nothing to score)
            objective.backward()
    forward.backward_prefix()
    assert sorted(seen) == list(range(len(ids)))
    _assert_grads_close(_grads(model), expected)


def test_prefix_runs_once_and_is_what_the_rows_share():
    ids, masks = _group(seed=3, prefix=12, tails=[4, 5, 6], goal_at=9)
    assert SharedPrefixForward(_model(), ids, masks, temperature=1.0).prefix == 9
    assert SharedPrefixForward(_model(), ids, masks, temperature=1.0, share=False).prefix == 0


def test_rows_of_similar_length_share_a_pass():
    ids, masks = _group(seed=4, prefix=5, tails=[3, 40, 4, 41])
    forward = SharedPrefixForward(_model(), ids, masks, temperature=1.0)
    assert forward.prefix == 5
    # PASS_COST_TOKENS 48: one pass pads all four to 41 (4·41 + 48 = 212); two passes cost
    # 2·41 + 48 + 2·4 + 48 = 186
    assert [chunk.rows for chunk in forward.chunks()] == [[3, 1], [2, 0]]
    capped = SharedPrefixForward(_model(), ids, masks, temperature=1.0, chunk_size=1)
    assert [chunk.rows for chunk in capped.chunks()] == [[3], [1], [2], [0]]


def test_empty_loss_mask_row_has_zero_logprobs_and_no_gradient_effect():
    model = _model()
    ids, masks = _group(seed=5, prefix=9, tails=[6, 5, 7])
    masks[1][:] = False
    forward = SharedPrefixForward(model, ids, masks, temperature=TAU, entropy="grad")
    (chunk,) = forward.chunks()
    row = chunk.rows.index(1)
    assert chunk.logp[row].abs().sum() == 0 and chunk.entropy[row].abs().sum() == 0
    logp0, ent0 = _reference(model, ids, masks, "grad")
    for i, b in enumerate(chunk.rows):
        n = ids[b].numel()
        torch.testing.assert_close(chunk.logp[i, :n], logp0[b, :n], atol=1e-5, rtol=0)


def test_untied_head_and_bad_input():
    model = _model(tied=False)
    ids, masks = _group(seed=7, prefix=8, tails=[3, 6])
    logp0, _ = _reference(model, ids, masks, "none")
    forward = SharedPrefixForward(model, ids, masks, temperature=TAU)
    for chunk in forward.chunks():
        assert chunk.entropy is None
        for i, b in enumerate(chunk.rows):
            n = ids[b].numel()
            torch.testing.assert_close(chunk.logp[i, :n], logp0[b, :n], atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="one mask per row"):
        SharedPrefixForward(model, ids, masks[:1], temperature=1.0)
    with pytest.raises(ValueError, match="non-empty 1-D"):
        SharedPrefixForward(
            model, [torch.tensor([], dtype=torch.long)], [torch.tensor([])], temperature=1.0
        )
    with pytest.raises(ValueError, match="entropy must be one of"):
        SharedPrefixForward(model, ids, masks, temperature=1.0, entropy="yes")


# ---- the whole update, both paths ----------------------------------------------------------


def _train_batch(rc: bool, drop: bool) -> TrainBatch:
    """3 groups of G = 4 with ragged rollouts; ``rc`` puts a per-rollout goal in the prompt;
    ``drop`` removes rollouts as a group filter would (one group keeps a single rollout)."""
    rollouts, adv, ordinal, high = [], [], [], []
    sizes = [4, 4, 4] if not drop else [4, 1, 3]
    for p, size in enumerate(sizes):
        ids, _ = _group(seed=10 + p, prefix=9 + p, tails=[3 + (p + g) % 4 for g in range(4)])
        for g in range(size):
            row = ids[g].tolist()
            if rc:
                row[5] = 1 + g % 2
            rollouts.append(fake_rollout(row, gen_from=9 + p, p=p, g=g, high=bool(g % 2)))
            adv.append(((-1.0) ** g) * (0.5 + 0.25 * p))
            ordinal.append(p)
            high.append(bool(g % 2))
    high_t = torch.tensor(high) if rc else None
    return TrainBatch(rollouts, torch.tensor(adv), ordinal, high_t)


def _cfg(micro: int, share: bool, **optim) -> TrainConfig:
    cfg = TrainConfig()
    cfg.algo.kl_beta = 0.05
    cfg.algo.entropy_coef = 0.01
    cfg.rollout.max_context = 64
    cfg.rollout.temperature = TAU
    cfg.optim.micro_batch = micro
    cfg.optim.share_prefix = share
    for key, value in optim.items():
        setattr(cfg.optim, key, value)
    return cfg


def _update(cfg, batch):
    """SGD is linear in the gradient, so parameter deltas compare gradients; a large lr keeps
    the deltas far above the float32 rounding of the parameters themselves."""
    model, ref = _model(1), _model(2)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    stats = run_update(model, ref, opt, batch, UpdateSettings.of(cfg), DistInfo(), LR, PAD)
    return model, stats


@pytest.mark.parametrize("rc", [False, True])
@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("micro", [0, 1, 3])
def test_update_equals_reference_path(rc, drop, micro):
    batch = _train_batch(rc, drop)
    new, s_new = _update(_cfg(micro, True), copy.deepcopy(batch))
    old, s_old = _update(_cfg(micro, False), copy.deepcopy(batch))
    start = _model(1).state_dict()
    delta_new = {n: p.detach() - start[n] for n, p in new.named_parameters()}
    delta_old = {n: p.detach() - start[n] for n, p in old.named_parameters()}
    _assert_grads_close(delta_new, delta_old)
    for key in ("tokens", "policy/kl_ref", "policy/entropy", "loss/total", "loss/kl"):
        assert float(s_new.sums[key]) == pytest.approx(float(s_old.sums[key]), rel=1e-5, abs=1e-7)
    assert s_new.grad_norms == pytest.approx(s_old.grad_norms, rel=1e-4)


def test_update_with_minibatches_and_epochs_equals_reference_path():
    """Several updates per step: the old pass (π_old) and the ratio go through both paths."""
    batch = _train_batch(rc=True, drop=False)
    new, s_new = _update(_cfg(2, True, minibatches=3, inner_epochs=2), copy.deepcopy(batch))
    old, s_old = _update(_cfg(2, False, minibatches=3, inner_epochs=2), copy.deepcopy(batch))
    assert s_new.updates == s_old.updates == 6
    for (n, a), b in zip(new.named_parameters(), old.parameters(), strict=True):
        scale = (b.detach() - _model(1).state_dict()[n]).norm().clamp_min(1e-8)
        assert float((a.detach() - b.detach()).norm() / scale) < 1e-4, n
    for key in ("policy/ratio_mean", "policy/clipfrac", "policy/approx_kl_old"):
        assert float(s_new.sums[key]) == pytest.approx(float(s_old.sums[key]), rel=1e-4, abs=1e-7)
