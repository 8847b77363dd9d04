"""The rollout and score sections of an RL step: prompts, reward tokens, seeded rollouts of
this rank's groups, and the per-rollout table gathered over ranks.

Reproducibility contract (``--run.resume`` and multi-process runs rely on it): everything a
step samples is a function of ``(run.seed, step, round, ...)`` and the model parameters —

- prompts: :class:`PromptStream`, epoch-wise permutations of the training tasks seeded by
  ``(seed, epoch)``; its position (prompts consumed so far) is checkpointed;
- reward tokens: :func:`rcgrpo.sample_reward_tokens` for the GLOBAL [P, G] batch with a
  generator seeded by ``(seed, step, round)``; each rank slices its groups. A goal scheme
  that keeps state (:class:`GoalDraws`) sees every round's global goals and rewards, the
  same on every rank, and its state is checkpointed;
- rollouts: the engine's sampler is seeded per block of ``rollout.seed_block`` prompts by
  ``(seed, step, round, first prompt of the block)`` (0 = one block per rank).

Groups are never split: rank r owns the contiguous prompts ``shard_range(P, info)``. The
environment scores every episode while it runs (``Episode.score``); the score section
turns the rank's rollouts into table rows and gathers them, so every rank holds the same
global [P, G] reward grid and group statistics are exact.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections.abc import Sequence
from typing import Any

import torch

from rcgrpo.conditioning import goal_scheme, sample_reward_tokens
from rcgrpo.train.distributed import DistInfo, shard_range
from rcgrpo.train.rl.filters import Round


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from any printable parts (stable across processes and Python runs)."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


class PromptStream:
    """Training task indices, epoch by epoch, each epoch a permutation seeded by (seed, epoch).

    ``take(n)`` returns the next n indices (crossing epoch boundaries); ``position`` (prompts
    consumed so far) is the whole state, so a resumed run continues with the same prompts.
    """

    def __init__(self, num_tasks: int, seed: int, position: int = 0):
        if num_tasks < 1:
            raise ValueError(f"num_tasks must be >= 1, got {num_tasks}")
        self.num_tasks, self.seed, self.position = num_tasks, seed, position
        self._epoch, self._order = -1, []

    def _order_of(self, epoch: int) -> list[int]:
        if epoch != self._epoch:
            self._order = list(range(self.num_tasks))
            random.Random(derive_seed(self.seed, "prompts", epoch)).shuffle(self._order)
            self._epoch = epoch
        return self._order

    def take(self, n: int) -> list[int]:
        out = []
        for _ in range(n):
            epoch, k = divmod(self.position, self.num_tasks)
            out.append(self._order_of(epoch)[k])
            self.position += 1
        return out

    def state_dict(self) -> dict[str, int]:
        return {"position": self.position, "num_tasks": self.num_tasks, "seed": self.seed}

    def load_state_dict(self, state: dict[str, int]) -> None:
        if (state["num_tasks"], state["seed"]) != (self.num_tasks, self.seed):
            raise ValueError(
                f"checkpoint prompt stream ({state['num_tasks']} tasks, seed {state['seed']}) "
                f"does not match this run ({self.num_tasks} tasks, seed {self.seed})"
            )
        self.position = int(state["position"])


class GoalDraws:
    """The reward goals of a run's rounds under ``algo.conditioning``, a scheme of
    :data:`rcgrpo.conditioning.SCHEMES`, and its state if it keeps one (``state_dict``)."""

    def __init__(self, scheme: str, p: float):
        self.spec, self.p = goal_scheme(scheme), p
        self.state = self.spec.init_state() if self.spec.keeps_state else None

    def draw(self, num_prompts: int, group_size: int, seed: int, step: int, round_: int):
        """Global [P, G] bool reward tokens of a round, or None under a scheme without tokens."""
        if not self.spec.token:
            return None
        gen = torch.Generator().manual_seed(derive_seed(seed, "tokens", step, round_))
        name = self.spec.name
        return sample_reward_tokens(num_prompts, group_size, self.p, name, gen, self.state)

    def observe(self, goals: torch.Tensor | None, rewards: torch.Tensor) -> None:
        """A scored round: a scheme that keeps state updates it from the [P, G] grids."""
        if self.spec.keeps_state and goals is not None:
            self.state = self.spec.update_state(self.state, goals, rewards)

    def state_dict(self) -> dict[str, Any]:
        return {"scheme": self.spec.name, "state": self.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state["scheme"] != self.spec.name:
            raise ValueError(
                f"checkpoint goal scheme {state['scheme']!r} does not match this run's "
                f"{self.spec.name!r}"
            )
        self.state = state["state"]


def rollout_shard(
    engine, tasks: Sequence, high, group_size: int, shard: range, block: int, seed_key: tuple
) -> dict[int, list]:
    """This rank's groups: prompt index -> its G rollouts, sampled block by block.

    ``tasks`` and ``high`` ([P, G] or None) are the GLOBAL round; ``block`` prompts per seeded
    engine call (0 = the whole shard). Rollouts get their global prompt index.
    """
    size = block or len(shard)
    out: dict[int, list] = {}
    for start in range(shard.start, shard.stop, size):
        idx = range(start, min(start + size, shard.stop))
        sub = None if high is None else high[idx.start : idx.stop]
        seed = derive_seed(*seed_key, start if block else f"rank-block-{start}")
        batch = engine.run_groups([tasks[p] for p in idx], group_size, sub, seed=seed)
        for k, p in enumerate(idx):
            group = batch.rollouts[k * group_size : (k + 1) * group_size]
            for r in group:
                r.prompt_index = p
            out[p] = group
    return out


def rollout_row(r) -> dict[str, Any]:
    """The per-rollout table fields of one rollout (scalars and short strings)."""
    observations = sum(m["role"] == "tool" for m in r.messages)
    token = None if r.reward_high is None else ("high" if r.reward_high else "low")
    return {
        "prompt": r.prompt_index,
        "group": r.group_index,
        "task_id": r.task_id,
        "category": r.category,
        "reward_token": token,
        "reward": r.reward,
        "state": int(r.record.state),
        "action": int(r.record.action),
        "bfcl_valid": bool(r.bfcl_valid),
        "length": r.length,
        "gen_tokens": r.num_generated,
        "steps": r.num_steps,
        "turns": (max(r.message_turns) + 1) if r.message_turns else 0,
        "calls": sum(len(c) for c in r.calls_per_turn),
        "tool_errors": r.num_tool_errors,
        "observations": observations,
        "truncated": bool(r.truncated or r.record.truncated),
        "capped": r.capped_messages,
        "failure_reason": r.record.failure_reason,
    }


def gather_rows(rows: list[dict], info: DistInfo) -> list[dict]:
    """Concatenate every rank's rows on every rank (rank order = prompt order)."""
    if not info.enabled:
        return list(rows)
    import torch.distributed as dist

    parts: list[list[dict]] = [[] for _ in range(info.world_size)]
    dist.all_gather_object(parts, rows)
    return [row for part in parts for row in part]


