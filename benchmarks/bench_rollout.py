"""Rollout throughput: the engine vs plain HF ``generate`` re-encoding, and vs the old engine.

Same model (randomly initialised tiny Qwen2 preset), same tasks, same batch, greedy
decoding, so every path produces identical token ids (checked) and they differ only in how
they compute them:

- **engine**: :class:`~rcgrpo.policy.policies.ModelPolicy` on
  :class:`~rcgrpo.policy.kv_batch.KVBatch` (first prompts prefilled alone with the causal
  kernel, a group's shared prompt prefix prefilled once, a hole-free right-padded cache,
  only the rows still writing decoded);
- **old engine**: the engine as it was before, kept below as the baseline only (left-padded
  cache with holes, a 4-D mask over holes rebuilt every step, every row decoded until the
  batch's last message ends, compaction once per environment step);
- **generate**: :class:`~rcgrpo.policy.policies.GeneratePolicy`, ``model.generate`` on the
  whole conversation at every step.

The three are timed interleaved in one process (the machine is shared: the median of
``--repeats`` rounds is reported). Prints generated tokens/s and the ratios. ``--group-size G``
runs G rollouts of each of ``--n / G`` tasks with alternating reward goals (the RC-GRPO
layout, where the shared-prefix prefill applies); the default 1 is the historical workload.

    .venv/bin/python benchmarks/bench_rollout.py [--tasks bfcl] [--n 16] [--max-new-tokens 32]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

from rcgrpo.env import Episode
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.policies import GeneratePolicy, Generation, ModelPolicy, Request
from rcgrpo.policy.prefix import plan_buckets
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
from rcgrpo.policy.sampling import sample_next
from rcgrpo.policy.task_sources import load_tasks


class _OldBufferLayer(DynamicLayer):
    """Old engine: a DynamicLayer appending into a buffer grown by doubling."""

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


class OldKVBatch:
    """Old engine: left-padded batched cache with holes and per-row validity."""

    def __init__(self, model, pad_id: int = 0):
        self.model, self.pad_id = model, pad_id
        self.cache = self._new_cache()
        self.valid = torch.zeros(0, 0, dtype=torch.bool)
        self.lengths = torch.zeros(0, dtype=torch.long)
        self._bool_mask = model.config._attn_implementation == "sdpa"

    def _new_cache(self) -> DynamicCache:
        cache = DynamicCache(config=self.model.config)
        cache.layers = [_OldBufferLayer() for _ in cache.layers]
        return cache

    @property
    def rows(self) -> int:
        return int(self.lengths.numel())

    @property
    def width(self) -> int:
        return int(self.valid.shape[1])

    def _layers(self):
        return [layer for layer in self.cache.layers if layer.is_initialized]

    def add_rows(self, count: int) -> None:
        self.valid = torch.cat([self.valid, self.valid.new_zeros(count, self.width)])
        self.lengths = torch.cat([self.lengths, self.lengths.new_zeros(count)])
        for layer in self._layers():
            zeros = layer.keys.new_zeros((count, *layer.keys.shape[1:]))
            layer.set(torch.cat([layer.keys, zeros]), torch.cat([layer.values, zeros]))

    def keep_rows(self, index: torch.Tensor) -> None:
        if index.numel() == 0:
            self.cache = self._new_cache()
            self.valid = torch.zeros(0, 0, dtype=torch.bool)
            self.lengths = torch.zeros(0, dtype=torch.long)
            return
        self.valid, self.lengths = self.valid[index], self.lengths[index]
        for layer in self._layers():
            layer.set(layer.keys[index], layer.values[index])

    def compact(self) -> None:
        if self.rows == 0:
            return
        width = int(self.lengths.max())
        order = torch.sort(self.valid.to(torch.int8), dim=1, stable=True).indices
        index = order[:, self.width - width :]
        if width == self.width and bool((index == torch.arange(width)).all()):
            return
        self.valid = self.valid.gather(1, index)
        for layer in self._layers():
            heads, dim = layer.keys.shape[1], layer.keys.shape[3]
            gather_index = index[:, None, :, None].expand(-1, heads, -1, dim)
            layer.set(layer.keys.gather(2, gather_index), layer.values.gather(2, gather_index))

    def _attention_mask(self, new_valid: torch.Tensor) -> torch.Tensor:
        past, q = self.width, new_valid.shape[1]
        keys_valid = torch.cat([self.valid, new_valid], dim=1)
        query_pos, key_pos = past + torch.arange(q), torch.arange(past + q)
        causal = key_pos[None, :] <= query_pos[:, None]
        itself = key_pos[None, :] == query_pos[:, None]
        allowed = ((keys_valid[:, None, :] & causal[None]) | itself[None])[:, None]
        if self._bool_mask:
            return allowed
        dtype = self.model.dtype
        return torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)

    @torch.no_grad()
    def extend(self, tokens: list[list[int]]) -> torch.Tensor:
        groups = plan_buckets([max(1, len(t)) for t in tokens], 64)
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

    def _subset(self, idx: list[int]) -> OldKVBatch:
        sub = OldKVBatch(self.model, self.pad_id)
        sub.valid, sub.lengths = self.valid[idx], self.lengths[idx]
        for mine, theirs in zip(self.cache.layers, sub.cache.layers, strict=True):
            if mine.is_initialized:
                theirs.set(mine.keys[idx], mine.values[idx])
        return sub

    def _merge(self, parts: list[tuple[list[int], OldKVBatch]]) -> None:
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
        positions = self.lengths[:, None] + (new_valid.long().cumsum(dim=1) - 1).clamp(min=0)
        out = self.model(
            input_ids=ids,
            attention_mask=self._attention_mask(new_valid),
            position_ids=positions,
            past_key_values=self.cache,
            use_cache=True,
            logits_to_keep=1,
        )
        self.valid = torch.cat([self.valid, new_valid], dim=1)
        self.lengths = self.lengths + new_valid.sum(dim=1)
        return out.logits[:, -1, :].float()


class OldModelPolicy(ModelPolicy):
    """Old engine: the per-row Python decode loop over every row of the batch."""

    def begin_run(self, seed: int) -> None:
        super().begin_run(seed)
        self.kv = OldKVBatch(self.model, self.pad_id)

    def _sync_rows(self, slots: list[int]) -> None:
        super()._sync_rows(slots)
        self.kv.compact()

    def generate(self, requests: list[Request]) -> list[Generation]:
        by_slot = {req.slot: req for req in requests}
        self._sync_rows([req.slot for req in requests])
        feed = [[*self._pop_unfed(s), *by_slot[s].new_ids] for s in self.row_slots]
        caps = [by_slot[s].max_tokens for s in self.row_slots]
        out_ids: list[list[int]] = [[] for _ in self.row_slots]
        out_lp: list[list[float]] = [[] for _ in self.row_slots]
        live = [True] * len(self.row_slots)
        logits = self.kv.extend(feed)
        while True:
            tokens, logps = sample_next(logits, self.temperature, self.top_p, self.generator)
            feed = []
            for r, (tok, lp) in enumerate(zip(tokens.tolist(), logps.tolist(), strict=True)):
                if not live[r]:
                    feed.append([])
                    continue
                out_ids[r].append(tok)
                out_lp[r].append(lp)
                if tok in self.stop_ids or len(out_ids[r]) >= caps[r]:
                    live[r] = False
                    self.unfed[self.row_slots[r]] = tok
                    feed.append([])
                else:
                    feed.append([tok])
            if not any(live):
                break
            logits = self.kv.extend(feed)
        row_of = {s: r for r, s in enumerate(self.row_slots)}
        return [Generation(out_ids[row_of[q.slot]], out_lp[row_of[q.slot]]) for q in requests]


def _timed(policy, encoder, jobs, args) -> tuple[float, list]:
    engine = RolloutEngine(
        policy,
        encoder,
        Episode,
        mode="multi_turn",
        prompt_style="compact",
        max_new_tokens=args.max_new_tokens,
        max_context=args.max_context,
        max_batch=args.n,
    )
    start = time.perf_counter()
    rollouts = engine.run(jobs, seed=0)
    return time.perf_counter() - start, rollouts


def _jobs(args) -> list[RolloutJob]:
    if args.n % args.group_size:
        raise SystemExit(f"--n ({args.n}) must be a multiple of --group-size ({args.group_size})")
    split = "test" if args.tasks == "bfcl" else "train"
    tasks = load_tasks(args.tasks, split, limit=args.n // args.group_size)
    if args.group_size == 1:
        return [RolloutJob(t, True) for t in tasks]
    return [
        RolloutJob(t, g % 2 == 0, p, g) for p, t in enumerate(tasks) for g in range(args.group_size)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="bfcl", help="task source (bfcl | synth)")
    parser.add_argument("--n", type=int, default=16, help="episodes, all in one batch")
    parser.add_argument("--group-size", type=int, default=1, help="rollouts per task (G)")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--max-context", type=int, default=4096)
    parser.add_argument("--preset", default="tiny")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (median)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, tokenizer = build_tiny_policy(args.preset, seed=0)
    encoder = ChatEncoder(tokenizer)
    jobs = _jobs(args)
    stop, pad = sorted(encoder.stop_ids), tokenizer.pad_token_id
    paths = {
        "engine": ModelPolicy(model, stop, temperature=0.0, pad_id=pad),
        "old": OldModelPolicy(model, stop, temperature=0.0, pad_id=pad),
        "generate": GeneratePolicy(model, stop, temperature=0.0, pad_id=pad),
    }
    for policy in (paths["engine"], paths["old"]):
        _timed(policy, encoder, jobs[:2], args)  # warm-up
    times: dict[str, list[float]] = {k: [] for k in paths}
    ratios: dict[str, list[float]] = {"generate": [], "old": []}
    results = {}
    for _ in range(args.repeats):
        for key, policy in paths.items():
            seconds, results[key] = _timed(policy, encoder, jobs, args)
            times[key].append(seconds)
        for key in ratios:
            ratios[key].append(times[key][-1] / times["engine"][-1])
    ids = {k: [r.input_ids.tolist() for r in v] for k, v in results.items()}
    same = ids["engine"] == ids["old"] == ids["generate"]
    ref = results["engine"]
    generated = sum(r.num_generated for r in ref)
    params = sum(p.numel() for p in model.parameters())
    print(
        f"{args.preset} Qwen2 ({params / 1e6:.2f}M params), {len(jobs)} {args.tasks} episodes "
        f"(G = {args.group_size}) in one batch, greedy, {sum(r.num_steps for r in ref)} "
        f"assistant messages, {generated} generated tokens, mean final length "
        f"{sum(r.length for r in ref) / len(ref):.0f} tokens, 1 thread, {args.repeats} rounds"
    )
    print(f"identical token ids (engine, old engine, generate): {same}")
    for key, label in (
        ("engine", "engine"),
        ("old", "old engine"),
        ("generate", "HF generate re-encoding every step"),
    ):
        t = statistics.median(times[key])
        print(f"{label + ':':38s}{generated / t:8.1f} tok/s  (median {t:.2f} s)")
    for key, label in (("generate", "generate"), ("old", "old engine")):
        runs = ", ".join(f"{x:.2f}" for x in ratios[key])
        print(f"ratio {label} / engine: median {statistics.median(ratios[key]):.2f}x  ({runs})")


if __name__ == "__main__":
    main()
