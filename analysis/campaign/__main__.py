"""``python -m analysis.campaign [--campaign pool|regime] [--only EXP ...] [--jobs N] [--dry-run]
[--list]`` (``make runs``; ``make regime-runs`` is ``--campaign regime``).

Trains every run of the named experiments of :func:`analysis.campaign.experiments.build_campaign`
(default: all) that is not done, at most ``--jobs`` at a time, each as a real
``python -m rcgrpo ...`` subprocess (one torch thread each, ``nice``), Stage 1 before the RL
runs that start from it. How a run is found, resumed, judged stale and exported (each light
copy, with the Stage-1 checkpoints, goes to ``results/campaign`` as soon as the run
completes) is :mod:`analysis.campaign.mechanics`. ``--list`` shows every run's status
(done and where, stale, partial or missing); ``--force-train`` ignores the committed copies;
``--export`` copies every finished run of ``runs/campaign`` again; ``--runs NAME ...`` trains
those runs only (and what they start from; in the regime campaign the campaign as the
admissions so far decide, each run followed by its pass@k and proof report); ``--adopt NAME ...``
records the spec of runs trained by hand with the campaign's command
(:func:`analysis.campaign.config.adopt`). ``--campaign regime`` is the regime suite's campaign
(:mod:`analysis.campaign.regime`, ``runs/regime`` and ``results/regime``): Stage 1 first,
then each new seed's admission, then the RL runs of the admitted seeds, each followed by the
pass@k of its final checkpoint and, for SFT + GRPO, its proof report.
"""

from __future__ import annotations

import argparse
import os
import sys

from analysis.campaign import regime
from analysis.campaign.config import adopt
from analysis.campaign.experiments import build_campaign, run_names
from analysis.campaign.mechanics import Campaign, export_results, run_all, status


def _list(camp: Campaign, force_train: bool) -> None:
    for exp, names in camp.experiments.items():
        for n in names:
            state, where = status(camp.runs[n], force_train)
            print(f"{exp:18s} {n:28s} {state}{': ' + str(where) if where else ''}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.campaign")
    parser.add_argument("--campaign", choices=("pool", "regime"), default="pool")
    parser.add_argument("--only", nargs="*", default=None, help="experiments to run (default: all)")
    parser.add_argument("--runs", nargs="+", metavar="RUN", help="train these runs (and deps)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("RCGRPO_JOBS", "2")))
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--list", action="store_true", help="list experiments, runs and status")
    parser.add_argument("--force-train", action="store_true", help="ignore results/campaign")
    parser.add_argument("--export", action="store_true", help="copy finished runs to results/")
    parser.add_argument("--adopt", nargs="+", metavar="RUN", help="record the spec of hand runs")
    args = parser.parse_args(argv)
    try:
        camp = regime.build() if args.campaign == "regime" else build_campaign()
        if args.list:
            _list(camp, args.force_train)
        elif args.adopt:
            unknown = sorted(set(args.adopt) - set(camp.runs))
            if unknown:
                raise ValueError(f"unknown run(s) {unknown}")
            for p in adopt(camp, args.adopt):
                print(f"adopted {p}")
        elif args.export:
            for p in export_results(camp):
                print(f"exported {p}")
        elif args.runs:
            unknown = sorted(set(args.runs) - set(camp.runs))
            if unknown:
                raise ValueError(f"unknown run(s) {unknown}")
            done = regime.finished if args.campaign == "regime" else None
            run_all(camp, args.runs, args.jobs, args.force_train, args.dry_run, on_done=done)
        elif args.campaign == "regime":
            names = args.only or regime.experiments(camp)
            regime.run(names, args.jobs, args.force_train, args.dry_run)
        else:
            names = run_names(camp, args.only or list(camp.experiments))
            run_all(camp, names, args.jobs, args.force_train, args.dry_run)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
