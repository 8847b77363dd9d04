"""Hand-computed Stage-1 cross-entropy (``rcgrpo.losses.sft_loss``)."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo.losses import sft_loss


def test_sft_loss_hand_computed():
    # V = 4. Row 0 logits at t=0 are uniform -> CE = log 4; at t=1 the target (id 2) has
    # logit ln 3 vs 0 for the other three -> p = 3/6 -> CE = log 2. Row 1 is masked out.
    logits = torch.zeros(2, 3, 4)
    logits[0, 1, 2] = math.log(3.0)
    ids = torch.tensor([[0, 1, 2], [3, 3, 3]])
    mask = torch.tensor([[0, 1, 1], [0, 0, 0]], dtype=torch.bool)
    loss, n, correct = sft_loss(logits, ids, mask)
    assert n.item() == 2
    assert loss.item() == pytest.approx((math.log(4) + math.log(2)) / 2)
    # argmax at t=0 is id 0 (ties -> first) != 1; at t=1 it is 2 == target
    assert correct.item() == 1


def test_sft_loss_ignores_unmasked_positions_and_empty_mask_is_zero():
    logits = torch.randn(2, 5, 7, requires_grad=True)
    ids = torch.randint(0, 7, (2, 5))
    mask = torch.zeros(2, 5, dtype=torch.bool)
    loss, n, _ = sft_loss(logits, ids, mask)
    assert loss.item() == 0.0 and n.item() == 0
    mask[1, 3] = True  # only logits[1, 2] may receive gradient
    loss, _, _ = sft_loss(logits, ids, mask)
    loss.backward()
    grad = logits.grad.abs().sum(-1)
    assert grad[1, 2] > 0 and grad.sum() == grad[1, 2]
    assert loss.item() == pytest.approx(-logits[1, 2].log_softmax(-1)[ids[1, 3]].item())


def test_sft_loss_rejects_bad_shapes():
    with pytest.raises(ValueError, match="logits"):
        sft_loss(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 3))
    with pytest.raises(ValueError, match="loss_mask"):
        sft_loss(torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 2))


def test_sft_loss_reads_bf16_logits_in_float32():
    # the same logits in bf16 give the float32 loss of their bf16-rounded values
    logits = torch.tensor([[[0.3, 1.7, -0.4], [2.0, 0.1, 0.5]]])
    ids = torch.tensor([[0, 1]])
    mask = torch.tensor([[False, True]])
    loss, _, _ = sft_loss(logits.bfloat16(), ids, mask)
    want = -logits.bfloat16().float()[0, 0].log_softmax(-1)[1]
    assert loss.dtype == torch.float32 and loss.item() == pytest.approx(want.item(), rel=1e-6)


def test_sft_loss_weight_hand_computed():
    # the first test's batch with weight 3 on the t=2 target: (log 4 + 3 log 2) / 2, N = 2
    logits = torch.zeros(2, 3, 4)
    logits[0, 1, 2] = math.log(3.0)
    ids = torch.tensor([[0, 1, 2], [3, 3, 3]])
    mask = torch.tensor([[0, 1, 1], [0, 0, 0]], dtype=torch.bool)
    weight = torch.tensor([[1.0, 1.0, 3.0], [5.0, 5.0, 5.0]])  # masked-out weights are inert
    loss, n, correct = sft_loss(logits, ids, mask, weight)
    assert n.item() == 2 and correct.item() == 1
    assert loss.item() == pytest.approx((math.log(4) + 3 * math.log(2)) / 2)


def test_sft_loss_unit_weight_is_the_unweighted_loss():
    torch.manual_seed(0)
    logits = torch.randn(3, 6, 11)
    ids = torch.randint(0, 11, (3, 6))
    mask = torch.rand(3, 6) < 0.6
    plain = sft_loss(logits, ids, mask)
    weighted = sft_loss(logits, ids, mask, torch.ones(3, 6))
    assert weighted[0].item() == pytest.approx(plain[0].item(), rel=1e-6)
    assert (weighted[1], weighted[2]) == (plain[1], plain[2])
    with pytest.raises(ValueError, match="weight must have shape"):
        sft_loss(logits, ids, mask, torch.ones(3, 5))
