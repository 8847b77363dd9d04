"""RCTP-FT (paper §2, Stage 1): ``python -m rcgrpo rctp``.

Data: successes = expert trajectories of the training tasks (optionally + the weak policy's
successful rollouts); failures = rollouts of a weaker policy (``failures.policy``, sampled
at ``failures.temperature`` with no reward token) whose REAL reward is 0. Per episode mode,
exactly n = min(#successes, #failures) of each (``rctp_mix``); the goal
``[Reward Goal: <|high_reward|>]`` / ``<|low_reward|>`` of each trajectory's actual reward
is appended once to its first user message (``goals.labels shuffled``: the same labels
permuted within each mode, the control whose token says nothing of the reward;
``failures.pair_labels inverted``: each minimal pair's two labels exchanged). The weak
policy is re-sampled (new seed, up to ``failures.max_rounds`` passes) while failures are fewer
than successes.

Training is :func:`rcgrpo.train.stage1.sft.train` from ``model.path`` (the SFT checkpoint on CPU;
the base model in the paper's GPU preset), evaluated under both tokens. The mix is saved as
``<run>/trajectories.jsonl`` and its statistics (weak-policy success rate, failure modes)
as ``<run>/data.json``; a resumed run reloads the mix instead of re-sampling it (also when
it was killed after sampling but before its first checkpoint).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy.tokenizer import spread_goal_rows
from rcgrpo.train.cli import parse_cli, run_command
from rcgrpo.train.failure_modes import failure_mix
from rcgrpo.train.progress import EpisodeTally, close, open_bar
from rcgrpo.train.resources import cpu_seconds
from rcgrpo.train.stage1.config import RCTPConfig
from rcgrpo.train.stage1.data import device_of, encode_examples, expert_data, goal_labels
from rcgrpo.train.stage1.pairs import PAIR_LABELLINGS, weigh_decisions
from rcgrpo.train.stage1.setup import finish, open_run, print_summary
from rcgrpo.train.stage1.sft import train
from rcgrpo.train.stage1.trajectories import (
    Trajectory,
    policy_trajectories,
    rctp_mix,
    rows_to_trajectories,
    trajectory_row,
)


def sample_failures(cfg: RCTPConfig, tasks: Sequence, mode: str, needed: int):
    """(failures, successes, sampled) of the weak policy in ``mode``: up to
    ``failures.max_rounds`` passes over ``tasks`` until ``needed`` failures are found."""
    import torch

    from rcgrpo.policy.models import load_policy

    sampling = cfg.failures
    path = sampling.policy or cfg.model.path
    key = "failures.policy" if sampling.policy else "model.path"
    model, tokenizer, _ = load_policy(
        path, getattr(torch, cfg.model.dtype), device_of(cfg), key=key
    )
    opts = dict(
        prompt_style=cfg.tasks.prompt_style,
        max_new_tokens=sampling.max_new_tokens,
        max_context=sampling.max_context,
        max_batch=sampling.batch_size,
    )
    failures, successes, sampled = [], [], 0
    for round_ in range(sampling.max_rounds):
        seed = 1000 * cfg.run.seed + round_
        desc = f"rctp failures {mode} pass {round_ + 1}"
        bar = open_bar(len(tasks), desc, cfg.run.progress, unit="episode")
        trajs = policy_trajectories(
            model,
            tokenizer,
            tasks,
            mode,
            sampling.temperature,
            sampling.top_p,
            seed,
            on_done=EpisodeTally(bar),
            **opts,
        )
        close(bar)
        sampled += len(trajs)
        failures += [t for t in trajs if t.reward == 0]
        successes += [t for t in trajs if t.reward == 1]
        if len(failures) >= needed:
            break
    return failures, successes, sampled


def _points(task) -> list[dict]:
    """The planted decision points a task records (``Task.meta["decisions"]``; [] if none)."""
    return list((getattr(task, "meta", None) or {}).get("decisions", ()))


def kept_anyway(seed: int, index: int, share: float) -> bool:
    """Whether the mix keeps training task ``index`` although it has a skipped point: a
    uniform draw of its own, ``random.Random("rcgrpo-rctp-skip-keep/<seed>/<index>")``, below
    ``share``. A task's draw depends on nothing else, so raising ``share`` only adds tasks."""
    return random.Random(f"rcgrpo-rctp-skip-keep/{seed}/{index}").random() < share


