"""A batched KV cache whose rows grow independently: the memory of the rollout engine.

Row r holds one episode. Its cache is a sequence of physical slots of which some are
*holes* (left padding, padding inside a prefill chunk, or the pad tokens fed to rows that
already finished their message); ``valid[r]`` marks the real tokens and ``lengths[r]``
counts them, so the logical position of a token is the number of real tokens before it.

- :meth:`KVBatch.extend` feeds each row its own new tokens in one forward pass (the chunk is
  left-padded to the longest row), with explicit ``position_ids`` and a 4-D mask: query i of
  row r sees the real keys at or before it, plus itself (so a pad query never has an empty
  softmax row and never produces NaN). Keys and values are stored after RoPE, so moving
  them between physical slots does not change the result.
- :meth:`KVBatch.compact` gathers each row's real slots to the right end (left padding
  only), removing holes; the engine calls it once per environment step.
- :meth:`KVBatch.add_rows` / :meth:`KVBatch.keep_rows` let episodes join and leave.

Works with transformers' ``DynamicCache`` of full-attention layers (Qwen2, Llama, ...).
"""

from __future__ import annotations

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

FORWARD_COST_TOKENS = 64
"""Fixed cost of one forward pass in token-equivalents (Python and kernel-launch overhead),
used to decide when splitting a prefill into several passes pays off."""


