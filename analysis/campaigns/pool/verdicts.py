r"""Verdicts on the paper's claims in the pool regime, decided by rules written down before
the runs (the new regime's: :mod:`analysis.verdicts.rules`).

For each claim a reproduction checks (the five of the paper digest §7, and §1's that raising
entropy or temperature does not fix the collapse) and ours (stratified against i.i.d. reward
goals), a :class:`Rule` in :data:`RULES` fixes in advance:

- the measured quantity: a per-seed value :math:`x_i` from the runs of seed :math:`i`, one
  run per arm (an arm is an experiment group such as ``cpu-grpo``, the holder of a role of
  :data:`analysis.campaign.arms.ARMS` such as ``sft_grpo``). A one-arm quantity
  reads one run; a comparison is the difference of two runs of the SAME seed (paired by
  seed: Stage 1 and every RL arm of a seed start from that seed's checkpoints); a factorial
  contrast is a weighted sum over the four cells of one seed;
- the statistic: the mean over the :math:`n` seeds where every arm has a finished run,
  with its 95% Student-t interval (:func:`analysis.stats.mean_ci`)

  .. math:: [\ell, u] = \bar x \mp t_{0.975,\,n-1}\, s/\sqrt{n};

- the threshold :math:`\theta` and the side the claim predicts:

  .. math::
      \text{above: holds if } \ell > \theta,\ \text{does not hold if } u < \theta;\qquad
      \text{below: holds if } u < \theta,\ \text{does not hold if } \ell > \theta;

  inconclusive otherwise, and whenever :math:`n <` :data:`MIN_SEEDS` (3).

Thresholds come from the claims and the effect sizes the paper reports (each rule's
``why``), not from our runs. Windows: "early" / "late" = the first / last 25% of the
training steps (at least one step), "over training" = every training step (``step >= 1``),
"final" = the last held-out evaluation (RC arms: conditioned on the high goal).

:mod:`analysis.campaigns.pool.report` renders the outcomes (:mod:`analysis.report.verdict_table`):
the report's table (``paper/generated/verdicts.tex``) and the ``verdicts`` block of
``docs/findings.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from analysis.campaign.arms import roles
from analysis.runs import Run, load_run, seed_of
from analysis.runs.extractors import Extractor, last, mean_over_training, window
from analysis.runs.sources import Resolver, collect
from analysis.stats import Estimate, mean_ci

MIN_SEEDS = 3
"""Fewer seeds (pairs) than this: inconclusive, whatever the interval says."""
SIDES = ("above", "below")
SUCCESS = "reward/eval_success"
SeedValue = Callable[[Sequence[Run]], float]
"""x_i from the runs of one seed, one per arm in the rule's ``arms`` order."""


def late(metric: str) -> Extractor:
    """Mean of ``metric`` over the last 25% of the training steps."""
    return window(metric, "late", 0.25)


def change(metric: str) -> Extractor:
    """Relative change of a run: late / early − 1 (NaN when the early mean is 0)."""
    early, end = window(metric, "early", 0.25), late(metric)

    def extract(run: Run) -> float:
        e = early(run)
        return end(run) / e - 1.0 if e != 0 and math.isfinite(e) else math.nan

    return extract


def step_gap(metric: str, bound: str) -> Extractor:
    """Mean over the training steps logging both of ``metric − bound``."""

    def extract(run: Run) -> float:
        df = run.metrics
        if metric not in df or bound not in df:
            return math.nan
        rows = df[df["step"] >= 1][[metric, bound]].dropna()
        return float((rows[metric] - rows[bound]).mean()) if len(rows) else math.nan

    return extract


def one(extract: Extractor) -> SeedValue:
    """x_i = e(run_i) of the rule's single arm."""
    return lambda runs: extract(runs[0])


def diff(extract: Extractor) -> SeedValue:
    """x_i = e(arm 1 at seed i) − e(arm 2 at seed i)."""
    return lambda runs: extract(runs[0]) - extract(runs[1])


def rel(extract: Extractor) -> SeedValue:
    """x_i = e(arm 1) / e(arm 2) − 1 at seed i (NaN when e(arm 2) is 0)."""

    def value(runs: Sequence[Run]) -> float:
        base = extract(runs[1])
        return extract(runs[0]) / base - 1.0 if base != 0 else math.nan

    return value


def contrast(extract: Extractor, weights: tuple[float, ...]) -> SeedValue:
    """x_i = Σ_k w_k · e(arm k at seed i)."""
    return lambda runs: math.fsum(w * extract(r) for w, r in zip(weights, runs, strict=True))