def mix_tasks(cfg: RCTPConfig, train_tasks: Sequence) -> list:
    """The training tasks of the mix: the first ``failures.num_tasks`` (0 = all) of those
    without a planted decision point of a kind in ``failures.skip_decisions``, plus the
    share ``failures.skip_keep`` of those with one (:func:`kept_anyway`), in task order.
    ValueError when kinds are skipped but no task records its points (a suite without a
    demonstrator), when ``skip_keep`` is set without kinds to skip, or too few tasks are
    left."""
    skip, keep = set(cfg.failures.skip_decisions), cfg.failures.skip_keep
    tasks = list(train_tasks)
    if keep and not skip:
        raise ValueError(f"failures.skip_keep {keep}: no failures.skip_decisions to keep from")
    if skip:
        if not any(_points(t) for t in tasks):
            raise ValueError(
                f"failures.skip_decisions {sorted(skip)}: no training task records planted "
                "decision points (a synth preset with a demonstrator, e.g. regime-d10)"
            )
        tasks = [
            t
            for i, t in enumerate(tasks)
            if not any(d["kind"] in skip for d in _points(t)) or kept_anyway(cfg.run.seed, i, keep)
        ]
    need = cfg.failures.num_tasks
    if need and len(tasks) < need:
        raise ValueError(
            f"failures.num_tasks {need}: only {len(tasks)} training tasks are left "
            f"without {sorted(skip)} points (raise tasks.num_train)"
        )
    return tasks[: need or None]


def build_mix(cfg: RCTPConfig, train_tasks: Sequence, tokenizer) -> tuple[list[Trajectory], dict]:
    """The 1:1 RCTP-FT trajectories and their statistics (module docstring)."""
    tasks = mix_tasks(cfg, train_tasks)
    experts = [t for t in expert_data(cfg, tasks, tokenizer) if t.reward == 1]
    successes, failures, stats = list(experts), [], {}
    for mode in cfg.sft.modes:
        need = sum(t.mode == mode for t in experts)
        bad, good, sampled = sample_failures(cfg, tasks, mode, need)
        failures += bad
        if cfg.failures.rollout_successes:
            successes += good
        stats[mode] = {
            "weak_policy_success_rate": len(good) / max(sampled, 1),
            "sampled": sampled,
            "failures": len(bad),
            "failure_modes": failure_mix(t.failure_mode for t in bad),
        }
    successes, too_long_s = fitting(successes, tokenizer, cfg.sft.max_length)
    failures, too_long_f = fitting(failures, tokenizer, cfg.sft.max_length)
    mix = rctp_mix(successes, failures, seed=cfg.run.seed)
    if cfg.failures.pairs:
        rows, stats["pairs"] = minimal_pairs(cfg, train_tasks, tokenizer)
        mix += rows
    skip = set(cfg.failures.skip_decisions)
    stats["tasks"] = {
        "used": len(tasks),
        "with_skipped_kind": sum(any(d["kind"] in skip for d in _points(t)) for t in tasks),
    }
    stats["mix"] = {
        "dropped": {"successes": too_long_s, "failures": too_long_f},
        "successes": sum(t.reward == 1 for t in mix),
        "failures": sum(t.reward == 0 for t in mix),
        "expert_successes": sum(t.source == "expert" for t in mix),
        "failure_modes": failure_mix(t.failure_mode for t in mix if t.reward == 0),
    }
    return mix, stats


def minimal_pairs(cfg: RCTPConfig, train_tasks: Sequence, tokenizer):
    """(rows, stats) of ``failures.pairs`` (:mod:`rcgrpo.train.stage1.pairs`) that fit
    ``sft.max_length``; ValueError without kinds to pair (``failures.skip_decisions``)."""
    from rcgrpo.train.stage1.pairs import pair_rows, pair_tasks

    kinds = [k for k in cfg.failures.skip_decisions if k != "stop_early"]
    if not kinds:
        raise ValueError("failures.pairs: name the swap kinds to pair in failures.skip_decisions")

    def replay(tasks, mode, source):
        return expert_data(cfg, tasks, tokenizer, (mode,), source)

    tasks = pair_tasks(train_tasks, kinds, cfg.failures.pairs, cfg.run.seed)
    rows, stats = pair_rows(tasks, kinds, cfg.sft.modes, replay)
    kept, stats["dropped_too_long"] = fitting(rows, tokenizer, cfg.sft.max_length)
    return kept, stats


