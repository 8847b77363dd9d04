"""``python -m analysis.figures build [--only NAME ...] [--out DIR] [--no-train]``: build every
figure. The runs a figure needs are trained first where missing; with ``--no-train`` it is
built from the runs that are done (a campaign in progress) and the missing ones are named.

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
from analysis.figures.save import (  # noqa: E402
    FORMATS,
    file_entries,
    run_entry,
    save_figure,
    write_sidecar,
)

ROOT = Path(__file__).resolve().parents[2]


def discover() -> list[str]:
    """Names (without the ``fig_`` prefix) of all figure modules, sorted."""
    return sorted(
        m.name[4:] for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("fig_")
    )


def build_one(
    name: str, out_dir: Path, formats: tuple[str, ...] = FORMATS, train: bool = True
) -> Path | None:
    """Build one figure into ``out_dir``: its files and sidecar are byte-identical when
    rebuilt from unchanged inputs (:mod:`analysis.figures.save`). Returns its first file,
    or None when ``train`` is False and an experiment it reads has no run done."""
    module = importlib.import_module(f"analysis.figures.fig_{name}")
    requires = tuple(getattr(module, "REQUIRES", ()))
    files = file_entries(tuple(getattr(module, "INPUTS", ())), ROOT)
    runs: dict[str, list[Path | None]] = {}
    if requires:
        from analysis.experiments import ensure_runs

        runs = ensure_runs(requires, train=train)
        missing = sum(p is None for paths_ in runs.values() for p in paths_)
        if missing:
            print(f"[figures]   {name}: {missing} run(s) of {list(requires)} not done, left out")
        empty = [exp for exp, paths_ in runs.items() if all(p is None for p in paths_)]
        if empty:  # nothing to draw: remove what an older build left, it shows other runs
            for old in out_dir.glob(f"{name}.*"):
                old.unlink()
            print(f"[figures]   {name}: no run of {empty} is done, not built")
            return None
    fig = module.make_figure(runs)
    paths = save_figure(fig, out_dir, name, formats)
    plt.close(fig)
    sidecar = {
        "figure": name,
        "module": module.__name__,
        "caption": getattr(module, "CAPTION", ""),
        "experiments": list(requires),
        "files": files,
        "runs": {
            exp: [run_entry(p, ROOT) for p in paths_ if p is not None]
            for exp, paths_ in runs.items()
        },
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
    parser.add_argument(
        "--no-train", action="store_true", help="use the runs that are done; never train"
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
    built = 0
    for name in names:
        print(f"[figures] {name} ...", flush=True)
        path = build_one(name, args.out, tuple(args.formats), not args.no_train)
        if path is not None:
            built += 1
            print(f"[figures]   -> {path}", flush=True)
    print(f"[figures] built {built} of {len(names)} figure(s) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
