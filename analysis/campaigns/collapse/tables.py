r"""The collapse campaign's verdict table (``docs/protocols/collapse-campaign.md``, and its
control's rules, ``docs/protocols/collapse-control.md``), from the committed runs under
``results/collapse``.

``collapse-verdicts`` (``docs/results/collapse.md``) and ``collapse_verdicts.tex`` (the paper): every rule of
:data:`analysis.campaigns.collapse.verdicts.RULES` on every committed run of the ``collapse`` arms
(no admission: every seed but the reserved ones counts, :func:`analysis.verdicts.rules.load_arms`
with no population), decided together by :func:`analysis.verdicts.family.decide` with the
campaign's families, equivalence rules and margin; the cells and columns are the separation
study's (:func:`analysis.campaigns.regime_separation.tables.rows`). A rule with fewer than
:data:`~analysis.verdicts.rules.MIN_SEEDS` seeds that have a run of every one of its arms
reads *inconclusive (n = k seeds)*, naming the arms not yet run.

``collapse-seeds`` and ``collapse-control-init`` (``docs/results/collapse.md``): what the two protocols
report beside their rules, per seed; the second reads the init diagnostics
(:func:`init_path`) of each seed's three Stage-1 checkpoints.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaigns.collapse import verdicts as kv
from analysis.campaigns.collapse.driver import SEEDS, stage1
from analysis.campaigns.regime_separation import tables as st
from analysis.diagnostics.regime.decisions import ANY
from analysis.runs import Run, is_finished, load_run
from analysis.runs.extractors import series
from analysis.runs.sources import layout_resolver
from analysis.stats import mean_ci
from analysis.verdicts import family as fm
from analysis.verdicts import rules as rv

RESULTS = REPO_ROOT / "results" / "collapse"
"""Where the campaign's runs are committed (:data:`analysis.campaigns.collapse.driver.HOME`)."""


@functools.lru_cache(maxsize=4)
def collapse_arms(root: Path = RESULTS) -> dict[str, dict[int, Run]]:
    """{arm: {seed: run}} of every arm of the rules: the finished runs under ``root``."""
    presets = sorted({a for r in kv.RULES for a in r.arms})
    resolve = layout_resolver(root)
    return rv.load_arms({p: resolve(p) for p in presets})


def decisions(arms: st.Arms) -> list[fm.Decision]:
    """Every rule of the campaign decided on ``arms`` (module docstring), in registered order."""
    outs = [rv.evaluate(rule, arms, {}) for rule in kv.RULES]
    out = fm.decide(outs, kv.FAMILIES, kv.EQUIVALENCE, kv.MARGIN, labelled={})
    suffix = " (restates gate R: the goal token is inert)"
    return [
        dataclasses.replace(d, verdict=d.verdict + suffix) if d.rule.id in kv.RESTATE_GATE_R else d
        for d in out
    ]


def _families() -> str:
    """``premise: K1, K2; claims: K3, …`` from :data:`analysis.campaigns.collapse.verdicts.FAMILIES`."""
    bases = {f: dict.fromkeys(i.rstrip("sf") for i in ids) for f, ids in kv.FAMILIES.items()}
    return "; ".join(f"{f}: {', '.join(ids)}" for f, ids in bases.items())


NOTE = (
    "Gate R fails on this design (RCTP-FT's goals do not differ on the planted decision: "
    "P(right | high) 0.107 vs low 0.103 at the design seed; docs/lab-notes/"
    "2026-12-collapse-design.md); gates C, H, H′, G0, G5 hold. "
    "Rules, families and the ±5-point equivalence margin registered before the runs "
    "(docs/protocols/collapse-campaign.md; the control's X1, X2: docs/protocols/"
    "collapse-control.md; analysis/campaigns/collapse/verdicts.py). p: two-sided t test "
    "against the "
    f"rule's threshold, Holm within its family ({_families()}); "
    "p TOST Holm: the equivalence test within ±5 points of every θ = 0 "
    "difference of held-out success, Holm in the same family. Held-out outcomes pair the arms "
    "by task and seed (RC arms under the high goal); learning speed (s, primary) = mean "
    "held-out success over the evaluations at steps 25–175, final (f) = step 200. n seeds: "
    "the seeds (3, 4, 5, 6, 11; no admission) with a finished run of every arm of the rule; "
    "fewer than 3 is inconclusive, untested, and not counted in its family's Holm m."
)


