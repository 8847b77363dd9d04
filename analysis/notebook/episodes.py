"""Replaying scripted replies through the real environment, and task tables, for notebooks.

:func:`replay` runs a scripted policy (default: the ground truth, as
:func:`rcgrpo.policy.oracle_script` writes it) through :class:`rcgrpo.env.Episode` and
returns the whole conversation as the policy would see it — the system prompt of a prompt
style, the user turns with the reward goal, every assistant reply and tool result — plus
the reward record. No model or tokenizer is involved, so it is instant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from rcgrpo.env import Episode, RewardRecord, Task
from rcgrpo.policy.policies import StepView, oracle_script
from rcgrpo.policy.render import initial_messages


@dataclass(frozen=True)
class Replay:
    """One scripted episode: the conversation and its reward record."""

    messages: list[dict]
    """System prompt (by style), user turns (goal appended), assistant replies, tool results."""
    record: RewardRecord
    steps: int
    """Assistant replies sent."""


def replay(
    task: Task,
    mode: str = "multi_turn",
    style: str = "compact",
    high: bool | None = None,
    script: Callable[[StepView], str] = oracle_script,
    episode: Episode | None = None,
) -> Replay:
    """Run ``script`` (a function of a :class:`StepView`) through a real episode of ``task``.

    ``high`` adds the reward goal (True/False) to the first user message; the environment
    never sees it. The episode ends by its own rules (a reply without calls ends a turn,
    ``done()`` ends combined mode, the step limit force-quits).
    """
    ep = episode or Episode()
    first = ep.reset(task, mode)
    messages = initial_messages(first, ep.available_functions, style=style, high=high)
    step_in_turn = 0
    while not ep.done:
        view = StepView(task, mode, ep.turn_index, step_in_turn, tuple(messages))
        reply = script(view)
        messages.append({"role": "assistant", "content": reply})
        result = ep.step(reply)
        messages.extend(result.messages)
        step_in_turn = 0 if result.info["turn_ended"] else step_in_turn + 1
    return Replay(messages, ep.score(), ep.num_steps)


def format_conversation(messages: Sequence[dict], max_chars: int | None = 600) -> str:
    """Plain text of a conversation, one ``[role]`` block per message; contents longer
    than ``max_chars`` are cut with a note of how much was left out (None = never)."""
    if max_chars is not None and max_chars < 1:
        raise ValueError(f"max_chars must be >= 1 or None, got {max_chars}")
    blocks = []
    for m in messages:
        text = str(m["content"])
        if max_chars is not None and len(text) > max_chars:
            text = f"{text[:max_chars]} … ({len(text) - max_chars:,} more characters)"
        blocks.append(f"[{m['role']}]\n{text}")
    return "\n\n".join(blocks)


def task_frame(tasks: Sequence[Task], request_chars: int = 80) -> pd.DataFrame:
    """One row per task: id, category, turns, ground-truth calls, classes, first request."""
    rows = []
    for t in tasks:
        first = next((m["content"] for turn in t.turns for m in turn), "")
        rows.append(
            {
                "id": t.id,
                "category": t.category,
                "turns": t.num_turns,
                "gt_calls": sum(len(turn) for turn in t.ground_truth),
                "classes": ", ".join(t.involved_classes),
                "first_request": first[:request_chars],
            }
        )
    return pd.DataFrame(rows)
