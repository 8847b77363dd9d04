"""A run's rollouts as steps of [P, G] groups: the one shape every instrument reads.

A reader (:mod:`rcgrpo.diagnose.sources`) turns each rollout record into a
:class:`Rollout` (its step, its group key, its reward and, when recorded, its advantage,
reward goal, whether its group was trained on, its task and its generated length);
:func:`group_steps` lays them out per
step as a :class:`StepGroups` ([P, G] tensors, groups in order of first appearance).

Group sizes (shape letters: P groups of a step, G rollouts per group):

- a group of 1 rollout has no within-group variance: if the step's usual size is 1 the
  group key is wrong, and the error says so;
- a group of k·G rollouts (k >= 2, G the step's most common size) is a prompt drawn k times
  in one batch (TRL and verl lay a group's rollouts out contiguously): it is split into k
  consecutive groups of G and a note says how many were split;
- any other size cannot enter a [P, G] grid (s^G + (1-s)^G and the spread depend on G): an
  error names the sizes, unless ``drop_ragged`` drops those groups (noted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Rollout:
    """One rollout record, as a reader found it."""

    step: int
    """Training step the rollout was generated for."""
    group: Hashable
    """Its group (prompt) key; unique within the step."""
    reward: float
    """Its scalar reward."""
    advantage: float | None = None
    """The advantage the run recorded (None if not recorded or the group was dropped)."""
    high: bool | None = None
    """Its reward goal: True = <|high_reward|>, None = the run has no goals."""
    kept: bool | None = None
    """Whether its group was trained on (DAPO filtering); None = not recorded."""
    task: Hashable | None = None
    """Its prompt's identity (a repeated prompt has the same); None = not recorded."""
    length: int | None = None
    """Tokens the policy generated in it; None = not recorded."""


@dataclass(frozen=True)
class StepGroups:
    """The groups of one step."""

    step: int
    rewards: torch.Tensor
    """[P, G] rewards, in the dtype the reader chose (the trainer's own)."""
    advantages: torch.Tensor | None
    """[P, G] recorded advantages, or None if any is missing."""
    high: torch.Tensor | None
    """[P, G] bool goals, or None without goals."""
    kept: torch.Tensor | None
    """[P] bool, or None if not recorded."""
    group_ids: torch.Tensor | None = None
    """[P] int64 task of each group, numbered in order of first appearance (None: not
    recorded); an estimator's ``group_ids`` (:data:`rcgrpo.advantages.INPUTS`)."""
    lengths: torch.Tensor | None = None
    """[P, G] int64 generated tokens, or None if any is missing."""


def _split_and_check(step: int, groups: dict, drop_ragged: bool, notes: list[str]) -> list:
    """The step's groups as lists of exactly G rollouts (module docstring)."""
    sizes = Counter(len(g) for g in groups.values())
    size = max(sizes, key=lambda n: (sizes[n], n))
    if size < 2:
        raise ValueError(
            f"step {step}: groups of size 1 ({sizes[1]} of them): a group needs G >= 2 rollouts "
            "of one prompt; is the group column the prompt id?"
        )
    out, split, ragged = [], 0, Counter()
    for key, rows in groups.items():
        if len(rows) % size == 0:
            split += len(rows) > size
            out += [rows[i : i + size] for i in range(0, len(rows), size)]
        elif drop_ragged:
            ragged[len(rows)] += 1
        else:
            raise ValueError(
                f"step {step}: mixed group sizes {dict(sorted(sizes.items()))} (group {key!r} "
                f"has {len(rows)}, most have G = {size}); s^G + (1-s)^G and the spread depend "
                "on G: pass --drop-ragged to leave out the groups of another size"
            )
    if split:
        notes.append(f"step {step}: {split} group(s) of k*{size} rollouts split into groups of G")
    if ragged:
        notes.append(f"step {step}: dropped groups of size != {size}: {dict(ragged)}")
    return out


def _tensors(step: int, groups: list[list[Rollout]], dtype: torch.dtype) -> StepGroups:
    flat = [r for g in groups for r in g]
    shape = (len(groups), len(groups[0]))
    rewards = torch.tensor([r.reward for r in flat], dtype=dtype).view(shape)
    adv = None
    if all(r.advantage is not None for r in flat):
        adv = torch.tensor([r.advantage for r in flat], dtype=dtype).view(shape)
    goals = {r.high is None for r in flat}
    if goals == {True, False}:
        raise ValueError(f"step {step}: some rollouts have a reward goal and some do not")
    high = None if True in goals else torch.tensor([r.high for r in flat]).view(shape)
    kept = ids = lengths = None
    if all(r.kept is not None for r in flat):
        kept = torch.tensor([g[0].kept for g in groups], dtype=torch.bool)
    if all(g[0].task is not None for g in groups):
        seen: dict[Hashable, int] = {}
        ids = torch.tensor([seen.setdefault(g[0].task, len(seen)) for g in groups])
    if all(r.length is not None for r in flat):
        lengths = torch.tensor([r.length for r in flat], dtype=torch.long).view(shape)
    return StepGroups(step, rewards, adv, high, kept, ids, lengths)


def group_steps(
    rollouts: Iterable[Rollout], *, drop_ragged: bool = False, dtype: torch.dtype = torch.float64
) -> tuple[list[StepGroups], list[str]]:
    """(the steps in increasing order, notes on split / dropped groups); see the module
    docstring for the size rules. Raises ``ValueError`` (one line) on an empty input."""
    by_step: dict[int, dict[Hashable, list[Rollout]]] = {}
    for r in rollouts:
        by_step.setdefault(r.step, {}).setdefault(r.group, []).append(r)
    if not by_step:
        raise ValueError("no rollouts found")
    notes: list[str] = []
    steps = []
    for step in sorted(by_step):
        groups = _split_and_check(step, by_step[step], drop_ragged, notes)
        if groups:
            steps.append(_tensors(step, groups, dtype))
    return steps, notes
