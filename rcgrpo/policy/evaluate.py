"""Held-out evaluation: ``python -m rcgrpo eval --model PATH --split test --condition high``.

The tasks are named as every command names them: ``--tasks.source`` (``bfcl``, ``synth`` or
your own ``module:function``) and the ``--tasks.*`` options of :class:`EvalTaskConfig`.
Greedy by default. Reports the paper's reward R and BFCL's validity rule as success rates,
overall and per category, each with a 95% Wilson score interval (R is binary), plus means
of steps, tool errors, truncation and generated tokens. Writes
``<tasks>-<split>-<condition>.json`` (``<tasks>`` the source with every run of characters other than letters,
digits, ``.`` and ``-`` as ``_``) and a ``.txt`` with a few conversations rendered by the
model's chat template into the folder ``--out`` (default ``runs/eval/<model path, / as _>``,
never into the model's own folder). A missing local ``--model``, or a Hub id not cached
while offline, is one line (exit 2).

Library use (e.g. periodic evaluation inside training)::

    summary, rollouts = evaluate_policy(model, tokenizer, tasks, condition="high")
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Literal

import torch

from rcgrpo.validation import check_choice

CONDITIONS = {"high": True, "low": False, "none": None}
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    r"""Wilson score interval of a binomial proportion (Wilson 1927).

    :math:`\frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}`;
    (0, 1) when n = 0.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n], got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact bounds, no rounding dust
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def _rate(flags: Sequence[bool]) -> dict:
    k, n = int(sum(flags)), len(flags)
    lo, hi = wilson_interval(k, n)
    return {"mean": k / n if n else float("nan"), "ci95": [lo, hi], "successes": k, "n": n}


def _group_summary(rollouts: Sequence) -> dict:
    n = len(rollouts)
    return {
        "n": n,
        "reward": _rate([r.reward == 1.0 for r in rollouts]),
        "bfcl_valid": _rate([r.bfcl_valid for r in rollouts]),
        "mean_steps": sum(r.num_steps for r in rollouts) / n,
        "mean_tool_errors": sum(r.num_tool_errors for r in rollouts) / n,
        "truncated_rate": sum(r.truncated for r in rollouts) / n,
        "mean_capped_messages": sum(r.capped_messages for r in rollouts) / n,
        "mean_generated_tokens": sum(r.num_generated for r in rollouts) / n,
        "mean_length": sum(r.length for r in rollouts) / n,
    }


def summarize(rollouts: Sequence) -> dict:
    """Overall and per-category summaries (see module docstring) and a per-task table."""
    if not rollouts:
        raise ValueError("rollouts must not be empty")
    categories = sorted({r.category for r in rollouts})
    return {
        "overall": _group_summary(rollouts),
        "per_category": {
            c: _group_summary([r for r in rollouts if r.category == c]) for c in categories
        },
        "per_task": [
            {
                "task_id": r.task_id,
                "category": r.category,
                "reward": r.reward,
                "state": int(r.record.state),
                "action": int(r.record.action),
                "bfcl_valid": r.bfcl_valid,
                "steps": r.num_steps,
                "tool_errors": r.num_tool_errors,
                "truncated": r.truncated,
                "failure_reason": r.record.failure_reason,
            }
            for r in rollouts
        ],
    }


def add_decisions(summary: dict, tasks: Sequence, rollouts: Sequence) -> None:
    """Planted decision points (suites with an imperfect demonstrator, ``docs/regime.md``):
    each per-task row gains ``decisions`` (``rcgrpo.env.synth_demo.decision_outcomes``) and
    the summary a ``decisions`` block: the share of points right, overall and per kind, and
    the success of the tasks with and without a point. Nothing is added for other suites."""
    from rcgrpo.env.synth_demo import decision_outcomes

    by_id = {t.id: t for t in tasks}
    outcomes = [
        decision_outcomes(by_id[r.task_id], [c for turn in r.calls_per_turn for c in turn])
        for r in rollouts
    ]
    if not any("decisions" in (getattr(by_id[r.task_id], "meta", None) or {}) for r in rollouts):
        return
    for row, points in zip(summary["per_task"], outcomes, strict=True):
        row["decisions"] = points
    points = [p for ps in outcomes for p in ps]
    kinds = sorted({p["kind"] for p in points})
    with_point = [r.reward == 1.0 for r, ps in zip(rollouts, outcomes, strict=True) if ps]
    without = [r.reward == 1.0 for r, ps in zip(rollouts, outcomes, strict=True) if not ps]
    summary["decisions"] = {
        "right": _rate([p["right"] for p in points]) if points else None,
        "per_kind": {k: _rate([p["right"] for p in points if p["kind"] == k]) for k in kinds},
        "success_with_points": _rate(with_point) if with_point else None,
        "success_without_points": _rate(without) if without else None,
    }


