"""Stage-1 data: expert and failure trajectories, their labels, and the RCTP-FT 1:1 mix.

Every trajectory is a REAL episode: its replies are stepped through ``rcgrpo.env.Episode``
by the batched rollout engine (real backends, real tool outputs, the policy's prompt
rendering), and its label is the reward the engine scored with ``score_trajectory`` —
never an assumption. Sources:

- **expert**: :func:`expert_script` replayed by a ``ScriptedPolicy`` (the task's ground
  truth); **demo**: :func:`demo_script`, the synth suite's imperfect demonstrator (its calls in
  ``Task.meta["demonstration"]``, ``rcgrpo.env.synth_demo``), in the same form. multi_turn: a turn's calls in one reply, then a reply without calls (ends the
  turn); combined: every call of every turn in one reply, then ``[done()]`` as the combined
  prompt asks. An expert trajectory that does not score 1 (e.g. cut by ``max_context``) is
  kept with its real label 0 and never used as a failure.
- **rollout**: samples of a (weaker) model at temperature τ (paper: failures of the base
  model at τ = 0.7), labelled by their own reward.

Conversations are stored WITHOUT a reward goal; :func:`encode_trajectory` adds
``[Reward Goal: <|high_reward|>]`` / ``<|low_reward|>`` from the ACTUAL reward, once, to the
first user message (``render.with_reward_goal``, exactly as rollouts are rendered), and
tokenizes with ``ChatEncoder.encode_conversation`` (the rollout tokenization; loss mask 1 on
assistant tokens only). Failure modes: :mod:`rcgrpo.train.failure_modes`.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import ModelPolicy, ScriptedPolicy, StepView, format_calls
from rcgrpo.policy.render import with_reward_goal
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
from rcgrpo.train.failure_modes import classify_failure
from rcgrpo.train.stage1.config import DEMONSTRATIONS

DONE_REPLY = "[done()]"
NO_CALL_REPLY = "Done."


def expert_script(view: StepView) -> str:
    """The ground truth as replies (module docstring)."""
    return _script_replies(view, view.task.ground_truth)


def demo_script(view: StepView) -> str:
    """The demonstrator's calls as replies, in the form of :func:`expert_script`."""
    if "demonstration" not in view.task.meta:
        raise ValueError(f"task {view.task.id} has no demonstration (a synth suite with decisions)")
    return _script_replies(view, view.task.meta["demonstration"])


SCRIPTS = dict(zip(DEMONSTRATIONS, (expert_script, demo_script), strict=True))
"""Scripted sources of Stage-1 demonstrations (``sft.demonstrations``)."""


def _script_replies(view: StepView, gt: Sequence[Sequence[str]]) -> str:
    if view.mode == "combined":
        calls = [c for turn in gt for c in turn]
        return format_calls(calls) if view.step_in_turn == 0 and calls else DONE_REPLY
    calls = list(gt[view.turn_index]) if view.turn_index < len(gt) else []
    return format_calls(calls) if view.step_in_turn == 0 and calls else NO_CALL_REPLY


@dataclass(frozen=True)
class Trajectory:
    """One labelled episode (no reward goal in its messages)."""

    task_id: str
    category: str
    mode: str
    """Episode mode: multi_turn | combined."""
    source: str
    """expert | demo | rollout."""
    messages: tuple[dict, ...]
    """System prompt, user turns, assistant replies and tool outputs, as rendered."""
    reward: int
    """The environment's R = R_state · R_action of this episode (0 or 1)."""
    failure_mode: str | None
    """:func:`classify_failure` of a reward-0 episode; None when reward is 1."""
    truncated: bool
    """Cut by the context cap or BFCL's step limit."""
    calls_per_turn: tuple[tuple[str, ...], ...] = ()
    """Executed call strings per turn, as the environment recorded them."""


@dataclass(frozen=True)
class Example:
    """One tokenized training sequence."""

    ids: list[int]
    mask: list[int]
    """1 exactly on assistant tokens (content + end-of-message), 0 elsewhere."""
    high: bool | None
    """Reward goal rendered: True high, False low, None none (plain SFT)."""
    task_id: str
    mode: str
    source: str
    weight: tuple[float, ...] | None = None
    """Per-token loss weight (None: 1 everywhere); set on a minimal pair's decision tokens
    (``failures.pair_weight``, :func:`rcgrpo.train.stage1.pairs.weigh_decisions`)."""


def from_rollout(task: Any, rollout: Any, mode: str, source: str) -> Trajectory:
    """Label a rollout by its own scored reward (and failure mode if it failed)."""
    if rollout.reward_high is not None:
        raise ValueError("rollout was conditioned on a reward token; sample failures with none")
    reward = int(rollout.reward)
    return Trajectory(
        task_id=rollout.task_id,
        category=rollout.category,
        mode=mode,
        source=source,
        messages=tuple(dict(m) for m in rollout.messages),
        reward=reward,
        failure_mode=None if reward == 1 else classify_failure(task, rollout, mode),
        truncated=bool(rollout.truncated or rollout.record.truncated),
        calls_per_turn=tuple(tuple(turn) for turn in rollout.calls_per_turn),
    )