def fitting(trajs: Sequence[Trajectory], tokenizer, max_length: int):
    """(kept, dropped count): trajectories that hold no reward-token string (a sampled reply
    may contain one) and whose conditioned encoding fits ``max_length``. Filtered BEFORE
    the 1:1 draw, so the balance survives."""
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.train.stage1.trajectories import encode_trajectory, has_reward_token

    encoder = ChatEncoder(tokenizer)
    kept = [
        t
        for t in trajs
        if not has_reward_token(t) and len(encode_trajectory(encoder, t, True).ids) <= max_length
    ]
    return kept, len(trajs) - len(kept)


def load_mix(path: Path) -> list[Trajectory]:
    """Trajectories written by :func:`save_mix`."""
    return rows_to_trajectories(path.read_text())


def save_mix(mix: Sequence[Trajectory], path: Path) -> None:
    path.write_text("".join(json.dumps(trajectory_row(t)) + "\n" for t in mix))


MIX_DIR = "mix"
"""Sub-folder holding ``trajectories.jsonl.gz``, the mix gzip-compressed: what a matched SFT
(``sft.successes_of``) reads, and what a campaign's light copy keeps when a run starts from it."""


def save_mix_copy(mix_path: Path, folder: Path) -> Path:
    """``folder/trajectories.jsonl.gz``: the mix at ``mix_path`` compressed (mtime 0, so the
    bytes depend on the mix only)."""
    import gzip

    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "trajectories.jsonl.gz"
    out.write_bytes(gzip.compress(mix_path.read_bytes(), mtime=0))
    return out


def spread_goals(cfg: RCTPConfig, model, tokenizer) -> dict:
    """``goals.spread``: the goal rows' distance before and after
    (:func:`rcgrpo.policy.tokenizer.spread_goal_rows`), in median row norms."""
    weight = model.get_input_embeddings().weight
    high, low = tokenizer.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    median = float(weight.detach().float().norm(dim=1).median())
    before = spread_goal_rows(weight, high, low, cfg.goals.spread, cfg.run.seed)
    after = float((weight[high] - weight[low]).detach().float().norm())
    return {"spread": cfg.goals.spread, "before": before / median, "after": after / median}


def run_rctp(cfg: RCTPConfig) -> dict:
    """RCTP-FT from ``model.path``; returns the run summary."""
    run = open_run(cfg)
    cfg, tokenizer = run.cfg, run.tokenizer
    mix_path, data_path = run.paths.root / "trajectories.jsonl", run.paths.root / "data.json"
    if cfg.run.resume and mix_path.exists() and data_path.exists():  # data.json is written last
        mix, stats = load_mix(mix_path), json.loads(data_path.read_text())
    else:
        mix, stats = build_mix(cfg, run.train_tasks, tokenizer)
        save_mix(mix, mix_path)
        save_mix_copy(mix_path, run.paths.root / MIX_DIR)
        stats["data_cpu_s"] = cpu_seconds() - run.cpu0
        data_path.write_text(json.dumps(stats, indent=2) + "\n")
    if run.resume is None:  # a resumed run's checkpoint already holds the spread rows
        stats["goal_rows"] = spread_goals(cfg, run.model, tokenizer)
    goals = goal_labels(mix, cfg.goals.labels, cfg.run.seed)
    goals = PAIR_LABELLINGS[cfg.failures.pair_labels](mix, goals)
    stats["goal_labels"] = {
        "labels": cfg.goals.labels,
        "pair_labels": cfg.failures.pair_labels,
        "high": sum(goals),
        "agree_with_reward": sum(g == (t.reward == 1) for g, t in zip(goals, mix, strict=True)),
    }
    examples, dropped = encode_examples(
        mix, tokenizer, False, cfg.sft.max_length, goals, cfg.run.progress
    )
    stats["examples"], stats["dropped_too_long"] = len(examples), dropped
    if cfg.failures.pair_weight != 1:
        examples, stats["pairs_weighed"] = weigh_decisions(examples, cfg.failures.pair_weight)
    return finish(run, stats, train(run, examples, ("high", "low")))


def main(argv: list[str]) -> int:
    """``python -m rcgrpo rctp [--preset NAME] [--config FILE] [--section.field VALUE ...]``;
    exit 2 on a config error, 3 on a non-finite stop (:mod:`rcgrpo.train.cli`)."""
    return run_command("rctp", lambda: print_summary(run_rctp(parse_cli("rctp", argv))))
