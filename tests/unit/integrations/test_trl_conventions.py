"""What TRL's GRPOTrainer computes vs ``python -m rcgrpo train``, pinned on TRL's own code.

docs/trl.md ("What differs from python -m rcgrpo train") states each item; one test each:

- std convention: TRL's A = group_advantages(R, eps_stab=1e-4, ddof=1), ours defaults to
  ddof 0, eps 1e-6;
- log-prob temperature: both score tokens under softmax(z/τ) at the rollout temperature;
- ratio / KL / aggregation: with ``loss_type="dapo"`` and ``use_bias_correction_kl=False``
  TRL's loss and gradient equal ``rcgrpo.policy_loss(ratio_level="token", kl_estimator="k3",
  agg_mode="token-mean")``; ``importance_sampling_level="sequence"`` is our ``sequence``
  ratio; TRL has no trajectory-level ratio; ``loss_type="grpo"`` is our
  ``seq-mean-token-mean`` except that TRL counts empty rows; TRL's default KL weighting
  (``use_bias_correction_kl=True``) keeps the loss value and adds β·agg(k3·∇log π) to the
  gradient; TRL does not clamp the log-ratio, we clamp it at ±20.
"""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo import aggregate, group_advantages, kl_penalty, policy_loss, token_logprobs
from rcgrpo.integrations.trl import TRL_ADV_DDOF, TRL_ADV_EPS, RCGRPOTrainer, RolloutSettings

TAU = 0.7
BETA = 0.1
MATMULS = 2 * 9 + 1
"""Matmuls of the checkpoint's forward (2 layers x q, k, v, QK^T, AV, o, gate, up, down, and
the LM head)."""
WIDTH = 192
"""The longest dot product in them (the MLP's intermediate size)."""
FORWARD_RTOL = MATMULS * math.sqrt(WIDTH) * torch.finfo(torch.float32).eps
"""Relative agreement of two float32 forward passes of one model whose matmuls are blocked
differently (TRL slices ``logits_to_keep``; AVX2 and AVX-512 kernels sum in other orders):
rounding errors of a length-K dot product grow like sqrt(K)·ε, and add up over the passes'
matmuls: 19·sqrt(192)·ε ≈ 3.1e-5. Observed: 3e-6 (AVX2) and < 2.6e-6 (AVX-512). Every
convention difference these tests tell apart (a missing row, the KL weighting) moves the
loss by > 1e-2."""


@pytest.fixture(scope="module")
def trainer(coin_flip_dir, coin_flip_tokenizer, coin_flip_tasks, tmp_path_factory):
    from trl import GRPOConfig

    args = GRPOConfig(
        output_dir=str(tmp_path_factory.mktemp("trl_conventions")),
        num_generations=4,
        per_device_train_batch_size=8,
        max_steps=1,
        beta=BETA,
        temperature=TAU,
        loss_type="dapo",
        use_bias_correction_kl=False,
        report_to=[],
        use_cpu=True,
        bf16=False,  # TRL's default is bf16 autocast
        save_strategy="no",
        gradient_checkpointing=False,
        disable_tqdm=True,
    )
    settings = RolloutSettings(prompt_style="bare", max_context=400)
    tr = RCGRPOTrainer(coin_flip_dir, args, coin_flip_tasks, coin_flip_tokenizer, settings)
    tr.current_gradient_accumulation_steps = 1  # set by the training loop; one window here
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only add contention
    yield tr
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def batch(trainer):
    """2 (+1 empty) rows: prompt 3 tokens, completion 4; row 0 has an environment token."""
    gen = torch.Generator().manual_seed(0)
    vocab = trainer.model.config.vocab_size
    prompt = torch.randint(5, vocab, (3, 3), generator=gen)
    completion = torch.randint(5, vocab, (3, 4), generator=gen)
    completion_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 0]])
    tool_mask = torch.tensor([[1, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]])  # row 2: no model token
    return {
        "prompt_ids": prompt,
        "prompt_mask": torch.ones_like(prompt),
        "completion_ids": completion,
        "completion_mask": completion_mask,
        "tool_mask": tool_mask,
        "advantages": torch.tensor([0.7, -1.3, 0.4]),
    }


