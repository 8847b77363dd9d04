r"""The regime diagnostic's statistics: unbiased pass@k and the per-task tallies behind it.

pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code", §2.1): of n
samples of a task, c succeed; the probability that k samples drawn without replacement from
the n include at least one success is

.. math::
    \widehat{\mathrm{pass@}k} = 1 - \binom{n-c}{k}\Big/\binom{n}{k}
      = 1 - \prod_{i=n-c+1}^{n}\Bigl(1 - \frac{k}{i}\Bigr),

an unbiased estimate of :math:`1-(1-p)^k` for a task of success probability p (each size-k
subset of the n i.i.d. samples is itself k i.i.d. samples), and 1 when :math:`n - c < k`
(every k-subset holds a success). The product form is the paper's numerically stable one
(no large binomials). A suite's pass@k is the mean over its tasks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with ``c`` successes among ``n`` samples (module
    docstring); requires 0 <= c <= n and 1 <= k <= n."""
    if not (0 <= c <= n) or not (1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def suite_pass_at_k(successes: Sequence[int], n: int, ks: Iterable[int]) -> list[float]:
    """Mean over tasks of :func:`pass_at_k` for each k in ``ks`` (``successes``: c per task)."""
    if not successes:
        raise ValueError("successes must not be empty")
    return [sum(pass_at_k(n, c, k) for c in successes) / len(successes) for k in ks]


def headroom(greedy: Sequence[bool], successes: Sequence[int]) -> dict[str, float | int]:
    """Tasks that fail greedily but succeed in at least one sample: their count, their share
    of all tasks (gate G1's quantity) and of the greedy failures."""
    if len(greedy) != len(successes) or not greedy:
        raise ValueError("greedy and successes must be non-empty and of equal length")
    fails = sum(not g for g in greedy)
    reached = sum((not g) and c > 0 for g, c in zip(greedy, successes, strict=True))
    return {
        "tasks": len(greedy),
        "greedy_failures": fails,
        "greedy_fail_sample_success": reached,
        "share_of_tasks": reached / len(greedy),
        "share_of_greedy_failures": reached / fails if fails else 0.0,
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def support(records: Sequence[dict], n: int) -> dict[str, dict]:
    """Per greedy failure kind: its task count, share of the greedy failures, P(right |
    sampled) (mean over its tasks of right samples / ``n``) and chance (mean of the tasks'
    chance levels; None if any task's is None). ``records``: rows of :func:`summarise`."""
    failed = [r for r in records if r["greedy_kind"] is not None]
    out = {}
    for kind in sorted({r["greedy_kind"] for r in failed}):
        rows = [r for r in failed if r["greedy_kind"] == kind]
        chances = [r["chance"] for r in rows]
        out[kind] = {
            "tasks": len(rows),
            "share_of_failures": len(rows) / len(failed),
            "p_right": _mean([r["right"] / n for r in rows]),
            "chance": None if None in chances else _mean(chances),
        }
    return out


def summarise(records: Sequence[dict], n: int, ks: Sequence[int] = range(1, 9)) -> dict:
    """One condition's section of the report from per-task rows ``{category, greedy (bool),
    greedy_kind, successes, right, chance, sample_kinds}`` with ``n`` samples per task:
    greedy success and pass@k overall and per category, headroom, failure kinds (greedy and
    sampled counts) and :func:`support`."""
    if not records:
        raise ValueError("records must not be empty")
    ks = list(ks)
    cats = sorted({r["category"] for r in records})
    by_cat = {c: [r for r in records if r["category"] == c] for c in cats}
    sampled: dict[str, int] = {}
    for r in records:
        for kind, count in r["sample_kinds"].items():
            sampled[kind] = sampled.get(kind, 0) + count
    greedy_kinds: dict[str, int] = {}
    for r in records:
        if r["greedy_kind"] is not None:
            greedy_kinds[r["greedy_kind"]] = greedy_kinds.get(r["greedy_kind"], 0) + 1
    return {
        "tasks": len(records),
        "samples": n,
        "ks": ks,
        "greedy": {
            "overall": _mean([float(r["greedy"]) for r in records]),
            "per_category": {c: _mean([float(r["greedy"]) for r in v]) for c, v in by_cat.items()},
        },
        "pass_at_k": {
            "overall": suite_pass_at_k([r["successes"] for r in records], n, ks),
            "per_category": {
                c: suite_pass_at_k([r["successes"] for r in v], n, ks) for c, v in by_cat.items()
            },
        },
        "tasks_per_category": {c: len(v) for c, v in by_cat.items()},
        "headroom": headroom([r["greedy"] for r in records], [r["successes"] for r in records]),
        "failure_kinds": {
            "greedy": dict(sorted(greedy_kinds.items())),
            "sampled": dict(sorted(sampled.items())),
        },
        "support": support(records, n),
    }
