"""SFT step time of the tiny Qwen2 on one CPU core: numeric format and model shape.

One optimiser step (forward, backward, AdamW) on a batch of B x T random token ids, the
shape of a ``sft-synth-cpu`` batch (8 conversations of ~300 tokens). Variants, timed
interleaved (the machine is shared) and reported as the median of ``--repeats`` steps and as
a speed ratio against the fp32 ``tiny`` baseline measured in the same process:

- ``tiny`` in fp32 and under bf16 autocast (``sft.amp``),
- ``tiny`` with full multi-head attention (4 KV heads instead of 2),
- the ``small`` preset (hidden 128) under bf16.

``torch.compile`` is not a variant: it compiles once per run (tens of seconds on this CPU),
which a 15-minute budget does not repay (see docs/lab-notes/2026-11-stage1.md).

    .venv/bin/python benchmarks/bench_sft_step.py [--batch 8] [--length 300] [--repeats 9]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from rcgrpo.policy.models import PRESETS

VOCAB = 1024


def _model(preset: str, **overrides) -> Qwen2ForCausalLM:
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=VOCAB, tie_word_embeddings=True, **{**PRESETS[preset], **overrides}
    )
    return Qwen2ForCausalLM(config)


def _stepper(model: Qwen2ForCausalLM, bf16: bool):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step(ids: torch.Tensor) -> float:
        start = time.perf_counter()
        with torch.autocast("cpu", torch.bfloat16, enabled=bf16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return time.perf_counter() - start

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--length", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    torch.set_num_threads(1)
    variants = {
        "tiny fp32 (baseline)": _stepper(_model("tiny"), bf16=False),
        "tiny bf16 autocast": _stepper(_model("tiny"), bf16=True),
        "tiny bf16, 4 KV heads (MHA)": _stepper(_model("tiny", num_key_value_heads=4), bf16=True),
        "small bf16": _stepper(_model("small"), bf16=True),
    }
    ids = torch.randint(0, VOCAB, (args.batch, args.length))
    for step in variants.values():  # warm-up (allocator, oneDNN kernels)
        step(ids)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, step in variants.items():
            times[name].append(step(ids))
    medians = {name: statistics.median(t) for name, t in times.items()}
    base = medians["tiny fp32 (baseline)"]
    tokens = args.batch * args.length
    print(
        f"SFT step, batch {args.batch} x {args.length} tokens, 1 thread, median of {args.repeats}"
    )
    for name, t in medians.items():
        print(f"{name:<30} {t * 1e3:7.1f} ms  {tokens / t:8.0f} tok/s  speed x{base / t:.2f}")


if __name__ == "__main__":
    main()
