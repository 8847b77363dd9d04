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


class KVBatch:
    """Left-padded batched cache with per-row validity (see module docstring)."""

    def __init__(self, model, pad_id: int = 0):
        self.model = model
        self.pad_id = pad_id
        self.cache = DynamicCache(config=model.config)
        if not all(type(layer) is DynamicLayer for layer in self.cache.layers):
            raise ValueError("model must use full-attention layers only (no sliding window)")
        self.valid = torch.zeros(0, 0, dtype=torch.bool)
        self.lengths = torch.zeros(0, dtype=torch.long)
        self._bool_mask = model.config._attn_implementation == "sdpa"

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
            layer.keys = torch.cat([layer.keys, layer.keys.new_zeros(shape)])
            layer.values = torch.cat([layer.values, layer.values.new_zeros(shape)])

    def keep_rows(self, index: torch.Tensor) -> None:
        """Keep rows ``index`` (int64 [R']) in that order; keeping none frees the cache."""
        if index.numel() == 0:
            self.cache = DynamicCache(config=self.model.config)
            self.valid = torch.zeros(0, 0, dtype=torch.bool)
            self.lengths = torch.zeros(0, dtype=torch.long)
            return
        self.valid = self.valid[index]
        self.lengths = self.lengths[index]
        for layer in self._layers():
            layer.keys = layer.keys[index]
            layer.values = layer.values[index]

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
            gather_index = index[:, None, :, None].expand(-1, heads, -1, dim)
            layer.keys = layer.keys.gather(2, gather_index)
            layer.values = layer.values.gather(2, gather_index)

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
        after each row's last fed token, [R, V] float32 (garbage for rows fed nothing)."""
        if len(tokens) != self.rows:
            raise ValueError(f"tokens must hold one list per row ({self.rows}), got {len(tokens)}")
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
        return out.logits[:, -1, :].float().cpu()
