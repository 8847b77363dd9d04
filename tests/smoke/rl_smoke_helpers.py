"""A tiny "coin-flip" starting checkpoint for the RL smoke tests, and CLI helpers.

A random-init model scores 0 on every task, so every group collapses, every advantage is 0
and an RL update is exactly zero — a smoke test could not tell a working trainer from a
broken one. :func:`coin_flip_checkpoint` instead memorises, for 2 synth tasks (1 turn,
1 call, ``bare`` prompts, combined mode), BOTH the expert reply and a failing "Done."
reply under every reward goal (none / high / low). Sampling at τ = 1 then succeeds about
half the time (≈ 0.44 measured), so groups have reward variance and advantages are
non-zero under every algorithm. ~6 s on one core; built once per session and cached.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import torch

NUM_TASKS = 2
SFT_STEPS = 120
TASK_FLAGS = [
    "--tasks.source",
    "synth",
    "--tasks.mode",
    "combined",
    "--tasks.prompt-style",
    "bare",
    "--tasks.num-train",
    str(NUM_TASKS),
    "--tasks.num-eval",
    "2",
    "--tasks.max-turns",
    "1",
    "--tasks.max-calls-per-turn",
    "1",
    "--tasks.synth-preset",
    "tiny",
]
SMALL_RUN = [
    *TASK_FLAGS,
    "--rollout.group-size",
    "4",
    "--rollout.prompts-per-step",
    "2",
    "--rollout.max-new-tokens",
    "64",
    "--rollout.max-context",
    "400",
    "--optim.lr",
    "1e-3",
    "--optim.warmup-steps",
    "0",
    "--optim.weight-decay",
    "0",
    "--run.no-progress",
    "--run.no-tensorboard",
    "--run.eval-every",
    "0",
]


def _build(out: Path) -> None:
    from rcgrpo.env import Episode
    from rcgrpo.policy import ChatEncoder, RolloutEngine, RolloutJob, ScriptedPolicy
    from rcgrpo.policy.models import build_tiny_policy, save_policy
    from rcgrpo.policy.render import with_reward_goal
    from rcgrpo.policy.task_sources import load_task_splits
    from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer
    from rcgrpo.train.config import TaskConfig
    from rcgrpo.train.stage1.trajectories import expert_trajectories

    tasks = TaskConfig(num_train=NUM_TASKS, num_eval=2, max_turns=1, max_calls_per_turn=1)
    train, held_out = load_task_splits(tasks, "tiny")
    tokenizer = train_tiny_tokenizer(task_corpus(train + held_out), vocab_size=1024)
    model, tokenizer = build_tiny_policy("micro", tokenizer=tokenizer, seed=0)
    enc = ChatEncoder(tokenizer)
    opts = dict(prompt_style="bare", max_new_tokens=10_000, max_context=10_000)
    good = expert_trajectories(train, enc, "combined", **opts)
    fail = RolloutEngine(
        ScriptedPolicy(enc, lambda view: "Done."), enc, Episode, mode="combined", **opts
    ).run([RolloutJob(t) for t in train])
    encoded = [
        enc.encode_conversation(with_reward_goal(msgs, high))
        for g, f in zip(good, fail, strict=True)
        for high in (None, True, False)
        for msgs in (g.messages, f.messages)
    ]
    width = max(len(ids) for ids, _ in encoded)
    ids = torch.full((len(encoded), width), tokenizer.pad_token_id, dtype=torch.long)
    attn = torch.zeros(len(encoded), width, dtype=torch.long)
    mask = torch.zeros(len(encoded), width, dtype=torch.bool)
    for b, (row, row_mask) in enumerate(encoded):
        ids[b, : len(row)], attn[b, : len(row)] = torch.tensor(row), 1
        mask[b, : len(row)] = torch.tensor(row_mask, dtype=torch.bool)
    target = mask[:, 1:]
    torch.manual_seed(0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(SFT_STEPS):  # token-mean cross-entropy on assistant tokens
        logits = model(input_ids=ids, attention_mask=attn).logits[:, :-1]
        loss = torch.nn.functional.cross_entropy(logits[target], ids[:, 1:][target])
        opt.zero_grad()
        loss.backward()
        opt.step()
    save_policy(model.eval(), tokenizer, out)


def coin_flip_checkpoint(cache_root: Path) -> Path:
    """The checkpoint folder, built once under ``cache_root`` (safe across xdist workers)."""
    final = Path(cache_root) / f"rl_coin_flip_v2_{SFT_STEPS}"
    if (final / "model.safetensors").is_file():
        return final
    tmp = final.with_name(f"{final.name}.tmp{os.getpid()}")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the same weights whatever the worker's thread count
    try:
        _build(tmp)
    finally:
        torch.set_num_threads(threads)
    try:
        os.replace(tmp, final)
    except OSError:  # another worker finished first
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def cli(*args: str, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """``python -m rcgrpo <args>`` in a subprocess with one torch thread; must exit 0."""
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def params(path: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(Path(path) / "model.safetensors"))
