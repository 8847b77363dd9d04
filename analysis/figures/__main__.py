"""``python -m analysis.figures build [--only NAME ...] [--out DIR]``: build every figure from
the campaign runs that are done (the committed ``results/campaign``, or ``runs/campaign``).

Building never trains. A figure is built only when every run of the experiments it reads
is done, so it never shows fewer runs than the campaign; for each figure it cannot build it
names the runs it lacks and the command that trains them (``make runs``), leaves that
figure's files as they are, builds the others and exits 1.

Fails loudly (exit 1) as well when no figure module exists or a name given to ``--only``
matches nothing — a ``make figures`` that silently builds nothing is a bug.

``python -m analysis.figures stale [--only NAME ...]`` draws nothing: it lists each figure
whose sidecar names inputs (``INPUTS`` files, runs) other than the ones there now, a run
committed after the last build, say, and exits 1 if any (:func:`stale`; seconds, where a
build takes minutes).

``--jobs N`` builds N figures at once, each in a process of a fork server (``make figures``
passes ``JOBS``; :func:`pool_context`): each figure's files are the bytes the one-by-one build
writes, since a figure reads only its inputs, never another figure's state; the log lines keep
the figures' order.
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import pkgutil
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import analysis.figures as pkg  # noqa: E402
from analysis import REPO_ROOT as ROOT  # noqa: E402
from analysis.campaign import registry  # noqa: E402
from analysis.campaign.find import find_runs  # noqa: E402
from analysis.figures.save import (  # noqa: E402
    FORMATS,
    file_entries,
    run_entry,
    save_figure,
    write_sidecar,
)

TRAIN_COMMAND = "make runs"
"""What trains the campaign runs a figure lacks (``python -m analysis.campaign``)."""


class MissingRuns(RuntimeError):
    """A figure whose runs are not all done: ``figure`` and the ``runs`` it lacks."""

    def __init__(self, figure: str, runs: list[str]):
        self.figure, self.runs = figure, runs
        super().__init__(f"{figure}: lacks run(s) {', '.join(runs)} (train them: {TRAIN_COMMAND})")


def modules() -> dict[str, str]:
    """Figure name (module name without the ``fig_`` prefix) -> its module, sorted by name: the
    ``fig_*`` modules of this package and of each campaign folder
    (:func:`analysis.campaign.registry.figure_modules`). A name two modules claim is a
    ValueError."""
    own = [f"{pkg.__name__}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__)]
    campaigns = [m for _, p in registry.folders() for m in registry.figure_modules(p)]
    found: dict[str, str] = {}
    for module in (*own, *campaigns):
        name = module.rsplit(".", 1)[1]
        if not name.startswith("fig_"):
            continue
        if name[4:] in found:
            raise ValueError(f"figure {name[4:]!r} is in {found[name[4:]]} and {module}")
        found[name[4:]] = module
    return dict(sorted(found.items()))


def discover() -> list[str]:
    """Names (without the ``fig_`` prefix) of all figure modules, sorted (:func:`modules`)."""
    return list(modules())


def _campaign_of(module: str):
    """The campaign that trains the runs figure module ``module`` reads: its folder's, or the
    one that trains that folder's runs (:func:`analysis.campaign.registry.trainer`)."""
    entry = registry.owner(module)
    found = registry.trainer(entry) if entry is not None else None
    if found is None:
        raise ValueError(f"{module}: REQUIRES names experiments, but no campaign trains its runs")
    return found


def inputs(name: str) -> tuple[list[dict], dict[str, list[Path]]]:
    """What figure ``name`` reads: each file its ``INPUTS`` match, with its hash (the
    sidecar's ``files``), and per experiment it ``REQUIRES`` the folders of its runs. Raises
    :class:`MissingRuns` when a run of such an experiment is not done; never trains."""
    module = importlib.import_module(modules()[name])
    requires = tuple(getattr(module, "REQUIRES", ()))
    files = file_entries(tuple(getattr(module, "INPUTS", ())), ROOT)
    if not requires:
        return files, {}
    found = find_runs(_campaign_of(module.__name__).build(), requires)
    lacking = [run for folders in found.values() for run, p in folders.items() if p is None]
    if lacking:
        raise MissingRuns(name, lacking)
    return files, {exp: list(folders.values()) for exp, folders in found.items()}


