r"""Is RCTP-FT's goal token read on the collapse testbed? The ``collapse-token`` block of
``docs/results/collapse.md``: what gate R's failure means for K3 and X1, read from the committed runs.

RC-GRPO (``collapse-rcgrpo``) and RCTP-FT + GRPO (``collapse-rctp-grpo``) start from the same
checkpoint with the same seed and share one random stream: the task of every slot
(step, round, prompt, group) is the same, and the sampling draws are consumed alike. RC-GRPO
switches some slots' goal to low. Per seed:

- **greedy, step 0**: held-out success under the high and under the low goal (RC-GRPO's first
  evaluation, 1,000 tasks, greedy);
- **identical, switched**: the share of slots RC-GRPO conditions on low whose rollout equals
  RCTP-FT + GRPO's in the same slot (same task, reward and generated token count), over steps
  1–10 and 1–200; **identical, not switched**: the same share on the slots both condition on
  high (what the two runs' weights drifting apart alone does);
(RC-GRPO's training success per goal over steps 1–10 is in ``collapse-seeds``.)

A token the model reads changes its rollouts where it is switched; an inert one leaves them
identical as often as where it is not switched. Every number of docs/findings.md's and the paper's
"the token is inert" sentences comes from here (``analysis/report/claims.py``).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import pandas as pd

from analysis import REPO_ROOT
from analysis.campaigns.collapse import verdicts as kv
from analysis.campaigns.collapse.driver import SEEDS
from analysis.campaigns.regime_separation import tables as st
from analysis.runs import is_finished, load_run
from analysis.stats import mean_ci
from analysis.verdicts import rules as rv

RESULTS = REPO_ROOT / "results" / "collapse"
EARLY = (1, 10)
ALL = (1, 200)
KEY = ["step", "round", "prompt", "group"]
SAME = ["task_id", "reward", "gen_tokens"]
HEADER = (
    "seed",
    "greedy step 0: high",
    "low",
    "identical, switched, steps 1–10",
    "not switched, steps 1–10",
    "switched, steps 1–200",
)


@functools.lru_cache(maxsize=16)
def _rollouts(folder: str) -> pd.DataFrame:
    return load_run(folder).rollouts


def identical_share(rc: pd.DataFrame, ref: pd.DataFrame, goal: str, steps: tuple[int, int]):
    """Share of RC-GRPO's slots conditioned on ``goal`` within ``steps`` (inclusive) whose
    rollout has the same task, reward and generated token count as ``ref``'s in that slot."""
    rows = rc[(rc["reward_token"] == goal) & rc["step"].between(*steps)]
    merged = rows.merge(ref[KEY + SAME], on=KEY, how="left", suffixes=("", "_ref"))
    same = pd.Series(True, index=merged.index)
    for col in SAME:
        same &= merged[col] == merged[f"{col}_ref"]
    return float(same.mean()) if len(merged) else math.nan


def token_values(root: Path, seed: int) -> list[float]:
    """One seed's numbers in :data:`HEADER` order after the seed (NaN where a run is missing)."""
    rc_dir, ref_dir = root / f"{kv.RC}-s{seed}", root / f"{kv.RCTP_GRPO}-s{seed}"
    if not (is_finished(rc_dir) and is_finished(ref_dir)):
        return [math.nan] * (len(HEADER) - 1)
    first = {g: rv.evaluation(load_run(rc_dir), "first", g) for g in ("high", "low")}
    greedy = [first[g]["overall"]["reward"]["mean"] for g in ("high", "low")]
    rc, ref = _rollouts(str(rc_dir)), _rollouts(str(ref_dir))
    return [
        *greedy,
        identical_share(rc, ref, "low", EARLY),
        identical_share(rc, ref, "high", EARLY),
        identical_share(rc, ref, "low", ALL),
    ]


def token_table(root: Path = RESULTS) -> dict[int, list[float]]:
    """{seed: :func:`token_values`} over the campaign's seeds."""
    return {seed: token_values(root, seed) for seed in SEEDS}


def _cell(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.3f}"


def token_markdown(root: Path = RESULTS) -> str:
    """The ``collapse-token`` block: :data:`HEADER` per seed, then the mean ± 95% t."""
    table = token_table(root)
    body = [[str(s), *map(_cell, v)] for s, v in table.items()]
    means = []
    for col in zip(*table.values(), strict=True):
        est = mean_ci([x for x in col if not math.isnan(x)])
        pm = f" ± {est.half_width:.3f}" if est and est.half_width is not None else ""
        means.append("—" if est is None else f"{est.mean:.3f}{pm} (n = {est.n})")
    body.append(["mean", *means])
    lines = st.markdown_table(HEADER, body, ["--:"] * len(HEADER))
    return "\n".join(lines) + "\n"
