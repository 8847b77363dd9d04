"""The real-model study in a notebook: ``notebooks/04_real_model.ipynb`` calls these.

- :func:`study_status`: every run of the ``smollm2-collapse`` design in the protocol's parts,
  committed or not, with its greedy held-out success (Stage 1: under its evaluation goal, and
  RCTP-FT's low goal beside it);
- :func:`stage1_figure`: the committed Stage-1 runs' training curves (SFT loss and token
  accuracy per step);
- :func:`transcripts`: what the model writes, from an evaluation's conversation dump (the
  ``### <task> (<category>) reward=… `` sections ``rcgrpo eval`` writes beside its report);
- :func:`rl_runs`: the committed RL runs' folders, for notebook 03's readers
  (:mod:`analysis.notebook.explore`, :mod:`analysis.notebook.drilldown`);
- :func:`side_by_side`: the tiny model and SmolLM2, one row per quantity
  (:mod:`analysis.campaigns.smollm2_collapse.side_by_side`).

Everything is read from ``results/smollm2-collapse`` and ``results/real-model`` (a fresh clone
has them); nothing trains.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from analysis.campaigns.smollm2_collapse import design, gates
from analysis.campaigns.smollm2_collapse import side_by_side as sb
from analysis.runs import Run, is_finished, load_run
from analysis.runs.extractors import series

RESULTS = gates.RESULTS
"""The study's committed light copies."""
STAGE1_METRICS = (("loss/sft", "SFT loss (nats per token)"), ("sft/token_acc", "token accuracy"))
_SECTION = re.compile(r"^### (\S+) \((\S+)\) reward=(\S+)", re.M)


def _part(name: str) -> int:
    return next((i + 1 for i, part in enumerate(design.PARTS) if name in part), 0)


def _cell(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.3f}"


def study_status(root: Path = RESULTS) -> pd.DataFrame:
    """One row per run of the design: its part (0: the retry, outside the parts), command,
    whether its finished light copy is committed under ``root``, and its greedy held-out
    success to 3 decimals ("—" until committed; RL runs: the last evaluation)."""
    rows = []
    for name, spec in design.build().runs.items():
        folder = root / name
        done = is_finished(folder)
        success = low = math.nan
        if done:
            run = load_run(folder)
            if spec.argv[0] == "train":
                held = series(run, "reward/eval_success", training=False)
                success = float(held.iloc[-1]) if len(held) else math.nan
            else:
                got = gates.stage1_success(run)
                success, low = got["main"], got.get("low", math.nan)
        rows.append(
            {
                "part": _part(name),
                "run": name,
                "command": spec.argv[0],
                "committed": done,
                "held-out success": _cell(success),
                "low goal": _cell(low),
            }
        )
    frame = pd.DataFrame(rows)
    order = frame["part"].replace(0, len(design.PARTS) + 1)  # the retry last
    return frame.iloc[order.argsort(kind="stable")].reset_index(drop=True)


def committed_runs(kind: str, root: Path = RESULTS) -> list[Run]:
    """The committed runs whose command is ``kind`` (``sft``, ``rctp``, ``train``), design order."""
    specs = design.build().runs
    return [
        load_run(root / n)
        for n, spec in specs.items()
        if spec.argv[0] == kind and is_finished(root / n)
    ]


def stage1_figure(runs: Sequence[Run]) -> Figure | None:
    """Loss and token accuracy per step of each Stage-1 run (None without runs)."""
    if not runs:
        return None
    fig = Figure(figsize=(10, 3.4), layout="constrained")
    axes = fig.subplots(1, len(STAGE1_METRICS))
    for ax, (metric, label) in zip(axes, STAGE1_METRICS, strict=True):
        for run in runs:
            values = series(run, metric)
            ax.plot(values.index, values.to_numpy(), label=run.name, lw=1.2)
        ax.set_xlabel("step")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8)
    return fig


def transcripts(path: Path, n: int = 2, max_chars: int = 1200) -> str:
    """The first ``n`` episodes of a conversation dump, each cut to its last ``max_chars``
    characters (the model's replies come last), with a count of the dump's rewards."""
    text = path.read_text()
    heads = list(_SECTION.finditer(text))
    if not heads:
        return f"{path}: no episode sections"
    rewards = [float(m[3]) for m in heads]
    solved = sum(r == 1.0 for r in rewards)
    out = [f"{path.name}: {len(heads)} episodes in the dump, {solved} solved (reward 1)"]
    ends = [m.start() for m in heads[1:]] + [len(text)]
    for head, end in list(zip(heads, ends, strict=True))[:n]:
        body = text[head.end() : end].strip()
        cut = body if len(body) <= max_chars else "…" + body[-max_chars:]
        out.append(f"\n=== {head[1]} ({head[2]}), reward {head[3]}\n{cut}")
    return "\n".join(out)


def rl_runs(root: Path = RESULTS) -> list[Path]:
    """The committed RL runs' folders (the pilot and the arms), design order."""
    return [Path(run.root) for run in committed_runs("train", root)]


def side_by_side(predictions: bool = True, root: Path = RESULTS) -> pd.DataFrame:
    """The side-by-side table as a frame: quantity, tiny model, SmolLM2, SmolLM2's instrument
    study (``not run`` where no file is committed); ``predictions`` False skips the tiny model's
    refits (a minute)."""
    tiny = sb.tiny_cells(predictions)
    diagnostics = root.parent / "diagnostics"
    smol = sb.smol_cells(root, diagnostics / sb.DIAGNOSTIC.name)
    inst = sb.instrument_cells(
        root.parent / sb.INSTRUMENTS.name, diagnostics / sb.instruments.DIAGNOSTIC.name
    )
    return pd.DataFrame(sb._rows(tiny, smol, inst), columns=list(sb.HEADER))
