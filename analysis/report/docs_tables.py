"""Tables of the docs computed from the code: a campaign's experiments, the figures, the theory
check.

- a campaign's experiments (:func:`campaign_markdown`, the pool campaign's ``campaign`` block):
  one row per experiment with its run names (seeds collapsed into ``{seed}``), the seeds, the
  run count, how many of them are committed (complete, launched with the current spec) and the
  wall time those took, summed over runs (``summary.json``; the campaign runs two at a time,
  so an experiment takes about half the sum on 2 cores), plus the totals;
- ``figures``: one row per figure module of :mod:`analysis.figures` with its ``REQUIRES`` and
  the first sentence of its docstring;
- ``theory`` (``docs/theory-checks.md``): the committed theory check report.

Written with the campaigns' blocks by ``python -m analysis.report --write-readme``.
"""

from __future__ import annotations

import importlib
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analysis.campaign.mechanics import Campaign

_SEED = re.compile(r"-s(\d+)$")
_ROLE = re.compile(r":(?:mod|func|class|data|math|attr):`~?([^`]+)`")


def _pattern(
    names: list[str], seeds_of: dict[str, int | None] | None = None
) -> tuple[list[str], list[int]]:
    """Run names with the seed suffix replaced by ``{seed}`` (first-seen order) and the seeds.
    ``seeds_of`` (name -> the run's ``--run.seed``) replaces the suffix ``-s<seed>`` only,
    so ``sweep-lr1e-4-pool16-s200`` keeps its ``-s200`` (200 steps); without it, any
    ``-s<digits>`` suffix is read as the seed."""
    patterns: dict[str, None] = {}
    seeds: dict[int, None] = {}
    for name in names:
        match = _SEED.search(name)
        if seeds_of is not None and (match is None or seeds_of.get(name) != int(match.group(1))):
            match = None
        if match is None:
            patterns[name] = None
            continue
        patterns[name[: match.start()] + "-s{seed}"] = None
        seeds[int(match.group(1))] = None
    return list(patterns), sorted(seeds)


def _run_seed(argv: tuple) -> int | None:
    """The ``--run.seed`` of a campaign command (None without one)."""
    args = [str(a) for a in argv]
    return int(args[args.index("--run.seed") + 1]) if "--run.seed" in args else None


def _committed_wall(spec, results: Path) -> float | None:
    """Wall seconds of the committed light copy of ``spec``: NaN when it is committed without
    a ``summary.json`` wall time, None when it is not committed with this spec."""
    from analysis.campaign.mechanics import is_current
    from analysis.runs import load_run

    folder = results / spec.name
    if not is_current(folder, spec):
        return None
    try:
        return float(load_run(folder).summary["wall_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return math.nan


def campaign_markdown(camp: Campaign, results: Path) -> str:
    """A ``campaign`` block: per experiment of ``camp`` its runs, seeds, count, the runs
    committed in ``results`` and their summed wall hours; the totals in the last line."""
    lines = [
        "| experiment | runs | seeds | runs in total | committed | wall h, sum over runs |",
        "|---|---|---|--:|--:|--:|",
    ]
    done, hours = 0, 0.0
    for experiment, names in camp.experiments.items():
        patterns, seeds = _pattern(names, {n: _run_seed(camp.runs[n].argv) for n in names})
        runs = ", ".join(f"`{p}`" for p in patterns)
        walls = [w for n in names if (w := _committed_wall(camp.runs[n], results)) is not None]
        timed = sum(w for w in walls if math.isfinite(w)) / 3600
        done, hours = done + len(walls), hours + timed
        lines.append(
            f"| `{experiment}` | {runs} | {', '.join(map(str, seeds))} | {len(names)} "
            f"| {len(walls)} | {timed:.1f} |"
        )
    lines.append(f"| all | | | {len(camp.runs)} | {done} | {hours:.1f} |")
    return "\n".join(lines) + "\n"


_ABBREVIATIONS = ("Fig.", "Prop.", "Def.", "Dr.", "i.i.d.", "e.g.", "i.e.", "vs.", "App.", "Eq.")


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring's first paragraph (a full stop after one of
    :data:`_ABBREVIATIONS` does not end it), reST roles and literals as markdown code."""
    paragraph = " ".join((doc or "").strip().split("\n\n")[0].split())
    paragraph = _ROLE.sub(lambda m: f"`{m.group(1).split('.')[-1]}`", paragraph)
    paragraph = paragraph.replace("``", "`")
    for end in re.finditer(r"[.?!](?=\s|$)", paragraph):
        word = paragraph[: end.end()].rsplit(" ", 1)[-1]
        if word not in _ABBREVIATIONS:
            return paragraph[: end.end()]
    return paragraph


def figures_markdown() -> str:
    """The ``figures`` block: figure, the experiments it reads (— for theory), what it shows."""
    from analysis.figures.__main__ import modules

    lines = ["| figure | reads | shows |", "|---|---|---|"]
    for name, path in modules().items():
        module = importlib.import_module(path)
        reads = ", ".join(f"`{e}`" for e in getattr(module, "REQUIRES", ())) or "—"
        text = first_sentence(module.__doc__).replace("|", "\\|")
        lines.append(f"| `{name}` | {reads} | {text} |")
    return "\n".join(lines) + "\n"


def theory_markdown(report: dict) -> str:
    """The ``theory`` block of ``docs/theory-checks.md`` from ``figures/theory_report.json``:
    one row per statement (configurations, comparisons, violations) and the totals."""
    rows = report["statements"]
    lines = ["| id | configurations | comparisons | violations |", "|---|--:|--:|--:|"]
    for entry in rows:
        lines.append(
            f"| `{entry['statement']}` | {entry['configs']:,} | {entry['comparisons']:,} "
            f"| {entry['violations']:,} |"
        )
    total = sum(e["comparisons"] for e in rows)
    bad = sum(e["violations"] for e in rows)
    lines.append(f"| all {len(rows)} | | {total:,} | {bad:,} |")
    lines.append("")
    lines.append(
        f"Seed {report.get('seed')}, {report.get('configs_per_statement')} random configurations "
        f"per statement, {report.get('seconds')} s for the whole check."
    )
    return "\n".join(lines) + "\n"
