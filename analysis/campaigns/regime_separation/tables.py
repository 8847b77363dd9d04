r"""The separation study's tables (``docs/protocols/regime-d10-separation.md``): its verdicts
and each arm's separation half-life, from the committed runs under ``results/regime``.

- ``separation-verdicts`` (``docs/results/regime-separation.md``) and ``separation_verdicts.tex`` (the paper):
  every rule of :data:`analysis.campaigns.regime_separation.verdicts.RULES` on the registered (admitted)
  population (:func:`analysis.verdicts.rules.load_arms`), decided together by
  :func:`analysis.verdicts.family.decide` with the study's families, equivalence rules and
  margin; the cells are those of the regime's verdict table
  (:func:`analysis.campaigns.regime_d10.verdict_table.rule_cells`). A rule with fewer than
  :data:`~analysis.verdicts.rules.MIN_SEEDS` seeds that have a run of every one of its arms
  reads *inconclusive (n = k seeds)*, naming the arms not yet run.
- ``separation-half-life`` (``docs/results/regime-separation.md``): per arm of :data:`HALF_LIFE_ARMS`, the
  steps until the 10-step trailing mean of the between-goal share of the group variance
  (``group/between_frac``) first reaches the goal-blind level, the mean share over every
  training step of the SFT + RC runs (:mod:`analysis.verdicts.half_life`); its mean and 95%
  t-interval over the seeds that reach it (:func:`~analysis.verdicts.half_life.arm_half_life`),
  how many of the arm's seeds reach it within :data:`STEPS` steps, and each seed's value.
  An arm whose groups hold one goal (``reward/high_frac`` = 1 at every step) has no
  between-goal share: it reads *one goal*, not a half-life.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10 import verdict_table as vt
from analysis.campaigns.regime_separation import verdicts as sep
from analysis.report.latex import escape, tabular
from analysis.runs import Run
from analysis.runs.extractors import series
from analysis.runs.sources import layout_resolver
from analysis.stats import Estimate
from analysis.verdicts import family as fm
from analysis.verdicts import half_life as hl
from analysis.verdicts import rules as rv

DASH = "—"
STEPS = 200
"""The study's run length: a half-life counts as reached when it is at most this."""
HALF_LIFE_ARMS = (sep.RC, sep.BETA1, sep.BETA3, sep.ANCHORED, sep.GOALNORM, sep.G4, pop.SFT_RC)
"""RC-GRPO, the study's new arms, then the goal-blind SFT + RC arm that sets the level."""
Arms = Mapping[str, Mapping[int, Run]]


@functools.lru_cache(maxsize=4)
def separation_arms(root: Path) -> dict[str, dict[int, Run]]:
    """{arm: {seed: run}} of every arm of the rules and of :data:`HALF_LIFE_ARMS`: the
    finished runs under ``root`` that count in the registered (admitted) population."""
    presets = sorted({a for r in sep.RULES for a in r.arms} | set(HALF_LIFE_ARMS))
    resolve = layout_resolver(root)
    return pop.load_arms({p: resolve(p) for p in presets}, "admitted")


def decisions(arms: Arms) -> list[fm.Decision]:
    """Every rule of the study decided on ``arms`` (module docstring), in registered order."""
    outs = [rv.evaluate(rule, arms, {}) for rule in sep.RULES]
    first = fm.decide(outs, sep.FAMILIES, sep.EQUIVALENCE, sep.MARGIN, labelled={})
    held = {d.rule.id for d in first if d.verdict == "holds"}
    tested = {d.rule.id for d in first if fm.testable(d.outcome)}
    # a gate closes where its Q1 rule was tested and does not hold (untested: the X2 rule
    # keeps its own reading, e.g. "not yet run")
    closed = {r for r, gate in sep.Q2_GATES.items() if gate in tested and gate not in held}
    outs = [
        dataclasses.replace(o, note=f"gate {sep.Q2_GATES[o.rule.id]} does not hold")
        if o.rule.id in closed
        else o
        for o in outs
    ]
    out = fm.decide(outs, sep.FAMILIES, sep.EQUIVALENCE, sep.MARGIN, labelled={})
    return [
        dataclasses.replace(d, verdict=f"not asked: Q1 ({sep.Q2_GATES[d.rule.id]}) does not hold")
        if d.rule.id in closed
        else d
        for d in out
    ]


