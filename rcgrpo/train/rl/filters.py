"""Group filters and DAPO dynamic sampling: which generated groups an RL step trains on.

A group filter is a pure function ``rewards [P, G] -> keep [P] (bool)``; the registry
:data:`GROUP_FILTERS` maps ``algo.group_filter`` names to them:

- ``none``: keep every group (GRPO, RC-GRPO).
- ``dapo``: DAPO dynamic sampling (Yu et al. 2025, §3.2; verl's recipe): keep a group only
  if its BINARY outcome 1[R_j = 1] varies, i.e. 0 < #successes < G. A shaped score would
  let all-fail groups through, so the filter looks at the outcome, not the reward value.

:func:`collect_groups` runs generation rounds until the kept groups fill the batch:
round 0 is the ordinary batch of P prompts; while fewer than P groups are kept, another
round of P fresh prompts is generated, at most ``max_rounds`` extra rounds. The kept groups
are taken in (round, prompt) order and cut at P; if the cap is reached first the step
trains on the partial batch (fewer groups, same per-token normalisation). Every decision
uses the GLOBAL reward grid, so all ranks of a data-parallel job agree without talking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from rcgrpo.advantage_scope import scoped_advantages, trained_rollouts
from rcgrpo.advantages import ADV_ESTIMATORS
from rcgrpo.validation import check_group_tensor


def keep_all(rewards: torch.Tensor, success_value: float = 1.0) -> torch.Tensor:
    """Every group: bool [P] of True."""
    check_group_tensor("rewards", rewards)
    return torch.ones(rewards.shape[0], dtype=torch.bool)


def keep_outcome_varied(rewards: torch.Tensor, success_value: float = 1.0) -> torch.Tensor:
    """DAPO: groups whose binary outcome 1[R_j = success_value] is not constant, bool [P]."""
    check_group_tensor("rewards", rewards)
    success = rewards == success_value
    return success.any(dim=1) & ~success.all(dim=1)


GROUP_FILTERS: dict[str, Callable[..., torch.Tensor]] = {
    "none": keep_all,
    "dapo": keep_outcome_varied,
}
"""``algo.group_filter`` name -> filter (module docstring)."""


def row_inputs(estimator: str, rows: Sequence[dict[str, Any]], group_size: int) -> dict:
    """The ``group_ids`` [P] / ``lengths`` [P, G] that ``estimator`` declares
    (:data:`rcgrpo.advantages.INPUTS`; {} if neither), from per-rollout table rows in group
    order (:func:`rcgrpo.train.rollouts.rollout_row`): ids number the groups' ``task_id`` in
    order of first appearance, lengths are the rollouts' ``gen_tokens``."""
    reads = ADV_ESTIMATORS[estimator].inputs
    groups = len(rows) // group_size
    out = {}
    if "group_ids" in reads:
        ids: dict[Any, int] = {}
        tasks = [ids.setdefault(rows[n * group_size]["task_id"], len(ids)) for n in range(groups)]
        out["group_ids"] = torch.tensor(tasks, dtype=torch.long)
    if "lengths" in reads:
        lengths = torch.tensor([r["gen_tokens"] for r in rows], dtype=torch.long)
        out["lengths"] = lengths.view(groups, group_size)
    return out


@dataclass
class Round:
    """One generation round, as every rank sees it."""

    rewards: torch.Tensor
    """[P, G] rewards of ALL groups of the round (gathered over ranks)."""
    high: torch.Tensor | None
    """[P, G] bool reward tokens (True = high), None without tokens."""
    rows: list[dict[str, Any]]
    """P·G per-rollout table rows of the round, row-major (gathered over ranks)."""
    local: dict[int, list[Any]]
    """This rank's rollouts: round prompt index -> its G rollouts."""