def evaluate_policy(
    model,
    tokenizer,
    tasks: Sequence,
    *,
    condition: str = "high",
    mode: str = "multi_turn",
    prompt_style: str = "compact",
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_new_tokens: int = 256,
    max_context: int | None = None,
    batch_size: int = 32,
    seed: int = 0,
    on_done=None,
    progress: bool = True,
) -> tuple[dict, list]:
    """Roll out every task once under ``condition``; returns ``(summary, rollouts)``.

    The one held-out evaluation entry of Stage 1, RL and ``python -m rcgrpo eval``; every
    option after ``tasks`` is keyword-only. ``condition``: reward token of the prompt (high |
    low | none); ``mode``: episode mode; ``temperature`` 0 = greedy; ``max_context`` None =
    the model's limit; ``batch_size`` episodes in parallel; ``seed`` of the sampling;
    ``on_done(rollout)`` is called once per finished episode (a progress bar); without it,
    ``progress`` opens one, ``eval <mode>/<condition>`` (:mod:`rcgrpo.train.progress`: a bar
    on a terminal; in a log file a line at the start, every 15 s and at the end)."""
    from rcgrpo.env import Episode
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.policy.policies import ModelPolicy
    from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
    from rcgrpo.train.progress import EpisodeTally, close, open_bar

    check_choice("condition", condition, CONDITIONS)
    encoder = ChatEncoder(tokenizer)
    policy = ModelPolicy(
        model, sorted(encoder.stop_ids), temperature, top_p, tokenizer.pad_token_id
    )
    engine = RolloutEngine(
        policy,
        encoder,
        Episode,
        mode=mode,
        prompt_style=prompt_style,
        max_new_tokens=max_new_tokens,
        max_context=max_context,
        max_batch=batch_size,
    )
    start, bar = time.perf_counter(), None
    if on_done is None:
        bar = open_bar(len(tasks), f"eval {mode}/{condition}", progress, unit="episode")
        on_done = EpisodeTally(bar)
    jobs = [RolloutJob(t, CONDITIONS[condition]) for t in tasks]
    rollouts = engine.run(jobs, seed=seed, on_done=on_done)
    close(bar)
    elapsed = time.perf_counter() - start
    summary = summarize(rollouts)
    add_decisions(summary, tasks, rollouts)
    generated = sum(r.num_generated for r in rollouts)
    summary["perf"] = {"elapsed_s": elapsed, "generated_tokens_per_s": generated / elapsed}
    return summary, rollouts


def render_example(tokenizer, rollout) -> str:
    """One conversation as the model saw it (its chat template), with a one-line header."""
    head = (
        f"### {rollout.task_id} ({rollout.category}) reward={rollout.reward:g} "
        f"bfcl_valid={rollout.bfcl_valid} steps={rollout.num_steps} truncated={rollout.truncated}"
    )
    text = tokenizer.apply_chat_template(rollout.messages, tokenize=False)
    return f"{head}\n{text}\n"


@dataclass
class EvalTaskConfig:
    """The tasks to evaluate on, named as sft, rctp and train name theirs (--tasks.source and
    the --tasks.* options of their tasks section)."""

    source: str = "bfcl"
    """task source (rcgrpo.policy.task_sources): bfcl (BFCL v4 multi-turn) | synth (the
    procedural suite) | your own as module:function or path/file.py:function (docs/own-task.md)"""
    split_seed: int = 0
    """seed of the 720/80 id-level split (bfcl) or of the task generator (synth); your
    source's seed argument"""
    synth_preset: str = "default"
    """synth only: the rcgrpo.env.synth.SYNTH_PRESETS entry the tasks come from"""
    max_turns: int | None = None
    """synth only: most user turns per task, as in training (none: the preset's range)"""
    max_calls_per_turn: int | None = None
    """synth only: most ground-truth calls per turn, as in training (none: the preset's range)"""


LEGACY_FLAGS = {"--tasks": "--tasks.source", "--task-seed": "--tasks.split-seed"}
"""eval's earlier spellings (commands recorded in results/ use them) -> today's."""


