"""Where one RL step of a CPU preset spends its time, and what the levers left could gain.

Runs ``--steps`` RL steps of ``--preset`` (after one warm-up step) from the trained checkpoint,
one thread, this checkout only, and prints:

- **rollout**: every cached pass of the engine timed (``KVBatch`` decode steps, batched extend
  passes, prefills of a first prompt alone), decode steps bucketed by how many rows they feed,
  with their mean width and the keys and values they read (rows x width x layers x 2 x
  kv-heads x head-dim x 4 bytes) per second;
- **decode schedules** of the same rollouts, priced at the measured cost of a step with that
  many rows: as run (each round waits for its longest message), continuous batching's floor
  (an episode's messages back to back, the environment steps free), and prompt-lookup
  speculative decoding (the last 1-3 tokens matched earlier in the context, the k tokens after
  the match proposed, a pass priced as a 1-token step). A draft fixed before the draw is
  accepted with probability p(d) under speculative sampling, and a sampled token equals d with
  the same probability, so counting matches on sampled rollouts estimates the acceptance
  without bias;
- **reference pass and update**: ``torch.profiler`` self time by op class (matmul, attention,
  other) and the matmuls' rate against this core's fp32 matmul throughput;
- with ``--autocast``, a second run whose reference pass and update run under bf16
  ``torch.autocast``, interleaved with the fp32 run, and the ratio of their medians.

    .venv/bin/python benchmarks/profile_rl_step.py [--init CKPT] [--preset cpu-rcgrpo]
        [--steps 3] [--autocast] [--draft 4]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
from bench_rl_step import INITS, ROOT, make_run, matmul_gflops
from torch.profiler import profile

import rcgrpo.policy.rollout as rollout_module
import rcgrpo.train.rl as rl_module
from rcgrpo.policy.kv_batch import KVBatch

ROW_BUCKETS = (("1", 1, 1), ("2-4", 2, 4), ("5-10", 5, 10), ("11-20", 11, 20), ("21+", 21, 10**9))
MATMUL_OPS = ("aten::mm", "aten::addmm", "aten::bmm")
ATTENTION_PREFIX = "aten::_scaled_dot_product"


class EngineTimer:
    """Wraps the engine's cached passes with timers (the class attributes, for this process)."""

    def __init__(self) -> None:
        self.decode: list[tuple[int, int, float]] = []  # rows, width, seconds
        self.passes: dict[str, list[float]] = collections.defaultdict(list)
        self.tokens: collections.Counter = collections.Counter()
        self.rollouts: list[list] = []
        decode, extend, alone = KVBatch.decode, KVBatch._extend_rows, KVBatch._prefill_alone
        run = rollout_module.RolloutEngine.run
        timer = self

        def timed_decode(kv, rows, tokens):
            width = int(kv.lengths[rows].max()) + 1
            start = time.perf_counter()
            out = decode(kv, rows, tokens)
            timer.decode.append((len(rows), width, time.perf_counter() - start))
            return out

        def timed_extend(kv, rows, chunks):
            start = time.perf_counter()
            out = extend(kv, rows, chunks)
            timer.passes["extend"].append(time.perf_counter() - start)
            timer.tokens["extend"] += sum(len(c) for c in chunks)
            timer.tokens["extend padded"] += len(rows) * max(len(c) for c in chunks)
            return out

        def timed_alone(kv, rows, ids):
            start = time.perf_counter()
            out = alone(kv, rows, ids)
            timer.passes["prefill alone"].append(time.perf_counter() - start)
            timer.tokens["prefill alone"] += len(ids)
            return out

        def recorded_run(engine, jobs, seed=0):
            out = run(engine, jobs, seed)
            timer.rollouts.append(out)
            return out

        KVBatch.decode, KVBatch._extend_rows = timed_decode, timed_extend
        KVBatch._prefill_alone = timed_alone
        rollout_module.RolloutEngine.run = recorded_run

    def clear(self) -> None:
        self.decode.clear(), self.passes.clear(), self.tokens.clear(), self.rollouts.clear()


def kv_bytes_per_token(config) -> int:
    """Bytes of keys and values one cached token holds over all layers (fp32)."""
    heads = int(config.num_key_value_heads)
    dim = int(getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads)
    return int(config.num_hidden_layers) * 2 * heads * dim * 4


def lookup_draft(context: list[int], k: int, longest: int = 3) -> list[int]:
    """Prompt-lookup draft: the k tokens after the latest earlier match of the last n tokens
    (n = ``longest`` .. 1, longest first); [] without a match."""
    for n in range(longest, 0, -1):
        if len(context) <= n:
            continue
        tail = context[-n:]
        for start in range(len(context) - n - 1, -1, -1):
            if context[start : start + n] == tail:
                return context[start + n : start + n + k]
    return []


