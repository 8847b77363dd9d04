"""``python -m rcgrpo diagnose PATH``: the collapse instruments of a GRPO run, from its records.

::

    python -m rcgrpo diagnose runs/paper-qwen7b-grpo-s0             # a run folder of ours
    python -m rcgrpo diagnose /ckpt/rollouts --format verl          # verl rollout_data_dir
    python -m rcgrpo diagnose rollouts.csv --group-col prompt_id --reward-col score \\
        --goal-col goal --p-high 0.5                                 # any table

PATH is a run folder of this repository, a verl ``trainer.rollout_data_dir`` or a table
(JSONL, CSV, Parquet; :mod:`rcgrpo.diagnose.sources`). Writes ``report.json``,
``figures/*.png`` and ``report.html`` (or ``report.md``) to ``--out`` (default
``runs/diagnose/<name of PATH>``, never beside the records it reads) and prints the verdict. A table it cannot read exits 2 with a one-line
error naming the file and the line of the bad row (``dump/2.jsonl:3: not JSON (...)``).

Recomputed advantages divide by the group std with the ddof of :func:`std_used`: a run
folder's own, verl's 1 for a verl dump (its GRPO divides by ``torch.std``, the unbiased std:
``compute_grpo_outcome_advantage`` in verl/trainer/ppo/core_algos.py), the paper's 0 for a
table; ``--ddof`` overrides the last two. The report and the output say which and why.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rcgrpo.advantages import ADV_ESTIMATORS
from rcgrpo.diagnose import sources
from rcgrpo.diagnose.analysis import Options, step_row, summarise
from rcgrpo.diagnose.groups import group_steps
from rcgrpo.diagnose.report import std_text, write_report
from rcgrpo.diagnose.verdict import RULE

VERL_COLUMNS = sources.Columns(step="step", group="input", reward="score")
"""verl's dump fields (group = the prompt text ``input``)."""
VERL_DDOF = 1
"""ddof of verl's GRPO group std (``torch.std``, Bessel-corrected; module docstring)."""


def _parser() -> argparse.ArgumentParser:
    from rcgrpo.cli_options import OptionParser, describe

    p = OptionParser(
        "python -m rcgrpo diagnose",
        description=describe(__doc__),
        usage="python -m rcgrpo diagnose PATH [--option VALUE ...]",
    )
    p.add_argument("path", type=Path, help="run folder, verl rollout_data_dir or table file")
    p.add_argument(
        "--format",
        choices=("auto", "run", "verl", "table"),
        default="auto",
        help="what PATH is (auto: a folder with config.json is a run, another folder verl, "
        "a file a table)",
    )
    p.add_argument("--out", type=Path, help="report folder (default: runs/diagnose/<name of PATH>)")
    p.add_argument("--page", choices=("html", "md"), default="html", help="report page format")
    p.add_argument("--step-col", help="column of the step (default: step)")
    p.add_argument(
        "--group-col", help="column of the group / prompt id (default: group; verl: input)"
    )
    p.add_argument("--reward-col", help="column of the reward (default: reward; verl: score)")
    p.add_argument("--goal-col", help="column of the reward goal (high/low, true/false, 1/0)")
    p.add_argument("--advantage-col", help="column of the recorded advantage")
    p.add_argument("--length-col", help="column of the generated tokens (estimators reading them)")
    p.add_argument("--p-high", type=float, help="P(high goal), enables the bound κ ε²")
    p.add_argument(
        "--adv-estimator",
        choices=list(ADV_ESTIMATORS),
        default="grpo",
        help="advantage estimator of the run (a run folder: its config's)",
    )
    p.add_argument("--eps-stab", type=float, default=1e-6, help="ε of the group std")
    p.add_argument(
        "--ddof",
        type=int,
        choices=(0, 1),
        help="ddof of the group std of recomputed advantages (default: 1 for a verl dump, as "
        "verl's GRPO; 0 for a table, as the paper; a run folder's own)",
    )
    p.add_argument("--success-value", type=float, default=1.0, help="reward of a success")
    p.add_argument("--fail-value", type=float, default=0.0, help="reward of a failure")
    p.add_argument("--drop-ragged", action="store_true", help="drop groups of another size")
    for key in ("threshold", "window", "margin"):
        kind = int if key == "window" else float
        p.add_argument(f"--{key}", type=kind, default=RULE[key], help="verdict rule")
    return p


def _columns(args: argparse.Namespace, base: sources.Columns) -> sources.Columns:
    return sources.Columns(
        step=args.step_col or base.step,
        group=args.group_col or base.group,
        reward=args.reward_col or base.reward,
        goal=args.goal_col,
        advantage=args.advantage_col,
        length=args.length_col,
    )


def std_used(kind: str, given: int | None, settings: sources.RunSettings, recorded: bool) -> dict:
    """The ddof of the group std the advantages are recomputed with and why (``ddof`` None
    when nothing is recomputed: every advantage ``recorded``, no goals): a run folder's own
    (``settings``; ``given`` is ignored), else ``given`` (``--ddof``), else
    :data:`VERL_DDOF` for a verl dump and 0 (the paper's population std) for a table."""
    if kind == "run":
        ignored = "; --ddof is ignored" if given is not None else ""
        return {"ddof": settings.ddof, "why": f"the run's own, from its config.json{ignored}"}
    if recorded:
        return {"ddof": None, "why": "the advantages are the recorded ones"}
    if given is not None:
        return {"ddof": given, "why": "as --ddof asks"}
    if kind == "verl":
        return {
            "ddof": VERL_DDOF,
            "why": "a verl dump: verl's GRPO divides by torch.std, the unbiased std; "
            "--ddof 0 for the population std",
        }
    return {"ddof": 0, "why": "the paper's population std (--ddof 1 for TRL's and verl's)"}


def diagnose(args: argparse.Namespace) -> dict:
    """The report dict of ``args`` (see :mod:`rcgrpo.diagnose.report`)."""
    kind = sources.detect(args.path) if args.format == "auto" else args.format
    settings = sources.RunSettings()
    if kind == "run":
        records, settings = sources.read_run(args.path)
    elif kind == "verl":
        records = sources.read_verl(args.path, _columns(args, VERL_COLUMNS))
    else:
        records = sources.read_table(args.path, _columns(args, sources.Columns()))
    steps, notes = group_steps(records, drop_ragged=args.drop_ragged)
    recorded = all(sg.advantages is not None and sg.high is None for sg in steps)
    std = std_used(kind, args.ddof, settings, recorded)
    opts = Options(
        args.adv_estimator,
        args.eps_stab,
        0 if std["ddof"] is None else std["ddof"],
        args.p_high,
        args.success_value,
        args.fail_value,
    )
    rows = [step_row(sg, opts, settings) for sg in steps]
    rule = {"threshold": args.threshold, "window": args.window, "margin": args.margin}
    summary = summarise(rows, rule)
    return {
        "source": str(args.path),
        "format": kind,
        "std": std,
        "notes": settings.notes + notes,
        "summary": summary,
        "steps": rows,
    }


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        report = diagnose(args)
    except KeyError as exc:
        print(f"rcgrpo diagnose: {args.path}: a record has no field {exc}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"rcgrpo diagnose: {exc}", file=sys.stderr)
        return 2
    out = args.out or Path("runs") / "diagnose" / args.path.resolve().name
    page = write_report(out, report, args.page)
    print(report["summary"]["verdict"]["text"])
    print(f"advantages: {std_text(report['std'])}")
    print(f"report: {page} (numbers: {out / 'report.json'})")
    return 0