def current_flags(argv: list[str]) -> list[str]:
    """``argv`` with eval's earlier spellings rewritten: ``--tasks NAME`` as ``--tasks.source``,
    ``--task-seed N`` as ``--tasks.split-seed`` and ``--synth-options '{"preset": P}'`` as
    ``--tasks.synth-preset P`` (any other key of it is a one-line error naming the flags that
    replace it)."""
    from rcgrpo.train.errors import ConfigError

    out, rest = [], list(argv)
    while rest:
        name, eq, value = rest.pop(0).partition("=")
        if name in LEGACY_FLAGS:
            out.append(LEGACY_FLAGS[name] + eq + value)
        elif name == "--synth-options":
            text = value if eq else (rest.pop(0) if rest else "")
            try:
                options = json.loads(text)
            except json.JSONDecodeError as err:
                raise ConfigError(f"--synth-options: not JSON ({err})") from None
            if not isinstance(options, dict) or set(options) - {"preset"}:
                raise ConfigError(
                    "--synth-options: only its preset is read now (--tasks.synth-preset); "
                    "the turn and call ranges are --tasks.max-turns, --tasks.max-calls-per-turn"
                )
            out += ["--tasks.synth-preset", str(options["preset"])] if options else []
        else:
            out.append(name + eq + value)
    return out


@dataclass
class EvalArgs:
    """Evaluate a policy checkpoint on held-out tasks (greedy by default).

    Tasks are named as in sft, rctp and train: --tasks.source bfcl | synth | module:function
    (or path/file.py:function), and for synth --tasks.synth-preset, --tasks.max-turns,
    --tasks.max-calls-per-turn. The earlier spellings --tasks NAME, --task-seed N and
    --synth-options '{"preset": P}' are still read (commands recorded in results/ use them)."""

    model: str
    """checkpoint folder, or a Hugging Face Hub id namespace/name (downloaded, or read from
    the Hugging Face cache when offline); a path that looks local (/, ./, ~, runs/,
    results/, not two parts) is never looked up on the Hub"""
    split: str = "test"
    """task split: train | test (| all for bfcl)"""
    condition: Literal["auto", "high", "low", "none"] = "auto"
    """reward token in the prompt: high, low, or none (plain SFT / GRPO prompts); auto =
    high for a checkpoint trained with reward goals, none for one trained without them or
    whose goal tokens were only added on loading"""
    tasks: EvalTaskConfig = field(default_factory=EvalTaskConfig)
    """the tasks (EvalTaskConfig)"""
    limit: int | None = None
    """evaluate only the first N tasks (synth: number of tasks generated, default 200)"""
    mode: Literal["multi_turn", "combined"] = "multi_turn"
    """episode mode: BFCL's multi_turn or the paper's combined RL prompt"""
    prompt_style: Literal["auto", "compact", "docs", "bfcl", "bare"] = "auto"
    """system prompt style: bfcl = BFCL's official prompt with the functions' JSON docs,
    docs = each function's signature and first sentence, compact = one signature per function,
    bare = none; auto = the style the checkpoint was trained with, else compact for this
    project's from-scratch models and bfcl for a pretrained one (rcgrpo.policy.render)"""
    temperature: float = 0.0
    """sampling temperature (0 = greedy)"""
    top_p: float = 1.0
    """nucleus threshold"""
    max_new_tokens: int = 256
    """cap per assistant message"""
    max_context: int | None = None
    """cap per conversation in tokens (default: the model's max_position_embeddings)"""
    batch_size: int = 32
    """episodes generated in parallel"""
    seed: int = 0
    """sampling seed"""
    examples: int = 3
    """conversations written to the .txt next to the JSON"""
    out: str | None = None
    """folder for <tasks>-<split>-<condition>.json and its .txt (default: runs/eval/<model
    path, / as _>; never inside the model folder, which may be a committed one in results/)"""
    device: str = "auto"
    """auto | cpu | cuda"""


def output_folder(args: EvalArgs) -> Path:
    """``--out``, else ``runs/eval/<model path with / as _>`` (relative to the working
    directory): ``runs/x/checkpoints/step_5`` -> ``runs/eval/runs_x_checkpoints_step_5``."""
    if args.out:
        return Path(args.out)
    name = str(Path(args.model).expanduser()).strip("/").replace("/", "_").lstrip(".") or "model"
    return Path("runs") / "eval" / name


