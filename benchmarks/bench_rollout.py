"""Rollout throughput: the KV-cached batched engine vs plain HF ``generate`` re-encoding.

Same model (randomly initialised tiny Qwen2 preset), same tasks, same batch, greedy
decoding, so both produce identical token ids (checked) and do the same work except for
re-encoding: :class:`~rcgrpo.policy.policies.ModelPolicy` keeps each episode's KV cache
across steps and feeds only new tokens; :class:`~rcgrpo.policy.policies.GeneratePolicy`
calls ``model.generate`` on the whole conversation at every step. Prints generated tokens/s
of each and the ratio (engine / generate). Target >= 1.5x, goal 3x.

    .venv/bin/python benchmarks/bench_rollout.py [--tasks bfcl] [--n 16] [--max-new-tokens 32]
"""

from __future__ import annotations

import argparse
import time

import torch

from rcgrpo.env import Episode
from rcgrpo.policy import kv_batch
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.policies import GeneratePolicy, ModelPolicy
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
from rcgrpo.policy.task_sources import load_tasks


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="bfcl", help="task source (bfcl | synth)")
    parser.add_argument("--n", type=int, default=16, help="episodes, all in one batch")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--max-context", type=int, default=4096)
    parser.add_argument("--preset", default="tiny")
    parser.add_argument("--repeats", type=int, default=2, help="best of N timings")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, tokenizer = build_tiny_policy(args.preset, seed=0)
    encoder = ChatEncoder(tokenizer)
    split = "test" if args.tasks == "bfcl" else "train"
    jobs = [RolloutJob(t, True) for t in load_tasks(args.tasks, split, limit=args.n)]
    stop, pad = sorted(encoder.stop_ids), tokenizer.pad_token_id
    fast = ModelPolicy(model, stop, temperature=0.0, pad_id=pad)
    slow = GeneratePolicy(model, stop, temperature=0.0, pad_id=pad)
    _timed(fast, encoder, jobs[:2], args)  # warm-up
    times: dict[str, list[float]] = {"fast": [], "flat": [], "slow": []}
    for _ in range(args.repeats):  # interleaved, best of N: the machine is shared
        t_fast, r_fast = _timed(fast, encoder, jobs, args)
        kv_batch.FORWARD_COST_TOKENS = 10**9  # one padded prefill pass (no bucketing)
        t_flat, _ = _timed(fast, encoder, jobs, args)
        kv_batch.FORWARD_COST_TOKENS = 64
        t_slow, r_slow = _timed(slow, encoder, jobs, args)
        for key, value in (("fast", t_fast), ("flat", t_flat), ("slow", t_slow)):
            times[key].append(value)
    t_fast, t_flat, t_slow = (min(times[k]) for k in ("fast", "flat", "slow"))
    same = all(a.input_ids.equal(b.input_ids) for a, b in zip(r_fast, r_slow, strict=True))
    generated = sum(r.num_generated for r in r_fast)
    steps = sum(r.num_steps for r in r_fast)
    mean_len = sum(r.length for r in r_fast) / len(r_fast)
    params = sum(p.numel() for p in model.parameters())
    print(
        f"{args.preset} Qwen2 ({params / 1e6:.2f}M params), {len(jobs)} {args.tasks} episodes in one "
        f"batch, greedy, {steps} assistant messages, {generated} generated tokens, "
        f"mean final length {mean_len:.0f} tokens, 1 thread"
    )
    print(f"identical token ids: {same}")
    print(
        f"engine (KV cache kept across steps):   {generated / t_fast:8.1f} tok/s  ({t_fast:.2f} s)"
    )
    print(
        f"  same, one padded prefill pass:       {generated / t_flat:8.1f} tok/s  ({t_flat:.2f} s)"
    )
    print(
        f"HF generate re-encoding every step:    {generated / t_slow:8.1f} tok/s  ({t_slow:.2f} s)"
    )
    print(
        f"ratio engine / generate: {t_slow / t_fast:.2f}x  (without bucketed prefill: {t_slow / t_flat:.2f}x)"
    )


if __name__ == "__main__":
    main()