def build_one(name: str, out_dir: Path, formats: tuple[str, ...] = FORMATS) -> Path:
    """Build one figure into ``out_dir``: its files and sidecar are byte-identical when
    rebuilt from unchanged inputs (:mod:`analysis.figures.save`). Returns its first file.
    Raises :class:`MissingRuns` (before drawing or writing anything) when a run of an
    experiment it reads is not done; never trains."""
    module = importlib.import_module(modules()[name])
    files, runs = inputs(name)
    fig = module.make_figure(runs)
    paths = save_figure(fig, out_dir, name, formats)
    plt.close(fig)
    sidecar = {
        "figure": name,
        "module": module.__name__,
        "caption": getattr(module, "CAPTION", ""),
        "experiments": list(runs),
        "files": files,
        "runs": {exp: [run_entry(p, ROOT) for p in paths_] for exp, paths_ in runs.items()},
    }
    if hasattr(module, "results"):  # optional: numbers the figure reports (e.g. fit errors)
        sidecar["results"] = module.results()
    write_sidecar(out_dir / f"{name}.json", sidecar)
    return paths[0]


def stale(name: str, out_dir: Path) -> list[str]:
    """How the inputs named in figure ``name``'s sidecar in ``out_dir`` differ from what the
    figure reads now (:func:`inputs`): each file or run added, gone or changed since it was
    built, or that the sidecar is missing; [] when they match. Draws nothing, so it takes
    seconds; a change to a figure's code is what a rebuild (``make figures-check``) finds."""
    path = out_dir / f"{name}.json"
    if not path.is_file():
        return [f"no sidecar {path.name}"]
    side = json.loads(path.read_text())
    try:
        files, runs = inputs(name)
    except MissingRuns as err:
        return [f"lacks run(s) {', '.join(err.runs)}"]
    entries = [run_entry(p, ROOT) for paths in runs.values() for p in paths]
    now = {f["path"]: f["sha256_16"] for f in files}
    now |= {e["path"]: e["sha256_16"] for e in entries}
    then = {f["path"]: f["sha256_16"] for f in side.get("files", [])}
    then |= {e["path"]: e["sha256_16"] for es in side.get("runs", {}).values() for e in es}
    added = [f"added {p}" for p in sorted(now.keys() - then.keys())]
    gone = [f"gone {p}" for p in sorted(then.keys() - now.keys())]
    changed = [f"changed {p}" for p in sorted(now.keys() & then.keys()) if now[p] != then[p]]
    return added + gone + changed


def _build(name: str, out_dir: Path, formats: tuple[str, ...]) -> tuple[Path | None, list[str]]:
    """:func:`build_one`: (its first file, []) or, for a figure that lacks runs, (None, the
    runs) — a value, since an exception raised in a worker comes back without its fields."""
    try:
        return build_one(name, out_dir, formats), []
    except MissingRuns as err:
        return None, err.runs


def groups(names: list[str]) -> list[list[str]]:
    """``names`` in groups built one after another in one process, so that what they share is
    computed once: figures whose modules use one another's functions
    (``fig_theory_separation_beta`` draws from ``fig_theory_separation_fit.results``, an
    ``lru_cache``), and figures that read runs of the same experiment (``REQUIRES``: each run's
    staleness check and parsed tables are cached per process). Groups are ordered by their
    first member, members as in ``names``."""
    found = modules()
    owner = {found[n]: n for n in names}
    root = {n: n for n in names}

    def find(n: str) -> str:
        while root[n] != n:
            n = root[n]
        return n

    reader: dict[str, str] = {}
    for name in names:
        module = importlib.import_module(found[name])
        for value in vars(module).values():
            other = owner.get(getattr(value, "__module__", None)) if callable(value) else None
            if other is not None:
                root[find(other)] = find(name)
        for experiment in getattr(module, "REQUIRES", ()):
            root[find(reader.setdefault(experiment, name))] = find(name)
    out: dict[str, list[str]] = {}
    for name in names:
        out.setdefault(find(name), []).append(name)
    return list(out.values())