def verdicts_markdown(root: Path = RESULTS) -> str:
    """The ``collapse-verdicts`` block on the runs under ``root``."""
    body = [list(r.values()) for r in st.rows(decisions(collapse_arms(root)))]
    align = ["---"] * 4 + ["--:"] * 7 + ["---"]
    return "\n".join([*st.markdown_table(st.HEADER, body, align), "", NOTE]) + "\n"


SEED_HEADER = (
    "seed",
    "RCTP-FT mix: swap tasks",
    "RCTP-FT held-out step 0: high",
    "low",
    "RC-GRPO training success, steps 1–10: high",
    "low",
    "SFT + GRPO zero-variance share",
    "all-fail share",
    "i.i.d. prediction",
)
"""Columns of :func:`seeds_markdown`."""
START_STEPS = 10
"""The first training steps whose sampled success per goal shows where the goals start."""


def _fmt(x: float) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.3f}"


def _finished(root: Path, name: str) -> Run | None:
    folder = root / name
    return load_run(folder) if is_finished(folder) else None


def seed_row(root: Path, seed: int) -> list[str]:
    """One seed's row of :func:`seeds_markdown` ("—" where its run is not committed)."""
    rctp, rc = _finished(root, f"rctp-collapse-s{seed}"), _finished(root, f"{kv.RC}-s{seed}")
    grpo = _finished(root, f"{kv.SFT_GRPO}-s{seed}")
    swap = rctp.data.get("tasks", {}).get("with_skipped_kind") if rctp else None
    held = [
        rv.evaluation(rc, "first", g)["overall"]["reward"]["mean"] if rc else math.nan
        for g in ("high", "low")
    ]
    start = [
        float(series(rc, f"reward/success_{g}").loc[1:START_STEPS].mean()) if rc else math.nan
        for g in ("high", "low")
    ]
    shares = [
        float(series(grpo, f"group/{m}").mean()) if grpo else math.nan
        for m in ("zero_var_frac", "zero_var_fail_frac", "zero_var_predicted_pooled")
    ]
    return [str(seed), "—" if swap is None else str(swap), *map(_fmt, [*held, *start, *shares])]


def seeds_markdown(root: Path = RESULTS) -> str:
    """The ``collapse-seeds`` block: what the protocol reports beside the rules, per seed of
    :data:`analysis.campaigns.collapse.driver.SEEDS` (no admission, every seed shown): the swap tasks
    RCTP-FT's mix kept (``data.json``); RCTP-FT's greedy held-out success at step 0 under each
    goal (RC-GRPO's first evaluation, 1,000 tasks: gate R's intention-to-treat view); RC-GRPO's
    sampled training success per goal over steps 1–:data:`START_STEPS`; SFT + GRPO's
    zero-variance and all-fail shares of its groups over training and the i.i.d. prediction
    s^G + (1 − s)^G from each step's batch success rate (``group/*`` metrics, mean over
    steps)."""
    body = [seed_row(root, s) for s in SEEDS]
    table = st.markdown_table(SEED_HEADER, body, ["--:"] * len(SEED_HEADER))
    return "\n".join(table) + "\n"


DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"
INIT_SAMPLES = 16
"""Samples per task at τ = 1 of the init diagnostics: 200 held-out tasks × 16 put about 2,400
sampled swap decisions behind each rate (the design seed's gates used 32)."""
STAGE1 = {"sft": "sft", "rctp": "rctp", "control": "rctp-shuffled"}
"""The Stage-1 checkpoints of a seed whose init diagnostic the control's table reads (keys of
:func:`analysis.campaigns.collapse.driver.stage1`): SFT, RCTP-FT and the label-shuffled control
(``docs/protocols/collapse-control.md``)."""


def init_path(run: str, diagnostics: Path = DIAGNOSTICS) -> Path:
    """The init diagnostic of Stage-1 run ``run`` (``<stage1>-s<seed>``), made by::

        OMP_NUM_THREADS=1 python -m analysis.diagnostics.regime \\
            --init runs/collapse/<stage1>-s<seed>/final --preset regime-rcgrpo \\
            --synth-preset collapse1-d10 --conditions <none | high low> --samples 16 \\
            --seed <seed> --out results/diagnostics/collapse-init-<stage1>-s<seed>.json

    (SFT under its one condition, ``none``; RCTP-FT and the control under both goals): greedy
    success and the swap decisions sampled at τ = 1 on the first 200 of the held-out tasks."""
    return diagnostics / f"collapse-init-{run}.json"


