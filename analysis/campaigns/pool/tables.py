r"""The pool campaign's experiment tables in the report: what each one shows and which runs it
needs (the entry's ``run_tables``, :mod:`analysis.campaigns.pool.campaign`).

Experiment groups come from :func:`experiments` (role -> group name): Stage 1's and the
arms' of :data:`analysis.campaign.arms.ARMS`; a group is every seed of one configuration, named
as the pool campaign names its runs: ``sft-s0``, ``rctp-s0`` (Stage 1), ``cpu-grpo-s0`` (the
trainer's ``{preset}-s{seed}``). A row names an arm by its
``start`` and ``method``; :func:`tables` builds the rows from the arms registered now.

Every number is a mean over the experiment's seeds with a 95% t-interval; success rates are
in % like the paper. Collapse and separation statistics are per training step (all groups
generated at that step), averaged over the steps of a run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from analysis.campaign.arms import Arm, arms, roles
from analysis.campaigns.pool.dynamics_tables import dynamics_tables
from analysis.report.paper_table1 import PAPER_QWEN
from analysis.report.runtable import Column, Row, TableSpec
from analysis.runs.extractors import (
    cpu_seconds,
    difference,
    first,
    frac_steps_at_least,
    last,
    mean_over_training,
    training_success,
    window,
)


def experiments() -> dict[str, str]:
    """Role -> experiment group: Stage 1's ``sft`` and ``rctp``, and every arm of the pool
    regime by its role (:data:`analysis.campaign.arms.ARMS`, read now)."""
    return {"sft": "sft", "rctp": "rctp", **roles("pool")}


EXPERIMENTS: dict[str, str] = experiments()
E = EXPERIMENTS
SUCCESS = "reward/eval_success"

STAGE1 = TableSpec(
    name="stage1",
    caption="Stage 1 on the synth suite: held-out success (\\%) of the SFT and RCTP-FT "
    "checkpoints under greedy decoding, by reward goal and episode mode.",
    label="tab:stage1",
    label_headers=("model", "goal"),
    size="footnotesize",
    colsep="4pt",
    columns=(
        Column("combined", last("sft/eval_combined"), 1, True),
        Column("combined, low", last("sft/eval_combined_low"), 1, True),
        Column(
            "$\\mu_h-\\mu_l$",
            difference(last("sft/eval_combined"), last("sft/eval_combined_low")),
            1,
            True,
        ),
        Column("multi-turn", last("sft/eval_multi_turn"), 1, True),
        Column("multi-turn, low", last("sft/eval_multi_turn_low"), 1, True),
        Column("CPU s", cpu_seconds, 0),
    ),
    rows=(
        Row(("SFT", "none"), E["sft"]),
        Row(("RCTP-FT", "high / low"), E["rctp"]),
    ),
    note="SFT = \\texttt{sft-synth-cpu} (the first epoch opens with its shortest half of the "
    "batches; warmup-stable-decay learning rate $7\\cdot10^{-4}$, 2.1 epochs; its CPU seconds "
    "are a column of this table), RCTP-FT = \\texttt{rctp-synth-cpu} from it; every RL run starts from these "
    "checkpoints of its own seed. "
    "Mode separation $\\mu_h-\\mu_l$ = success under \\texttt{<|high\\_reward|>} minus "
    "under \\texttt{<|low\\_reward|>} (combined mode), the $\\varepsilon$ of Prop.~4.3. "
    "SFT is evaluated without a reward goal, so its low-goal cells are empty.",
)


def factorial_rows(e: dict[str, str], paper: bool = False) -> tuple[Row, ...]:
    """One row per ``factorial`` arm (``paper``: with the paper's number after it)."""
    cells = arms("pool", "factorial")
    return tuple(Row((a.init, a.method), e[a.role], (PAPER_QWEN[a.role],) * paper) for a in cells)


FACTORIAL = TableSpec(
    name="factorial",
    caption="Stage 2 factorial \\{SFT, RCTP-FT\\} $\\times$ \\{GRPO, RC-GRPO\\} on the synth "
    "suite: held-out success (\\%) before and after RL.",
    label="tab:factorial",
    label_headers=("init", "stage 2"),
    columns=(
        Column("start", first(SUCCESS), 1, True),
        Column("final", last(SUCCESS), 1, True),
        Column("$\\Delta$", difference(last(SUCCESS), first(SUCCESS)), 1, True),
        Column("train early", training_success("early"), 1, True),
        Column("train late", training_success("late"), 1, True),
    ),
    rows=factorial_rows(E, paper=True),
    after_headers=("paper (Qwen2.5-7B)",),
    size="footnotesize",
    colsep="3pt",
    note="Start = evaluation of the Stage-1 checkpoint at RL step 0, final = after the last "
    "step; RC runs are evaluated with the high goal. Train early / late = success on the "
    "16-task training pool over the first / last 10\\% of the steps (RC runs: the "
    "high-goal rollouts), what RL learns on the tasks it revisits. The last column is the paper's BFCL "
    "accuracy (single runs, 80 test tasks) for orientation only: a different model, scale "
    "and task suite. Every arm starts from the Stage 1 of \\cref{tab:stage1}.",
)

COLLAPSE = TableSpec(
    name="collapse",
    caption="Collapse diagnostics during RL (mean over training steps): fraction of "
    "zero-variance groups observed and predicted, advantage spread early and late, "
    "group reward variance and token entropy.",
    label="tab:collapse",
    label_headers=("init", "stage 2"),
    columns=(
        Column("$P(\\sigma_g{=}0)$", mean_over_training("group/zero_var_frac")),
        Column("predicted", mean_over_training("group/zero_var_predicted")),
        Column("gap early", window("adv/gap_mean", "early")),
        Column("gap late", window("adv/gap_mean", "late")),
        Column("$E[\\sigma_g^2]$", mean_over_training("group/var_mean"), 3),
        Column("$H$", mean_over_training("policy/entropy")),
    ),
    rows=factorial_rows(E),
    size="footnotesize",
    colsep="3pt",
    note="Predicted $=\\mathrm{mean}_g[s_g^G+(1-s_g)^G]$ from each group's own success rate "
    "(Def.~4.1; a plug-in that is never below the observed rate). Gap = mean over groups of "
    "$\\max_j A_j-\\min_j A_j$ (the paper's Fig.~2 quantity) over the first / last 10\\% "
    "of steps. $H$ = token entropy of the policy (nats).",
)


def separation_rows(e: dict[str, str]) -> tuple[Row, ...]:
    """The two arms with i.i.d. reward goals, by start."""
    return (Row(("SFT",), e["sft_rc"]), Row(("RCTP-FT",), e["rctp_rc"]))


SEPARATION = TableSpec(
    name="separation",
    caption="Reward conditioning during RL (runs with i.i.d.\\ reward goals, $p=1/2$): mode "
    "separation, the variance guarantee of Prop.~4.3 on the measured groups, and the "
    "between-goal share of the group variance (Lemma~A.3).",
    label="tab:separation",
    label_headers=("init",),
    columns=(
        Column("$\\hat\\mu_h-\\hat\\mu_l$", mean_over_training("group/mode_sep_pooled")),
        Column("$E[\\sigma_g^2]$", mean_over_training("group/var_mean"), 3),
        Column("$\\kappa\\hat\\varepsilon^2$", mean_over_training("theory/var_bound_iid"), 3),
        Column(
            "steps $\\geq$ (\\%)",
            frac_steps_at_least("group/var_mean", "theory/var_bound_iid"),
            0,
            True,
        ),
        Column("between", mean_over_training("group/between_frac")),
        Column("no diversity", mean_over_training("group/no_token_diversity_frac"), 3),
    ),
    rows=separation_rows(E),
    size="footnotesize",
    colsep="3pt",
    note="$\\hat\\varepsilon$ = the step's pooled separation; steps $\\geq$ = steps with "
    "$E[\\sigma_g^2]\\geq\\kappa\\hat\\varepsilon^2$ (the bound holds for the expectation, so "
    "single steps may fall below it). Between = share of the group variance explained by "
    "the goal. No diversity = groups whose $G$ rollouts all drew the same goal (predicted "
    "$p^G+(1-p)^G=0.0625$ at $G=5$).",
)


def baseline_rows(e: dict[str, str]) -> tuple[Row, ...]:
    """GRPO, the ``baselines`` arms, RC-GRPO (the first and last from the factorial)."""
    by_role = {a.role: a for a in arms("pool")}
    chosen = (by_role["sft_grpo"], *arms("pool", "baselines"), by_role["rctp_rc"])
    return tuple(Row((_baseline_label(a),), e[a.role]) for a in chosen)


def _baseline_label(arm: Arm) -> str:
    return arm.method_tex if arm.start == "sft" else f"{arm.method_tex} ({arm.init})"


BASELINES = TableSpec(
    name="baselines",
    caption="Known fixes for advantage collapse, all from the same SFT checkpoint, against "
    "RCTP-FT + RC-GRPO.",
    label="tab:baselines",
    label_headers=("method",),
    columns=(
        Column("final (\\%)", last(SUCCESS), 1, True),
        Column("$P(\\sigma_g{=}0)$", mean_over_training("group/zero_var_frac")),
        Column("gap late", window("adv/gap_mean", "late")),
        Column("$H$", mean_over_training("policy/entropy")),
        Column("KL", mean_over_training("policy/kl_ref"), 3),
        Column("s/step", mean_over_training("perf/time_step_s"), 1),
    ),
    rows=baseline_rows(E),
    size="footnotesize",
    colsep="3pt",
    note="All from the SFT checkpoint except RC-GRPO (from RCTP-FT), on the same seeds; GRPO "
    "and RC-GRPO are the factorial's runs. Final = held-out "
    "success after the last step; gap late as in \\cref{tab:collapse}; KL to $\\pi_{\\mathrm{ref}}$ "
    "($k_3$). DAPO's statistics describe every generated group, including those it then "
    "dropped. Time per step on the shared 2-core machine (one torch thread).",
)

ROWS: dict[str, Callable[[dict[str, str]], tuple[Row, ...]]] = {
    "factorial": lambda e: factorial_rows(e, paper=True),
    "collapse": factorial_rows,
    "separation": separation_rows,
    "baselines": baseline_rows,
}
"""Table name -> its rows from an experiment map (the tables whose rows are arms)."""


def tables() -> tuple[TableSpec, ...]:
    """Every table of the report, its rows from the arms registered now; the paper's Tables
    4-5 are :mod:`analysis.campaigns.pool.dynamics_tables`."""
    e = experiments()
    specs = (STAGE1, FACTORIAL, COLLAPSE, SEPARATION, BASELINES)
    rebuilt = (dataclasses.replace(t, rows=ROWS[t.name](e)) if t.name in ROWS else t for t in specs)
    return (*rebuilt, *dynamics_tables(e))


TABLES: tuple[TableSpec, ...] = tables()