def _build_group(
    names: list[str], out_dir: Path, formats: tuple[str, ...]
) -> list[tuple[Path | None, list[str]]]:
    return [_build(name, out_dir, formats) for name in names]


def pool_context(names: list[str]) -> multiprocessing.context.BaseContext:
    """The workers' start method: a fork server that has imported this module and the
    figures' modules (so each worker starts with them) and has run nothing. A worker forked
    straight from the caller deadlocks at its first multi-threaded torch op (e.g.
    ``fig_theory_variance``'s Monte Carlo) whenever the caller had already run one, as a test
    session or a notebook kernel has: the OpenMP thread pool does not survive ``fork``. The
    preloaded modules run no torch op on import."""
    context = multiprocessing.get_context("forkserver")
    found = modules()
    context.set_forkserver_preload([__spec__.name, *(found[n] for n in names)])
    return context


def _outcomes(
    names: list[str], out_dir: Path, formats: tuple[str, ...], jobs: int
) -> Iterator[tuple[str, Path | None, list[str]]]:
    """(name, first file or None, runs it lacks) of each figure, in the order of ``names``;
    with ``jobs`` > 1 built in a pool of that many processes, one :func:`groups` group per task
    (the larger groups first), forked from a fork server (:func:`pool_context`)."""
    if jobs <= 1 or len(names) <= 1:
        for name in names:
            print(f"[figures] {name} ...", flush=True)
            yield name, *_build(name, out_dir, formats)
        return
    tasks = sorted(groups(names), key=len, reverse=True)  # the longest tasks start first
    # by its importable name: run as ``python -m analysis.figures`` this module is
    # ``__main__``, which a fork server's worker cannot look a function up in
    build_group = importlib.import_module(__spec__.name)._build_group
    with ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=pool_context(names)) as pool:
        futures = {}
        for group in tasks:
            future = pool.submit(build_group, group, out_dir, formats)
            futures.update({name: (future, i) for i, name in enumerate(group)})
        for name in names:
            print(f"[figures] {name} ...", flush=True)
            future, i = futures[name]
            yield name, *future.result()[i]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.figures")
    parser.add_argument("command", choices=["build", "list", "stale"])
    parser.add_argument("--only", nargs="*", default=None, help="figure names to build")
    parser.add_argument("--out", type=Path, default=ROOT / "figures")
    parser.add_argument(
        "--formats", nargs="+", default=list(FORMATS), help="file formats (png pdf svg)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="figures built at once, each in its own process"
    )
    args = parser.parse_args(argv)
    names = discover()
    if not names:
        print(
            "error: no figure modules (analysis/figures/fig_*.py, analysis/campaigns/*/fig_*.py)",
            file=sys.stderr,
        )
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
    if args.command == "stale":
        found = {name: stale(name, args.out) for name in names}
        for name, reasons in found.items():
            for reason in reasons:
                print(f"[figures] {name}: {reason}")
        old = [name for name, reasons in found.items() if reasons]
        if old:
            print(
                f"error: {len(old)} figure(s) older than their inputs ({', '.join(old)}); "
                f"rebuild them: python -m analysis.figures build --only {' '.join(old)}",
                file=sys.stderr,
            )
            return 1
        print(f"[figures] {len(names)} figure(s): each sidecar names the inputs as they are")
        return 0
    built, unbuilt = 0, []
    for name, path, lacking in _outcomes(names, args.out, tuple(args.formats), args.jobs):
        if path is None:
            err = MissingRuns(name, lacking)
            unbuilt.append(err)
            print(f"[figures]   not built: {err}", flush=True)
            continue
        built += 1
        print(f"[figures]   -> {path}", flush=True)
    print(f"[figures] built {built} of {len(names)} figure(s) into {args.out}")
    if unbuilt:
        lacking = sorted({run for err in unbuilt for run in err.runs})
        print(
            f"error: {len(unbuilt)} figure(s) not built, their runs are not done: "
            + "; ".join(str(err) for err in unbuilt)
            + f"\nerror: `{TRAIN_COMMAND}` trains the {len(lacking)} run(s) they lack "
            + f"({', '.join(lacking)}); building never trains",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
