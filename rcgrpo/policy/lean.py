r"""A lean forward for the rollout engine's cached passes of Llama-family decoders.

The engine's passes are small (one token per writing row when decoding, a tool output when
extending) and the CPU model is tiny, so a Hugging Face forward spends a large share of its
time outside arithmetic: modules, hooks, mask and cache objects, a GQA copy. This module runs
the same arithmetic straight from the model's weights, writing keys and values into the
engine's buffers (:class:`~rcgrpo.policy.kv_batch.KVBatch`)::

    h⁰ = E[ids]
    for each layer ℓ:
        x = RMSNorm(hˡ);  q, k, v = x W_q + b_q, x W_k + b_k, x W_v + b_v
        q, k = RoPE(q, pos), RoPE(k, pos);  K_ℓ[row, slot], V_ℓ[row, slot] = k, v
        a = softmax(q K_ℓᵀ / √d + M) V_ℓ                     (M: 0 where seen, −∞ elsewhere)
        h = hˡ + a W_o;  hˡ⁺¹ = h + W_down(silu(x' W_gate) ⊙ x' W_up),  x' = RMSNorm(h)
    logits = RMSNorm(h^L[last]) W_head

The pieces are the model's own (its RMSNorm epsilon, rotary embedding module (any RoPE
type), projection weights and biases, attention scaling), so the numbers are those of the
HF forward up to float rounding; greedy ids are identical (tests/equivalence). With one query
per row (decoding) in float32, attention is two batched matmuls with the query heads of a KV
head stacked (no GQA copy; faster than the CPU flash kernel at these shapes); longer chunks
and other dtypes use SDPA.

:func:`lean_reason` says why a model cannot take this path (the engine then runs the HF
forward): another architecture or activation, sliding-window attention, tensor-parallel
projections (`pretraining_tp`).

A model with LoRA adapters (peft) runs the same loop through its projection modules (an
adapted projection adds its low-rank term), not their bare weights, which would sample the
base model; its embedding and output head (peft's trained goal-token rows) are read once per
run as the matrices they apply, since peft rebuilds the 49k-row matrix on every call.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

ARCHITECTURES = ("qwen2", "llama")
"""``config.model_type`` values whose decoder layer is exactly the loop above."""


def lean_reason(model) -> str | None:
    """None if ``model`` can run the lean forward, else why not."""
    config = model.config
    if config.model_type not in ARCHITECTURES:
        return f"model_type {config.model_type!r} is not one of {ARCHITECTURES}"
    if getattr(config, "hidden_act", None) != "silu":
        return f"hidden_act {config.hidden_act!r} is not silu"
    if getattr(config, "use_sliding_window", False):
        return "sliding-window attention"
    if getattr(config, "pretraining_tp", 1) not in (None, 1):
        return "pretraining_tp > 1"
    decoder = model.get_decoder()
    if not hasattr(decoder, "rotary_emb") or model.get_output_embeddings() is None:
        return "no rotary embedding or output head"
    return None


def _rms(x: torch.Tensor, norm) -> torch.Tensor:
    """The model's RMSNorm: float32 statistics, weight applied in the input dtype."""
    y = x.float()
    y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)
    return norm.weight * y.to(x.dtype)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin


def _linear(module, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, module.weight, module.bias)


def _call(module, x: torch.Tensor) -> torch.Tensor:
    return module(x)


def _rows_of(embedding) -> torch.Tensor:
    """[V, d]: the rows a (possibly peft-wrapped) embedding looks up: its weight, or for a
    wrapper the lookup of every id (exact: a lookup does no arithmetic on a row)."""
    if type(embedding) is torch.nn.Embedding:
        return embedding.weight
    with torch.no_grad():
        weight = embedding.weight
        return embedding(torch.arange(weight.shape[0], device=weight.device))


