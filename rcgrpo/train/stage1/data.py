"""Stage-1 data plumbing: the starting policy (and its from-scratch tokenizer), expert data,
tokenized examples, and length-bucketed padded batches by global step.

The tiny model has no pre-trained tokenizer: its BPE is trained on the training tasks' texts
(user turns, ground truth, initial states, function docs) plus up to 2,000 rendered expert
conversations per mode, so system prompts, tool outputs and the template are in the corpus.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path

import torch

from rcgrpo.train.stage1.config import GOAL_LABELS, SFTConfig
from rcgrpo.train.stage1.trajectories import Example, encode_trajectory

SCRATCH_MAX_CONTEXT = 1_000_000  # scripted experts are never cut; sft.max_length filters


def device_of(cfg: SFTConfig) -> str:
    if cfg.model.device != "auto":
        return cfg.model.device
    return "cuda" if torch.cuda.is_available() else "cpu"


def init_policy(cfg: SFTConfig, train_tasks: Sequence, resume: Path | None):
    """(model, tokenizer): the checkpoint to resume, a checkpoint, or a from-scratch preset
    whose BPE is trained on the training tasks + their rendered expert conversations."""
    from rcgrpo.policy.models import PRESETS, build_tiny_policy, load_policy
    from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer
    from rcgrpo.train.progress import heartbeat

    dtype = getattr(torch, cfg.model.dtype)
    if resume is not None or cfg.model.path not in PRESETS:
        key = "run.resume" if resume is not None else "model.path"
        model, tokenizer, _ = load_policy(resume or cfg.model.path, dtype, device_of(cfg), key=key)
        return model, tokenizer
    boot = train_tiny_tokenizer(task_corpus(train_tasks[:200]), vocab_size=512)
    texts = [
        boot.apply_chat_template(list(t.messages), tokenize=False)
        for mode in cfg.sft.modes
        for t in expert_data(cfg, train_tasks[:2000], boot, modes=(mode,))
    ]
    corpus = task_corpus(train_tasks) + texts
    with heartbeat(f"{cfg.stage} tokenizer on {len(corpus)} texts", cfg.run.progress):
        tokenizer = train_tiny_tokenizer(
            corpus, cfg.sft.vocab_size, isolate_whitespace=cfg.sft.isolate_whitespace
        )
    model, tokenizer = build_tiny_policy(cfg.model.path, tokenizer, seed=cfg.run.seed)
    return model.to(device=device_of(cfg), dtype=dtype), tokenizer


def expert_data(
    cfg: SFTConfig,
    tasks: Sequence,
    tokenizer,
    modes: Sequence[str] | None = None,
    source: str | None = None,
):
    """Scripted trajectories (``source``, default ``sft.demonstrations``: expert or demo) of
    ``tasks`` in every mode of ``modes`` (default ``sft.modes``), labels from the real reward;
    a progress bar per mode (``run.progress``)."""
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.train.progress import EpisodeTally, close, open_bar
    from rcgrpo.train.stage1.trajectories import expert_trajectories

    encoder = ChatEncoder(tokenizer)
    opts = dict(
        prompt_style=cfg.tasks.prompt_style,
        max_new_tokens=SCRATCH_MAX_CONTEXT,
        max_context=SCRATCH_MAX_CONTEXT,
        max_batch=256,
    )
    source, out = source or cfg.sft.demonstrations, []
    for mode in modes or cfg.sft.modes:
        desc = f"{cfg.stage} {source} episodes {mode}"
        bar = open_bar(len(tasks), desc, cfg.run.progress, unit="episode")
        out += expert_trajectories(tasks, encoder, mode, source, EpisodeTally(bar), **opts)
        close(bar)
    return out


def random_goals(n: int, share: float, seed: int) -> list[bool | None]:
    """Goal of each of ``n`` SFT examples (``sft.random_goals``): with probability ``share``
    high or low (1/2 each), else None; independent of the examples, deterministic in ``seed``."""
    rng = random.Random(f"sft-goals/{seed}")
    return [(rng.random() < 0.5) if rng.random() < share else None for _ in range(n)]


def goal_labels(trajs: Sequence, labels: str, seed: int) -> list[bool]:
    """The goal of each RCTP-FT trajectory (True high, False low) under ``goals.labels``
    (:data:`rcgrpo.train.stage1.config.GOAL_LABELS`).

    ``reward``: g_i = [r_i = 1], the paper's label. ``shuffled``: within each episode mode m,
    (g_i)_{i in m} is a permutation π of ([r_i = 1])_{i in m}, uniform and deterministic in
    ``seed``, so every mode keeps its count of high labels (half, in a 1:1 mix) while a
    label is independent of its trajectory's reward: P(g = high | r) = P(g = high)."""
    rewarded = [t.reward == 1 for t in trajs]
    if labels == "reward":
        return rewarded
    if labels not in GOAL_LABELS:
        raise ValueError(f"goals.labels must be one of {list(GOAL_LABELS)}, got {labels!r}")
    rng = random.Random(f"rctp-shuffled-goals/{seed}")
    out = list(rewarded)
    for mode in sorted({t.mode for t in trajs}):
        where = [i for i, t in enumerate(trajs) if t.mode == mode]
        drawn = [rewarded[i] for i in where]
        rng.shuffle(drawn)
        for i, g in zip(where, drawn, strict=True):
            out[i] = g
    return out