def _our_logp(model, batch):
    """log π_θ of the completion tokens from raw logits, tempered (rcgrpo.token_logprobs)."""
    ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    att = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    logits = model(input_ids=ids, attention_mask=att).logits
    width = batch["completion_ids"].shape[1]
    return token_logprobs(logits[:, -width - 1 : -1], batch["completion_ids"], temperature=TAU)


def _inputs(batch, logp, old_shift, ref_shift):
    mask = batch["completion_mask"] * batch["tool_mask"]
    return {
        **batch,
        "old_per_token_logps": (logp + old_shift).detach(),
        "ref_per_token_logps": (logp + ref_shift).detach(),
        "num_items_in_batch": mask.sum(),
    }, mask.bool()


def _trl_loss_and_grads(trainer, inputs):
    model = trainer.model
    model.zero_grad()
    loss = trainer._compute_loss(model, inputs)
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in model.parameters()]


def _our_loss_and_grads(trainer, batch, inputs, mask, **kw):
    model = trainer.model
    model.zero_grad()
    logp = _our_logp(model, batch)
    loss, _ = policy_loss(
        logp,
        inputs["old_per_token_logps"],
        inputs["ref_per_token_logps"],
        inputs["advantages"],
        mask,
        beta=BETA,
        kl_estimator="k3",
        **kw,
    )
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in model.parameters()]


