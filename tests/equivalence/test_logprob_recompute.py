"""The KV-cached batched engine against slow references.

1. Behaviour log-probs recorded while sampling == a teacher-forced full forward pass of the
   final sequences (rcgrpo.policy.recompute), to 1e-5 in float32, at several temperatures /
   top-p, in both episode modes, with episodes joining and leaving the batch
   (max_batch < number of jobs), capped messages and context truncation.
2. Greedy ids of the engine == plain HF ``generate`` re-encoding the whole conversation at
   every step (GeneratePolicy, the slow loop).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.policies import GeneratePolicy, ModelPolicy
from rcgrpo.policy.recompute import sequence_logprobs
from rcgrpo.policy.rollout import RolloutEngine
from rcgrpo.policy.tokenizer import bfcl_corpus, train_tiny_tokenizer


@dataclass(frozen=True)
class EchoTask:
    id: str
    steps: int
    category: str = "echo"
    turns: tuple = ()
    ground_truth: tuple = ()


@dataclass
class _Step:
    messages: list
    done: bool
    info: dict


@dataclass
class _Record:
    reward: float = 0.0
    bfcl_valid: bool = False


class EchoEpisode:
    """Every reply gets 1-2 tool messages of varying length; ends after ``task.steps`` steps;
    a new user turn every second step (multi_turn)."""

    def reset(self, task, mode="multi_turn"):
        self.task, self.mode, self.num_steps, self.turn_index = task, mode, 0, 0
        self.available_functions, self.calls_per_turn, self.num_tool_errors = [], [[]], 0
        return [{"role": "user", "content": f"Echo task {task.id} for {task.steps} steps."}]

    def step(self, text):
        self.num_steps += 1
        if self.num_steps >= self.task.steps:
            return _Step([], True, {})
        obs = [
            {"role": "tool", "content": f"got {len(text)} chars " + "ok " * (self.num_steps % 5)}
        ]
        if self.num_steps % 3 == 0:
            obs.append({"role": "tool", "content": "second observation"})
        if self.mode == "multi_turn" and self.num_steps % 2 == 0:
            self.turn_index += 1
            self.calls_per_turn.append([])
            obs.append({"role": "user", "content": f"Turn {self.turn_index}: go on."})
        return _Step(obs, False, {})

    def score(self):
        return _Record()


@pytest.fixture(scope="module")
def tiny():
    tokenizer = train_tiny_tokenizer(bfcl_corpus()[:1500], vocab_size=400)
    model, tokenizer = build_tiny_policy("micro", tokenizer=tokenizer, seed=0)
    # untie the output layer and bias EOS so messages end at varied lengths
    head = torch.nn.Linear(model.config.hidden_size, len(tokenizer), bias=True)
    with torch.no_grad():
        head.weight.copy_(model.lm_head.weight)
        head.bias.zero_()
        head.bias[tokenizer.eos_token_id] = 1.0
    model.lm_head = head
    return model, tokenizer


def _run(policy, tokenizer, mode, max_context=360, seed=3, num_tasks=4):
    encoder = ChatEncoder(tokenizer)
    engine = RolloutEngine(
        policy,
        encoder,
        EchoEpisode,
        mode=mode,
        max_new_tokens=12,
        max_context=max_context,
        max_batch=3,
    )
    tasks = [EchoTask(f"e{i}", steps=2 + (3 * i) % 7) for i in range(num_tasks)]
    return engine.run_groups(tasks, 2, torch.tensor([[True, False]] * num_tasks), seed=seed)


@pytest.mark.parametrize(
    "temperature,top_p,mode",
    [(1.0, 1.0, "multi_turn"), (0.7, 0.9, "combined"), (0.0, 1.0, "multi_turn")],
)
def test_behaviour_logprobs_equal_teacher_forced(tiny, temperature, top_p, mode):
    model, tokenizer = tiny
    policy = ModelPolicy(
        model, [tokenizer.eos_token_id], temperature, top_p, tokenizer.pad_token_id
    )
    batch = _run(policy, tokenizer, mode)
    lengths = [r.length for r in batch.rollouts]
    steps = [r.num_steps for r in batch.rollouts]
    # the batch exercises what it should: varied lengths, multi-step episodes, caps
    assert len(set(lengths)) >= 3 and max(steps) >= 4
    assert any(r.capped_messages for r in batch.rollouts) or temperature == 0
    padded = batch.padded(tokenizer.pad_token_id)
    with torch.no_grad():
        recomputed = sequence_logprobs(
            model,
            padded["input_ids"],
            padded["attention_mask"],
            padded["loss_mask"],
            temperature=temperature or 1.0,
        )
    mask = padded["loss_mask"]
    assert int(mask.sum()) > 100
    err = ((recomputed - padded["behaviour_logprobs"]).abs() * mask).max().item()
    assert err < 1e-5, err
    # log-probs are exactly 0 off the mask
    assert bool((padded["behaviour_logprobs"][~mask] == 0).all())


def test_context_cap_truncates_and_flags(tiny):
    model, tokenizer = tiny
    policy = ModelPolicy(model, [tokenizer.eos_token_id], 1.0, 1.0, tokenizer.pad_token_id)
    # the first prompt is ~130 tokens: with a cap of 200 some episodes end mid-way
    batch = _run(policy, tokenizer, "multi_turn", max_context=200)
    assert any(r.truncated and r.num_steps > 0 for r in batch.rollouts)
    assert all(r.length <= 200 for r in batch.rollouts)
    # a cap below the prompt: nothing generated, prompt cut to the cap, flagged
    short = _run(policy, tokenizer, "multi_turn", max_context=100)
    assert all(r.truncated and r.num_generated == 0 and r.length == 100 for r in short.rollouts)


def test_greedy_engine_equals_generate_reencoding(tiny):
    model, tokenizer = tiny
    stop = [tokenizer.eos_token_id]
    fast = _run(ModelPolicy(model, stop, 0.0, 1.0, tokenizer.pad_token_id), tokenizer, "multi_turn")
    slow = _run(
        GeneratePolicy(model, stop, 0.0, 1.0, tokenizer.pad_token_id), tokenizer, "multi_turn"
    )
    for a, b in zip(fast.rollouts, slow.rollouts, strict=True):
        assert a.input_ids.tolist() == b.input_ids.tolist()
        assert a.loss_mask.tolist() == b.loss_mask.tolist()
        assert torch.allclose(a.behaviour_logprobs, b.behaviour_logprobs, atol=1e-5)


def test_same_seed_same_rollouts_other_seed_differs(tiny):
    model, tokenizer = tiny
    policy = ModelPolicy(model, [tokenizer.eos_token_id], 1.0, 1.0, tokenizer.pad_token_id)
    first, again = (_run(policy, tokenizer, "combined", seed=5, num_tasks=2) for _ in range(2))
    other = _run(policy, tokenizer, "combined", seed=6, num_tasks=2)
    ids = [[r.input_ids.tolist() for r in b.rollouts] for b in (first, again, other)]
    assert ids[0] == ids[1] and ids[0] != ids[2]
