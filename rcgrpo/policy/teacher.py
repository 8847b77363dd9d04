r"""Teacher-forced log-probs of a group of rollouts that share a prompt: the prefix runs once.

The G rollouts of a group start with the same tokens (the prompt up to the reward goal under
RC-GRPO, the whole prompt without a goal). Teacher-forcing each row on its own processes that
prefix G times; here the group's shared prefix ``ids[:K]`` runs once, and the G continuations
``ids_b[K:]`` run on its KV cache::

    K = min(LCP(ids_1, …, ids_G), min_b T_b − 1)          (every row keeps ≥ 1 own token)
    h_b[t] = hidden state at position t of row b           (prefix rows t < K are shared)
    log π(ids_b[t] | ids_b[:t]) = log softmax(W h_b[t−1] / τ)[ids_b[t]],   t ≥ 1

Causal attention makes ``h_b[t]`` for t < K independent of the tokens after K, so the
numbers equal the per-row pass up to float rounding (tests/equivalence checks log-probs to
1e-5 and parameter gradients to 1e-4 relative). The output head ``W`` is applied only at the
positions the caller asks for (the loss mask: ~18% of the positions of a CPU rollout).

Gradients flow through the prefix: its hidden states and KV tensors are detached into leaf
tensors that every chunk of continuations reads; each chunk's backward accumulates into those
leaves, and :meth:`SharedPrefixForward.backward_prefix` back-propagates the accumulated
gradient through the prefix once. So a group can be split into chunks of any size (memory)
and still pay for its prefix once, and the parameter gradient is the per-row pass's.

Works with any Hugging Face causal LM whose cache is a ``DynamicCache`` of full-attention
layers; models whose logits are not ``lm_head(last hidden)`` (logit soft-capping or scaling)
run the head inside the model and gather logits instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from transformers import DynamicCache

from rcgrpo.logprobs import token_entropy, token_logprobs
from rcgrpo.policy.prefix import common_prefix, plan_buckets

PASS_COST_TOKENS = 48
"""Fixed cost of one teacher-forced pass in token-equivalents (Python, autograd and kernel
launches), used to group continuations of similar length (the tiny CPU model: a 1-token pass
costs as much as 40–60 tokens of a long one, forward alone or with backward)."""
ENTROPY_MODES = ("none", "detached", "grad")
_LOGIT_TRANSFORMS = ("final_logit_softcapping", "logit_scale", "logits_scaling")


def common_prefix_length(rows: Sequence[torch.Tensor]) -> int:
    """Length of the longest common prefix of 1-D token tensors (0 for no rows)."""
    if not rows:
        return 0
    first = rows[0].tolist()
    return min(common_prefix(first, r.tolist()) for r in rows)


def shared_prefix_length(rows: Sequence[torch.Tensor]) -> int:
    """K = min(LCP, min_b T_b − 1), ≥ 0: the tokens run once (every row keeps one of its own)."""
    if not rows:
        return 0
    return max(0, min(common_prefix_length(rows), min(int(r.numel()) for r in rows) - 1))


def _head_outside(model) -> bool:
    """True if logits = output embeddings(last hidden state), so the head can be applied to
    selected positions only."""
    config = model.config
    if any(getattr(config, name, None) not in (None, 1, 1.0) for name in _LOGIT_TRANSFORMS):
        return False
    return model.get_output_embeddings() is not None and model.get_decoder() is not None


@dataclass
class Chunk:
    """One chunk of continuations: rows of the group and their [c, W] token arrays."""

    rows: list[int]
    """Indices into the group's row list."""
    logp: torch.Tensor
    """[c, W] log π(ids[t] | ids[:t]) at the selected positions, 0 elsewhere and at t = 0."""
    entropy: torch.Tensor | None
    """[c, W] entropy of the next-token distribution before t (same positions), or None."""
    mask: torch.Tensor
    """[c, W] bool: the selected positions (the caller's mask on real tokens, t ≥ 1)."""


