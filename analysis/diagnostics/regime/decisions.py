r"""Per planted decision kind: how often a checkpoint takes the right option, greedy and sampled.

The regime diagnostic's P(right | sampled) of :mod:`analysis.diagnostics.regime.kinds` is read
on the tasks whose *greedy* rollout fails, per failure kind. The collapse gates
(:mod:`analysis.campaigns.collapse_design.gates`) ask a different question of one planted
decision kind K (:data:`rcgrpo.env.synth_demo.DECISIONS`): on every held-out task with a point
of kind K, with n samples per task at τ,

.. math::
    \hat p_K = \frac{\sum_{t}\#\{\text{right at the K points of the samples of } t\}}
                    {\sum_t n\cdot m_{t,K}},

:math:`m_{t,K}` the points of kind K on task t (pooled over points: a task with two points
counts twice), judged by :func:`rcgrpo.env.synth_demo.decision_outcomes` (the choice, not the
copy). Beside it: the greedy share right, the number of tasks, and on those tasks the greedy
success and the unbiased pass@n (:func:`analysis.diagnostics.regime.passk.pass_at_k` with
k = n), so "pass@32 well above greedy" is read on the tasks the decision decides.
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis.diagnostics.regime.passk import pass_at_k


def _executed(rollout) -> list[str]:
    return [c for turn in rollout.calls_per_turn for c in turn]


def tally(task, greedy, samples: Sequence) -> dict[str, dict[str, int]]:
    """{kind: greedy_right, greedy_points, sampled_right, sampled_points} of one task's
    rollouts (empty for a task without planted points)."""
    from rcgrpo.env.synth_demo import decision_outcomes

    out: dict[str, dict[str, int]] = {}

    def add(rollout, prefix: str) -> None:
        for p in decision_outcomes(task, _executed(rollout)):
            row = out.setdefault(
                p["kind"],
                {"greedy_right": 0, "greedy_points": 0, "sampled_right": 0, "sampled_points": 0},
            )
            row[f"{prefix}_right"] += int(p["right"])
            row[f"{prefix}_points"] += 1

    add(greedy, "greedy")
    for s in samples:
        add(s, "sampled")
    return out


ANY = "any"
"""The key of :func:`decision_section` that pools every kind."""


def _pooled(tallies: dict[str, dict[str, int]]) -> dict[str, int]:
    keys = ("greedy_right", "greedy_points", "sampled_right", "sampled_points")
    return {k: sum(t[k] for t in tallies.values()) for k in keys}


def decision_section(records: Sequence[dict], n: int) -> dict[str, dict]:
    """Per kind over the records' ``decisions`` tallies (module docstring): ``tasks``,
    ``p_right_sampled``, ``greedy_right``, ``greedy_success``, ``pass_at_n`` and ``n``; the
    key :data:`ANY` pools every kind (the tasks with any point, each point counted)."""
    kinds = sorted({k for r in records for k in r.get("decisions", {})})
    out = {}
    for kind in [*kinds, ANY] if kinds else []:
        rows = [
            r for r in records if r.get("decisions") and (kind == ANY or kind in r["decisions"])
        ]
        tal = [_pooled(r["decisions"]) if kind == ANY else r["decisions"][kind] for r in rows]
        out[kind] = {
            "tasks": len(rows),
            "n": n,
            "p_right_sampled": sum(t["sampled_right"] for t in tal)
            / sum(t["sampled_points"] for t in tal),
            "greedy_right": sum(t["greedy_right"] for t in tal)
            / sum(t["greedy_points"] for t in tal),
            "greedy_success": sum(float(r["greedy"]) for r in rows) / len(rows),
            "pass_at_n": sum(pass_at_k(n, r["successes"], n) for r in rows) / len(rows),
        }
    return out
