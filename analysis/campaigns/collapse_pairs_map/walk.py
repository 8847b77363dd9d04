"""The map's order and early stops (``docs/protocols/collapse-pairs-map.md``, part 1), as pure
functions of what is measured.

Cells are taken in :data:`~analysis.campaigns.collapse_pairs_map.design.CELLS` order (rows k =
5, 10, 20; within a row w = ×3, ×2, ×1.5); the walk runs the first cell that is neither
measured nor ruled out (:func:`ruled_out`). At the design seed a cell needs R (its RCTP-FT and
diagnostic), its row's C (measured with the row's first cell) and, where R holds, C′. A cell
that passes all three is replicated at the confirmation seed next (R, C and C′ all run); a
replication that passes ends the map (``found``), one that fails rules nothing out. The map
ends (``ended``) when every cell is measured or ruled out.

A measured failure at (k₀, w₀) rules out, under the protocol's monotone readings:

- no separation (R's first clause): every k ≤ k₀ and w ≤ w₀;
- the high goal right > 0.30 (R's second clause): every k ≥ k₀ and w ≥ w₀;
- C fails (row k₀): every k ≥ k₀;
- C′ fails: every k ≥ k₀ and w ≥ w₀.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from analysis.campaigns.collapse_pairs import gates as pg
from analysis.campaigns.collapse_pairs_map.design import CELLS, DESIGN_SEED, REPLICATION_SEED

Key = tuple[int, float]
"""(k pairs per swap kind, decision weight w) of a cell."""


@dataclass(frozen=True)
class Cell:
    """What is measured of one cell at one seed (None: not yet)."""

    k: int
    w: float
    seed: int
    r: dict | None
    """The pooled goal-effect block of its RCTP-FT (``diff``, ``ci``, ``p_high``, ...)."""
    cprime: float | None
    """Gate C′'s all-fail share (its RCTP-FT + GRPO pilot, steps 1–50)."""
    rho: dict | None = None
    """The transfer probe's ``estimate`` and ``ci`` (stated, no threshold)."""

    @property
    def separates(self) -> bool | None:
        """R's first clause (None: not measured)."""
        return None if self.r is None else pg.separates(self.r)

    @property
    def high_unsolved(self) -> bool | None:
        """R's second clause, P(right | high) ≤ 0.30 (None: not measured)."""
        return None if self.r is None else pg.high_unsolved(self.r)

    @property
    def r_holds(self) -> bool | None:
        return None if self.r is None else bool(self.separates and self.high_unsolved)


def ruled_out(key: Key, cells: Mapping[Key, Cell], c: Mapping[int, float | None]) -> str | None:
    """Why a cell not yet measured is ruled out (module docstring), naming the first cell and
    gate in walk order that rules it out; None when nothing does. ``cells``: the design seed's
    measured cells; ``c``: gate C's all-fail share of each row measured."""
    k, w = key
    for k0, share in c.items():
        if share is not None and not pg.collapses(share) and k >= k0:
            return f"C fails at {k0} pairs"
    for k0, w0 in CELLS:
        m = cells.get((k0, w0))
        if m is None or (k0, w0) == key:
            continue
        at = f"({k0} pairs, ×{w0:g})"
        if m.separates is False and k <= k0 and w <= w0:
            return f"no separation at {at}"
        if m.separates and m.high_unsolved is False and k >= k0 and w >= w0:
            return f"P(right | high) > 0.30 at {at}"
        if m.cprime is not None and not pg.collapses(m.cprime) and k >= k0 and w >= w0:
            return f"C′ fails at {at}"
    return None


@dataclass(frozen=True)
class Step:
    """Where the walk stands."""

    kind: str
    """``measure`` (design seed), ``replicate`` (confirmation seed), ``found`` or ``ended``."""
    cell: Key | None = None
    seed: int | None = None
    need: tuple[str, ...] = ()
    """The gates still to measure for ``cell`` at ``seed``: of ``R``, ``C``, ``C′``."""


def _passes(cell: Cell | None, c: float | None) -> bool:
    return bool(
        cell is not None and cell.r_holds and cell.cprime is not None and pg.collapses(cell.cprime)
    ) and (c is not None and pg.collapses(c))


def _replication(cell: Cell | None, c: float | None) -> tuple[str, ...]:
    need = [] if cell is not None and cell.r is not None else ["R"]
    need += [] if c is not None else ["C"]
    need += [] if cell is not None and cell.cprime is not None else ["C′"]
    return tuple(need)


def walk(
    cells: Mapping[Key, Cell],
    c: Mapping[int, float | None],
    replicated: Mapping[Key, Cell] | None = None,
    c_replicated: Mapping[int, float | None] | None = None,
) -> Step:
    """The next :class:`Step` (module docstring) from the design seed's measured ``cells`` and
    row shares ``c``, and the confirmation seed's ``replicated`` cells and ``c_replicated``."""
    replicated, c_replicated = replicated or {}, c_replicated or {}
    measured = {key: m for key, m in cells.items() if m.r is not None}
    for key in CELLS:
        k, _ = key
        m = measured.get(key)
        if m is None:
            if ruled_out(key, measured, c):
                continue
            return Step("measure", key, DESIGN_SEED, ("R", *(("C",) if c.get(k) is None else ())))
        if c.get(k) is None:
            return Step("measure", key, DESIGN_SEED, ("C",))
        if not pg.collapses(c[k]) or not m.r_holds:
            continue
        if m.cprime is None:
            return Step("measure", key, DESIGN_SEED, ("C′",))
        if not pg.collapses(m.cprime):
            continue
        rep, rep_c = replicated.get(key), c_replicated.get(k)
        need = _replication(rep, rep_c)
        if need:
            return Step("replicate", key, REPLICATION_SEED, need)
        if _passes(rep, rep_c):
            return Step("found", key, REPLICATION_SEED)
    return Step("ended")


def first_weights(ran: Collection[Key], step: Step, seed: int) -> dict[int, float]:
    """k -> the weight of row k's first cell the walk runs at ``seed``: the first of the row's
    cells in walk order whose RCTP-FT ran (``ran``), else the cell the walk calls for next in
    that row; rows with neither are left out (the design's default applies)."""
    out: dict[int, float] = {}
    for k, w in CELLS:
        if k not in out and (k, w) in ran:
            out[k] = w
    if step.cell is not None and step.seed == seed and step.cell[0] not in out:
        out[step.cell[0]] = step.cell[1]
    return out
