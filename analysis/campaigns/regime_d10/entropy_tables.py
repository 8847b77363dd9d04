r"""The regime suite's entropy table and calibration table (issue 27, "not mere entropy").

Two generated blocks of ``docs/results/regime-d10.md`` (``python -m analysis.report
--write-readme``), the first also as the paper's ``regime_entropy.tex``:

``regime-entropy``
    Per arm with runs (:func:`analysis.campaigns.regime_d10.tables.shown`): its seeds, the mean over
    seeds of its high-goal-like token entropy :math:`H`
    (:func:`analysis.campaigns.regime_d10.calibration.high_like_entropy`, ± the 95% t half-width), and
    :math:`g = \bar H_\text{arm} / \bar H_\text{RC} - 1` over the seeds it shares with
    RC-GRPO (:func:`~analysis.campaigns.regime_d10.calibration.seed_mean_gap`); *matched* is
    :math:`|g| \le 0.10`, the gate B4 of the entropy-matched arms.
``regime-calibration``
    The calibration on seed 9 (``results/regime/calib-<knob>.json``, written by
    ``python -m analysis.campaigns.regime_d10.calibration``): per knob and candidate value,
    :math:`H(v) = H^*(1 + g(v))`, :math:`g(v)` and the rule's outcome.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

from analysis.campaigns.regime_d10 import calibration as cal
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10.tables import DASH, every_arm, markdown_table, shown, tex_table
from analysis.report.latex import escape
from analysis.runs import Run
from analysis.stats import mean_ci


def _nats(values: list[float]) -> str:
    est = mean_ci([v for v in values if math.isfinite(v)])
    if est is None:
        return DASH
    pm = f" ± {est.half_width:.3f}" if est.half_width is not None else ""
    return f"{est.mean:.3f}{pm}"


def entropy_rows(by_arm: Mapping[str, Mapping[int, Run]]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the ``regime-entropy`` block from {arm preset: {seed: run}}."""
    head = [
        "init",
        "stage 2",
        "seeds",
        "H (nats/token)",
        "g vs RC-GRPO",
        "shared seeds",
        "matched (abs g ≤ 0.10)",
    ]
    rc = by_arm.get(pop.RCTP_RC, {})
    rows = []
    for a in shown(by_arm):
        runs = dict(sorted(by_arm.get(a.preset, {}).items()))
        h = [cal.high_like_entropy(r.metrics) for r in runs.values()]
        gap, seeds = cal.seed_mean_gap(runs, rc) if runs else (math.nan, ())
        g = f"{gap:+.3f}" if math.isfinite(gap) else DASH
        ok = ("yes" if cal.matched(gap) else "no") if math.isfinite(gap) else DASH
        shared = ", ".join(map(str, seeds)) or DASH
        rows.append([a.init, a.method, ", ".join(map(str, runs)) or DASH, _nats(h), g, shared, ok])
    return head, rows


def entropy_block(root: Path) -> str:
    """The ``regime-entropy`` block of the committed runs under ``root``."""
    return markdown_table(*entropy_rows(every_arm(root)))


def entropy_latex(root: Path) -> str:
    """The paper's ``regime_entropy.tex``: :func:`entropy_rows` of the runs under ``root``."""
    head, rows = entropy_rows(every_arm(root))
    head = [h.replace("abs g", "|g|") for h in head]
    return tex_table(
        head,
        rows,
        caption="The regime suite: high-goal token entropy of each arm over RL and its gap "
        "$g$ to RC-GRPO's; the entropy-matched arms must lie within $\\pm 10\\%$ (gate B4).",
        label="tab:regime-entropy",
        note=escape(
            "H: mean over training steps of the token entropy of high-goal rollouts at the "
            "sampling temperature (GRPO arms: every rollout), mean over seeds ± 95% t "
            "half-width; g = mean H of the arm / mean H of RC-GRPO − 1 over the seeds both have."
        ),
        size="footnotesize",
        colsep="3pt",
    )


def _outcome(choice: dict) -> str:
    """The rule's outcome of a ``calib-<knob>.json`` in words."""
    if choice["status"] == "matched":
        return f"chosen {choice['chosen']:g}"
    if choice["status"] == "interpolate":
        return f"next run at {choice['next_value']:.5g}"
    return "extend the grid"


def calibration_block(root: Path) -> str:
    """The ``regime-calibration`` block: one row per knob and candidate of every
    ``calib-<knob>.json`` under ``root`` (a sentence while none exists)."""
    rows = []
    for knob in cal.KNOBS:
        path = root / f"calib-{knob}.json"
        if not path.is_file():
            continue
        c = json.loads(path.read_text())
        outcome = _outcome(c)
        for v, g in zip(c["values"], c["gaps"], strict=True):
            chosen = c["status"] == "matched" and v == c["chosen"]
            rows.append(
                [
                    knob,
                    f"{v:g}",
                    f"{c['target'] * (1 + g):.4f}",
                    f"{c['target']:.4f}",
                    f"{g:+.3f}",
                    "chosen" if chosen else DASH,
                    outcome,
                ]
            )
    if not rows:
        return "No calibration run is committed yet."
    head = ["knob", "value", "H(v)", "H* (RC-GRPO, seed 9)", "g(v)", "chosen", "rule"]
    lines = ["| " + " | ".join(head) + " |", "|---|--:|--:|--:|--:|---|---|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