@dataclass
class Collected:
    """The generated groups of one step and the ones it trains on."""

    rounds: list[Round] = field(default_factory=list)
    keep: list[torch.Tensor] = field(default_factory=list)
    """Per round, bool [P]: the group is in the training batch (after the cut at P)."""

    @property
    def rewards(self) -> torch.Tensor:
        """[N, G] rewards of every generated group, rounds concatenated."""
        return torch.cat([r.rewards for r in self.rounds])

    @property
    def high(self) -> torch.Tensor | None:
        if self.rounds[0].high is None:
            return None
        return torch.cat([r.high for r in self.rounds])

    @property
    def kept(self) -> torch.Tensor:
        """[N] bool: generated group is trained on."""
        return torch.cat(self.keep)

    def inputs(self, estimator: str, groups: torch.Tensor | None = None) -> dict[str, Any]:
        """:func:`row_inputs` of the generated groups, or of those ``groups`` [N] bool selects."""
        size = self.rounds[0].rewards.shape[1]
        rows = [row for rnd in self.rounds for row in rnd.rows]
        if groups is not None:
            rows = [row for n, row in enumerate(rows) if bool(groups[n // size])]
        return row_inputs(estimator, rows, size)

    def local_groups(self) -> list[tuple[int, list[Any]]]:
        """This rank's kept groups as (ordinal in the training batch, rollouts), in order."""
        out, ordinal = [], 0
        for rnd, keep in zip(self.rounds, self.keep, strict=True):
            for p in range(len(keep)):
                if keep[p]:
                    if p in rnd.local:
                        out.append((ordinal, rnd.local[p]))
                    ordinal += 1
        return out


def collect_groups(
    generate: Callable[[int], Round],
    keep_fn: Callable[[torch.Tensor], torch.Tensor],
    target: int,
    max_rounds: int,
) -> Collected:
    """Generate rounds until ``target`` groups pass ``keep_fn`` or ``max_rounds`` extra rounds
    ran; keep the first ``target`` passing groups in (round, prompt) order (module docstring).
    """
    if target < 1 or max_rounds < 0:
        raise ValueError(f"target must be >= 1 and max_rounds >= 0, got {target}, {max_rounds}")
    out, total = Collected(), 0
    for index in range(1 + max_rounds):
        rnd = generate(index)
        passed = keep_fn(rnd.rewards)
        if passed.shape != rnd.rewards.shape[:1] or passed.dtype != torch.bool:
            raise ValueError("a group filter must return a bool tensor of shape [P]")
        room = target - total
        # keep only the first `room` passing groups of this round
        keep = passed & (torch.cumsum(passed.long(), dim=0) <= room)
        out.rounds.append(rnd)
        out.keep.append(keep)
        total += int(keep.sum())
        if total >= target:
            break
    return out


def advantage_options(algo) -> dict[str, Any]:
    """The keywords of :func:`advantages_of` an RL ``algo`` config section sets (the one place
    its field names meet the function's)."""
    return {
        "estimator": algo.adv_estimator,
        "scope": algo.adv_scope,
        "eps_stab": algo.eps_stab,
        "ddof": algo.adv_ddof,
        "low_goal_gradient": algo.low_goal_gradient,
    }


def advantages_of(
    rewards: torch.Tensor,
    high: torch.Tensor | None = None,
    *,
    estimator: str = "grpo",
    scope: str = "group",
    eps_stab: float = 1e-6,
    ddof: int = 0,
    low_goal_gradient: bool = True,
    group_ids: torch.Tensor | None = None,
    lengths: torch.Tensor | None = None,
) -> torch.Tensor:
    """[N, G] advantages the update trains with: ``estimator`` over ``scope``
    (:func:`rcgrpo.advantage_scope.scoped_advantages`; ``high`` [N, G] the reward goals,
    ``group_ids`` / ``lengths`` the estimator's inputs of those names, when it reads them),
    0 for the rollouts it does not train on (the anchored low mode, ``low_goal_gradient``
    False: :func:`rcgrpo.advantage_scope.trained_rollouts`)."""
    adv = scoped_advantages(
        rewards,
        high,
        scope,
        estimator,
        eps_stab=eps_stab,
        ddof=ddof,
        group_ids=group_ids,
        lengths=lengths,
    )
    train = trained_rollouts(high, low_goal_gradient)
    return adv if train is None else torch.where(train, adv, torch.zeros_like(adv))


def training_batch(collected: Collected, algo):
    """(this rank's :class:`~rcgrpo.train.rl.update.TrainBatch`, [K, G] advantages of the kept
    groups). Advantages are computed on the GLOBAL kept grid, then sliced, so batch-scaled
    advantages see every rank's rewards. In the anchored low mode (``algo.low_goal_gradient``
    False) the low-goal rollouts stay in the advantage statistics, get advantage 0 in the
    returned grid (what they trained with) and are not in the batch."""
    from rcgrpo.train.rl.update import TrainBatch

    options = advantage_options(algo)
    kept = collected.rewards[collected.kept]
    goals = None if collected.high is None else collected.high[collected.kept]
    adv = kept.clone()
    if len(kept):
        inputs = collected.inputs(options["estimator"], collected.kept)
        adv = advantages_of(kept, goals, **options, **inputs)
    train = trained_rollouts(goals, options["low_goal_gradient"]) if len(kept) else None
    rollouts, values, ordinal = [], [], []
    for k, group in collected.local_groups():
        use = [g for g in range(len(group)) if train is None or bool(train[k, g])]
        rollouts += [group[g] for g in use]
        values += [float(adv[k, g]) for g in use]
        ordinal += [k] * len(use)
    high = None
    if collected.high is not None:
        high = torch.tensor([bool(r.reward_high) for r in rollouts], dtype=torch.bool)
    batch = TrainBatch(rollouts, torch.tensor(values, dtype=torch.float32), ordinal, high)
    return batch, adv


def conversation_rows(collected: Collected, step: int) -> list[dict[str, Any]]:
    """The conversations of this rank's rollouts, keyed as :func:`table_rows` keys the table
    (``step, round, prompt, group``); ``messages`` without the system prompt, which is the
    same for every rollout of a run. In a data-parallel job each rank holds its own groups."""
    out, n = [], 0
    for index, rnd in enumerate(collected.rounds):
        for p in range(rnd.rewards.shape[0]):
            for g, rollout in enumerate(rnd.local.get(p, [])):
                messages = [m for m in rollout.messages if m.get("role") != "system"]
                out.append(
                    {"step": step, "round": index, "prompt": n, "group": g, "messages": messages}
                )
            n += 1
    return out


def table_row(
    row: dict[str, Any], step: int, round_: int, prompt: int, kept: bool, advantage: float | None
) -> dict[str, Any]:
    """One row of the per-rollout table: a rollout's fields
    (:func:`rcgrpo.train.rollouts.rollout_row`) with the step, the round, its group's index
    among the step's generated groups (``prompt``), ``kept`` and the advantage it was trained
    with (None for a dropped group). ``row`` is not modified."""
    return {
        **row,
        "step": step,
        "round": round_,
        "prompt": prompt,
        "kept": kept,
        "advantage": advantage,
    }


def table_rows(collected: Collected, adv: torch.Tensor, step: int) -> list[dict[str, Any]]:
    """The per-rollout table of a step (:func:`table_row` of every generated rollout)."""
    out, n, k = [], 0, 0
    for index, (rnd, keep) in enumerate(zip(collected.rounds, collected.keep, strict=True)):
        size = rnd.rewards.shape[1]
        for p in range(rnd.rewards.shape[0]):
            for g in range(size):
                advantage = float(adv[k, g]) if keep[p] else None
                out.append(
                    table_row(rnd.rows[p * size + g], step, index, n, bool(keep[p]), advantage)
                )
            k += bool(keep[p])
            n += 1
    return out
