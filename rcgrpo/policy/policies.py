"""Policies the rollout engine can drive: a batched model sampler and scripted text policies.

The engine (:mod:`rcgrpo.policy.rollout`) owns episodes, rendering and token bookkeeping;
a policy only turns "new context tokens per live episode" into "the next assistant
message's token ids". Both kinds go through the same engine code path:

- :class:`ModelPolicy` samples from a causal LM with a :class:`~rcgrpo.policy.kv_batch.KVBatch`
  (one batched forward per token for all live episodes; the KV cache persists across the
  steps of an episode, so only new tokens are ever encoded).
- :class:`ScriptedPolicy` returns text from a function of the episode state, tokenized by
  :meth:`ChatEncoder.assistant_ids` (e.g. :func:`oracle_script`, which emits the ground
  truth); its log-probs are 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.decode import sample_messages
from rcgrpo.policy.kv_batch import KVBatch
from rcgrpo.policy.sampling import check_sampling


@dataclass(frozen=True)
class StepView:
    """What a scripted policy may look at when it writes the next message."""

    task: Any
    """The episode's ``Task``."""
    mode: str
    """Episode mode: ``multi_turn`` or ``combined``."""
    turn_index: int
    """Current user turn (0-based; always 0 in combined mode)."""
    step_in_turn: int
    """Assistant messages already written in this turn."""
    messages: Sequence[dict]
    """The conversation so far (read only)."""


@dataclass(frozen=True)
class Request:
    """Generate the next assistant message of the episode in ``slot``."""

    slot: int
    """Stable id of the episode while it is live."""
    new_ids: list[int]
    """Tokens appended to the episode since the policy last saw it (first prompt, or
    template + observation tokens)."""
    max_tokens: int
    """Hard cap on the message length in tokens (>= 1)."""
    view: StepView


@dataclass
class Generation:
    ids: list[int]
    """Generated ids; the last is a stop id unless the cap was hit."""
    logprobs: list[float]
    """Behaviour log-prob of each id (see :mod:`rcgrpo.policy.sampling`)."""


class Policy(Protocol):
    def begin_run(self, seed: int) -> None:
        """Forget all episodes; seed the sampler (runs are deterministic given the seed)."""

    def generate(self, requests: list[Request]) -> list[Generation]:
        """Next message of every live episode; episodes absent from ``requests`` are over."""


class ModelPolicy:
    """Batched sampling from a causal LM with a persistent per-episode KV cache."""

    def __init__(
        self,
        model,
        stop_ids: Sequence[int],
        temperature: float = 1.0,
        top_p: float = 1.0,
        pad_id: int = 0,
    ):
        check_sampling(temperature, top_p)
        if not stop_ids:
            raise ValueError("stop_ids must hold at least one end-of-message id")
        self.model = model
        self.stop_ids = frozenset(int(i) for i in stop_ids)
        self.stop_tensor = torch.tensor(sorted(self.stop_ids), dtype=torch.long)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.pad_id = pad_id
        self.max_context = int(model.config.max_position_embeddings)
        self.begin_run(0)

    def begin_run(self, seed: int) -> None:
        self.generator = torch.Generator(device=self.model.device).manual_seed(seed)
        self.kv = KVBatch(self.model, self.pad_id)
        self.row_slots: list[int] = []
        self.unfed: dict[int, int] = {}  # slot -> last sampled id, not yet in the cache

    def _sync_rows(self, slots: list[int]) -> None:
        wanted = set(slots)
        keep = [r for r, s in enumerate(self.row_slots) if s in wanted]
        if len(keep) < len(self.row_slots):
            for s in set(self.row_slots) - wanted:
                self.unfed.pop(s, None)
            self.kv.keep_rows(torch.tensor(keep, dtype=torch.long))
            self.row_slots = [self.row_slots[r] for r in keep]
        new = [s for s in slots if s not in set(self.row_slots)]
        self.kv.add_rows(len(new))
        self.row_slots += new

    def generate(self, requests: list[Request]) -> list[Generation]:
        if not requests:
            return []
        by_slot = {req.slot: req for req in requests}
        self._sync_rows([req.slot for req in requests])
        feed = [[*self._pop_unfed(s), *by_slot[s].new_ids] for s in self.row_slots]
        caps = [by_slot[s].max_tokens for s in self.row_slots]
        logits = self.kv.extend(feed)
        out_ids, out_lp = sample_messages(
            self.kv, logits, caps, self.stop_tensor, self.temperature, self.top_p, self.generator
        )
        for slot, ids in zip(self.row_slots, out_ids, strict=True):
            self.unfed[slot] = ids[-1]
        row_of = {s: r for r, s in enumerate(self.row_slots)}
        return [Generation(out_ids[row_of[q.slot]], out_lp[row_of[q.slot]]) for q in requests]

    def _pop_unfed(self, slot: int) -> list[int]:
        tok = self.unfed.pop(slot, None)
        return [] if tok is None else [tok]