def _head_of(head, hidden: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(weight [V, d], bias [V] or None) a (possibly peft-wrapped) output head applies: its
    own, or for a wrapper read off it once, W^T = head(I) - head(0) (exact when the bias is
    0 or absent, as in every tied head)."""
    if type(head) is torch.nn.Linear:
        return head.weight, head.bias
    weight = head.weight
    with torch.no_grad():
        zero = torch.zeros(1, hidden, dtype=weight.dtype, device=weight.device)
        bias = head(zero)[0]
        rows = (head(torch.eye(hidden, dtype=weight.dtype, device=weight.device)) - bias).T
    return rows.contiguous(), bias if bool(bias.any()) else None


class LeanForward:
    """The loop of the module docstring over one model (holds references, not copies)."""

    def __init__(self, model):
        reason = lean_reason(model)
        if reason is not None:
            raise ValueError(f"no lean forward for this model: {reason}")
        decoder = model.get_decoder()
        self.embed = decoder.embed_tokens
        self.layers = list(decoder.layers)
        self.norm = decoder.norm
        self.rotary = decoder.rotary_emb
        self.head = model.get_output_embeddings()
        attn = self.layers[0].self_attn
        self.head_dim = int(attn.head_dim)
        self.groups = int(model.config.num_attention_heads // model.config.num_key_value_heads)
        self.scaling = float(attn.scaling)
        # LoRA (peft): the adapted layers wrap their base weight, so `.weight` alone would
        # sample the base model; call the modules, which add the adapters' terms
        self.lin = _call if hasattr(model, "peft_config") else _linear
        # the embedding and output head as this run sees them, read once: a wrapped one
        # (peft's trained goal-token rows) rebuilds its 49k-row matrix on every call
        self.embed_weight = _rows_of(self.embed)
        self.head_weight, self.head_bias = _head_of(self.head, self.embed_weight.shape[1])

    @torch.no_grad()
    def __call__(self, ids, positions, seen_mask, buffers, row_index, slots, rows, width):
        """Last-position logits [n, V] float32 of a cached pass.

        Args:
            ids, positions: int64 [n, q] tokens and their RoPE positions.
            seen_mask: bool [n, 1, q, width], True where a query may attend a slot.
            buffers: per layer the (K, V) buffers [rows, kv_heads, capacity, d].
            row_index: int64 [n, 1] physical buffer rows written; ``slots`` int64 [n, q] the
                slot of each query's key and value.
            rows: the physical rows read (a slice, read as a view, or an index), ``width``
                the slots read.
        """
        n, q = ids.shape
        d, g = self.head_dim, self.groups
        h = self.embed_weight[ids]
        lin = self.lin
        cos, sin = self.rotary(h, positions)
        cos, sin = cos[:, None], sin[:, None]  # [n, 1, q, d]
        manual = q == 1 and h.dtype == torch.float32  # SDPA accumulates low precision in fp32
        if manual:
            bias = torch.zeros(seen_mask.shape, dtype=h.dtype, device=h.device)
            bias = bias.masked_fill_(~seen_mask, float("-inf"))  # [n, 1, 1, width]
        for layer, (k_buf, v_buf) in zip(self.layers, buffers, strict=True):
            attn, mlp = layer.self_attn, layer.mlp
            x = _rms(h, layer.input_layernorm)
            qs = lin(attn.q_proj, x).view(n, q, -1, d).transpose(1, 2)
            ks = lin(attn.k_proj, x).view(n, q, -1, d).transpose(1, 2)
            vs = lin(attn.v_proj, x).view(n, q, -1, d)
            qs, ks = _rotate(qs, cos, sin), _rotate(ks, cos, sin)
            k_buf[row_index, :, slots] = ks.transpose(1, 2).to(k_buf.dtype)
            v_buf[row_index, :, slots] = vs.to(v_buf.dtype)
            keys, values = k_buf[rows, :, :width], v_buf[rows, :, :width]
            if manual:  # [n, kv, g, d] @ [n, kv, d, W]: the g query heads of a KV head stacked
                scores = qs.reshape(n, -1, g, d) @ keys.transpose(2, 3) * self.scaling
                out = (scores + bias).softmax(-1) @ values  # [n, kv, g, d]
                out = out.reshape(n, 1, -1)
            else:
                out = F.scaled_dot_product_attention(
                    qs, keys, values, attn_mask=seen_mask, scale=self.scaling, enable_gqa=True
                )
                out = out.transpose(1, 2).reshape(n, q, -1)
            h = h + lin(attn.o_proj, out)
            x = _rms(h, layer.post_attention_layernorm)
            gate = F.silu(lin(mlp.gate_proj, x))
            up = lin(mlp.up_proj, x)
            h = h + lin(mlp.down_proj, gate * up)
        last = _rms(h[:, -1], self.norm)
        return F.linear(last, self.head_weight, self.head_bias).float()
