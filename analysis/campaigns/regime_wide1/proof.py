r"""The regime's proof across seeds (issue 25, ``docs/regime.md``): SFT + GRPO raises held-out
success on every proof seed.

The proof holds when every seed of :data:`analysis.diagnostics.regime.proof.PROOF_SEEDS` (the
factorial's seeds; the recipe was chosen on ``DESIGN_SEED``, which never enters) has a run,
each run qualifies on its own (:func:`analysis.diagnostics.regime.proof.proof_verdict`: gain
:math:`\ge` 0.10 with exact McNemar p < 0.05, decisions right :math:`\ge` 0.8, tasks without a
decision point losing :math:`\le` 2 points), and the mean gain over the seeds is
:math:`\ge` ``GAIN``; the mean is reported with its 95% Student-t half-width.
"""

from __future__ import annotations

from collections.abc import Sequence

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