class GeneratePolicy:
    """Reference sampler: plain ``model.generate`` on the WHOLE conversation at every step.

    No cache survives between steps (each message re-encodes the episode from its first
    token), rows are left-padded, sampling uses the global torch RNG (seeded by
    :meth:`begin_run`). The baseline of ``benchmarks/bench_rollout.py`` and the slow loop
    the equivalence tests compare :class:`ModelPolicy` with (greedy ids must agree).
    """

    def __init__(self, model, stop_ids: Sequence[int], temperature=1.0, top_p=1.0, pad_id=0):
        check_sampling(temperature, top_p)
        self.model, self.stop_ids = model, sorted(int(i) for i in stop_ids)
        self.temperature, self.top_p, self.pad_id = float(temperature), float(top_p), pad_id
        self.max_context = int(model.config.max_position_embeddings)
        self.begin_run(0)

    def begin_run(self, seed: int) -> None:
        torch.manual_seed(seed)
        self.context: dict[int, list[int]] = {}

    @torch.no_grad()
    def generate(self, requests: list[Request]) -> list[Generation]:
        self.context = {q.slot: self.context.get(q.slot, []) + q.new_ids for q in requests}
        width = max(len(self.context[q.slot]) for q in requests)
        ids = torch.full((len(requests), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for r, q in enumerate(requests):
            row = self.context[q.slot]
            ids[r, width - len(row) :] = torch.tensor(row)
            mask[r, width - len(row) :] = 1
        sampling = dict(do_sample=True, temperature=self.temperature, top_p=self.top_p, top_k=0)
        out = self.model.generate(
            input_ids=ids,
            attention_mask=mask,
            max_new_tokens=max(q.max_tokens for q in requests),
            eos_token_id=self.stop_ids,
            pad_token_id=self.pad_id,
            output_logits=True,
            return_dict_in_generate=True,
            **(sampling if self.temperature > 0 else {"do_sample": False}),
        )
        scale = self.temperature if self.temperature > 0 else 1.0
        logp = torch.stack(out.logits, dim=1).float().div(scale).log_softmax(-1)  # [R, n, V]
        new = out.sequences[:, width:]
        result = []
        for r, q in enumerate(requests):
            row = new[r, : q.max_tokens].tolist()
            stops = [k for k, tok in enumerate(row) if tok in self.stop_ids]
            row = row[: stops[0] + 1] if stops else row
            self.context[q.slot] += row
            result.append(
                Generation(row, logp[r, torch.arange(len(row)), torch.tensor(row)].tolist())
            )
        return result


class ScriptedPolicy:
    """A policy that writes ``script(view)``; tokens via the engine's :class:`ChatEncoder`."""

    def __init__(self, encoder: ChatEncoder, script: Callable[[StepView], str]):
        self.encoder = encoder
        self.script = script
        self.max_context = None

    def begin_run(self, seed: int) -> None:
        pass

    def generate(self, requests: list[Request]) -> list[Generation]:
        out = []
        for req in requests:
            ids = self.encoder.assistant_ids(self.script(req.view))[: req.max_tokens]
            out.append(Generation(ids, [0.0] * len(ids)))
        return out


NO_CALL_REPLY = "Done."


def format_calls(calls: Sequence[str]) -> str:
    """BFCL prompting-mode output: ``[f(a=1), g(b='x')]``."""
    return "[" + ", ".join(calls) + "]"


def oracle_script(view: StepView) -> str:
    """The ground truth: multi_turn — the turn's calls at its first step, then a reply without
    calls (ends the turn); combined — every call of every turn in one message, then stop."""
    gt = view.task.ground_truth
    if view.mode == "combined":
        calls = [c for turn in gt for c in turn]
    else:
        calls = list(gt[view.turn_index]) if view.turn_index < len(gt) else []
    if view.step_in_turn == 0 and calls:
        return format_calls(calls)
    return NO_CALL_REPLY
