"""The tiny model and SmolLM2 side by side (``docs/protocols/smollm2-collapse.md``, "Instruments"):
one row per quantity, the tiny model's value from the committed collapse runs and diagnostics
(:mod:`analysis.campaigns.smollm2_collapse.tiny`), SmolLM2's from the campaign's runs (``results/<home>``)
and its transfer diagnostic, "not run" where a SmolLM2 value is not committed yet, and a third
column, the instrument-only ``smollm2-instruments`` study (``docs/protocols/smollm2-instruments.md``:
the same Stage-1 recipe from the base below gate B, no RL; "—" on the rows it does not
measure). The campaign's
entry renders it into ``docs/findings.md`` (:func:`findings_block`) and the report
(:func:`latex_table`, ``smollm2_side_by_side.tex``).

    python -m analysis.campaigns.smollm2_collapse.side_by_side [--no-tiny-predictions]

(the tiny predictions refit the transfer model on every collapse seed: a minute or more.)
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from analysis.campaign.mechanics import results_dir
from analysis.campaigns.collapse.token import EARLY, identical_share
from analysis.campaigns.regime_separation.tables import markdown_table
from analysis.campaigns.smollm2_collapse import gates, tiny, verdicts
from analysis.campaigns.smollm2_collapse.design import DIAGNOSTIC, SEEDS
from analysis.campaigns.smollm2_instruments import design as instruments
from analysis.report.latex import escape, tabular
from analysis.runs import load_run

NOT_RUN = "not run"
ROWS: tuple[tuple[str, str], ...] = (
    ("sft_success", "SFT (demonstrator) greedy held-out success, step 0"),
    ("base_sampled", "that SFT's sampled success on the RCTP-FT mix's tasks (no swap, τ = 1)"),
    ("matched_success", "matched SFT greedy held-out success (gate H)"),
    ("rctp_high", "RCTP-FT greedy held-out success, high goal"),
    ("rctp_low", "RCTP-FT greedy held-out success, low goal"),
    ("success_high_low", "goal effect: sampled success, high / low"),
    ("success_diff", "goal effect: sampled success, high − low"),
    ("right_high_low", "goal effect: P(right) at the planted decisions, high / low"),
    ("right_diff", "goal effect: P(right), high − low"),
    ("reading", "gate R's reading (separated, inert, unclear)"),
    ("identical", "identical share of goal-paired samples (instrument)"),
    ("identical_rl", "identical share, RC-GRPO's low slots vs RCTP-FT + GRPO, RL steps 1–10"),
    ("rho", "ρ̂, one SGD step on a low-goal batch"),
    ("cos_gain", "cos(∇z_h, ∇z_l) / gain ratio ‖∇z_l‖ / ‖∇z_h‖"),
    ("rho_regime", "ρ̂ on regime-d10's RCTP-FT (tiny only)"),
    (
        "groups_high",
        "zero-variance share of G = 5 groups sampled at step 0, high goal: observed / i.i.d.",
    ),
    (
        "groups_low",
        "zero-variance share of G = 5 groups sampled at step 0, low goal: observed / i.i.d.",
    ),
    ("sft_start", "SFT + GRPO zero-variance share, steps 1–5: observed / i.i.d. predicted"),
    ("rctp_start", "RCTP-FT + GRPO zero-variance share, steps 1–5: observed / i.i.d. predicted"),
    ("rc_start", "RC-GRPO zero-variance share, steps 1–5: observed / i.i.d. predicted"),
    ("sft_training", "SFT + GRPO zero-variance share over training: observed / i.i.d. predicted"),
    ("sft_all_fail", "SFT + GRPO all-fail share over training"),
    *((r.id, f"{r.id}: {r.claim}") for r in verdicts.RULES),
    ("predicted_Q1", "predicted RC-GRPO − RCTP-FT + GRPO (transfer model, noise-bound)"),
    ("predicted_Q4", "predicted anchored − RC-GRPO (transfer model, noise-bound)"),
)
"""(key, quantity) per row, in order."""
NOTE = (
    "Tiny: the collapse campaign (1.8M parameters, full fine-tuning, 200 RL steps of 8 prompts, "
    "lr 1e-5, held-out on 1,000 / 200 tasks, speed over steps 25–175), mean (range, n seeds). "
    "SmolLM2: one Stage 1 at seed 31 (LoRA), 40 RL steps of 4 prompts, lr 1e-4, held-out on "
    "80 / 40 tasks, speed over steps 10–30, seeds 3, 4, 5. Instruments: smollm2-instruments, "
    "the same Stage-1 recipe retrained from the base below gate B (sft-base2-s31), no RL."
)


def _ci(row: dict, digits: int = 3) -> str:
    lo, hi = row["ci"]
    return f"{row['diff']:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def _rho(tr: dict) -> str:
    """ρ̂ with its interval, or with the number of informative batches when it has none."""
    lo, hi = tr["ci"]
    if all(v is not None and math.isfinite(v) for v in (lo, hi)):
        return f"{tr['estimate']:.3f} [{lo:.3f}, {hi:.3f}]"
    n = tr.get("informative_batches", 0)
    return f"{tr['estimate']:.3f} (no interval: {n} informative batch{'es' * (n != 1)})"


def _diagnostic_cells(report: dict) -> dict[str, str]:
    ge, tr = report["goal_effect"], report["transfer"]
    succ, right = ge["success"], ge["kinds"]["any"]
    grad = tr.get("gradient")
    return {
        "success_high_low": f"{succ['p_high']:.3f} / {succ['p_low']:.3f}",
        "success_diff": _ci(succ, 4),
        "right_high_low": f"{right['p_high']:.3f} / {right['p_low']:.3f}",
        "right_diff": _ci(right, 4),
        "reading": gates.reading(right),
        "identical": f"{ge['identical_share']['identical']:.3f}",
        "rho": _rho(tr),
        "cos_gain": "—"
        if grad is None
        else f"{grad['cosine']['estimate']:.3f} / {grad['gain_ratio']['estimate']:.3f}",
    }


def _groups_cells(report: dict) -> dict[str, str]:
    """The start's collapse per goal (``goal_effect.start_collapse``), when measured."""
    out = {}
    for goal, c in report["goal_effect"].get("start_collapse", {}).items():
        lo, hi = c["ci"]
        out[f"groups_{goal}"] = (
            f"{c['observed']:.3f} / {c['predicted']:.3f}, {c['diff']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        )
    return out


def _stage1_cells(where: gates.Where, path: Path) -> dict[str, str]:
    """The Stage-1 cells: the base the study uses, RCTP-FT's evaluation and its diagnostic."""
    g = gates.measure(where, path)
    out: dict[str, str] = {}
    if g.base is not None:
        out["sft_success"] = f"{g.b[g.base]:.3f} ({g.base})"
    if (rctp := where("rctp-s31")) is not None:
        run = load_run(rctp)
        success = gates.stage1_success(run)
        out["rctp_high"], out["rctp_low"] = (f"{success[k]:.3f}" for k in ("main", "low"))
        weak = run.data.get("combined", {}).get("weak_policy_success_rate")
        out["base_sampled"] = f"{weak:.3f}" if weak is not None else NOT_RUN
    if g.h is not None:
        out["matched_success"] = f"{g.h:.3f}"
    if (report := gates.diagnostic(path)) is not None:
        out |= _diagnostic_cells(report) | _groups_cells(report)
    return out


INSTRUMENT_ROWS = frozenset(
    {"sft_success", "base_sampled", "rctp_high", "rctp_low", "success_high_low", "success_diff"}
    | {"right_high_low", "right_diff", "reading", "identical", "rho", "cos_gain"}
    | {"groups_high", "groups_low"}
)
"""The rows the instrument-only study measures (the others read "—" in its column)."""


INSTRUMENTS = results_dir(instruments.HOME)


def instrument_cells(
    root: Path = INSTRUMENTS, path: Path = instruments.DIAGNOSTIC
) -> dict[str, str]:
    """The ``smollm2-instruments`` column: its Stage-1 cells, "not run" until committed, "—" on
    the rows it does not measure."""
    where = gates.committed(root)
    got = _stage1_cells(where, path)
    if (base := where("sft-base2-s31")) is not None:  # the retrain: this study's only base
        got["sft_success"] = f"{gates.stage1_success(load_run(base))['main']:.3f} (retrained)"
    return {k: got.get(k, NOT_RUN) if k in INSTRUMENT_ROWS else "—" for k, _ in ROWS}


def _shares(runs: list, steps) -> str:
    shares = [gates.group_shares(r, steps) for r in runs]
    if not shares:
        return NOT_RUN
    zero = tiny.spread([s["zero_var"] for s in shares])
    return f"{zero} / {tiny.spread([s['predicted'] for s in shares])}"


def smol_cells(root: Path = gates.RESULTS, path: Path = DIAGNOSTIC) -> dict[str, str]:
    """SmolLM2's cells (keys of :data:`ROWS`) from what is committed; missing keys are not run."""
    where = gates.committed(root)
    g = gates.measure(where, path)
    out = _stage1_cells(where, path)
    arms = verdicts.committed_arms(root)
    rc, ref = arms[verdicts.RC], arms[verdicts.RCTP_GRPO]
    same = [
        identical_share(rc[s].rollouts, ref[s].rollouts, "low", EARLY)
        for s in SEEDS
        if s in rc and s in ref
    ]
    if same:
        out["identical_rl"] = tiny.spread(same)
    pilot = [load_run(p) for p in [where("pilot-sft-grpo-s31")] if p is not None]
    sft_runs = list(arms[verdicts.SFT_GRPO].values())
    if pilot or sft_runs:
        out["sft_start"] = _shares(pilot + sft_runs, gates.START)
    if sft_runs:
        out["sft_training"] = _shares(sft_runs, None)
        out["sft_all_fail"] = tiny.spread([gates.group_shares(r)["all_fail"] for r in sft_runs])
    for key, arm in (("rctp_start", verdicts.RCTP_GRPO), ("rc_start", verdicts.RC)):
        if arms[arm]:
            out[key] = _shares(list(arms[arm].values()), gates.START)
    for d in verdicts.decisions(arms, g.r):
        iv = d.outcome.interval
        if d.verdict != NOT_RUN:
            est = "—" if iv is None else f"{iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"
            out[d.rule.id] = f"{est}, {d.verdict}"
    out |= _prediction_cells(root / gates.PREDICTION.name)
    return out


def _prediction_cells(path: Path) -> dict[str, str]:
    """The registered prediction's Q1 and Q4: the noise-bound ratio at ρ̂ and, with a fitted
    η, the contrast in training speed."""
    if not path.is_file():
        return {}
    pred = json.loads(path.read_text())
    out = {}
    for q in ("Q1", "Q4"):
        ratio = pred["ratios"]["rho"]["noise"][q]
        said = f"speed ratio {ratio:.3f}" if math.isfinite(ratio) else "speed ratio —"
        contrast = (pred["contrasts"].get("noise") or {}).get(q)
        if contrast is not None:
            said += f", {contrast:+.3f} training speed"
        out[f"predicted_{q}"] = said
    return out


def tiny_cells(predictions: bool = True) -> dict[str, str]:
    """The tiny model's cells (:mod:`analysis.campaigns.smollm2_collapse.tiny`)."""
    out = {**tiny.stage1(), **tiny.goal_effect(), **tiny.rl_start(), **tiny.verdicts()}
    if predictions:
        out |= {f"predicted_{k}": v for k, v in tiny.predictions().items()}
    return out


def markdown(
    tiny_values: dict[str, str], smol_values: dict[str, str], inst: dict[str, str] | None = None
) -> str:
    """The table: one row per :data:`ROWS` key, "—" for a tiny value that does not exist,
    :data:`NOT_RUN` for a SmolLM2 value not committed; the instrument column ``inst``
    (:func:`instrument_cells`; None: every row "—")."""
    rows = _rows(tiny_values, smol_values, inst)
    lines = markdown_table(HEADER, rows, ["---"] * len(HEADER))
    return "\n".join([*lines, "", NOTE]) + "\n"


HEADER = (
    "quantity",
    "tiny model (collapse campaign)",
    "SmolLM2-135M-Instruct (smollm2-collapse)",
    "SmolLM2, instruments (RCTP-FT from the base below gate B)",
)


def _rows(
    tiny_values: dict[str, str], smol_values: dict[str, str], inst: dict[str, str] | None = None
) -> list[list[str]]:
    inst = inst or {}
    return [
        [label, tiny_values.get(k, "—"), smol_values.get(k, NOT_RUN), inst.get(k, "—")]
        for k, label in ROWS
    ]


def findings_block() -> str:
    """The ``smollm2-side-by-side`` block of docs/findings.md: :func:`markdown` of the committed
    files, the tiny predictions included."""
    return markdown(tiny_cells(), smol_cells(), instrument_cells())


def _tex(text: str) -> str:
    """:func:`~analysis.report.latex.escape`, with ρ̂ (ρ and a combining circumflex, which
    pdflatex cannot set) as ``$\\hat\\rho$``."""
    return "$\\hat\\rho$".join(escape(part) for part in text.split("ρ\u0302"))


def latex_table() -> str:
    """The report's ``smollm2_side_by_side.tex``: the same rows as a table."""
    rows = [[_tex(c) for c in row] for row in _rows(tiny_cells(), smol_cells(), instrument_cells())]
    return tabular(
        [escape(h) for h in HEADER],
        rows,
        ["p{3.8cm}", "p{4cm}", "p{3cm}", "p{3cm}"],
        caption="The tiny model and SmolLM2-135M-Instruct side by side on \\code{collapse1-d10}: "
        "Stage 1, the instruments on RCTP-FT, the RL start and every rule of "
        "\\code{docs/protocols/smollm2-collapse.md} beside its registered prediction, and the "
        "instrument-only study \\code{smollm2-instruments}; "
        "\\emph{not run} where no SmolLM2 file is committed yet.",
        label="tab:smollm2-side-by-side",
        note=escape(NOTE),
        size="scriptsize",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.campaigns.smollm2_collapse.side_by_side"
    )
    parser.add_argument("--no-tiny-predictions", action="store_true", help="skip the refits")
    args = parser.parse_args(argv)
    tiny = tiny_cells(not args.no_tiny_predictions)
    print(markdown(tiny, smol_cells(), instrument_cells()), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