def _engine(policy, encoder: ChatEncoder, mode: str, opts: dict[str, Any]) -> RolloutEngine:
    from rcgrpo.env import Episode

    return RolloutEngine(policy, encoder, Episode, mode=mode, **opts)


def expert_trajectories(
    tasks: Sequence[Any],
    encoder: ChatEncoder,
    mode: str,
    source: str = "expert",
    on_done: Any = None,
    **engine_opts: Any,
) -> list[Trajectory]:
    """Replay every task's ground truth (``source`` expert) or demonstration (demo) through
    the real environment (one per task), labelled by the real reward; ``on_done(rollout)``
    once per finished episode (a progress bar).

    ``engine_opts``: ``prompt_style``, ``max_new_tokens``, ``max_context``, ``max_batch`` of
    :class:`~rcgrpo.policy.rollout.RolloutEngine` (``max_context`` is required).
    """
    engine = _engine(ScriptedPolicy(encoder, SCRIPTS[source]), encoder, mode, engine_opts)
    rollouts = engine.run([RolloutJob(t) for t in tasks], on_done=on_done)
    return [from_rollout(t, r, mode, source) for t, r in zip(tasks, rollouts, strict=True)]


@torch.no_grad()
def policy_trajectories(
    model,
    tokenizer,
    tasks: Sequence[Any],
    mode: str,
    temperature: float,
    top_p: float = 1.0,
    seed: int = 0,
    on_done: Any = None,
    **engine_opts: Any,
) -> list[Trajectory]:
    """One sampled episode per task from ``model`` (no reward token), labelled by reward;
    ``on_done(rollout)`` once per finished episode (a progress bar)."""
    encoder = ChatEncoder(tokenizer)
    was_training = model.training
    model.eval()
    policy = ModelPolicy(
        model, sorted(encoder.stop_ids), temperature, top_p, tokenizer.pad_token_id
    )
    try:
        rollouts = _engine(policy, encoder, mode, engine_opts).run(
            [RolloutJob(t) for t in tasks], seed=seed, on_done=on_done
        )
    finally:
        model.train(was_training)
    return [from_rollout(t, r, mode, "rollout") for t, r in zip(tasks, rollouts, strict=True)]


def rctp_mix(
    successes: Sequence[Trajectory], failures: Sequence[Trajectory], seed: int = 0
) -> list[Trajectory]:
    """Exactly 1:1 successes and failures within every mode (paper §2: a 1:1 mix).

    Per mode, n = min(#successes, #failures) of each are drawn without replacement
    (deterministic in ``seed``); the result is shuffled. Labels are checked, not trusted.
    """
    if any(t.reward != 1 for t in successes):
        raise ValueError("successes must all have reward 1")
    if any(t.reward != 0 for t in failures):
        raise ValueError("failures must all have reward 0")
    rng = random.Random(f"rctp-mix/{seed}")
    out: list[Trajectory] = []
    for mode in sorted({t.mode for t in successes} | {t.mode for t in failures}):
        good = [t for t in successes if t.mode == mode]
        bad = [t for t in failures if t.mode == mode]
        n = min(len(good), len(bad))
        out += rng.sample(good, n) + rng.sample(bad, n)
    rng.shuffle(out)
    return out


def has_reward_token(traj: Trajectory) -> bool:
    """Any message holds ``<|high_reward|>`` / ``<|low_reward|>`` (e.g. a sampled reply)."""
    return any(HIGH_TOKEN in m["content"] or LOW_TOKEN in m["content"] for m in traj.messages)


def encode_trajectory(
    encoder: ChatEncoder, traj: Trajectory, conditioned: bool, goal: bool | None = None
) -> Example:
    """Token ids + assistant-only loss mask; with ``conditioned`` the goal of its reward, else
    ``goal`` (True high, False low, None no goal: SFT's goal-free exposure, ``sft.random_goals``)."""
    high = bool(traj.reward == 1) if conditioned else goal
    if has_reward_token(traj):
        raise ValueError(f"trajectory {traj.task_id} already holds a reward token")
    ids, mask = encoder.encode_conversation(with_reward_goal(traj.messages, high))
    return Example(ids, mask, high, traj.task_id, traj.mode, traj.source)


def trajectory_row(traj: Trajectory) -> dict[str, Any]:
    """Plain-data summary for ``trajectories.jsonl`` (messages included)."""
    return dataclasses.asdict(traj) | {
        "messages": list(traj.messages),
        "calls_per_turn": [list(turn) for turn in traj.calls_per_turn],
    }


def rows_to_trajectories(text: str) -> list[Trajectory]:
    """The trajectories of a mix's JSONL text (:func:`rcgrpo.train.stage1.rctp.save_mix`)."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [
        Trajectory(
            **row
            | {
                "messages": tuple(row["messages"]),
                "calls_per_turn": tuple(tuple(t) for t in row["calls_per_turn"]),
            }
        )
        for row in rows
    ]
