"""``python -m rcgrpo docs [--check]``: rewrite the generated blocks of ``docs/`` that come
from the library (:mod:`rcgrpo.docblocks` markers).

- ``docs/metrics.md``, block ``metrics``: the registry
  (:func:`rcgrpo.metrics_cli.markdown_table`);
- ``docs/synth.md``, block ``synth-families``: :func:`rcgrpo.env.synth_families.family_table`;
  block ``synth-presets``: every ``SYNTH_PRESETS`` field that differs from ``SynthConfig()``;
  block ``synth-decisions``: :func:`rcgrpo.env.synth_demo.decision_table`.

The README's studies table and docs/findings.md's tables come from runs, so ``python -m analysis.report --write-readme``
writes it. ``--check`` writes nothing and exits 1 naming every stale block (exit 2: a file
or marker is missing).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from rcgrpo.cli_options import OptionParser, describe
from rcgrpo.docblocks import update_file

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _metrics() -> str:
    from rcgrpo.metrics_cli import markdown_table

    return markdown_table()


def _families() -> str:
    from rcgrpo.env.synth_families import family_table

    return family_table()


def _synth_presets() -> str:
    import dataclasses

    from rcgrpo.env.synth import SYNTH_PRESETS, SynthConfig

    base = SynthConfig()
    rows = ["| preset | differs from `SynthConfig()` in |", "|---|---|"]
    for name, cfg in SYNTH_PRESETS.items():
        diff = [
            f"`{f.name}={getattr(cfg, f.name)!r}`"
            for f in dataclasses.fields(cfg)
            if getattr(cfg, f.name) != getattr(base, f.name)
        ]
        rows.append(f"| `{name}` | {', '.join(diff) or '—'} |")
    return "\n".join(rows)


def _decisions() -> str:
    from rcgrpo.env.synth_demo import decision_table

    return decision_table()


GENERATED: dict[str, dict[str, Callable[[], str]]] = {
    "metrics.md": {"metrics": _metrics},
    "synth.md": {
        "synth-families": _families,
        "synth-presets": _synth_presets,
        "synth-decisions": _decisions,
    },
}
"""docs file -> block name -> the function that renders its body."""


def generated_blocks(docs: Path = DOCS) -> dict[Path, dict[str, str]]:
    """Every library-generated block: file -> block name -> body."""
    return {docs / f: {n: render() for n, render in b.items()} for f, b in GENERATED.items()}


def main(argv: list[str]) -> int:
    parser = OptionParser("python -m rcgrpo docs", description=describe(__doc__))
    parser.add_argument("--check", action="store_true", help="exit 1 if a block is stale")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the docs folder")
    args = parser.parse_args(argv)
    stale = []
    for path, blocks in generated_blocks(args.docs).items():
        try:
            changed = update_file(path, blocks, check=args.check)
        except (OSError, ValueError) as err:
            print(f"rcgrpo docs: {err}", file=sys.stderr)
            return 2
        stale += [f"{path}: {name}" for name in changed]
    if args.check and stale:
        print("stale generated blocks (run python -m rcgrpo docs): " + "; ".join(stale))
        return 1
    verb = "up to date" if args.check else f"rewrote {len(stale)} block(s)"
    print(f"rcgrpo docs: {verb}")
    return 0
