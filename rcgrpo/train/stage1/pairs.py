"""Minimal pairs for RCTP-FT (``failures.pairs``): a failure the planted decision causes.

For each decision kind of ``failures.skip_decisions`` (the kinds the mix otherwise leaves out),
``failures.pairs`` training tasks that carry exactly one planted point, of that kind, are drawn
(``random.Random("rcgrpo-rctp-pairs/<seed>/<kind>")``, independent of everything else). Each
gives two rows per episode mode: the expert trajectory (reward 1, trained under
``<|high_reward|>``) and the same prompt and trajectory with only that decision taken wrong
(:func:`rcgrpo.env.synth_demo.flip_decision`, replayed through the real environment; reward 0,
trained under ``<|low_reward|>``). The two rows differ at the decision and in what follows from
it, so the low label's contrast sits exactly where RL must choose.

``failures.pair_weight`` w weighs each pair's decision tokens by w in the loss, in both rows
(:func:`decision_spans`, :func:`weigh_decisions`): the tokens of the first assistant message
where the two rows differ, less the ends they share.

``failures.pair_labels`` (:data:`PAIR_LABELLINGS`) says which goal a pair's rows are trained
under: ``reward`` (each row its reward's goal) or ``inverted`` (:func:`invert_pair_labels`: the
expert row low and the flipped row high; no other row changes).

A pair whose expert row does not succeed or whose flipped row does not fail (the environment
disagrees) is dropped whole and counted. The matched SFT (``sft.successes_of``) trains on the
mix's reward-1 rows, so it sees the pairs' expert rows and never their flipped ones.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from rcgrpo.train.stage1.trajectories import Example, Trajectory


def single_point(task, kind: str) -> dict | None:
    """The task's planted point when it has exactly one and it is of ``kind``, else None."""
    points = list((getattr(task, "meta", None) or {}).get("decisions", ()))
    return points[0] if len(points) == 1 and points[0]["kind"] == kind else None


def pair_tasks(train_tasks: Sequence, kinds: Sequence[str], pairs: int, seed: int) -> list:
    """``pairs`` tasks per kind (module docstring), kinds in order, tasks in task order within
    a kind. ValueError when a kind has fewer candidates than ``pairs``."""
    out = []
    for kind in kinds:
        candidates = [t for t in train_tasks if single_point(t, kind) is not None]
        if len(candidates) < pairs:
            raise ValueError(
                f"failures.pairs {pairs}: only {len(candidates)} training tasks carry one "
                f"{kind} point (raise tasks.num_train or lower failures.pairs)"
            )
        rng = random.Random(f"rcgrpo-rctp-pairs/{seed}/{kind}")
        chosen = sorted(rng.sample(range(len(candidates)), pairs))
        out += [candidates[i] for i in chosen]
    return out


def flipped_task(task, kind: str):
    """``task`` whose demonstration is its ground truth with the ``kind`` point taken wrong."""
    from rcgrpo.env.synth import render_call
    from rcgrpo.env.synth_demo import flip_decision

    calls = flip_decision(task, single_point(task, kind), render_call)
    return dataclasses.replace(task, meta={**task.meta, "demonstration": calls})


def pair_rows(
    tasks: Sequence, kinds: Sequence[str], modes: Sequence[str], replay
) -> tuple[list[Trajectory], dict]:
    """(rows, stats): the expert and the flipped row of every task of :func:`pair_tasks`, in
    every mode. ``replay(tasks, mode, source)`` gives trajectories, one per task (the
    environment's replay, :func:`rcgrpo.train.stage1.trajectories.expert_trajectories`)."""
    kind_of = {t.id: k for t in tasks for k in kinds if single_point(t, k) is not None}
    flipped = [flipped_task(t, kind_of[t.id]) for t in tasks]
    rows, dropped = [], 0
    for mode in modes:
        good = replay(tasks, mode, "expert")
        bad = replay(flipped, mode, "demo")
        for hi, lo in zip(good, bad, strict=True):
            if hi.reward != 1 or lo.reward != 0:
                dropped += 1
                continue
            rows += [hi, dataclasses.replace(lo, source="pair")]
    per_kind = {k: sum(v == k for v in kind_of.values()) for k in kinds}
    return rows, {"tasks": per_kind, "rows": len(rows), "dropped_pairs": dropped}


