"""The goal log-likelihood gap (analysis.diagnostics.regime.goal_logp): a law on a goal-blind
model and hand-computed summaries."""

from __future__ import annotations

import math

import pytest
import torch

from analysis.diagnostics.regime.goal_logp import goal_gaps, summarise
from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.tokenizer import add_reward_tokens, train_tiny_tokenizer

CORPUS = ["Rename a.txt to b.txt using the tools.", "[mv(source='a.txt', destination='b.txt')]"]
ROWS = [
    {
        "reward": reward,
        "messages": [
            {"role": "system", "content": "Call tools as [func(arg=value)]."},
            {"role": "user", "content": "Rename a.txt to b.txt."},
            {"role": "assistant", "content": reply},
        ],
    }
    for reward, reply in ((1, "[mv(source='a.txt', destination='b.txt')]"), (0, "[done()]"))
]


@pytest.fixture(scope="module")
def policy():
    tokenizer = train_tiny_tokenizer(CORPUS * 20, vocab_size=300)
    model, tokenizer = build_tiny_policy("micro", tokenizer=tokenizer, seed=0)
    add_reward_tokens(tokenizer, model)
    return model, tokenizer


def _goal_ids(tokenizer) -> list[int]:
    return [tokenizer.convert_tokens_to_ids(t) for t in (HIGH_TOKEN, LOW_TOKEN)]


def test_goal_blind_model_has_zero_gap(policy):
    """Equal embedding rows for the two goal tokens: the model cannot tell them apart, so
    Δ = 0 exactly on every trajectory; distinct rows give Δ != 0."""
    model, tokenizer = policy
    high, low = _goal_ids(tokenizer)
    encoder = ChatEncoder(tokenizer)
    emb = model.get_input_embeddings().weight
    with torch.no_grad():
        saved = emb[low].clone()
        emb[low] = emb[high]
        blind = goal_gaps(model, encoder, ROWS)
        emb[low] = saved
    assert [g for _, g in blind] == [0.0, 0.0]
    seeing = goal_gaps(model, encoder, ROWS)
    assert [r for r, _ in seeing] == [1, 0]
    assert all(abs(g) > 0 for _, g in seeing)


def test_summarise_by_hand():
    # successes: Δ 2, -1 -> mean 0.5, sample var (1.5² + 1.5²)/1 = 4.5, se sqrt(4.5/2) = 1.5,
    # right sign (Δ > 0) 1 of 2; failure: Δ -3 -> mean -3, right sign (Δ < 0) 1 of 1.
    out = summarise([(1, 2.0), (1, -1.0), (0, -3.0)])
    assert out["success"] == {"n": 2, "mean_gap": 0.5, "se": 1.5, "right_sign": 0.5}
    assert out["failure"]["n"] == 1 and out["failure"]["mean_gap"] == -3.0
    assert math.isnan(out["failure"]["se"]) and out["failure"]["right_sign"] == 1.0
    assert math.isnan(summarise([])["success"]["mean_gap"])
