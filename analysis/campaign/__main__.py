"""``python -m analysis.campaign [--campaign ID] [--only EXP ...] [--jobs N] [--dry-run]
[--list]`` (``make campaign C=ID ARGS=...``; ``make runs`` is the default campaign, ``pool``).

``--campaign`` takes the id of a campaign that trains (:func:`analysis.campaign.registry.campaigns`;
``--ids`` prints them), each the driver of its folder
``analysis/campaigns/<pkg>/``; a campaign whose runs are data only prints one line saying so (and
which campaign trains them) and exits 0 (:func:`analysis.campaign.registry.data_only`). Trains every
run of the named experiments (default: the campaign's) that is not done, at most ``--jobs`` at
a time, each as a real ``python -m rcgrpo ...`` subprocess (one torch thread each, ``nice``),
Stage 1 before the RL runs that start from it: in the regime-d10 campaign each new seed's
admission comes between them, and in both regime campaigns each RL run is followed by the
pass@k of its final checkpoint and, for SFT + GRPO, its proof report. How a run is found,
resumed, judged stale and exported (each light copy, with the Stage-1 checkpoints, goes to
``results/<home>`` as soon as the run completes) is :mod:`analysis.campaign.mechanics`.
``--list`` shows every run's status (done and where, stale, partial or missing); ``--dry-run``
prints the command of every run that would train; ``--force-train`` ignores the committed
copies; ``--export`` copies every finished run of ``runs/<home>`` again; ``--runs NAME ...``
trains those runs only (and what they start from; in the regime-d10 campaign the campaign as
the admissions so far decide); ``--adopt NAME ...`` records the spec of runs trained by hand
with the campaign's command (:func:`analysis.campaign.config.adopt`).

Every run must be reproducible from its commit, so a campaign that would train refuses a
checkout whose tracked files differ from its commit (one line naming them, exit 1, nothing
started) unless ``--allow-dirty``: each run then records ``"dirty": true`` in its
``summary.json`` and writes ``git diff HEAD`` beside it as ``git.diff``
(:mod:`rcgrpo.train.provenance`), which its light copy keeps.
"""

from __future__ import annotations

import argparse
import os
import sys

from analysis import REPO_ROOT as ROOT
from analysis.campaign import registry
from analysis.campaign.config import adopt
from analysis.campaign.mechanics import Campaign, export_results, run_all, status
from rcgrpo.train.provenance import dirty_paths

SHOWN_PATHS = 5
"""Dirty paths a refusal names before it says how many more there are."""


def _list(camp: Campaign, force_train: bool) -> None:
    width = max(18, *map(len, camp.experiments))
    for exp, names in camp.experiments.items():
        for n in names:
            state, where = status(camp.runs[n], force_train)
            print(f"{exp:{width}s} {n:28s} {state}{': ' + str(where) if where else ''}")


def _known(camp: Campaign, names: list[str]) -> list[str]:
    unknown = sorted(set(names) - set(camp.runs))
    if unknown:
        raise ValueError(f"unknown run(s) {unknown}")
    return names


def check_clean(allow_dirty: bool) -> None:
    """Refuse (ValueError, one line naming the paths) a checkout with uncommitted changes to
    tracked files, unless ``allow_dirty`` (module docstring)."""
    dirty = [] if allow_dirty else dirty_paths(ROOT)
    if dirty:
        more = f" and {len(dirty) - SHOWN_PATHS} more" if len(dirty) > SHOWN_PATHS else ""
        raise ValueError(
            f"the checkout has uncommitted changes ({', '.join(dirty[:SHOWN_PATHS])}{more}): "
            "commit them so every run is reproducible from its commit, or pass --allow-dirty "
            "(each run then writes git.diff beside its summary.json); nothing was started"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.campaign")
    parser.add_argument("--campaign", default="pool", help="a campaign's id (--ids lists them)")
    parser.add_argument("--ids", action="store_true", help="print the campaign ids and exit")
    parser.add_argument("--only", nargs="*", default=None, help="experiments to run (default: all)")
    parser.add_argument("--runs", nargs="+", metavar="RUN", help="train these runs (and deps)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("RCGRPO_JOBS", "2")))
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--list", action="store_true", help="list experiments, runs and status")
    parser.add_argument("--force-train", action="store_true", help="ignore results/<home>")
    parser.add_argument("--export", action="store_true", help="copy finished runs to results/")
    parser.add_argument("--adopt", nargs="+", metavar="RUN", help="record the spec of hand runs")
    parser.add_argument(
        "--allow-dirty", action="store_true", help="train from uncommitted changes (git.diff)"
    )
    args = parser.parse_args(argv)
    if args.ids:
        print("\n".join(registry.campaigns()))
        return 0
    if args.campaign in (data_only := registry.data_only()):
        print(data_only[args.campaign])
        return 0
    try:
        entry = registry.campaign(args.campaign)
        camp = entry.build()
        if args.list:
            _list(camp, args.force_train)
        elif args.adopt:
            for p in adopt(camp, _known(camp, args.adopt)):
                print(f"adopted {p}")
        elif args.export:
            for p in export_results(camp):
                print(f"exported {p}")
        elif args.runs:
            names = _known(camp, args.runs)
            check_clean(args.allow_dirty or args.dry_run)
            run_all(camp, names, args.jobs, args.force_train, args.dry_run, on_done=entry.on_done)
        else:
            check_clean(args.allow_dirty or args.dry_run)
            entry.run(
                args.only or entry.experiments(camp), args.jobs, args.force_train, args.dry_run
            )
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
