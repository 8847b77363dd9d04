"""The map of ``collapse-pairs-map`` (``docs/protocols/collapse-pairs-map.md``, part 1), from the
committed runs and diagnostics: per cell R, P(right | high), its row's C, C′, ρ̂ and its state,
then one sentence. A map, not a verdict: no rule decides anything beyond the walk
(:mod:`analysis.campaigns.collapse_pairs_map.walk`).

Gates as ``collapse-pairs`` reads them (:mod:`analysis.campaigns.collapse_pairs.gates`): R from
``results/diagnostics/transfer-rctp-k<k>-w<w>-s<seed>.json`` (``goal_effect.kinds.any``), C and
C′ the mean all-fail share over steps 1–50 of a finished pilot.

``python -m analysis.campaigns.collapse_pairs_map.gates`` prints the map ("not run" where a run
is missing).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaigns.collapse_pairs import gates as pg
from analysis.campaigns.collapse_pairs_map import walk as wk
from analysis.campaigns.collapse_pairs_map.design import (
    CELLS,
    DESIGN_SEED,
    HOME,
    PAIRS,
    REPLICATION_SEED,
    label,
)
from analysis.campaigns.regime_separation.tables import markdown_table

RESULTS = REPO_ROOT / "results" / HOME
DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"
NOT_RUN = "not run"
HEADER = (
    "pairs per kind",
    "decision weight",
    "seed",
    "R: right share high − low [95% CI]",
    "right share, high",
    "C (its row)",
    "C′",
    "ρ̂ [95% CI]",
    "state",
)


def report(k: int, w: float, seed: int, diagnostics: Path = DIAGNOSTICS) -> dict | None:
    """The cell's transfer diagnostic (None: not measured)."""
    path = diagnostics / f"transfer-rctp-{label(k, w)}-s{seed}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def cell(k: int, w: float, seed: int, root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS):
    """The cell's :class:`~analysis.campaigns.collapse_pairs_map.walk.Cell` at ``seed``."""
    rep = report(k, w, seed, diagnostics)
    block, _ = pg.r_gate(rep)
    cprime = pg.all_fail_share(root / f"pilot-cprime-{label(k, w)}-s{seed}")
    return wk.Cell(k, w, seed, block, cprime, None if rep is None else rep["transfer"])


def row_c(k: int, seed: int, root: Path = RESULTS) -> float | None:
    """Gate C's all-fail share of row k at ``seed`` (None: not measured)."""
    return pg.all_fail_share(root / f"pilot-c-k{k}-s{seed}")


def measured(seed: int, root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS):
    """({(k, w): Cell} of the cells with anything measured, {k: C share}) at ``seed``."""
    cells = {(k, w): cell(k, w, seed, root, diagnostics) for k, w in CELLS}
    cells = {key: m for key, m in cells.items() if m.r is not None or m.cprime is not None}
    return cells, {k: row_c(k, seed, root) for k in PAIRS}


def status(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> wk.Step:
    """The walk's next step on the committed runs and diagnostics."""
    cells, c = measured(DESIGN_SEED, root, diagnostics)
    rep, rep_c = measured(REPLICATION_SEED, root, diagnostics)
    return wk.walk(cells, c, rep, rep_c)


def _share(x: float | None) -> str:
    if x is None:
        return NOT_RUN
    return f"{x:.3f} ({'holds' if pg.collapses(x) else 'fails'})"


def state(m: wk.Cell, c: float | None, why_out: str | None, step: wk.Step) -> str:
    """A cell's state in the map: passes, fails (naming the gates), ruled out (why), next, or
    not run."""
    if (m.k, m.w) == step.cell and m.seed == step.seed:
        return f"next: {', '.join(step.need)}"
    if m.r is None:
        return f"ruled out: {why_out}" if why_out else NOT_RUN
    failed = [g for g, ok in (("R", m.r_holds), ("C", c is None or pg.collapses(c))) if not ok]
    if m.cprime is not None and not pg.collapses(m.cprime):
        failed.append("C′")
    if failed:
        return "fails " + ", ".join(failed)
    return "passes" if m.cprime is not None and c is not None else NOT_RUN


def row(m: wk.Cell, c: float | None, why_out: str | None, step: wk.Step) -> list[str]:
    """One row of :data:`HEADER`."""
    r_cells = [NOT_RUN, NOT_RUN]
    if m.r is not None:
        lo, hi = m.r["ci"]
        r_cells = [f"{m.r['diff']:+.3f} [{lo:+.3f}, {hi:+.3f}]", f"{m.r['p_high']:.3f}"]
    rho = pg.rho_text(m.rho) if m.rho is not None else NOT_RUN
    where = [str(m.k), f"×{m.w:g}", str(m.seed)]
    return [*where, *r_cells, _share(c), _share(m.cprime), rho, state(m, c, why_out, step)]


def sentence(step: wk.Step, cells: dict, c: dict) -> str:
    """The map in one sentence: where separation with P(right | high) ≤ 0.30 and C ≥ 0.5
    coexist in the grid, bounded to it."""
    both = [
        f"({m.k} pairs, ×{m.w:g})"
        for m in cells.values()
        if m.r_holds and c.get(m.k) is not None and pg.collapses(c[m.k])
    ]
    where = "in " + ", ".join(both) if both else "in no cell measured"
    if step.kind == "found":
        head = (
            f"The map ends: ({step.cell[0]} pairs, ×{step.cell[1]:g}) passes R, C and C′ at "
            f"seeds {DESIGN_SEED} and {REPLICATION_SEED}; the collapse-pairs campaign runs on it."
        )
    elif step.kind == "ended":
        head = "The map has ended: every cell of the grid is measured or ruled out."
    else:
        head = "The map is being measured."
    return (
        f"{head} Separation with P(right | high) ≤ 0.30 and C ≥ 0.5 coexist {where} "
        f"(grid: {', '.join(map(str, PAIRS))} pairs per kind × decision weights ×3, ×2, ×1.5; "
        "other doses and weights untested)."
    )


def map_markdown(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> str:
    """The map: one row per cell at the design seed, then per replicated cell, and the sentence."""
    cells, c = measured(DESIGN_SEED, root, diagnostics)
    rep, rep_c = measured(REPLICATION_SEED, root, diagnostics)
    step = wk.walk(cells, c, rep, rep_c)
    done = {key: m for key, m in cells.items() if m.r is not None}
    body = []
    for k, w in CELLS:
        m = cells.get((k, w)) or wk.Cell(k, w, DESIGN_SEED, None, None)
        why = None if (k, w) in done else wk.ruled_out((k, w), done, c)
        body.append(row(m, c.get(k), why, step))
    if step.kind == "replicate" and step.cell not in rep:
        rep = {**rep, step.cell: wk.Cell(*step.cell, REPLICATION_SEED, None, None)}
    for m in rep.values():
        body.append(row(m, rep_c.get(m.k), None, step))
    align = ["--:", "--:", "--:", "--:", "--:", "--:", "--:", "--:", "---"]
    table = "\n".join(markdown_table(HEADER, body, align))
    return f"{table}\n\n{sentence(step, done, c)}\n"


if __name__ == "__main__":
    sys.stdout.write(map_markdown())
