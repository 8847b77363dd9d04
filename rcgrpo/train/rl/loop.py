"""Stage 2: GRPO / RC-GRPO and the collapse baselines — ``python -m rcgrpo train``.

One loop for every algorithm; the algorithm is config values (:mod:`rcgrpo.train.presets`).
Per step, each section a call into its own module::

    rollout     prompts + reward tokens + seeded rollouts of this rank's groups  (rollouts)
    score       per-rollout table gathered over ranks -> global [P, G] rewards   (rollouts)
    filter      DAPO dynamic sampling / any group filter, extra rounds          (filters)
    advantages  group_advantages on the global kept grid, sliced to this rank    (filters)
    update      ref pass, clipped surrogate + β·KL (+ entropy), global-denominator
                backward, summed gradients, clipped norm, non-finite skip         (update)
    diagnostics group collapse / mode separation / policy / rollout / perf metrics,
                reduced over ranks -> metrics.jsonl + TensorBoard + rollouts.jsonl (step_metrics)
    eval        held-out tasks conditioned per algo.eval_condition -> eval/step_N (rl_setup)
    checkpoint  model, optimizer, RNG, step, prompt position, atomically       (rl_setup)

The reward never sees the reward token: the environment scores the calls of an episode,
the token only changes the prompt. π_ref is the frozen starting checkpoint ``init``.
"""

from __future__ import annotations

import json
import os
import time

from rcgrpo.precision import probe_host
from rcgrpo.schedules import linear_warmup
from rcgrpo.train.cli import given_keys, parse_cli, run_command
from rcgrpo.train.config import TrainConfig
from rcgrpo.train.distributed import shutdown
from rcgrpo.train.errors import NonFiniteError
from rcgrpo.train.progress import advance, close, open_bar, rl_postfix
from rcgrpo.train.provenance import code_version
from rcgrpo.train.rl.filters import (
    GROUP_FILTERS,
    collect_groups,
    conversation_rows,
    table_rows,
    training_batch,
)
from rcgrpo.train.rl.setup import RLRun, evaluate, save_step, setup
from rcgrpo.train.rl.step_metrics import (
    PhaseTimer,
    group_metrics,
    perf_metrics,
    rollout_metrics,
    to_floats,
    update_metrics,
)
from rcgrpo.train.rl.update import UpdateSettings, run_update
from rcgrpo.train.rollouts import RoundGenerator
from rcgrpo.train.run_folder import write_summary
from rcgrpo.train.runlog import due


def rl_step(run: RLRun, step: int) -> dict[str, float]:
    """One RL step (module docstring); returns the logged metrics ({} if not a log step)."""
    cfg, info, timer = run.cfg, run.info, PhaseTimer()
    with timer("step"):
        # rollout + score (+ filter): whole groups per rank, the global table on every rank
        run.model.eval()
        generate = RoundGenerator(
            run.engine, run.train_tasks, run.stream, run.goals, cfg, info, step, timer
        )
        rounds = cfg.algo.max_resample_rounds if cfg.algo.group_filter != "none" else 0
        keep = GROUP_FILTERS[cfg.algo.group_filter]
        collected = collect_groups(generate, keep, cfg.rollout.prompts_per_step, rounds)
        # advantages: on the global grid of kept groups, this rank's slice
        batch, adv = training_batch(collected, cfg.algo)
        # update
        run.model.train()
        lr = cfg.optim.lr * linear_warmup(step, cfg.optim.warmup_steps)
        with timer("update"):
            stats = run_update(
                run.model,
                run.ref_model,
                run.optimizer,
                batch,
                UpdateSettings.of(cfg),
                info,
                lr,
                run.tokenizer.pad_token_id,
            )
        timer.seconds["ref"] = stats.time_frozen_s
        timer.seconds["update"] -= stats.time_frozen_s
        run.nonfinite_streak = run.nonfinite_streak + 1 if stats.skipped else 0
        # diagnostics
        rows = [row for rnd in collected.rounds for row in rnd.rows]
        metrics = {
            **group_metrics(collected, cfg.algo),
            **rollout_metrics(rows),
            **update_metrics(stats, cfg, info),
            "policy/lr": lr,
        }
        # eval
        evaluating = due(step, cfg.run.eval_every, cfg.run.steps)
        if evaluating:
            with timer("eval"):
                metrics.update(evaluate(run, step))
    metrics.update(perf_metrics(timer, rows, info))
    run.latest = metrics
    # log
    logged = {}
    run.logger.log_rows(table_rows(collected, adv, step))
    run.logger.log_rows(conversation_rows(collected, step), path=run.logger.paths.conversations)
    if evaluating or due(step, cfg.run.log_every, cfg.run.steps) or stats.skipped:
        logged = to_floats(metrics)
        run.logger.log(step, logged)
    # checkpoint
    if due(step, cfg.run.checkpoint_every, cfg.run.steps):
        save_step(run, step)
    if run.nonfinite_streak >= cfg.run.max_nonfinite:
        raise NonFiniteError(
            f"stopping at step {step}: {run.nonfinite_streak} consecutive steps with a "
            f"non-finite loss or gradient (run.max_nonfinite = {cfg.run.max_nonfinite}; "
            "updates were skipped, the parameters are those of the last finite update)"
        )
    return logged