def batch_schedule(
    lengths: Sequence[int], batch_size: int, seed: int, epoch: int, curriculum: float = 0.0
) -> list[list[int]]:
    """Index batches of one epoch: shuffled, bucketed by length inside windows of 32
    batches (little padding), batch order shuffled again. Deterministic in (seed, epoch).

    ``curriculum`` = c > 0 (epoch 0 only): a length warm-up; the ``ceil(c * #batches)``
    batches of shortest mean length come first, shortest first, the rest follow shuffled."""
    rng = random.Random(f"sft-batches/{seed}/{epoch}")
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = 32 * batch_size
    batches = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: lengths[i])
        batches += [chunk[k : k + batch_size] for k in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    if epoch == 0 and curriculum > 0:

        def mean_length(j: int) -> float:
            return sum(lengths[i] for i in batches[j]) / len(batches[j])

        ranked = sorted(range(len(batches)), key=mean_length)
        head = ranked[: math.ceil(curriculum * len(batches))]
        rest = sorted(set(range(len(batches))) - set(head))
        batches = [batches[j] for j in head + rest]
    return batches


def collate(examples: Sequence[Example], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-padded ``input_ids`` [B, T], ``attention_mask`` and ``loss_mask`` (bool); and
    ``loss_weight`` (float, 1 where an example has no weight) when any example has one."""
    width = max(len(e.ids) for e in examples)
    ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    attn = torch.zeros(len(examples), width, dtype=torch.bool)
    mask = torch.zeros_like(attn)
    for b, e in enumerate(examples):
        ids[b, : len(e.ids)] = torch.tensor(e.ids)
        attn[b, : len(e.ids)] = True
        mask[b, : len(e.mask)] = torch.tensor(e.mask, dtype=torch.bool)
    out = {"input_ids": ids, "attention_mask": attn, "loss_mask": mask}
    if any(e.weight is not None for e in examples):
        weight = torch.ones(len(examples), width)
        for b, e in enumerate(examples):
            if e.weight is not None:
                weight[b, : len(e.weight)] = torch.tensor(e.weight)
        out["loss_weight"] = weight
    return out


def encode_examples(
    trajs, tokenizer, conditioned: bool, max_length: int, goals=None, progress: bool = False
):
    """(examples, dropped): encoded trajectories no longer than ``max_length`` tokens; without
    ``conditioned``, ``goals`` (one per trajectory, :func:`random_goals`) are their goals;
    ``progress``: a progress bar ``encode examples``."""
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.train.progress import advance, close, open_bar

    encoder = ChatEncoder(tokenizer)
    goals = goals if goals is not None else [None] * len(trajs)
    bar = open_bar(len(trajs), "encode examples", progress, unit="example")
    examples = []
    for traj, goal in zip(trajs, goals, strict=True):
        examples.append(encode_trajectory(encoder, traj, conditioned, goal))
        advance(bar)
    close(bar)
    kept = [e for e in examples if len(e.ids) <= max_length]
    return kept, len(examples) - len(kept)


class BatchStream:
    """The batch of every global step: epoch = step // per_epoch, each epoch its own
    :func:`batch_schedule`, so a resumed run sees exactly the batches it would have seen."""

    def __init__(
        self,
        examples: Sequence[Example],
        batch_size: int,
        seed: int,
        pad_id: int,
        curriculum: float = 0.0,
    ):
        if not examples:
            raise ValueError("examples is empty: no training sequence survived the filters")
        self.examples, self.batch_size, self.seed, self.pad_id = examples, batch_size, seed, pad_id
        self.curriculum = curriculum
        self.lengths = [len(e.ids) for e in examples]
        self.per_epoch = math.ceil(len(examples) / batch_size)
        self._epoch, self._batches = -1, []

    def __call__(self, step: int) -> dict[str, torch.Tensor]:
        epoch, k = divmod(step, self.per_epoch)
        if epoch != self._epoch:
            self._epoch = epoch
            self._batches = batch_schedule(
                self.lengths, self.batch_size, self.seed, epoch, self.curriculum
            )
        return collate([self.examples[i] for i in self._batches[k]], self.pad_id)