def decision_spans(high: Example, low: Example) -> tuple[range, range]:
    """The decision's target tokens in a pair's expert (``high``) and flipped (``low``)
    example: from the first assistant token where their ids differ (the goal token, in the
    prompt, differs too and is skipped) to the end of that assistant message in each, less the
    tokens both messages end with. ValueError when the rows never differ on an assistant token
    (not a pair)."""
    n = min(len(high.ids), len(low.ids))
    start = next(
        (t for t in range(n) if high.ids[t] != low.ids[t] and high.mask[t] and low.mask[t]), None
    )
    if start is None:
        raise ValueError(f"task {high.task_id}: the pair's rows never differ on an assistant token")

    def message_end(ex: Example) -> int:
        return next((t for t in range(start, len(ex.ids)) if not ex.mask[t]), len(ex.ids))

    end_high, end_low = message_end(high), message_end(low)
    shared = 0
    while (
        shared < min(end_high, end_low) - start - 1
        and high.ids[end_high - 1 - shared] == low.ids[end_low - 1 - shared]
    ):
        shared += 1
    return range(start, end_high - shared), range(start, end_low - shared)


def weigh_decisions(examples: Sequence[Example], weight: float) -> tuple[list[Example], int]:
    """(examples, pairs weighed): each flipped example (source ``pair``) and the expert example
    just before it of the same task and mode get ``weight`` on their :func:`decision_spans`
    (1 elsewhere); ``weight`` 1 returns the examples unchanged."""
    out = list(examples)
    if weight == 1:
        return out, 0
    done = 0
    for i, low in enumerate(out):
        high = out[i - 1] if i else None
        if low.source != "pair" or high is None or high.source != "expert":
            continue
        if (high.task_id, high.mode) != (low.task_id, low.mode):
            continue
        spans = decision_spans(high, low)
        for j, (ex, span) in enumerate(((high, spans[0]), (low, spans[1]))):
            w = [1.0] * len(ex.ids)
            for t in span:
                w[t] = weight
            out[i - 1 + j] = dataclasses.replace(ex, weight=tuple(w))
        done += 1
    return out, done


def pair_positions(trajs: Sequence[Trajectory]) -> list[tuple[int, int]]:
    """(expert, flipped) positions of every minimal pair in a mix: each flipped row (source
    ``pair``) with the row just before it when that is the expert row (source ``expert``) of
    the same task and mode, as :func:`pair_rows` appends them."""
    out = []
    for i in range(1, len(trajs)):
        low, high = trajs[i], trajs[i - 1]
        same = (high.task_id, high.mode) == (low.task_id, low.mode)
        if low.source == "pair" and high.source == "expert" and same:
            out.append((i - 1, i))
    return out


def keep_pair_labels(trajs: Sequence[Trajectory], goals: Sequence[bool]) -> list[bool]:
    """``goals`` unchanged (``failures.pair_labels reward``)."""
    return list(goals)


def invert_pair_labels(trajs: Sequence[Trajectory], goals: Sequence[bool]) -> list[bool]:
    """``goals`` (True high) with the two labels of every pair of :func:`pair_positions`
    exchanged, every other label as given (``failures.pair_labels inverted``). ValueError when
    ``trajs`` holds no pair."""
    if len(goals) != len(trajs):
        raise ValueError(f"one goal per trajectory: {len(goals)} goals, {len(trajs)} rows")
    pairs = pair_positions(trajs)
    if not pairs:
        raise ValueError("failures.pair_labels inverted: the mix holds no minimal pair")
    out = list(goals)
    for i, j in pairs:
        out[i], out[j] = goals[j], goals[i]
    return out


PAIR_LABELLINGS = {"reward": keep_pair_labels, "inverted": invert_pair_labels}
"""``failures.pair_labels`` -> ``(mix, goals) -> goals`` (names:
:data:`rcgrpo.train.stage1.config.PAIR_LABELS`)."""
