"""Tables of ``docs/experiments.md`` computed from the code: the campaign and the figures.

- ``campaign``: one row per experiment of :func:`analysis.experiments.build_campaign` with its
  run names (seeds collapsed into ``{seed}``), the seeds and the run count, plus the total;
- ``figures``: one row per figure module of :mod:`analysis.figures` with its ``REQUIRES`` and
  the first sentence of its docstring.

Written with the README's run blocks by ``python -m analysis.report --write-readme``.
"""

from __future__ import annotations

import importlib
import re

_SEED = re.compile(r"-s(\d+)$")
_ROLE = re.compile(r":(?:mod|func|class|data|math|attr):`~?([^`]+)`")


def _pattern(names: list[str]) -> tuple[list[str], list[int]]:
    """Run names with the seed suffix replaced by ``{seed}`` (first-seen order) and the seeds."""
    patterns: dict[str, None] = {}
    seeds: dict[int, None] = {}
    for name in names:
        match = _SEED.search(name)
        if match is None:
            patterns[name] = None
            continue
        patterns[name[: match.start()] + "-s{seed}"] = None
        seeds[int(match.group(1))] = None
    return list(patterns), sorted(seeds)


def campaign_markdown() -> str:
    """The ``campaign`` block: experiment, runs, seeds, count; the total in the last line."""
    from analysis.experiments import build_campaign

    camp = build_campaign()
    lines = ["| experiment | runs | seeds | runs in total |", "|---|---|---|--:|"]
    for experiment, names in camp.experiments.items():
        patterns, seeds = _pattern(names)
        runs = ", ".join(f"`{p}`" for p in patterns)
        lines.append(f"| `{experiment}` | {runs} | {', '.join(map(str, seeds))} | {len(names)} |")
    lines.append(f"| all | | | {len(camp.runs)} |")
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
    from analysis.figures.__main__ import discover

    lines = ["| figure | reads | shows |", "|---|---|---|"]
    for name in discover():
        module = importlib.import_module(f"analysis.figures.fig_{name}")
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