@dataclass(frozen=True)
class Rule:
    """One pre-registered test of a claim (module docstring: statistic and decision)."""

    claim: str
    """Claim id (digest §7; 6 = ours) and the claim in a few words."""
    quantity: str
    """The per-seed value x_i in words (the table's quantity column)."""
    arms: tuple[str, ...]
    """Experiment groups read, one run per seed each."""
    value: SeedValue
    """x_i from the runs of one seed, in ``arms`` order."""
    threshold: float
    """θ: the bound or the smallest effect the claim predicts."""
    side: str
    """``above``: the claim predicts x > θ; ``below``: x < θ."""
    why: str
    """Where θ comes from."""

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"rule {self.claim}: side must be one of {SIDES}, got {self.side!r}")
        if not self.arms:
            raise ValueError(f"rule {self.claim}: needs at least one arm")

    @property
    def test(self) -> str:
        """The test in words, e.g. ``paired by seed; holds if CI > 0``."""
        kind = "one-sample" if len(self.arms) == 1 else "paired by seed"
        return f"{kind}; holds if CI {'>' if self.side == 'above' else '<'} {self.threshold:g}"


RCTP = "rctp"
"""The Stage-1 RCTP-FT runs (an experiment group, not an arm)."""
GROUPS = {RCTP: RCTP, **roles("pool")}
"""Role -> experiment group of the pool regime's arms (:data:`analysis.campaign.arms.ARMS`)."""
SFT_GRPO, SFT_RC = GROUPS["sft_grpo"], GROUPS["sft_rc"]
RCTP_GRPO, RCTP_RC, RCTP_STRAT = GROUPS["rctp_grpo"], GROUPS["rctp_rc"], GROUPS["rctp_strat"]
ENTROPY, HIGHTEMP = GROUPS["entropy"], GROUPS["hightemp"]
FACTORIAL = (RCTP_GRPO, RCTP_RC, SFT_GRPO, SFT_RC)
RULES: tuple[Rule, ...] = (
    Rule(
        "1a SFT + GRPO: many zero-variance groups",
        "share of groups with σ_g = 0, mean over training",
        (SFT_GRPO,),
        one(mean_over_training("group/zero_var_frac")),
        0.5,
        "above",
        "'many' read as most: more than half of the groups collapse",
    ),
    Rule(
        "1b SFT + GRPO: advantage spread shrinks",
        "advantage spread max A − min A, late / early − 1",
        (SFT_GRPO,),
        one(change("adv/gap_mean")),
        -0.1,
        "below",
        "a shrink is a fall of at least 10% from the first to the last quarter of training",
    ),
    Rule(
        "2 RCTP-FT: success under high ≫ under low",
        "Stage-1 held-out success, high goal − low goal (greedy, final)",
        (RCTP,),
        one(lambda r: last("sft/eval_combined")(r) - last("sft/eval_combined_low")(r)),
        0.3,
        "above",
        "'≫' read as a gap of 30 points; Prop. 4.3 then bounds E[σ_g²] by ≥ 0.2 · 0.09 at G 5",
    ),
    Rule(
        "3a RC-GRPO: E[σ_g²] ≥ κ ε² on the measured groups",
        "σ_g² − κ ε² per step (ε: pooled mode separation), mean over training",
        (RCTP_RC,),
        one(step_gap("group/var_mean", "theory/var_bound_iid")),
        0.0,
        "above",
        "Prop. 4.3 itself: the observed variance minus its lower bound is positive",
    ),
    Rule(
        "3b RC-GRPO: spread stays above GRPO's (same RCTP-FT start)",
        "late advantage spread, RC-GRPO − RCTP-FT + GRPO",
        (RCTP_RC, RCTP_GRPO),
        diff(late("adv/gap_mean")),
        0.0,
        "above",
        "'stays above' at the end of training; same checkpoint, so only the sampling differs",
    ),
    Rule(
        "3c RC-GRPO: spread stays above GRPO's (SFT start)",
        "late advantage spread, RC-GRPO − SFT + GRPO",
        (RCTP_RC, SFT_GRPO),
        diff(late("adv/gap_mean")),
        0.0,
        "above",
        "the paper's pipeline comparison (Fig. 2): RCTP-FT + RC-GRPO against SFT + GRPO",
    ),
    Rule(
        "4a RC-GRPO: no increased entropy",
        "high-goal token entropy over training, RC-GRPO / RCTP-FT + GRPO − 1",
        (RCTP_RC, RCTP_GRPO),
        rel(mean_over_training("policy/entropy_high")),
        0.1,
        "below",
        "an entropy rise under 10% of GRPO's counts as not increased; low-goal rollouts excluded",
    ),
    Rule(
        "4b RC-GRPO: variance from mode separation",
        "between-goal share of group variance, mean over training",
        (RCTP_RC,),
        one(mean_over_training("group/between_frac")),
        0.5,
        "above",
        "'the gain comes from mode separation': the goal explains most of σ_g² (Lemma A.3)",
    ),
    Rule(
        "5a factorial: RCTP-FT init helps",
        "init main effect on final held-out success, ½ Σ (RCTP-FT − SFT)",
        FACTORIAL,
        contrast(last(SUCCESS), (0.5, 0.5, -0.5, -0.5)),
        0.05,
        "above",
        "paper: +25.0 (Qwen) / +11.25 (Llama) points; 5 points is under half the smaller",
    ),
    Rule(
        "5b factorial: init matters more than RC sampling",
        "init main effect − sampling main effect (= RCTP-FT + GRPO − SFT + RC)",
        FACTORIAL,
        contrast(last(SUCCESS), (1.0, 0.0, 0.0, -1.0)),
        0.0,
        "above",
        "'RCTP-FT init matters most': its main effect exceeds that of the sampling",
    ),
    Rule(
        "5c factorial: RC sampling helps on top of RCTP-FT",
        "final held-out success, RC-GRPO − RCTP-FT + GRPO",
        (RCTP_RC, RCTP_GRPO),
        diff(last(SUCCESS)),
        0.02,
        "above",
        "paper: +11.25 (Qwen) / +2.5 (Llama) points; 2 points is the smaller gain, rounded down",
    ),
    Rule(
        "6a ours: stratified goals collapse fewer groups",
        "share of groups with σ_g = 0 over training, i.i.d. − stratified",
        (RCTP_RC, RCTP_STRAT),
        diff(mean_over_training("group/zero_var_frac")),
        0.02,
        "above",
        "i.i.d. goals give 2 · 0.5^5 = 6.25% of groups one goal at G 5; most of those collapse",
    ),
    Rule(
        "6b ours: stratified goals lose no held-out success",
        "final held-out success, stratified − i.i.d.",
        (RCTP_STRAT, RCTP_RC),
        diff(last(SUCCESS)),
        -0.02,
        "above",
        "non-inferiority at the 2-point margin of 5c",
    ),
    Rule(
        "7a entropy bonus: does not fix collapse as RC-GRPO does",
        "share of groups with σ_g = 0 over training, entropy bonus − RC-GRPO",
        (ENTROPY, RCTP_RC),
        diff(mean_over_training("group/zero_var_frac")),
        0.0,
        "above",
        "paper §1: raising entropy does not reliably restore variance from a peaked policy; "
        "registered before any baseline run finished",
    ),
    Rule(
        "7b temperature 1.5: does not fix collapse as RC-GRPO does",
        "share of groups with σ_g = 0 over training, τ 1.5 − RC-GRPO",
        (HIGHTEMP, RCTP_RC),
        diff(mean_over_training("group/zero_var_frac")),
        0.0,
        "above",
        "paper §1: nor does raising the temperature; registered with 7a",
    ),
)
"""The pre-registered rules (module docstring); the tests and thresholds of the verdicts."""


