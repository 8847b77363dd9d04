r"""The claims registry: every number the findings page (``docs/findings.md``) and the paper's
prose cite, tied to the generated table it comes from.

A :class:`Claim` names a generated block of a campaign's results page, ``docs/results/<id>.md``
(which ``make report-check``
keeps equal to the committed runs), a row and column of it (or a function of the block), how the
prose writes the number (:data:`RENDER`: points or shares, Markdown's "−" or LaTeX's ``$-$``), and
the files whose prose must contain exactly that text. :func:`failures` lists every claim whose
rendered number is missing from a file that cites it, so a number typed by hand that drifts from
its table fails ``tests/results/test_claims.py``. The sentences that say a claim short of its
verdict, and the words no finding may use: :mod:`analysis.report.claim_scope`.
``python -m analysis.report.claims`` prints each claim with its rendered text, and both checks.

The rule → verdict → sentence chain: the claim id is the rule (``K3s``), the block carries its
verdict, and the prose sentence holds the rendered estimate.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from analysis import REPO_ROOT
from analysis.report.claim_files import FINDINGS, PAPER, README

RESULTS = REPO_ROOT / "docs" / "results"
"""The campaigns' results pages; a block's name is unique across them."""
_NUM = re.compile(r"-?\d+\.\d+")


def blocks(text: str) -> dict[str, list[dict[str, str]]]:
    """Every ``<!-- begin:NAME -->`` block's Markdown tables, rows as header → cell: the first
    under ``NAME``, the k-th under ``NAME#k``."""
    out = {}
    for match in re.finditer(r"<!-- begin:([\w-]+) -->\n(.*?)<!-- end:\1 -->", text, re.S):
        tables = re.findall(r"(?:^\|.*\n?)+", match.group(2), re.M)
        for k, table in enumerate(t for t in tables if len(t.splitlines()) >= 3):
            lines = table.splitlines()
            cells = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
            name = match.group(1) + (f"#{k + 1}" if k else "")
            out[name] = [dict(zip(cells[0], row, strict=False)) for row in cells[2:]]
    return out


def numbers(cell: str) -> list[float]:
    """The decimal numbers of a cell, in order (``0.004 [-0.006, 0.014]`` -> three)."""
    return [float(x) for x in _NUM.findall(cell)]


def _minus(text: str) -> str:
    return text.replace("-", "−")


def points_md(x: list[float]) -> str:
    """Estimate and interval in points: ``+0.4 [−0.6, 1.4]``."""
    e, lo, hi = (100 * v for v in x[:3])
    return _minus(f"{e:+.1f} [{lo:.1f}, {hi:.1f}]")


def points_tex(x: list[float]) -> str:
    e, lo, hi = (100 * v for v in x[:3])
    return f"${e:+.1f}$ $[{lo:.1f}, {hi:.1f}]$"


def pts_md(x: list[float]) -> str:
    """A cell already in points, as the prose writes it: ``-1.0 [-1.9, -0.1]`` -> ``−1.0
    [−1.9, −0.1]``."""
    return points_md([v / 100 for v in x])


def pts_tex(x: list[float]) -> str:
    return points_tex([v / 100 for v in x])


def share_md(x: list[float]) -> str:
    """Estimate and interval as shares: ``0.799 [0.786, 0.812]``."""
    return _minus(f"{x[0]:.3f} [{x[1]:.3f}, {x[2]:.3f}]")


def share_tex(x: list[float]) -> str:
    return f"{x[0]:.3f} $[{x[1]:.3f}, {x[2]:.3f}]$"


def abs_points(x: list[float]) -> str:
    """The estimate's size in points, no sign (``learn 11.0 points slower``)."""
    return f"{abs(100 * x[0]):.1f}"


def pm_md(x: list[float]) -> str:
    return f"{x[0]:.3f} ± {x[1]:.3f}"


def pm_tex(x: list[float]) -> str:
    return f"{x[0]:.3f} $\\pm$ {x[1]:.3f}"


def first(x: list[float]) -> str:
    return f"{x[0]:.3f}"


_RENDERERS = (points_md, points_tex, pts_md, pts_tex, share_md, share_tex, abs_points, pm_md)
RENDER: dict[str, Callable[[list[float]], str]] = {
    f.__name__: f for f in (*_RENDERERS, pm_tex, first)
}


@dataclass(frozen=True)
class Claim:
    """One cited number: ``block``'s row whose first cell is ``row``, column ``column``."""

    id: str
    block: str
    row: str
    column: str
    cites: tuple[tuple[str, str], ...]
    """(file, renderer name of :data:`RENDER`) pairs: the file's prose holds that rendering."""


def _range(block: str, column: str, label: str, tex: bool = False) -> Callable[[dict], str]:
    """``90–97%`` (LaTeX: ``90--97\\%``) over the block's seed rows; ``label`` names it."""

    def render(tables: dict) -> str:
        vals = [numbers(r[column])[0] for r in tables[block] if r["seed"] != "mean"]
        dash, pct = ("--", "\\%") if tex else ("–", "%")
        return f"{100 * min(vals):.0f}{dash}{100 * max(vals):.0f}{pct}"

    render.__name__ = label
    return render


