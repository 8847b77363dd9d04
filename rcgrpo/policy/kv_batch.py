"""A batched KV cache whose rows grow independently: the memory of the rollout engine.

Row r holds one episode: its keys and values sit in physical slots ``0 .. lengths[r] - 1``
of one pre-allocated buffer per layer (right padding, no holes), so the logical position of a
token is its slot. Keys are stored after RoPE; a row can therefore be copied to another
buffer row, or replicated, without changing what it computes.

- :meth:`KVBatch.extend` feeds each row its own new tokens and returns the logits after each
  row's last one. A row seen for the first time is prefilled alone (batch 1, the causal
  kernel, no mask); rows whose first chunks share a long prefix (the G rollouts of a group:
  the prompt up to the reward goal) prefill it once and copy its keys and values to every
  member (:func:`~rcgrpo.policy.prefix.shared_prefixes`). The other chunks go through
  batched passes grouped by length (:func:`plan_buckets`), left-padded inside the chunk:
  query j of row r writes slot ``lengths[r] + j - pad_r`` and sees the slots at or before it;
  a pad query writes a trash slot past every row and sees slot 0 only (never an empty softmax).
- :meth:`KVBatch.decode` feeds one token to each row of a subset. The subset is first moved
  to the front of the buffer (a few row swaps when rows have finished), so the pass reads
  views of the buffer and the 4-D mask is one comparison ``slot <= length``.
- :meth:`KVBatch.add_rows` / :meth:`KVBatch.keep_rows` let episodes join and leave (keeping
  an index twice replicates a row).

The batched passes (extend, decode) run :class:`~rcgrpo.policy.lean.LeanForward` on the
buffers where the model allows (Qwen2, Qwen2.5, Llama: the HF forward's arithmetic without
its Python), else the HF forward through a cache whose layers follow the same plan.

Rows are addressed logically (0 .. rows - 1, in the order they were added or kept); the
physical buffer row of logical row r is ``phys[r]``. Works with any Hugging Face causal LM
whose layers all use full attention (Qwen2, Qwen2.5, Llama, ...).
"""

from __future__ import annotations

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

from rcgrpo.policy.lean import LeanForward, lean_reason
from rcgrpo.policy.prefix import plan_buckets, shared_prefixes

FORWARD_COST_TOKENS = 64
"""Fixed cost of one forward pass in token-equivalents (Python and kernel-launch overhead),
used to decide when splitting a prefill into several passes pays off."""


def _allowed(seen: torch.Tensor, width: int) -> torch.Tensor:
    """bool [n, 1, q, width]: query (r, j) attends slots ``<= seen[r, j]``."""
    return (torch.arange(width)[None, None, :] <= seen[:, :, None])[:, None]


class _Plan:
    """Where the next forward pass writes and what it reads (shared by all layers)."""

    rows: slice | torch.Tensor = slice(0, 0)
    """Physical buffer rows of the pass: a slice (read as a view) or an index (gathered)."""
    row_index: torch.Tensor = torch.zeros(0, 1, dtype=torch.long)
    """The same rows as an int64 [n, 1] index."""
    slots: torch.Tensor = torch.zeros(0, 0, dtype=torch.long)
    """int64 [n, q]: the physical slot each query's key and value are written to."""
    width: int = 0
    """Slots the pass reads (every row's keys live below it)."""


class _RowLayer(DynamicLayer):
    """One layer's buffers ``k, v`` [rows, heads, capacity, dim]; ``update`` follows the plan."""

    def __init__(self, plan: _Plan):
        super().__init__()
        self.plan = plan
        self.k = self.v = None
        self.is_initialized = True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        plan = self.plan
        self.k[plan.row_index, :, plan.slots] = key_states.transpose(1, 2).to(self.k.dtype)
        self.v[plan.row_index, :, plan.slots] = value_states.transpose(1, 2).to(self.v.dtype)
        return self.k[plan.rows, :, : plan.width], self.v[plan.rows, :, : plan.width]

    def get_seq_length(self) -> int:
        return self.plan.width