def train(cfg: TrainConfig, steps_given: bool = True) -> dict:
    """Run (or resume) an RL job; returns the run summary (also ``summary.json``).
    ``steps_given``: ``cfg.run.steps`` was asked for, so a resume may extend the run to it
    (:mod:`rcgrpo.train.rl.resume`); else a resume keeps the folder's own step count."""
    wall = time.perf_counter()
    run = setup(cfg, steps_given)
    last: dict[str, float] = {}
    try:
        if run.start_step == 0:  # the starting policy, for the training curves
            start = time.perf_counter()
            last = evaluate(run, 0)
            if last:
                run.logger.log(0, {**last, "perf/time_eval_s": time.perf_counter() - start})
        bar = open_bar(
            cfg.run.steps, "rl step", cfg.run.progress and run.info.is_main, run.start_step
        )
        for step in range(run.start_step + 1, cfg.run.steps + 1):
            last = rl_step(run, step) or last
            advance(bar, rl_postfix(run.latest))
        close(bar)
    finally:
        run.logger.close()
        shutdown(run.info)
    summary = {
        "run": str(run.paths.root),
        "preset": cfg.preset,
        "init": cfg.init,
        "steps": cfg.run.steps,
        "resumed_from": run.start_step,
        "world_size": run.info.world_size,
        "host": probe_host(run.info.device.split(":")[0]).facts(),
        "wall_s": time.perf_counter() - wall,
        "code": code_version(),
        "final_metrics": last,
    }
    if run.extended:
        summary["extended"] = run.extended
    if run.info.is_main:
        write_summary(run.paths, summary)
    return summary


# ---------------------------------------------------------------------------------- CLI
def main(argv: list[str]) -> int:
    """``python -m rcgrpo train [--preset NAME] [--config FILE] [--section.field VALUE ...]``;
    exit 2 on a config error (one line naming the key; also those found at set-up: run
    folder, init, context length), 3 on a non-finite stop (:mod:`rcgrpo.train.cli`)."""

    def body() -> int:
        cfg = parse_cli("train", argv)
        return _report(train(cfg, steps_given="run.steps" in given_keys("train", argv)))

    return run_command("train", body)


def _report(summary: dict) -> int:
    """Print the run's one-line JSON result (rank 0)."""
    if int(os.environ.get("RANK", "0")) != 0:
        return 0
    keys = ("reward/eval_success", "reward/eval_success_low", "reward/success_rate")
    final = {k: round(v, 4) for k, v in summary["final_metrics"].items() if k in keys}
    print(json.dumps({"run": summary["run"], "wall_s": round(summary["wall_s"], 1), **final}))
    return 0