def resolve_auto(args: EvalArgs, tokenizer, added: Sequence[str]) -> EvalArgs:
    """``args`` with ``auto`` condition and prompt style made concrete for this model: the
    high goal for a checkpoint trained with reward goals, none for one trained without them
    (:func:`rcgrpo.policy.tokenizer.goals_trained`) or, where the checkpoint does not say, for
    a model whose goal tokens were only just added (``added``); the prompt style of
    :func:`rcgrpo.policy.render.resolve_prompt_style`."""
    from rcgrpo.policy.render import resolve_prompt_style
    from rcgrpo.policy.tokenizer import goals_trained

    condition = args.condition
    if condition == "auto":
        trained = goals_trained(tokenizer)
        if trained is None:  # the checkpoint does not say: had it the goal tokens?
            trained = not added
        condition = "high" if trained else "none"
    style = resolve_prompt_style(args.prompt_style, tokenizer)
    return replace(args, condition=condition, prompt_style=style)


def provenance(device: str) -> dict:
    """What made a report: the command line, the checkout's commit, the host, the threads."""
    import sys

    from rcgrpo.precision import probe_host
    from rcgrpo.train.provenance import git_state

    return {
        "argv": sys.argv[1:],
        "git": git_state(),
        "host": probe_host(device).facts(),
        "torch_threads": torch.get_num_threads(),
    }


def _options(tasks: EvalTaskConfig) -> dict:
    """The source's options: the synth preset and caps (synth), none for any other source."""
    from rcgrpo.policy.task_sources import synth_options

    if tasks.source != "synth":
        return {}
    return synth_options(tasks.synth_preset, tasks.max_turns, tasks.max_calls_per_turn)


def run_eval(args: EvalArgs) -> Path:
    """Load, evaluate, write JSON (+ examples .txt); returns the JSON path."""
    from rcgrpo.policy.models import check_model_path, load_policy
    from rcgrpo.policy.task_sources import load_tasks

    check_model_path(args.model, "--model")
    device = (
        args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    )
    model, tokenizer, added = load_policy(args.model, device=device, key="--model")
    args = resolve_auto(args, tokenizer, added)
    tasks = load_tasks(
        args.tasks.source, args.split, args.tasks.split_seed, args.limit, **_options(args.tasks)
    )
    summary, rollouts = evaluate_policy(
        model,
        tokenizer,
        tasks,
        condition=args.condition,
        mode=args.mode,
        prompt_style=args.prompt_style,
        temperature=args.temperature,
        top_p=args.top_p,
        max_new_tokens=args.max_new_tokens,
        max_context=args.max_context,
        batch_size=args.batch_size,
        seed=args.seed,
    )
    source = re.sub(r"[^\w.-]+", "_", args.tasks.source)  # my_tasks:make -> my_tasks_make
    out = output_folder(args) / f"{source}-{args.split}-{args.condition}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "args": asdict(args),
        "num_tasks": len(tasks),
        "added_reward_tokens": added,
        **summary,
        "provenance": provenance(device),
    }
    out.write_text(json.dumps(report, indent=2))
    examples = "\n".join(render_example(tokenizer, r) for r in rollouts[: args.examples])
    out.with_suffix(".txt").write_text(examples)
    return out


def _print_summary(path: Path) -> None:
    report = json.loads(path.read_text())
    rows = [("overall", report["overall"])] + list(report["per_category"].items())
    print(f"{'category':<16}{'n':>5}  {'reward [95% CI]':<24}{'bfcl_valid [95% CI]':<24}")
    for name, s in rows:
        r, v = s["reward"], s["bfcl_valid"]
        print(
            f"{name:<16}{s['n']:>5}  {r['mean']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
            f"    {v['mean']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"
        )
    print(f"wrote {path} and {path.with_suffix('.txt')}")


def main(argv: list[str]) -> int:
    """``python -m rcgrpo eval --model PATH [--option VALUE ...]``; a bad command line is one
    line, exit 2 (:mod:`rcgrpo.cli_options`)."""
    from rcgrpo.cli_options import parse_dataclass

    usage = "python -m rcgrpo eval --model PATH [--option VALUE ...]"
    argv = current_flags(argv)
    args = parse_dataclass(EvalArgs, argv, "python -m rcgrpo eval", usage, required=["model"])
    from rcgrpo.policy.task_sources import resolve_task_source
    from rcgrpo.train.errors import ConfigError

    try:  # bad tasks are one line (exit 2) before the model loads
        resolve_task_source(args.tasks.source)
    except ValueError as err:
        raise ConfigError(f"--tasks.source: {err}") from None
    try:
        _options(args.tasks)
    except ValueError as err:
        raise ConfigError(f"--tasks.synth-preset: {err}") from None
    _print_summary(run_eval(args))
    return 0