def _init_report(run: str, diagnostics: Path) -> dict | None:
    """The committed init diagnostic (None if absent); one measured with another number of
    samples than :data:`INIT_SAMPLES` is refused rather than mixed into the seed mean."""
    path = init_path(run, diagnostics)
    if not path.is_file():
        return None
    report = json.loads(path.read_text())
    samples = report.get("rollout", {}).get("samples")
    if samples != INIT_SAMPLES:
        raise ValueError(f"{path}: {samples} samples per task, the table reads {INIT_SAMPLES}")
    return report


CONTROL_HEADER = (
    "seed",
    "control step 0, 1,000 tasks: high",
    "greedy, 200 tasks: high",
    "low",
    "sampled right-swap rate: SFT",
    "RCTP-FT high",
    "RCTP-FT low",
    "control high",
    "control low",
)
"""Columns of :func:`control_markdown`."""


def control_values(root: Path, seed: int, diagnostics: Path = DIAGNOSTICS) -> list[float]:
    """One seed's numbers of :func:`control_markdown`, in :data:`CONTROL_HEADER` order after
    the seed (NaN where the run or the diagnostic is not committed)."""
    grpo = _finished(root, f"{kv.SHUFFLED}-s{seed}")
    step0 = rv.evaluation(grpo, "first", "high")["overall"]["reward"]["mean"] if grpo else math.nan
    runs = stage1(seed)
    reports = {k: _init_report(runs[key].name, diagnostics) for k, key in STAGE1.items()}

    def condition(kind: str, goal: str) -> dict | None:
        return ((reports[kind] or {}).get("conditions") or {}).get(goal)

    def greedy(goal: str) -> float:
        c = condition("control", goal)
        return c["greedy"]["overall"] if c else math.nan

    def right(kind: str, goal: str) -> float:
        c = condition(kind, goal)
        return c["decision_kinds"][ANY]["p_right_sampled"] if c else math.nan

    sampled = [right("sft", "none")]
    sampled += [right(k, g) for k in ("rctp", "control") for g in ("high", "low")]
    return [step0, greedy("high"), greedy("low"), *sampled]


def _mean_cell(values: list[float]) -> str:
    """Mean ± 95% t half-width over the seeds measured, and their n."""
    est = mean_ci(values)
    if est is None:
        return "—"
    pm = f" ± {est.half_width:.3f}" if est.half_width is not None else ""
    return f"{est.mean:.3f}{pm} (n = {est.n})"


def control_markdown(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> str:
    """The ``collapse-control-init`` block: what the control's protocol reports beside X1 and
    X2, per seed of :data:`analysis.campaigns.collapse.driver.SEEDS`: the control's greedy held-out
    success at step 0 under the high goal (its GRPO arm's first evaluation, 1,000 tasks), its
    greedy success under each goal on the init diagnostic's 200 tasks (expected equal: the
    shuffled label carries no information), and the sampled right-swap rate P(right | sampled)
    over every planted swap decision (:data:`~analysis.diagnostics.regime.decisions.ANY`) of
    SFT, RCTP-FT under each goal and the control under each goal; last row, the mean over the
    seeds measured ± 95% t half-width."""
    values = [control_values(root, s, diagnostics) for s in SEEDS]
    body = [[str(s), *map(_fmt, v)] for s, v in zip(SEEDS, values, strict=True)]
    body.append(["mean", *(_mean_cell(list(col)) for col in zip(*values, strict=True))])
    table = st.markdown_table(CONTROL_HEADER, body, ["--:"] * len(CONTROL_HEADER))
    return "\n".join(table) + "\n"


def verdicts_latex(root: Path = RESULTS) -> str:
    """The paper's ``collapse_verdicts.tex``: the ``collapse-verdicts`` rows as a table."""
    return st.decisions_latex(
        decisions(collapse_arms(root)),
        caption="The collapse campaign's verdicts on \\code{collapse1-d10}, where SFT + GRPO's "
        "groups are all-fail: rules, families and the equivalence margin written down before "
        "its runs (\\code{docs/protocols/collapse-campaign.md}), decided with a family-wise "
        "correction; gate R fails on this design.",
        label="tab:collapse-verdicts",
        note=NOTE,
    )