EST = "estimate [95% CI]"
V, S = "collapse-verdicts", "separation-verdicts"
BOTH_POINTS = ((FINDINGS, "points_md"), (PAPER, "points_tex"))
CLAIMS: tuple[Claim, ...] = (
    Claim("K1", V, "K1", EST, ((FINDINGS, "share_md"), (PAPER, "share_tex"))),
    Claim("K2", V, "K2", EST, ((FINDINGS, "share_md"), (PAPER, "share_tex"))),
    Claim("K4s", V, "K4s", EST, ((PAPER, "points_tex"),)),
    *(Claim(k, V, k, EST, BOTH_POINTS) for k in ("K3s", "K3f", "K5s", "K5f", "K6s")),
    *(Claim(k, V, k, EST, BOTH_POINTS) for k in ("K6f", "M2s", "M3s", "M4s", "X1s", "X1f")),
    Claim("X2s", V, "X2s", EST, BOTH_POINTS),
    Claim("X2f", V, "X2f", EST, ((PAPER, "points_tex"),)),
    Claim("X2as", S, "X2as", EST, ((FINDINGS, "abs_points"), (PAPER, "abs_points"))),
    Claim("X2bs", S, "X2bs", EST, ((FINDINGS, "abs_points"), (PAPER, "abs_points"))),
    Claim("X2af", S, "X2af", EST, ((PAPER, "abs_points"),)),
    Claim("X2bf", S, "X2bf", EST, ((PAPER, "abs_points"),)),
    Claim("X2cs", S, "X2cs", EST, (*BOTH_POINTS, (README, "points_md"))),
    Claim(
        "T1-speed",
        "regime-verdicts#2",
        "T1",
        "learning speed [95% CI], pts",
        ((README, "pts_md"), (FINDINGS, "pts_md"), (PAPER, "pts_tex")),
    ),
    Claim("X3s", S, "X3s", EST, BOTH_POINTS),
    Claim("X3f", S, "X3f", EST, ((PAPER, "points_tex"),)),
    Claim("X4ds", S, "X4ds", EST, ((FINDINGS, "points_md"),)),
    Claim(
        "sft-right-swap",
        "collapse-control-init",
        "mean",
        "sampled right-swap rate: SFT",
        ((FINDINGS, "first"), (PAPER, "pm_tex")),
    ),
    Claim(
        "rctp-right-swap-high",
        "collapse-control-init",
        "mean",
        "RCTP-FT high",
        ((FINDINGS, "first"), (PAPER, "pm_tex")),
    ),
    Claim(
        "rctp-right-swap-low", "collapse-control-init", "mean", "RCTP-FT low", ((PAPER, "pm_tex"),)
    ),
    Claim(
        "control-right-swap-high",
        "collapse-control-init",
        "mean",
        "control high",
        ((PAPER, "pm_tex"),),
    ),
    Claim(
        "control-right-swap-low",
        "collapse-control-init",
        "mean",
        "control low",
        ((PAPER, "pm_tex"),),
    ),
)
"""Every registered number (module docstring)."""
TOKEN = "collapse-token"
RANGES: tuple[tuple[Callable[[dict], str], tuple[str, ...]], ...] = tuple(
    (_range(TOKEN, column, label, tex), (PAPER,) if tex else (FINDINGS,))
    for column, label in (
        ("identical, switched, steps 1–10", "switched"),
        ("not switched, steps 1–10", "not_switched"),
    )
    for tex in (False, True)
)
"""Seed ranges of the ``collapse-token`` block and the files whose prose cites them."""


def rendered(claim: Claim, tables: dict, renderer: str) -> str:
    """The text ``renderer`` makes of ``claim``'s cell (KeyError: the block or row is gone)."""
    row = next(r for r in tables[claim.block] if r[next(iter(r))] == claim.row)
    return RENDER[renderer](numbers(row[claim.column]))


def _flat(text: str) -> str:
    """Line breaks and repeated spaces as one space (prose wraps anywhere)."""
    return re.sub(r"\s+", " ", text)


def results_tables(results: Path = RESULTS) -> dict[str, list[dict[str, str]]]:
    """:func:`blocks` of every results page in ``results``."""
    return blocks("".join(p.read_text() for p in sorted(results.glob("*.md"))))


def failures(root: Path = REPO_ROOT, results: Path = RESULTS) -> list[str]:
    """One line per cited number missing from a file that cites it."""
    tables = results_tables(results)
    texts = {f: _flat((root / f).read_text()) for f in (FINDINGS, PAPER, README)}
    out = []
    for claim in CLAIMS:
        for path, renderer in claim.cites:
            want = rendered(claim, tables, renderer)
            if want not in texts[path]:
                out.append(f"{path}: {claim.id} should read {want!r} ({claim.block})")
    for render, paths in RANGES:
        want = render(tables)
        out += [
            f"{p}: {render.__name__} should read {want!r}" for p in paths if want not in texts[p]
        ]
    return out


def main() -> int:
    from analysis.report import claim_scope

    tables = results_tables()
    for claim in CLAIMS:
        for path, renderer in claim.cites:
            print(f"{claim.id:<26}{path:<28}{rendered(claim, tables, renderer)}")
    for gated in claim_scope.GATED:
        for path, anchor, stop in gated.cites:
            print(f"{gated.id:<26}{path:<28}{anchor!r} with {stop!r}")
    bad = failures() + claim_scope.failures() + claim_scope.overreach()
    ok = "every cited number matches its table, every gated sentence stops at its gate"
    print("\n".join(bad) if bad else ok)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