def message_passes(ids: list[int], start: int, end: int, k: int) -> int:
    """Verification passes prompt-lookup drafts of k tokens need for the message ids[start:end]
    (each pass samples one token and accepts the draft's leading matches)."""
    t, passes = start, 0
    while t < end:
        t, passes = t + 1, passes + 1
        for token in lookup_draft(ids[:t], k) if t < end else []:
            if t < end and ids[t] == token:
                t += 1
            else:
                break
    return passes


def synchronous_rows(passes: list[list[int]]) -> list[int]:
    """Rows fed by each decode step when every round waits for its longest message:
    ``passes[r][m]`` = decode steps of episode r's message m."""
    rounds = max(len(p) for p in passes)
    rows = []
    for m in range(rounds):
        this = [p[m] for p in passes if len(p) > m]
        rows += [sum(n > j for n in this) for j in range(max(this))]
    return rows


def continuous_rows(passes: list[list[int]]) -> list[int]:
    """Rows fed by each decode step if an episode's messages ran back to back (continuous
    batching without the cost of its environment steps and extra extend passes: a floor)."""
    totals = [sum(p) for p in passes]
    return [sum(n > t for n in totals) for t in range(max(totals))]


def drafted_round_rows(
    messages: list[tuple[list[int], int, int]], k: int, max_rows: int
) -> list[int]:
    """Rows per decode step of one synchronous round whose steps draft k tokens per row while at
    most ``max_rows`` rows are live (``messages``: each live row's ids, message start, end)."""
    at = {i: start for i, (_, start, _) in enumerate(messages)}
    rows = []
    while at:
        rows.append(len(at))
        drafting = len(at) <= max_rows
        for i, t in list(at.items()):
            ids, _, end = messages[i]
            t += 1
            for token in lookup_draft(ids[:t], k) if drafting and t < end else []:
                if t < end and ids[t] == token:
                    t += 1
                else:
                    break
            if t < end:
                at[i] = t
            else:
                del at[i]
    return rows


def bucket(rows: int) -> str:
    return next(label for label, lo, hi in ROW_BUCKETS if lo <= rows <= hi)


def schedules(rollouts: list, k: int) -> dict[str, list[int]]:
    """Rows per decode step of one engine run under each schedule (module docstring)."""
    tokens = [[e - s for s, e in r.message_spans] for r in rollouts]
    drafted = [
        [message_passes(r.input_ids.tolist(), s, e, k) for s, e in r.message_spans]
        for r in rollouts
    ]
    return {
        "as run (synchronous rounds)": synchronous_rows(tokens),
        "continuous batching floor": continuous_rows(tokens),
        f"drafts of {k}, synchronous": synchronous_rows(drafted),
        f"drafts of {k} at <= 4 rows": [
            n
            for m in range(max(len(r.message_spans) for r in rollouts))
            for n in drafted_round_rows(
                [
                    (r.input_ids.tolist(), *r.message_spans[m])
                    for r in rollouts
                    if len(r.message_spans) > m
                ],
                k,
                4,
            )
        ],
        f"drafts of {k}, continuous": continuous_rows(drafted),
    }


def op_classes(prof) -> dict[str, float]:
    """Self CPU seconds by op class of a ``torch.profiler`` run."""
    out = collections.Counter()
    for event in prof.key_averages():
        name, seconds = event.key, event.self_cpu_time_total / 1e6
        if name in MATMUL_OPS:
            out["matmul"] += seconds
        elif name.startswith(ATTENTION_PREFIX):
            out["attention"] += seconds
        else:
            out["other"] += seconds
    return dict(out)


def matmul_flops(prof) -> float:
    """FLOPs of the profiled matmuls (``with_flops``)."""
    return sum(e.flops for e in prof.key_averages() if e.key in MATMUL_OPS)


