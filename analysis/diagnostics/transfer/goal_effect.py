r"""Instrument 1, the goal effect: how much the reward goal changes each planted decision.

On n held-out tasks that carry a planted decision point (:mod:`rcgrpo.env.synth_demo`), each
task is sampled K times under each goal at the RL preset's sampling settings (τ, top-p, caps),
sample k of a task drawing from the same random stream under both goals
(:class:`~analysis.diagnostics.transfer.paired.PairedPolicy`). Per decision kind D and task
i with :math:`m_{i,D}` points of kind D, the share right under goal g is

.. math::
    p_{i,g} = \frac{\#\{\text{right at the D points of the K samples of } i \text{ under } g\}}
                   {K\,m_{i,D}},

judged by :func:`rcgrpo.env.synth_demo.decision_outcomes` (the function chosen). Reported per
kind (and ``any``: every point of a task pooled): :math:`P(\text{right}\mid g) =
\frac1n\sum_i p_{i,g}` (each task weighs once; on the collapse suites a task has one point, so
this is also the pooled share), the paired difference :math:`\frac1n\sum_i (p_{i,high} -
p_{i,low})` with a 95% t interval over the n per-task differences
(:func:`~analysis.diagnostics.transfer.estimates.paired_difference`), n, the points per
sample :math:`\sum_i m_{i,D}`, K, and ``identical_share``
(:func:`~analysis.diagnostics.transfer.paired.identical_share`) over the n·K pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

from tqdm import tqdm

from analysis.diagnostics.transfer.estimates import paired_difference
from analysis.diagnostics.transfer.paired import PairedPolicy, generated_ids, identical_share

ANY = "any"
"""The key that pools every kind of a task's points."""
GOALS = {"high": True, "low": False}
"""Goal name -> the engine's ``reward_high``."""
CHUNK = 16
"""Tasks per engine run (CHUNK · K rollouts per goal)."""


def _record(task, rollout) -> dict:
    """(generated ids, reward) and the decision outcomes of one rollout."""
    from rcgrpo.env.synth_demo import decision_outcomes

    calls = [c for turn in rollout.calls_per_turn for c in turn]
    return {
        "pair": (generated_ids(rollout), rollout.reward),
        "points": decision_outcomes(task, calls),
    }


def paired_records(engine, tasks: Sequence, samples: int, seed: int) -> list[dict]:
    """Per task ``{"task", "high": [K records], "low": [K records]}``, sample k drawn with the
    seed ``derive_seed(seed, "pair", task.id, k)`` under both goals."""
    from rcgrpo.policy.rollout import RolloutJob
    from rcgrpo.train.rollouts import derive_seed

    base, out = engine.policy, []
    for start in tqdm(range(0, len(tasks), CHUNK), desc="goal pairs", unit="chunk"):
        part = tasks[start : start + CHUNK]
        seeds = [derive_seed(seed, "pair", t.id, k) for t in part for k in range(samples)]
        runs = {}
        for goal, high in GOALS.items():
            engine.policy = PairedPolicy(
                base.model, base.stop_ids, base.temperature, base.top_p, base.pad_id, seeds
            )
            jobs = [RolloutJob(t, high) for t in part for _ in range(samples)]
            runs[goal] = engine.run(jobs)
        for i, task in enumerate(part):
            rows = slice(i * samples, (i + 1) * samples)
            out.append(
                {"task": task, **{g: [_record(task, r) for r in runs[g][rows]] for g in GOALS}}
            )
    engine.policy = base
    return out


def _share(records: Sequence[dict], kind: str) -> tuple[float, int]:
    """(share of right points of ``kind`` over a task's samples, points per sample)."""
    points = [p for r in records for p in r["points"] if kind in (ANY, p["kind"])]
    return sum(p["right"] for p in points) / len(points), len(points) // len(records)


def _identical(tasks: Sequence[dict]) -> dict:
    """:func:`~analysis.diagnostics.transfer.paired.identical_share` over every sample of
    ``tasks``."""
    return identical_share(
        [r["pair"] for t in tasks for r in t["high"]], [r["pair"] for t in tasks for r in t["low"]]
    )


def kind_row(tasks: Sequence[dict], kind: str, samples: int) -> dict:
    """The goal effect of ``kind`` over the task records that carry it (module docstring)."""
    mine = [t for t in tasks if any(kind in (ANY, p["kind"]) for p in t["high"][0]["points"])]
    high = [_share(t["high"], kind) for t in mine]
    low = [_share(t["low"], kind)[0] for t in mine]
    return {
        **paired_difference([h for h, _ in high], low),
        "points": sum(m for _, m in high),
        "samples": samples,
        "identical_share": _identical(mine),
    }


def goal_effect(
    tasks: Sequence[dict], samples: int, group: int | None = None, seed: int = 0
) -> dict:
    """``{kind: row}`` for every kind on the tasks and :data:`ANY`, the success paired the
    same way (``success``), ``identical_share`` over every pair and, given the RL group size
    ``group`` (≤ ``samples``), the start's collapse under each goal (``start_collapse``,
    :func:`~analysis.diagnostics.transfer.start_collapse.start_collapse`, bootstrap ``seed``)."""
    from analysis.diagnostics.transfer.start_collapse import start_collapse

    kinds = sorted({p["kind"] for t in tasks for p in t["high"][0]["points"]})
    rows = {kind: kind_row(tasks, kind, samples) for kind in [*kinds, ANY]}
    wins = {g: [sum(r["pair"][1] == 1.0 for r in t[g]) for t in tasks] for g in GOALS}
    success = {g: [k / samples for k in wins[g]] for g in GOALS}
    out = {
        "kinds": rows,
        "success": paired_difference(success["high"], success["low"]),
        "identical_share": _identical(tasks),
        "tasks": len(tasks),
        "samples": samples,
    }
    if group is not None and 2 <= group <= samples and len(tasks) >= 2:
        out["start_collapse"] = {g: start_collapse(wins[g], samples, group, seed) for g in GOALS}
    return out