class SharedPrefixForward:
    """Teacher-forced passes of one group (module docstring).

    Args:
        model: a causal LM.
        ids: the group's rows, 1-D int64 each (any lengths ≥ 1).
        masks: 1-D bool per row, True where a log-prob is wanted (position 0 is ignored).
        temperature: τ > 0 dividing the logits.
        entropy: "none", "detached" or "grad".
        chunk_size: at most this many continuations per forward pass (0 = no limit).
        share: False runs every row on its own (K = 0): the reference path.
    """

    def __init__(
        self,
        model,
        ids: Sequence[torch.Tensor],
        masks: Sequence[torch.Tensor],
        *,
        temperature: float,
        entropy: str = "none",
        chunk_size: int = 0,
        share: bool = True,
    ) -> None:
        if not ids or len(ids) != len(masks):
            raise ValueError(f"need >= 1 row and one mask per row, got {len(ids)}, {len(masks)}")
        for r, m in zip(ids, masks, strict=True):
            if r.dim() != 1 or r.numel() < 1 or m.shape != r.shape:
                raise ValueError("each row must be a non-empty 1-D tensor with a same-shape mask")
        if entropy not in ENTROPY_MODES:
            raise ValueError(f"entropy must be one of {ENTROPY_MODES}, got {entropy!r}")
        self.model, self.temperature, self.entropy = model, temperature, entropy
        self.device = next(model.parameters()).device
        self.ids = [r.to(self.device) for r in ids]
        self.masks = [m.to(self.device).bool() for m in masks]
        self.chunk_size = chunk_size or len(ids)
        self.prefix = shared_prefix_length(self.ids) if share and len(ids) > 1 else 0
        self.head_outside = _head_outside(model)
        self._pending: list[tuple[torch.Tensor, torch.Tensor]] = []  # (prefix output, leaf)
        self._features: torch.Tensor | None = None
        self._kv: list[tuple[torch.Tensor, torch.Tensor]] = []

    # ---- the prefix ------------------------------------------------------------------
    def _leaf(self, x: torch.Tensor) -> torch.Tensor:
        if not x.requires_grad:
            return x
        leaf = x.detach().requires_grad_()
        self._pending.append((x, leaf))
        return leaf

    def _run_prefix(self) -> None:
        k = self.prefix
        prefix = self.ids[0][:k].unsqueeze(0)
        trunk = self.model.get_decoder() if self.head_outside else self.model
        out = trunk(input_ids=prefix, use_cache=True)
        features = out.last_hidden_state if self.head_outside else out.logits
        self._features = self._leaf(features[0])
        self._kv = [
            (self._leaf(layer.keys), self._leaf(layer.values))
            for layer in out.past_key_values.layers
        ]

    def _cache(self, rows: int) -> DynamicCache:
        cache = DynamicCache(config=self.model.config)
        for i, (k, v) in enumerate(self._kv):
            cache.update(k.expand(rows, -1, -1, -1), v.expand(rows, -1, -1, -1), i)
        return cache

    # ---- the continuations -------------------------------------------------------------
    def _continuation(self, rows: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        """Features [c, W − 1, F] at positions 0 … W − 2 (prefix rows shared) and ids [c, W]."""
        k, c = self.prefix, len(rows)
        width = max(int(self.ids[b].numel()) for b in rows)
        ids = torch.zeros(c, width, dtype=torch.long, device=self.device)
        attn = torch.zeros(c, width, dtype=torch.long, device=self.device)
        for i, b in enumerate(rows):
            ids[i, : self.ids[b].numel()] = self.ids[b]
            attn[i, : self.ids[b].numel()] = 1
        trunk = self.model.get_decoder() if self.head_outside else self.model
        kwargs = {"past_key_values": self._cache(c), "use_cache": True} if k else {}
        out = trunk(input_ids=ids[:, k:], attention_mask=attn, **kwargs)
        own = out.last_hidden_state if self.head_outside else out.logits
        if k:
            shared = self._features.unsqueeze(0).expand(c, -1, -1)
            own = torch.cat([shared, own], dim=1)
        return own[:, :-1], ids

    def chunks(self) -> Iterator[Chunk]:
        """The group's rows, longest first, at most ``chunk_size`` per forward pass.

        Continuations are padded to the longest of their pass, and the rollouts of a group
        differ in length (turns, tool outputs: padding a CPU group to its longest rollout
        costs 1.6× its real tokens, 1.4× in passes of 4), so rows of similar length share a
        pass: the cut minimises padded tokens plus :data:`PASS_COST_TOKENS` per pass
        (:func:`~rcgrpo.policy.prefix.plan_buckets`).
        """
        if self.prefix and self._features is None:
            self._run_prefix()
        own = [int(r.numel()) - self.prefix for r in self.ids]
        for rows in plan_buckets(own, PASS_COST_TOKENS, self.chunk_size):
            yield self._chunk(rows)

    def _chunk(self, rows: list[int]) -> Chunk:
        features, ids = self._continuation(rows)
        mask = torch.zeros(ids.shape, dtype=torch.bool, device=self.device)
        for i, b in enumerate(rows):
            mask[i, : self.masks[b].numel()] = self.masks[b]
        mask[:, 0] = False
        where = mask.nonzero()  # (row, t) of every selected position; its features sit at t - 1
        picked = features[where[:, 0], where[:, 1] - 1]
        logits = self.model.get_output_embeddings()(picked) if self.head_outside else picked
        logits = logits.unsqueeze(0)
        targets = ids[where[:, 0], where[:, 1]].unsqueeze(0)
        index = (where[:, 0], where[:, 1])
        logp = token_logprobs(logits, targets, temperature=self.temperature)[0]
        logp = logp.new_zeros(ids.shape).index_put(index, logp)
        ent = None
        if self.entropy != "none":
            z = logits if self.entropy == "grad" else logits.detach()
            values = token_entropy(z, temperature=self.temperature)[0]
            ent = values.new_zeros(ids.shape).index_put(index, values)
        return Chunk(rows, logp, ent, mask)

    def backward_prefix(self) -> None:
        """Back-propagate the gradient the chunks left on the prefix leaves (no-op without)."""
        outputs, grads = [], []
        for x, leaf in self._pending:
            if leaf.grad is not None:
                outputs.append(x)
                grads.append(leaf.grad)
        if outputs:
            torch.autograd.backward(outputs, grads)
        self._pending.clear()