def report_rollout(timer: EngineTimer, config, steps: int, draft: int) -> None:
    per_token = kv_bytes_per_token(config)
    print(f"\nrollout: engine passes per step (mean of {steps} steps)")
    print(f"{'decode rows':>12s} {'steps':>7s} {'ms/step':>8s} {'width':>7s} {'KV GB/s':>8s}")
    total = 0.0
    for label, lo, hi in ROW_BUCKETS:
        sel = [(r, w, s) for r, w, s in timer.decode if lo <= r <= hi]
        if not sel:
            continue
        seconds = sum(s for _, _, s in sel)
        total += seconds
        kv = sum(r * w * per_token for r, w, _ in sel)
        print(
            f"{label:>12s} {len(sel) / steps:7.1f} {seconds / len(sel) * 1e3:8.2f} "
            f"{statistics.mean(w for _, w, _ in sel):7.0f} {kv / seconds / 1e9:8.2f}"
        )
    print(f"decode total {total / steps:.2f} s per step")
    for name, times in timer.passes.items():
        tokens = timer.tokens[name]
        print(
            f"{name}: {len(times) / steps:.1f} passes, {sum(times) / steps:.2f} s, "
            f"{tokens / steps:.0f} tokens per step"
            + (f" ({timer.tokens['extend padded'] / steps:.0f} padded)" if name == "extend" else "")
        )
    cost = {  # measured seconds per decode step, by rows
        label: statistics.mean(t for r, _, t in timer.decode if lo <= r <= hi)
        for label, lo, hi in ROW_BUCKETS
        if any(lo <= r <= hi for r, _, _ in timer.decode)
    }
    print("\ndecode schedules of the same rollouts, priced at the measured cost per step of")
    print("their row count (a pass with drafts priced as a 1-token step: savings are upper bounds)")
    runs = [schedules(r, draft) for r in timer.rollouts]
    for name in runs[0]:
        rows = [n for run in runs for n in run[name]]
        seconds = sum(cost[bucket(n)] for n in rows)
        print(f"  {name:30s} {len(rows) / steps:6.1f} steps {seconds / steps:6.2f} s per step")
    generated = sum(r.num_generated for run in timer.rollouts for r in run)
    passes = sum(
        message_passes(r.input_ids.tolist(), s, e, draft)
        for run in timer.rollouts
        for r in run
        for s, e in r.message_spans
    )
    print(f"  prompt-lookup drafts of {draft}: {generated / passes:.2f} tokens per pass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init", type=Path, default=None)
    parser.add_argument("--preset", default="cpu-rcgrpo")
    parser.add_argument("--steps", type=int, default=3, help="profiled steps after a warm-up")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draft", type=int, default=4, help="prompt-lookup draft length")
    parser.add_argument("--autocast", action="store_true", help="also time bf16 autocast passes")
    args = parser.parse_args()
    args.init = args.init or next((ROOT / p for p in INITS if (ROOT / p).is_dir()), None)
    if args.init is None:
        sys.exit(f"no checkpoint: pass --init (looked for {', '.join(INITS)})")
    torch.set_num_threads(1)
    tmp = Path(tempfile.mkdtemp(prefix="profile_rl_step_"))
    timer = EngineTimer()
    update = rl_module.run_update
    profiles = []

    def profiled_update(*a, **k):
        with profile(with_flops=True) as prof:
            out = update(*a, **k)
        profiles.append(prof)
        return out

    def autocast_update(*a, **k):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return update(*a, **k)

    variants = {"fp32": update, **({"bf16 autocast": autocast_update} if args.autocast else {})}
    runs = {name: make_run("rcgrpo", args, tmp / name.replace(" ", "-")) for name in variants}
    times = {name: collections.defaultdict(list) for name in runs}
    for step in range(1, args.steps + 2):  # step 1 warms up
        order = list(runs) if step % 2 else list(runs)[::-1]
        for name in order:
            run, rl_step = runs[name]
            rl_module.run_update = variants[name]
            metrics = rl_step(run, step)
            if step == 1:
                timer.clear()
                continue
            for phase in ("rollout", "ref", "update", "step"):
                times[name][phase].append(metrics[f"perf/time_{phase}_s"])
    med = {n: {p: statistics.median(v) for p, v in t.items()} for n, t in times.items()}
    run, rl_step = runs["fp32"]
    print(f"RL step, preset {args.preset}, init {args.init}, 1 thread, median of {args.steps}")
    for name, m in med.items():
        print(f"{name:14s} " + "  ".join(f"{p} {s:.2f} s" for p, s in m.items()))
    if args.autocast:
        for phase in ("ref", "update"):
            ratio = med["fp32"][phase] / med["bf16 autocast"][phase]
            print(f"{phase}: fp32 / bf16 autocast = {ratio:.2f}x")
    # both variants run the same engine: their rollouts are pooled
    report_rollout(timer, run.model.config, args.steps * len(runs), args.draft)
    rl_module.run_update = profiled_update  # one more fp32 step, under the profiler
    rl_step(run, args.steps + 2)
    rl_module.run_update = update
    classes = op_classes(profiles[0])
    total = sum(classes.values())
    print("\nreference pass + update (fp32, one step under torch.profiler): self CPU time")
    for name, seconds in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"  {name:10s} {seconds / total:4.0%}")
    rate = matmul_flops(profiles[0]) / classes["matmul"] / 1e9
    print(f"  matmuls at {rate:.1f} GFLOP/s (profiled) against {matmul_gflops():.1f} GFLOP/s peak")


if __name__ == "__main__":
    main()