class _BufferLayer(DynamicLayer):
    """A DynamicLayer that appends into a pre-allocated buffer grown by doubling (amortised
    O(new tokens) per update instead of ``torch.cat``'s O(whole cache)); ``keys`` and
    ``values`` are views of the filled part."""

    def set(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        self.dtype, self.device, self.is_initialized = keys.dtype, keys.device, True
        self._k, self._v, self._n = keys, values, keys.shape[2]
        self.keys, self.values = keys, values

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.set(key_states[:, :, :0], value_states[:, :, :0])
        need = self._n + key_states.shape[2]
        if need > self._k.shape[2]:
            capacity = max(need, 2 * self._k.shape[2], 64)
            k = self._k.new_empty((*self._k.shape[:2], capacity, self._k.shape[3]))
            v = self._v.new_empty((*self._v.shape[:2], capacity, self._v.shape[3]))
            k[:, :, : self._n], v[:, :, : self._n] = self.keys, self.values
            self._k, self._v = k, v
        self._k[:, :, self._n : need] = key_states
        self._v[:, :, self._n : need] = value_states
        self._n = need
        self.keys, self.values = self._k[:, :, :need], self._v[:, :, :need]
        return self.keys, self.values


class KVBatch:
    """Left-padded batched cache with per-row validity (see module docstring)."""

    def __init__(self, model, pad_id: int = 0):
        self.model = model
        self.pad_id = pad_id
        self.cache = self._new_cache()
        self.valid = torch.zeros(0, 0, dtype=torch.bool)
        self.lengths = torch.zeros(0, dtype=torch.long)
        self._bool_mask = model.config._attn_implementation == "sdpa"

    def _new_cache(self) -> DynamicCache:
        cache = DynamicCache(config=self.model.config)
        if not all(type(layer) is DynamicLayer for layer in cache.layers):
            raise ValueError("model must use full-attention layers only (no sliding window)")
        cache.layers = [_BufferLayer() for _ in cache.layers]
        return cache

    @property
    def rows(self) -> int:
        return int(self.lengths.numel())

    @property
    def width(self) -> int:
        """Physical cache length (real tokens + holes)."""
        return int(self.valid.shape[1])

    def _layers(self):
        return [layer for layer in self.cache.layers if layer.is_initialized]

    def add_rows(self, count: int) -> None:
        """Append ``count`` empty rows (all holes)."""
        self.valid = torch.cat([self.valid, self.valid.new_zeros(count, self.width)])
        self.lengths = torch.cat([self.lengths, self.lengths.new_zeros(count)])
        for layer in self._layers():
            shape = (count, *layer.keys.shape[1:])
            zeros = layer.keys.new_zeros(shape)
            layer.set(torch.cat([layer.keys, zeros]), torch.cat([layer.values, zeros]))

    def keep_rows(self, index: torch.Tensor) -> None:
        """Keep rows ``index`` (int64 [R']) in that order; keeping none frees the cache."""
        if index.numel() == 0:
            self.cache = self._new_cache()
            self.valid = torch.zeros(0, 0, dtype=torch.bool)
            self.lengths = torch.zeros(0, dtype=torch.long)
            return
        self.valid = self.valid[index]
        self.lengths = self.lengths[index]
        for layer in self._layers():
            on_device = index.to(layer.keys.device)
            layer.set(layer.keys[on_device], layer.values[on_device])

    def compact(self) -> None:
        """Move each row's real slots to the right end, in order; drop all-hole columns."""
        if self.rows == 0:
            return
        width = int(self.lengths.max())
        # stable sort on valid: holes first, then real slots, each in original order
        order = torch.sort(self.valid.to(torch.int8), dim=1, stable=True).indices
        index = order[:, self.width - width :]
        if width == self.width and bool((index == torch.arange(width)).all()):
            return
        self.valid = self.valid.gather(1, index)
        for layer in self._layers():
            heads, dim = layer.keys.shape[1], layer.keys.shape[3]
            gather_index = index[:, None, :, None].expand(-1, heads, -1, dim).to(layer.keys.device)
            layer.set(layer.keys.gather(2, gather_index), layer.values.gather(2, gather_index))

    def _attention_mask(self, new_valid: torch.Tensor) -> torch.Tensor:
        past, q = self.width, new_valid.shape[1]
        keys_valid = torch.cat([self.valid, new_valid], dim=1)  # [R, past + q]
        query_pos = past + torch.arange(q)
        key_pos = torch.arange(past + q)
        causal = key_pos[None, :] <= query_pos[:, None]  # [q, past + q]
        itself = key_pos[None, :] == query_pos[:, None]
        allowed = (keys_valid[:, None, :] & causal[None]) | itself[None]  # [R, q, past + q]
        allowed = allowed[:, None]
        if self._bool_mask:
            return allowed
        dtype = self.model.dtype
        return torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)

    @torch.no_grad()
    def extend(self, tokens: list[list[int]]) -> torch.Tensor:
        """Feed row r the ids ``tokens[r]`` (an empty list feeds one hole); return the logits
        after each row's last fed token, [R, V] float32 on the model's device (garbage for
        rows fed nothing).

        Rows whose chunks differ much in length are fed in several forward passes
        (:func:`plan_buckets`), so short chunks are not padded to the longest one."""
        if len(tokens) != self.rows:
            raise ValueError(f"tokens must hold one list per row ({self.rows}), got {len(tokens)}")
        groups = plan_buckets([max(1, len(t)) for t in tokens], FORWARD_COST_TOKENS)
        if len(groups) == 1:
            return self._extend_all(tokens)
        parts, logits = [], None
        for idx in groups:
            sub = self._subset(idx)
            part = sub._extend_all([tokens[r] for r in idx])
            logits = part.new_empty(self.rows, part.shape[1]) if logits is None else logits
            logits[idx] = part
            parts.append((idx, sub))
        self._merge(parts)
        return logits

    def _subset(self, idx: list[int]) -> KVBatch:
        sub = KVBatch(self.model, self.pad_id)
        sub.valid, sub.lengths = self.valid[idx], self.lengths[idx]
        for mine, theirs in zip(self.cache.layers, sub.cache.layers, strict=True):
            if mine.is_initialized:
                theirs.set(mine.keys[idx], mine.values[idx])
        return sub

    def _merge(self, parts: list[tuple[list[int], KVBatch]]) -> None:
        """Put row subsets back, each left-padded with holes to the widest."""
        width = max(sub.width for _, sub in parts)
        self.valid = torch.zeros(self.rows, width, dtype=torch.bool)
        for idx, sub in parts:
            self.valid[idx, width - sub.width :] = sub.valid
            self.lengths[idx] = sub.lengths
        for k, layer in enumerate(self.cache.layers):
            ref = parts[0][1].cache.layers[k].keys
            keys = ref.new_zeros(self.rows, ref.shape[1], width, ref.shape[3])
            values = torch.zeros_like(keys)
            for idx, sub in parts:
                off = width - sub.width
                keys[idx, :, off:] = sub.cache.layers[k].keys
                values[idx, :, off:] = sub.cache.layers[k].values
            layer.set(keys, values)

    def _extend_all(self, tokens: list[list[int]]) -> torch.Tensor:
        q = max(1, max(len(t) for t in tokens))
        ids = torch.full((self.rows, q), self.pad_id, dtype=torch.long)
        new_valid = torch.zeros(self.rows, q, dtype=torch.bool)
        for r, row in enumerate(tokens):
            if row:
                ids[r, q - len(row) :] = torch.tensor(row, dtype=torch.long)
                new_valid[r, q - len(row) :] = True
        # logical positions: real tokens continue the row; holes reuse the next position
        positions = self.lengths[:, None] + (new_valid.long().cumsum(dim=1) - 1).clamp(min=0)
        device = self.model.device
        out = self.model(
            input_ids=ids.to(device),
            attention_mask=self._attention_mask(new_valid).to(device),
            position_ids=positions.to(device),
            past_key_values=self.cache,
            use_cache=True,
            logits_to_keep=1,
        )
        self.valid = torch.cat([self.valid, new_valid], dim=1)
        self.lengths = self.lengths + new_valid.sum(dim=1)
        return out.logits[:, -1, :].float()


def plan_buckets(counts: list[int], overhead: int) -> list[list[int]]:
    """Group rows so that Σ_groups (longest chunk · rows + overhead) is minimal.

    ``counts[r]`` is row r's chunk length; a forward pass costs its padded size plus
    ``overhead`` token-equivalents. Optimal over groups that are contiguous in the
    length-sorted order (dynamic programming, O(R²)); returns row-index lists, longest first.
    """
    order = sorted(range(len(counts)), key=lambda r: -counts[r])
    size = [counts[r] for r in order]  # descending: a group's longest is its first
    best, cut = [0] + [None] * len(size), [0] * (len(size) + 1)
    for i in range(1, len(size) + 1):
        for j in range(i):
            cost = best[j] + size[j] * (i - j) + overhead
            if best[i] is None or cost < best[i]:
                best[i], cut[i] = cost, j
    groups, i = [], len(size)
    while i > 0:
        groups.append(order[cut[i] : i])
        i = cut[i]
    return groups[::-1]