class KVBatch:
    """Right-padded batched cache with per-row lengths (see module docstring).

    ``lean`` False always runs the HF forward (the reference path of the equivalence tests).
    """

    def __init__(self, model, pad_id: int = 0, lean: bool = True):
        self.model = model
        self.lean = LeanForward(model) if lean and lean_reason(model) is None else None
        self.pad_id = pad_id
        config = model.config
        self.heads = int(config.num_key_value_heads)
        self.dim = int(
            getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        )
        self.plan = _Plan()
        self.cache = DynamicCache(config=config)
        if not all(type(layer) is DynamicLayer for layer in self.cache.layers):
            raise ValueError("model must use full-attention layers only (no sliding window)")
        self.cache.layers = [_RowLayer(self.plan) for _ in self.cache.layers]
        self.lengths = torch.zeros(0, dtype=torch.long)
        self.phys = torch.zeros(0, dtype=torch.long)
        self.capacity = 0
        self._alloc(0, 0)
        self._bool_mask = config._attn_implementation == "sdpa"

    @property
    def rows(self) -> int:
        return int(self.lengths.numel())

    @property
    def width(self) -> int:
        """Slots in use: the longest row."""
        return int(self.lengths.max()) if self.rows else 0

    def _alloc(self, rows: int, capacity: int) -> None:
        shape = (rows, self.heads, capacity, self.dim)
        for layer in self.cache.layers:
            layer.k = torch.zeros(shape, dtype=self.model.dtype, device=self.model.device)
            layer.v = torch.zeros_like(layer.k)
        self.capacity = capacity

    def _reserve(self, width: int) -> None:
        """Capacity for ``width`` slots plus the trash slot, grown by doubling."""
        if width + 1 <= self.capacity:
            return
        used, old = self.width, [(layer.k, layer.v) for layer in self.cache.layers]
        self._alloc(len(self.phys), max(width + 1, 2 * self.capacity, 64))
        for layer, (k, v) in zip(self.cache.layers, old, strict=True):
            layer.k[:, :, :used], layer.v[:, :, :used] = k[:, :, :used], v[:, :, :used]

    def add_rows(self, count: int) -> None:
        """Append ``count`` empty rows."""
        for layer in self.cache.layers:
            zeros = layer.k.new_zeros((count, *layer.k.shape[1:]))
            layer.k, layer.v = torch.cat([layer.k, zeros]), torch.cat([layer.v, zeros])
        self.phys = torch.cat([self.phys, len(self.phys) + torch.arange(count)])
        self.lengths = torch.cat([self.lengths, self.lengths.new_zeros(count)])

    def keep_rows(self, index: torch.Tensor) -> None:
        """Keep logical rows ``index`` (int64 [R']) in that order; an index kept twice is copied."""
        index = index.long()
        source, used = self.phys[index].to(self.model.device), self.width
        for layer in self.cache.layers:
            for name in ("k", "v"):
                old = getattr(layer, name)
                new = old.new_zeros((len(index), *old.shape[1:]))
                new[:, :, :used] = old[source, :, :used]
                setattr(layer, name, new)
        self.lengths = self.lengths[index].clone()
        self.phys = torch.arange(len(index))

    @torch.no_grad()
    def extend(self, tokens: list[list[int]]) -> torch.Tensor:
        """Feed row r the ids ``tokens[r]`` (an empty list feeds nothing); return the logits
        after each row's last fed token, [R, V] float32 (garbage for rows fed nothing)."""
        if len(tokens) != self.rows:
            raise ValueError(f"tokens must hold one list per row ({self.rows}), got {len(tokens)}")
        self._reserve(
            max(
                [self.width]
                + [int(n) + len(t) for n, t in zip(self.lengths.tolist(), tokens, strict=True)]
            )
        )
        logits: list[torch.Tensor | None] = [None] * self.rows
        rest = {r: t for r, t in enumerate(tokens) if self.lengths[r] > 0 or not t}
        fresh = [r for r in range(self.rows) if r not in rest]
        for members, shared in shared_prefixes([tokens[r] for r in fresh]):
            rows = [fresh[i] for i in members]
            last = self._prefill_alone(rows, tokens[rows[0]][:shared])
            for r in rows:
                if len(tokens[r]) > shared:
                    rest[r] = tokens[r][shared:]
                else:
                    logits[r] = last
        order = sorted(rest)
        for bucket in plan_buckets([max(1, len(rest[r])) for r in order], FORWARD_COST_TOKENS):
            rows = [order[i] for i in bucket]
            for r, row_logits in zip(
                rows, self._extend_rows(rows, [rest[r] for r in rows]), strict=True
            ):
                logits[r] = row_logits
        return torch.stack(logits)

    def _prefill_alone(self, rows: list[int], ids: list[int]) -> torch.Tensor:
        """Run ``ids`` on an empty cache (causal kernel, no mask); copy its keys and values
        into slots ``0 .. len(ids) - 1`` of every row in ``rows``; return the last logits."""
        cache = DynamicCache(config=self.model.config)
        out = self.model(
            input_ids=torch.tensor([ids], device=self.model.device),
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        phys = self.phys[rows].to(self.model.device)
        for layer, filled in zip(self.cache.layers, cache.layers, strict=True):
            layer.k[phys, :, : len(ids)] = filled.keys.to(layer.k.dtype)
            layer.v[phys, :, : len(ids)] = filled.values.to(layer.v.dtype)
        self.lengths[rows] = len(ids)
        return out.logits[0, -1].float()

    def _extend_rows(self, rows: list[int], chunks: list[list[int]]) -> torch.Tensor:
        """One batched pass feeding logical row ``rows[i]`` the ids ``chunks[i]``."""
        q = max(1, max(len(c) for c in chunks))
        ids = torch.full((len(rows), q), self.pad_id, dtype=torch.long)
        for i, chunk in enumerate(chunks):
            if chunk:
                ids[i, q - len(chunk) :] = torch.tensor(chunk, dtype=torch.long)
        counts = torch.tensor([len(c) for c in chunks], dtype=torch.long)
        return self._forward(torch.tensor(rows, dtype=torch.long), ids, counts)

    @torch.no_grad()
    def decode(self, rows: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        """Feed logical row ``rows[i]`` the single id ``tokens[i]``; logits [n, V] float32."""
        self._to_front(rows)
        self._reserve(int(self.lengths[rows].max()) + 1)
        return self._forward(rows, tokens.view(-1, 1), torch.ones(len(rows), dtype=torch.long))

    def _to_front(self, rows: torch.Tensor) -> None:
        """Swap buffer rows so that logical ``rows`` occupy physical rows 0 .. n - 1."""
        n, used = len(rows), self.width
        owner = torch.empty_like(self.phys)
        owner[self.phys] = torch.arange(self.rows)
        outside = rows[self.phys[rows] >= n]
        if outside.numel() == 0:
            return
        taken = torch.zeros(n, dtype=torch.bool)
        taken[self.phys[rows][self.phys[rows] < n]] = True
        holes = (~taken).nonzero().squeeze(1)  # front rows held by rows not in the subset
        a, b = self.phys[outside], holes
        for layer in self.cache.layers:
            for buf in (layer.k, layer.v):
                keep = buf[a, :, :used].clone()
                buf[a, :, :used] = buf[b, :, :used]
                buf[b, :, :used] = keep
        self.phys[owner[b]], self.phys[outside] = a, b

    def _forward(self, rows: torch.Tensor, ids: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """Forward ``ids`` [n, q] (row i left-padded to ``counts[i]`` real ids) for logical
        ``rows``; last logits in the order of ``rows``."""
        phys = self.phys[rows]
        order = torch.argsort(phys)
        rows, ids, counts, phys = rows[order], ids[order], counts[order], phys[order]
        n, q = ids.shape
        lengths = self.lengths[rows]
        pad = q - counts
        column = torch.arange(q)
        real = column[None, :] >= pad[:, None]
        slot = lengths[:, None] + column[None, :] - pad[:, None]
        width = int((lengths + counts).max())
        contiguous = bool((phys == phys[0] + torch.arange(n)).all())
        plan, device = self.plan, self.model.device
        plan.rows = slice(int(phys[0]), int(phys[0]) + n) if contiguous else phys.to(device)
        plan.row_index = phys[:, None].to(device)
        plan.slots = torch.where(real, slot, self.capacity - 1).to(device)
        plan.width = width
        seen = torch.where(real, slot, 0)  # a pad query sees slot 0 only
        if self.lean is not None:
            buffers = [(layer.k, layer.v) for layer in self.cache.layers]
            logits = self.lean(
                ids.to(device),
                seen.to(device),
                _allowed(seen, width).to(device),
                buffers,
                plan.row_index,
                plan.slots,
                plan.rows,
                width,
            )
        else:
            logits = (
                self.model(
                    input_ids=ids.to(device),
                    attention_mask=self._mask(seen, width).to(device),
                    position_ids=seen.to(device),
                    past_key_values=self.cache,
                    use_cache=True,
                    logits_to_keep=1,
                )
                .logits[:, -1, :]
                .float()
            )
        self.lengths[rows] = lengths + counts
        return logits[torch.argsort(order).to(logits.device)]

    def _mask(self, seen: torch.Tensor, width: int) -> torch.Tensor:
        """The HF forward's form of :func:`_allowed` (bool for SDPA, else additive)."""
        allowed = _allowed(seen, width)
        if self._bool_mask:
            return allowed
        dtype = self.model.dtype
        return torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)
