"""Where one RL step of a CPU preset spends its time, and what the levers left could gain.

Runs ``--steps`` RL steps of ``--preset`` (after one warm-up step) from the trained checkpoint,
one thread, this checkout only, and prints:

- **rollout**: every cached pass of the engine timed (``KVBatch`` decode steps, batched extend
  passes, prefills of a first prompt alone), decode steps bucketed by how many rows they feed,
  with their mean width and the keys and values they read (rows x width x layers x 2 x
  kv-heads x head-dim x bytes per element) per second;
- **decode schedules** of the same rollouts, priced at the measured cost of a step with that
  many rows: as run (each round waits for its longest message), continuous batching's floor
  (an episode's messages back to back, the environment steps free), and prompt-lookup
  speculative decoding (the last 1-3 tokens matched earlier in the context, the k tokens after
  the match proposed, drafting at <= 4 live rows or at every row count, a pass priced as a
  1-token step), and both together. A draft fixed before the draw is
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

import collections
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import torch
from bench_rl_step import make_run, matmul_gflops, resolve_init, run_arguments
from torch.profiler import profile

import rcgrpo.policy.rollout as rollout_module
import rcgrpo.train.rl.loop as rl_module
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
        self.decode.clear()
        self.passes.clear()
        self.tokens.clear()
        self.rollouts.clear()


def kv_bytes_per_token(model) -> int:
    """Bytes of keys and values one cached token holds over all layers (the model's dtype)."""
    config = model.config
    heads = int(config.num_key_value_heads)
    dim = int(getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads)
    return int(config.num_hidden_layers) * 2 * heads * dim * model.dtype.itemsize


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


def advance(ids: list[int], t: int, end: int, k: int) -> int:
    """Position after one decode pass at ``t`` of the message ending at ``end``: one sampled
    token, then the leading matches of a k-token prompt-lookup draft (none when k = 0)."""
    t += 1
    for token in lookup_draft(ids[:t], k) if k and t < end else []:
        if ids[t] != token:
            break
        t += 1
        if t == end:
            break
    return t


Segment = tuple[list[int], int, int]
"""One message to decode: the episode's ids and the message's start and end in them."""


def schedule_rows(rows: list[list[Segment]], k: int = 0, max_rows: int = 10**9) -> list[int]:
    """Live rows of each decode pass when row r writes the messages ``rows[r]`` back to back,
    drafting k tokens per row in passes of at most ``max_rows`` live rows."""
    place = {r: (0, segs[0][1]) for r, segs in enumerate(rows) if segs}  # row -> (message, t)
    out = []
    while place:
        out.append(len(place))
        draft = k if len(place) <= max_rows else 0
        for r, (m, t) in list(place.items()):
            ids, _, end = rows[r][m]
            t = advance(ids, t, end, draft)
            if t < end:
                place[r] = (m, t)
            elif m + 1 < len(rows[r]):
                place[r] = (m + 1, rows[r][m + 1][1])
            else:
                del place[r]
    return out


def bucket(rows: int) -> str:
    return next(label for label, lo, hi in ROW_BUCKETS if lo <= rows <= hi)


def schedules(rollouts: list, k: int) -> dict[str, list[int]]:
    """Live rows per decode pass of one engine run under each schedule (module docstring):
    synchronous rounds (round m = every episode's message m; the next round starts when its
    longest message ends) or continuous (an episode's messages back to back)."""
    episodes = [[(r.input_ids.tolist(), s, e) for s, e in r.message_spans] for r in rollouts]
    rounds = max(len(e) for e in episodes)

    def synchronous(k: int, max_rows: int = 10**9) -> list[int]:
        out = []
        for m in range(rounds):
            out += schedule_rows([[e[m]] for e in episodes if len(e) > m], k, max_rows)
        return out

    return {
        "as run (synchronous rounds)": synchronous(0),
        "continuous batching floor": schedule_rows(episodes),
        f"drafts of {k} at <= 4 rows": synchronous(k, 4),
        f"drafts of {k} at every row count": synchronous(k),
        "continuous + drafts at <= 4 rows": schedule_rows(episodes, k, 4),
        "continuous + drafts at every count": schedule_rows(episodes, k),
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


def report_rollout(timer: EngineTimer, model, steps: int, draft: int) -> None:
    per_token = kv_bytes_per_token(model)
    print(f"\nrollout: engine passes per step (mean of {steps} steps)")
    print(f"{'decode rows':>12s} {'steps':>7s} {'ms/step':>8s} {'width':>7s} {'KV GB/s':>8s}")
    total, cost = 0.0, {}  # cost: measured seconds per decode step, by rows
    for label, lo, hi in ROW_BUCKETS:
        sel = [(r, w, s) for r, w, s in timer.decode if lo <= r <= hi]
        if not sel:
            continue
        seconds = sum(s for _, _, s in sel)
        total += seconds
        cost[label] = seconds / len(sel)
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
    print("\ndecode schedules of the same rollouts, priced at the measured cost per step of")
    print("their row count (a pass with drafts priced as a 1-token step: savings are upper bounds)")
    runs = [schedules(r, draft) for r in timer.rollouts]
    for name in runs[0]:
        rows = [n for run in runs for n in run[name]]
        seconds = sum(cost[bucket(n)] for n in rows)
        print(f"  {name:36s} {len(rows) / steps:6.1f} steps {seconds / steps:6.2f} s per step")
    passes = sum(
        len(schedule_rows([[seg]], draft))
        for run in timer.rollouts
        for r in run
        for seg in [(r.input_ids.tolist(), s, e) for s, e in r.message_spans]
    )
    generated = sum(r.num_generated for run in timer.rollouts for r in run)
    print(f"  prompt-lookup drafts of {draft}: {generated / passes:.2f} tokens per pass")


def main() -> None:
    parser = run_arguments(__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3, help="profiled steps after a warm-up")
    parser.add_argument("--draft", type=int, default=4, help="prompt-lookup draft length")
    parser.add_argument("--autocast", action="store_true", help="also time bf16 autocast passes")
    args = parser.parse_args()
    resolve_init(args)
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
    report_rollout(timer, run.model, args.steps * len(runs), args.draft)
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
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