SHIFTS = (
    torch.tensor([[0.1, -0.3, 0.25, 0.0], [-0.4, 0.05, 0.3, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    torch.tensor([[-0.2, 0.1, 0.3, -0.1], [0.2, -0.25, 0.15, 0.0], [0.0, 0.0, 0.0, 0.0]]),
)


def _close(a, b, tol=1e-5):
    return all(torch.allclose(x, y, atol=tol, rtol=1e-4) for x, y in zip(a, b, strict=True))


def test_std_convention_trl_is_bessel_plus_1e4_ours_defaults_to_population():
    from trl.trainer.utils import nanstd

    # R = (1, 0, 0, 0): μ = 1/4; Σ(R-μ)² = 9/16 + 3/16 = 3/4
    r = torch.tensor([[1.0, 0.0, 0.0, 0.0]])
    trl_adv = (r - r.mean(dim=1, keepdim=True)) / (nanstd(r, dim=1, keepdim=True) + 1e-4)
    # ddof 1: σ = sqrt(3/4 / 3) = 1/2 -> A_0 = 0.75 / 0.5001
    assert trl_adv[0, 0].item() == pytest.approx(0.75 / 0.5001, abs=1e-6)
    ours_trl = group_advantages(r, eps_stab=TRL_ADV_EPS, ddof=TRL_ADV_DDOF)
    assert torch.allclose(ours_trl, trl_adv, atol=1e-6)
    # our trainer's default, the paper's ddof 0: σ = sqrt(3/16) -> A_0 = sqrt(3) = 1.7320...
    assert group_advantages(r)[0, 0].item() == pytest.approx(0.75 / (3**0.5 / 4 + 1e-6), abs=1e-6)


def test_both_score_tokens_at_the_rollout_temperature(trainer, batch):
    ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    att = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    with torch.no_grad():
        trl_logp, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, att, 4)
        ours = _our_logp(trainer.model, batch)
        untempered = token_logprobs(
            trainer.model(input_ids=ids, attention_mask=att).logits[:, 2:-1],
            batch["completion_ids"],
        )
    live = batch["completion_mask"].bool()
    scale = float(ours[live].abs().max())  # log-probs err absolutely, like the logits
    assert torch.allclose(trl_logp[live], ours[live], rtol=0, atol=FORWARD_RTOL * scale)
    assert not torch.allclose(trl_logp[live], untempered[live], atol=1e-3)


def test_token_ratio_k3_and_token_mean_match_policy_loss(trainer, batch):
    with torch.no_grad():
        logp = _our_logp(trainer.model, batch)
    inputs, mask = _inputs(batch, logp, *SHIFTS)
    trl_loss, trl_grads = _trl_loss_and_grads(trainer, inputs)
    our_loss, our_grads = _our_loss_and_grads(trainer, batch, inputs, mask, agg_mode="token-mean")
    assert trl_loss.item() == pytest.approx(our_loss.item(), rel=FORWARD_RTOL)
    assert _close(trl_grads, our_grads)


def test_sequence_ratio_is_our_sequence_level_and_trajectory_is_not_in_trl(trainer, batch):
    with torch.no_grad():
        logp = _our_logp(trainer.model, batch)
    inputs, mask = _inputs(batch, logp, *SHIFTS)
    trainer.importance_sampling_level = "sequence"
    try:
        trl_loss, _ = _trl_loss_and_grads(trainer, inputs)
        trainer.importance_sampling_level = "trajectory"
        with pytest.raises(ValueError, match="Unknown importance sampling level"):
            trainer._compute_loss(trainer.model, inputs)
    finally:
        trainer.importance_sampling_level = "token"
    our_loss, _ = _our_loss_and_grads(
        trainer, batch, inputs, mask, agg_mode="token-mean", ratio_level="sequence"
    )
    assert trl_loss.item() == pytest.approx(our_loss.item(), rel=FORWARD_RTOL)


def test_grpo_loss_is_seq_mean_token_mean_but_counts_empty_rows(trainer, batch):
    with torch.no_grad():
        logp = _our_logp(trainer.model, batch)
    inputs, mask = _inputs(batch, logp, *SHIFTS)
    trainer.loss_type = "grpo"
    try:
        trl_loss, _ = _trl_loss_and_grads(trainer, inputs)
    finally:
        trainer.loss_type = "dapo"
    our_loss, _ = _our_loss_and_grads(trainer, batch, inputs, mask, agg_mode="seq-mean-token-mean")
    # row 2 has no model token: TRL averages over B = 3 rows, we over the B' = 2 non-empty
    assert trl_loss.item() == pytest.approx(our_loss.item() * 2 / 3, rel=FORWARD_RTOL)


def test_trl_default_kl_weighting_keeps_the_value_and_changes_the_gradient(trainer, batch):
    with torch.no_grad():
        logp = _our_logp(trainer.model, batch)
    # on-policy (old = None in TRL: the ratio is exactly 1), as in one update per round
    inputs, mask = _inputs(batch, logp, torch.zeros(3, 4), SHIFTS[1])
    del inputs["old_per_token_logps"]
    trainer.args.use_bias_correction_kl = True
    try:
        trl_loss, trl_grads = _trl_loss_and_grads(trainer, inputs)
    finally:
        trainer.args.use_bias_correction_kl = False
    model = trainer.model
    model.zero_grad()
    cur = _our_logp(model, batch)
    ref = inputs["ref_per_token_logps"]
    ours, _ = policy_loss(cur, cur.detach(), ref, inputs["advantages"], mask, beta=BETA)
    # d/dθ [ρ·k3] at ρ = 1 is ∇k3 + k3·∇log π: the extra term, aggregated like the loss
    extra = BETA * aggregate(kl_penalty(cur, ref).detach() * (cur - cur.detach()), mask)
    (ours + extra).backward(retain_graph=True)
    assert trl_loss.item() == pytest.approx(ours.item(), rel=FORWARD_RTOL)
    assert _close(trl_grads, [p.grad for p in model.parameters()])
    model.zero_grad()
    ours.backward()  # without the extra term the gradients differ
    assert not _close(trl_grads, [p.grad.clone() for p in model.parameters()])


def test_trl_does_not_clamp_the_log_ratio_we_clamp_at_20(trainer, batch):
    with torch.no_grad():
        logp = _our_logp(trainer.model, batch)
    # one token 25 nats more likely than under π_old, with a negative advantage: the
    # unclipped branch ρ·A is the min, so the loss shows ρ itself
    shift = torch.zeros(3, 4)
    shift[1, 0] = -25.0
    inputs, mask = _inputs(batch, logp, shift, SHIFTS[1])
    inputs["ref_per_token_logps"] = logp.detach()
    trl_loss, _ = _trl_loss_and_grads(trainer, inputs)
    our_loss, _ = _our_loss_and_grads(trainer, batch, inputs, mask, agg_mode="token-mean")
    n = float(mask.sum())
    # the two differ exactly in that token's term: -A·e^25 (TRL) vs -A·e^20 (ours)
    expected_gap = 1.3 * (torch.tensor(25.0).exp() - torch.tensor(20.0).exp()).item() / n
    assert trl_loss.item() - our_loss.item() == pytest.approx(expected_gap, rel=1e-4)
