"""``python -m rcgrpo metrics [--markdown]``: print the metric registry (name, meaning, formula).

The markdown form is the table of ``docs/metrics.md``, written there by ``python -m rcgrpo
docs`` (:mod:`rcgrpo.docs_cli`); the registry itself is :mod:`rcgrpo.metrics`.
"""

from __future__ import annotations

from rcgrpo.cli_options import OptionParser, describe
from rcgrpo.metrics import METRICS, NAMESPACES


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table() -> str:
    """The docs table, one row per metric in registry order (``|`` in a cell escaped)."""
    lines = ["| name | meaning | formula |", "|---|---|---|"]
    for name, metric in METRICS.items():
        lines.append(f"| `{name}` | {_cell(metric.meaning)} | `{_cell(metric.formula)}` |")
    return "\n".join(lines) + "\n"


def plain_table() -> str:
    """One line per metric, grouped by namespace."""
    width = max(len(n) for n in METRICS)
    lines = []
    for space in NAMESPACES:
        lines.append(f"{space}/")
        for name, metric in METRICS.items():
            if metric.namespace == space:
                lines.append(f"  {name:<{width}}  {metric.meaning}  [{metric.formula}]")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = OptionParser("python -m rcgrpo metrics", description=describe(__doc__))
    parser.add_argument(
        "--markdown", action="store_true", help="print the markdown table of docs/metrics.md"
    )
    args = parser.parse_args(argv)
    print(markdown_table() if args.markdown else plain_table(), end="")
    return 0