def arm_rules() -> tuple[Rule, ...]:
    """:data:`RULES` with each arm replaced by the one that holds its role in the registry
    now (:func:`analysis.campaign.arms.roles`): what :func:`outcomes` reads."""
    now, role = {RCTP: RCTP, **roles("pool")}, {g: r for r, g in GROUPS.items()}
    return tuple(dataclasses.replace(r, arms=tuple(now[role[a]] for a in r.arms)) for r in RULES)


def decide(est: Estimate | None, threshold: float, side: str, min_seeds: int = MIN_SEEDS) -> str:
    """The verdict of one rule from its estimate (module docstring)."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    if est is None or est.n < min_seeds or est.half_width is None:
        return "inconclusive"
    lo, hi = est.mean - est.half_width, est.mean + est.half_width
    above, below = lo > threshold, hi < threshold
    if side == "above":
        return "holds" if above else "does not hold" if below else "inconclusive"
    return "holds" if below else "does not hold" if above else "inconclusive"


@dataclass(frozen=True)
class Outcome:
    """A rule applied to the runs found: the per-seed values, the estimate, the verdict."""

    rule: Rule
    seeds: tuple[int, ...]
    values: tuple[float, ...]
    estimate: Estimate | None
    verdict: str
    missing: tuple[str, ...]
    """Arms without a finished run."""


def evaluate(rule: Rule, found: dict[str, list[Path]]) -> Outcome:
    """Apply ``rule`` to ``found`` (experiment -> finished run folders)."""
    by_arm = []
    for arm in rule.arms:
        runs = [load_run(p) for p in found.get(arm, [])]
        by_arm.append({seed_of(r): r for r in runs})
    missing = tuple(a for a, runs in zip(rule.arms, by_arm, strict=True) if not runs)
    seeds = tuple(sorted(set.intersection(*(set(runs) for runs in by_arm))))
    values = tuple(rule.value([runs[s] for runs in by_arm]) for s in seeds)
    est = mean_ci(values)
    return Outcome(rule, seeds, values, est, decide(est, rule.threshold, rule.side), missing)


def outcomes(resolve: Resolver | None = None, rules: Sequence[Rule] | None = None) -> list[Outcome]:
    """``rules`` (default: :func:`arm_rules`) on the runs ``resolve`` finds (default: the
    campaign's, never training)."""
    from analysis.campaign.find import campaign_resolver
    from analysis.campaigns.pool.driver import build_campaign

    resolve = resolve or campaign_resolver(build_campaign())
    rules = rules or arm_rules()
    found = collect([a for r in rules for a in r.arms], resolve)
    return [evaluate(rule, found) for rule in rules]