class RoundGenerator:
    """``generate(round)`` for :func:`rcgrpo.train.rl.filters.collect_groups` at one step."""

    def __init__(
        self,
        engine,
        tasks: Sequence,
        stream: PromptStream,
        goals: GoalDraws,
        cfg,
        info: DistInfo,
        step: int,
        timer=None,
    ):
        self.engine, self.tasks, self.stream, self.goals = engine, tasks, stream, goals
        self.cfg = cfg
        self.info, self.step = info, step
        self.timer = timer or (lambda phase: contextlib.nullcontext())

    def __call__(self, round_: int) -> Round:
        r, seed = self.cfg.rollout, self.cfg.run.seed
        prompts = [self.tasks[i] for i in self.stream.take(r.prompts_per_step)]
        high = self.goals.draw(len(prompts), r.group_size, seed, self.step, round_)
        shard = shard_range(len(prompts), self.info)
        key = (seed, "rollout", self.step, round_)
        with self.timer("rollout"), torch.no_grad():
            local = rollout_shard(
                self.engine, prompts, high, r.group_size, shard, r.seed_block, key
            )
        with self.timer("gather"):
            rows = gather_rows([rollout_row(x) for p in shard for x in local[p]], self.info)
        rewards = torch.tensor([row["reward"] for row in rows], dtype=torch.float32)
        rewards = rewards.view(len(prompts), r.group_size)
        self.goals.observe(high, rewards)
        return Round(rewards, high, rows, local)
