"""``python -m analysis.figures build [--only NAME ...] [--out DIR]``: build every figure.

Fails loudly (exit 1) when no figure module exists or a name given to ``--only`` matches
nothing — a ``make figures`` that silently builds nothing is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import analysis.figures as pkg  # noqa: E402
from analysis.figures.save import FORMATS, run_entry, save_figure, write_sidecar  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def discover() -> list[str]:
    """Names (without the ``fig_`` prefix) of all figure modules, sorted."""
    return sorted(
        m.name[4:] for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("fig_")
    )


def build_one(name: str, out_dir: Path, formats: tuple[str, ...] = FORMATS) -> Path:
    """Build one figure into ``out_dir``: its files and sidecar are byte-identical when
    rebuilt from unchanged inputs (:mod:`analysis.figures.save`)."""
    module = importlib.import_module(f"analysis.figures.fig_{name}")
    requires = tuple(getattr(module, "REQUIRES", ()))
    runs: dict[str, list[Path]] = {}
    if requires:
        from analysis.experiments import ensure_runs

        runs = ensure_runs(requires)
    fig = module.make_figure(runs)
    paths = save_figure(fig, out_dir, name, formats)
    plt.close(fig)
    sidecar = {
        "figure": name,
        "module": module.__name__,
        "caption": getattr(module, "CAPTION", ""),
        "experiments": list(requires),
        "runs": {exp: [run_entry(p, ROOT) for p in paths_] for exp, paths_ in runs.items()},
    }
    write_sidecar(out_dir / f"{name}.json", sidecar)
    return paths[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.figures")
    parser.add_argument("command", choices=["build", "list"])
    parser.add_argument("--only", nargs="*", default=None, help="figure names to build")
    parser.add_argument("--out", type=Path, default=ROOT / "figures")
    parser.add_argument(
        "--formats", nargs="+", default=list(FORMATS), help="file formats (png pdf svg)"
    )
    args = parser.parse_args(argv)
    names = discover()
    if not names:
        print("error: no figure modules (analysis/figures/fig_*.py) found", file=sys.stderr)
        return 1
    if args.command == "list":
        print("\n".join(names))
        return 0
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            print(f"error: no figure module named {unknown}; have {names}", file=sys.stderr)
            return 1
        names = [n for n in names if n in args.only]
    for name in names:
        print(f"[figures] {name} ...", flush=True)
        print(f"[figures]   -> {build_one(name, args.out, tuple(args.formats))}", flush=True)
    print(f"[figures] built {len(names)} figure(s) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
