"""``python -m analysis.figures build [--only NAME ...] [--out DIR]``: build every figure.

Fails loudly (exit 1) when no figure module exists or a name given to ``--only`` matches
nothing — a ``make figures`` that silently builds nothing is a bug.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import pkgutil
import subprocess
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import analysis.figures as pkg  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def discover() -> list[str]:
    """Names (without the ``fig_`` prefix) of all figure modules, sorted."""
    return sorted(
        m.name[4:] for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("fig_")
    )


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _config_hash(run_dir: Path) -> str | None:
    cfg = run_dir / "config.json"
    return hashlib.sha256(cfg.read_bytes()).hexdigest()[:16] if cfg.exists() else None


def build_one(name: str, out_dir: Path) -> Path:
    module = importlib.import_module(f"analysis.figures.fig_{name}")
    requires = tuple(getattr(module, "REQUIRES", ()))
    runs: dict[str, list[Path]] = {}
    if requires:
        from analysis.experiments import ensure_runs

        runs = ensure_runs(requires)
    start = time.time()
    fig = module.make_figure(runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / f"{name}.png"
    fig.savefig(png, dpi=150, bbox_inches="tight")
    fig.savefig(out_dir / f"{name}.pdf", bbox_inches="tight")
    plt.close(fig)
    sidecar = {
        "figure": name,
        "module": module.__name__,
        "caption": getattr(module, "CAPTION", ""),
        "experiments": list(requires),
        "runs": {
            exp: [{"path": str(p), "config_sha256_16": _config_hash(p)} for p in paths]
            for exp, paths in runs.items()
        },
        "git_commit": _git_commit(),
        "seconds": round(time.time() - start, 2),
    }
    (out_dir / f"{name}.json").write_text(json.dumps(sidecar, indent=2) + "\n")
    return png


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.figures")
    parser.add_argument("command", choices=["build", "list"])
    parser.add_argument("--only", nargs="*", default=None, help="figure names to build")
    parser.add_argument("--out", type=Path, default=ROOT / "figures")
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
        print(f"[figures]   -> {build_one(name, args.out)}", flush=True)
    print(f"[figures] built {len(names)} figure(s) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
