r"""The regime's proof across seeds (``docs/regime.md``): SFT + GRPO raises held-out success on
every proof seed; and the proof runs' blocks of ``docs/regime.md``, ``regime-proof`` (the
suite ``regime-d10``) and ``regime-proof-wide1`` (``regime-wide1-d10``): :func:`proof_markdown`.

The proof holds when every seed of :data:`analysis.diagnostics.regime.proof.PROOF_SEEDS` (the
factorial's seeds; the recipe was chosen on ``DESIGN_SEED``, which never enters) has a run,
each run qualifies on its own (:func:`analysis.diagnostics.regime.proof.proof_verdict`: gain
:math:`\ge` 0.10 with exact McNemar p < 0.05, decisions right :math:`\ge` 0.8, tasks without a
decision point losing :math:`\le` 2 points), and the mean gain over the seeds is
:math:`\ge` ``GAIN``; the mean is reported with its 95% Student-t half-width.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from analysis import REPO_ROOT
from analysis.diagnostics.regime import proof
from analysis.stats import mean_ci


def seeds_verdict(records: Sequence[dict], seeds: Sequence[int] = proof.PROOF_SEEDS) -> dict:
    """The proof across ``seeds`` (module docstring): ``{seeds, missing, gain (mean, 95%
    half-width, n), every_seed_qualifies, holds}``; ``holds`` is None while a seed lacks
    its run."""
    by_seed = {r["seed"]: r for r in records}
    have = [by_seed[s] for s in seeds if s in by_seed]
    missing = [s for s in seeds if s not in by_seed]
    gain = mean_ci([r["gain"] for r in have])
    every = all(r["qualifies"] for r in have)
    holds = None if missing else every and gain.mean >= proof.GAIN - proof.EPS
    return {
        "seeds": list(seeds),
        "missing": missing,
        "gain": None
        if gain is None
        else {"mean": gain.mean, "half_width": gain.half_width, "n": gain.n},
        "every_seed_qualifies": every if have else None,
        "holds": holds,
    }


def proof_markdown(root: Path | None = None, suite: str = "regime-d10") -> str:
    """The ``regime-proof`` block (``regime-proof-wide1`` for ``suite`` ``regime-wide1-d10``):
    per proof run on ``suite`` its seed, held-out success at the first and
    last step, the gain with the exact McNemar counts and p, decisions right at the end, the
    change on tasks without a decision point, whether it qualifies, and its cost; then the
    verdict over :data:`~analysis.diagnostics.regime.proof.PROOF_SEEDS` (mean gain ± 95%
    Student-t half-width, n)."""
    root = root or REPO_ROOT
    if not proof.has_runs(root, suite):
        return f"No proof run on `{suite}` is committed yet.\n"
    recs = proof.committed_records(root, suite)
    lines = [
        "| seed | run | start | end | gain | gained / lost (McNemar p) | decisions right "
        "| no-point change | qualifies | CPU-s | wall s |",
        "|--:|---|--:|--:|--:|--:|--:|--:|---|--:|--:|",
    ]
    for r in recs:
        m = r["mcnemar"]
        role = " (design)" if r["seed"] == proof.DESIGN_SEED else ""
        cpu = f"{r['cpu_s']:,.0f}" if r["cpu_s"] is not None else "—"
        wall = f"{r['wall_s']:,.0f}" if r["wall_s"] is not None else "—"
        lines.append(
            f"| {r['seed']}{role} | `{r['run']}` | {r['success_start']:.3f} "
            f"| {r['success_end']:.3f} | {r['gain']:+.3f} | {m['c']} / {m['b']} ({m['p']:.0e}) "
            f"| {r['decisions_right_end']:.3f} | {100 * r['no_point_change']:+.1f} pts "
            f"| {'yes' if r['qualifies'] else 'no'} | {cpu} | {wall} |"
        )
    v = seeds_verdict(recs)
    seeds = ", ".join(map(str, v["seeds"]))
    lines.append("")
    if v["missing"]:
        lines.append(
            f"Proof seeds {seeds}: seed(s) {', '.join(map(str, v['missing']))} not yet run; "
            "no verdict."
        )
    else:
        g = v["gain"]
        lines.append(
            f"Proof seeds {seeds}: mean gain {g['mean']:+.3f} ± {g['half_width']:.3f} (95% t, "
            f"n = {g['n']}); every seed qualifies: {'yes' if v['every_seed_qualifies'] else 'no'}; "
            f"**the proof {'holds' if v['holds'] else 'does not hold'}**."
        )
    return "\n".join(lines) + "\n"


def proof_block_wide1() -> str:
    """The ``regime-proof-wide1`` block: :func:`proof_markdown` on ``regime-wide1-d10``."""
    return proof_markdown(suite="regime-wide1-d10")