def verdict_cell(d: fm.Decision) -> str:
    """The verdict; an untested rule's names its n and, when so, the arms not yet run."""
    if fm.testable(d.outcome):
        return vt.verdict_text(d, posthoc=False)
    k, note = len(d.outcome.seeds), d.outcome.note
    if note.startswith("gate"):
        return d.verdict
    if k >= rv.MIN_SEEDS:
        return f"inconclusive ({note or 'no interval'})"
    missing = f"; {note}" if note.startswith("not yet run") else ""
    return f"inconclusive (n = {k} seed{'s' * (k != 1)}{missing})"


HEADER = (
    "rule",
    "family",
    "claim",
    "quantity",
    "estimate [95% CI]",
    "n seeds",
    "tasks",
    "test",
    "p",
    "p Holm",
    "p TOST Holm",
    "verdict",
)
"""The columns of the ``separation-verdicts`` block."""
TEX_HEADER = ("rule", "claim", "estimate [95% CI]", "n seeds", "p Holm", "p TOST Holm", "verdict")
"""The columns of the paper's table (every column is in the docs)."""


def rows(ds: list[fm.Decision]) -> list[dict[str, str]]:
    """One row per decision: :data:`HEADER` -> plain text."""
    out = []
    for d in ds:
        full = dict(zip(vt.RULE_HEADER, vt.rule_cells(d, posthoc=False), strict=True))
        seeds, iv = d.outcome.seeds, d.outcome.interval
        full |= {
            "family": d.family,
            "n seeds": f"{len(seeds)} ({', '.join(map(str, seeds))})" if seeds else "0",
            "tasks": str(iv.tasks) if iv is not None and iv.tasks else DASH,
            "verdict": verdict_cell(d),
        }
        out.append({h: full[h] for h in HEADER})
    return out


NOTE = (
    "Rules, families and the ±5-point equivalence margin registered before the runs "
    "(docs/protocols/regime-d10-separation.md, "
    "analysis/campaigns/regime_separation/verdicts.py). p: two-sided "
    "t test against the rule's threshold, Holm within its family (Q1 kept: X1a–X1c; Q2 "
    "learning: X2; Q3 goal-blind: X3; secondary: X4, X5); p TOST Holm: the equivalence test "
    "within ±5 points of every θ = 0 difference, Holm in the same family. Held-out outcomes "
    "pair the arms by task and seed (RC arms under the high goal; separation = high − low "
    "on the same tasks); learning speed = mean held-out success over the evaluations at "
    "steps 25–175. n seeds: the admitted seeds with a finished run of every arm of the "
    "rule; fewer than 3 is inconclusive, untested, and not counted in its family's Holm m. "
    "Q2 is asked only of the arms for which Q1 holds (the protocol): an X2 rule whose Q1 rule "
    "does not hold is not asked, not tested and not counted in Q2's Holm m."
)


def markdown_table(head: tuple[str, ...], body: list[list[str]], align: list[str]) -> list[str]:
    """A Markdown table: header, alignment row, one line per body row (a | in a cell escaped)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]


def verdicts_markdown(root: Path) -> str:
    """The ``separation-verdicts`` block on the runs under ``root``."""
    body = [list(r.values()) for r in rows(decisions(separation_arms(root)))]
    align = ["---"] * 4 + ["--:"] * 7 + ["---"]
    return "\n".join([*markdown_table(HEADER, body, align), "", NOTE]) + "\n"


def decisions_latex(decided: list[fm.Decision], caption: str, label: str, note: str) -> str:
    """A paper table of decided rules (:data:`TEX_HEADER` columns of :func:`rows`)."""
    body = [[escape(r[h]) for h in TEX_HEADER] for r in rows(decided)]
    wrap = ">{\\raggedright\\arraybackslash}p{%s}"
    return tabular(
        [escape(h) for h in TEX_HEADER],
        body,
        ["l", wrap % "4.2cm", "r", "r", "r", "r", wrap % "3.2cm"],
        caption=caption,
        label=label,
        note=escape(note),
        size="scriptsize",
        colsep="2.5pt",
    )


def verdicts_latex(root: Path) -> str:
    """The paper's ``separation_verdicts.tex`` (:data:`TEX_HEADER`)."""
    return decisions_latex(
        decisions(separation_arms(root)),
        caption="The separation study's verdicts: rules, families and the equivalence margin "
        "written down before its runs (\\code{docs/protocols/regime-d10-separation.md}), "
        "decided with a family-wise correction.",
        label="tab:separation-verdicts",
        note=NOTE,
    )


