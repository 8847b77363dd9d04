"""How the rollout engine splits a prefill into forward passes (pure planning, no model).

- :func:`shared_prefixes`: which first prompts share a prefix worth prefilling once. The G
  rollouts of a group render the same prompt up to the reward goal (RC-GRPO, paper §2: the
  goal is appended to the first user message) or the same whole prompt without a goal, so
  their prompts share all but a few tokens; prompts of different tasks share only the system
  prompt's header.
- :func:`plan_buckets`: which chunks of different lengths go through one padded pass.
"""

from __future__ import annotations

from collections.abc import Sequence


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def shared_prefixes(prompts: Sequence[Sequence[int]]) -> list[tuple[list[int], int]]:
    """Partition prompts into groups that prefill a common prefix once.

    A group is a run of the lexicographically sorted prompts whose common prefix p covers
    at least half of its shortest member (``2 p >= min_i len_i``), so that the tokens saved,
    (k - 1) p for k members, are at least the suffix tokens a member still feeds on top of
    the prefix when the suffixes are shorter than the prefix. The run is grown greedily; in
    sorted order the common prefix of a run is the minimum over its adjacent pairs.

    Returns ``(members, p)`` pairs covering every index once, groups in sorted order; a prompt
    that shares nothing is a group of one with p = its length. Every prompt must be non-empty.
    """
    if any(len(p) == 0 for p in prompts):
        raise ValueError("every prompt must hold at least one token")
    order = sorted(range(len(prompts)), key=lambda i: tuple(prompts[i]))
    groups: list[tuple[list[int], int]] = []
    for i in order:
        if groups:
            members, shared = groups[-1]
            joined = min(shared, common_prefix(prompts[members[-1]], prompts[i]))
            shortest = min(len(prompts[m]) for m in [*members, i])
            if joined >= 1 and 2 * joined >= shortest:
                groups[-1] = ([*members, i], joined)
                continue
        groups.append(([i], len(prompts[i])))
    return groups


def plan_buckets(counts: list[int], overhead: int, max_rows: int = 0) -> list[list[int]]:
    """Group rows so that Σ_groups (longest chunk · rows + overhead) is minimal.

    ``counts[r]`` is row r's chunk length; a forward pass costs its padded size plus
    ``overhead`` token-equivalents, and holds at most ``max_rows`` rows (0 = no limit).
    Optimal over groups that are contiguous in the length-sorted order (dynamic programming,
    O(R²)); returns row-index lists, longest first.
    """
    if max_rows < 0:
        raise ValueError(f"max_rows must be >= 0, got {max_rows}")
    order = sorted(range(len(counts)), key=lambda r: -counts[r])
    size = [counts[r] for r in order]  # descending: a group's longest is its first
    best, cut = [0] + [None] * len(size), [0] * (len(size) + 1)
    for i in range(1, len(size) + 1):
        for j in range(max(0, i - max_rows) if max_rows else 0, i):
            cost = best[j] + size[j] * (i - j) + overhead
            if best[i] is None or cost < best[i]:
                best[i], cut[i] = cost, j
    groups, i = [], len(size)
    while i > 0:
        groups.append(order[cut[i] : i])
        i = cut[i]
    return groups[::-1]