@dataclass(frozen=True)
class ArmHalfLife:
    """One arm's separation half-life (module docstring)."""

    preset: str
    seeds: tuple[int, ...]
    values: tuple[float, ...]
    """Per seed, in steps (NaN: the level is never reached in the run)."""
    estimate: Estimate | None
    """Mean and 95% t half-width over the seeds that reach the level (None: none does)."""
    one_goal: bool
    """Every group holds one goal: no between-goal share, no half-life."""

    @property
    def reached(self) -> int:
        return sum(math.isfinite(v) and v <= STEPS for v in self.values)


def one_goal(run: Run) -> bool:
    """Whether every rollout of the run carried the high goal (``reward/high_frac`` = 1)."""
    frac = series(run, "reward/high_frac")
    return len(frac) > 0 and bool((frac >= 1.0).all())


def goal_blind_level(arms: Arms) -> float:
    """:func:`analysis.verdicts.half_life.goal_blind_level` of the SFT + RC runs (NaN: none)."""
    runs = [arms[pop.SFT_RC][s] for s in sorted(arms.get(pop.SFT_RC, {}))]
    return hl.goal_blind_level(runs) if runs else math.nan


def half_lives(arms: Arms, level: float) -> list[ArmHalfLife]:
    """Per arm of :data:`HALF_LIFE_ARMS`: its seeds, per-seed half-lives and their estimate."""
    out = []
    for preset in HALF_LIFE_ARMS:
        by_seed = dict(sorted(arms.get(preset, {}).items()))
        runs = list(by_seed.values())
        single = bool(runs) and all(one_goal(r) for r in runs)
        values, est = (), None
        if runs and not single and math.isfinite(level):
            per_run, est = hl.arm_half_life(runs, level)
            values = tuple(per_run)
        out.append(ArmHalfLife(preset, tuple(by_seed), values, est, single))
    return out


HALF_LIFE_HEADER = (
    "arm",
    "seeds",
    "reach the level within 200 steps",
    "half-life, steps: mean [95% CI]",
    "n",
    "per seed, steps",
)


def _steps(v: float) -> str:
    return f"{v:.0f}" if math.isfinite(v) else "not reached"


def half_life_cells(h: ArmHalfLife) -> list[str]:
    """One row of the ``separation-half-life`` block (:data:`HALF_LIFE_HEADER`)."""
    seeds = ", ".join(map(str, h.seeds)) or DASH
    if not h.seeds:
        return [h.preset, DASH, "not yet run", DASH, "0", DASH]
    if h.one_goal:
        return [h.preset, seeds, "one goal: no between-goal share", DASH, DASH, DASH]
    if not h.values:
        return [h.preset, seeds, "no goal-blind level (no SFT + RC run)", DASH, DASH, DASH]
    est = h.estimate
    if est is None:
        mean = "not reached"
    elif est.half_width is None:
        mean = f"{est.mean:.1f}"
    else:
        lo, hi = est.mean - est.half_width, est.mean + est.half_width
        mean = f"{est.mean:.1f} [{lo:.1f}, {hi:.1f}]"
    per = ", ".join(f"s{s}: {_steps(v)}" for s, v in zip(h.seeds, h.values, strict=True))
    n = str(est.n) if est is not None else "0"
    return [h.preset, seeds, f"{h.reached} of {len(h.seeds)}", mean, n, per]


def half_life_markdown(root: Path) -> str:
    """The ``separation-half-life`` block on the runs under ``root``."""
    arms = separation_arms(root)
    level = goal_blind_level(arms)
    body = [half_life_cells(h) for h in half_lives(arms, level)]
    blind = sorted(arms.get(pop.SFT_RC, {}))
    where = (
        f"{level:.3f}, the mean `{hl.BETWEEN}` over every training step of the SFT + RC runs "
        f"(seeds {', '.join(map(str, blind))})"
        if blind
        else "undefined: no finished SFT + RC run"
    )
    note = (
        f"Goal-blind level: {where}. Half-life: the first training step at which the run's "
        f"10-step trailing mean of `{hl.BETWEEN}` (the share of group reward variance the goal "
        "explains) is at or below that level; *not reached*: never within the run. Mean and "
        "95% t-interval over the n seeds that reach it (one seed: the mean alone); reported, "
        "not tested (the protocol's secondary outcome). Admitted seeds only."
    )
    align = ["---", "---", "--:", "--:", "--:", "---"]
    return "\n".join([*markdown_table(HALF_LIFE_HEADER, body, align), "", note]) + "\n"
