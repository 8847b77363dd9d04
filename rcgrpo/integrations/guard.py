"""Refuse TRL configurations under which a group's G rollouts would share one reward goal.

RC-GRPO needs a goal drawn per ROLLOUT (paper §2); two TRL configurations silently turn it
into one goal per GROUP (zero between-goal variance, i.e. plain GRPO):

- a goal stored in the dataset row (a goal string in ``prompt``, or a goal column): TRL's
  ``RepeatSampler`` repeats every row G times, so the whole group reads the same goal;
- vLLM server mode with grouped generation: ``VLLMGeneration.generate`` keeps only
  ``all_prompts[::num_generations]`` and asks the server for ``n=num_generations``
  completions of each (``trl/generation/vllm_generation.py``, trl 1.16.0, lines 602-649),
  so per-rollout prompts collapse to the group's first one.

A third check is not about sharing but about multi-turn rollouts: every vLLM server call
(and every colocated call with tensor parallelism > 1) is a collective over processes,
while episodes take data-dependent numbers of turns, so per-turn generation would hang.

Each check raises ``ValueError`` with a one-line message that says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN

GOAL_MARKERS = (HIGH_TOKEN, LOW_TOKEN, "[Reward Goal:")
"""Text that means a reward goal is already rendered into a prompt."""
GOAL_COLUMNS = ("reward_high", "reward_goal", "reward_token")
"""Dataset columns that would carry one goal per row."""


def _texts(prompt: Any) -> Iterable[str]:
    """Every string in a standard (str) or conversational (list of messages) prompt."""
    if isinstance(prompt, str):
        yield prompt
    elif isinstance(prompt, dict):
        for value in prompt.values():
            yield from _texts(value)
    elif isinstance(prompt, (list, tuple)):
        for item in prompt:
            yield from _texts(item)


def check_dataset_goals(dataset: Any) -> None:
    """Refuse a dataset whose rows carry a reward goal (a goal column or a goal in ``prompt``)."""
    if dataset is None:
        return
    columns = list(getattr(dataset, "column_names", None) or [])
    shared = sorted(set(columns) & set(GOAL_COLUMNS))
    if shared:
        raise ValueError(
            f"dataset-level reward goal (column {shared[0]!r}): TRL repeats each row G times, "
            "so the whole group would share one goal; drop the column, goals are drawn per rollout"
        )
    if "prompt" not in columns:
        return
    for row, prompt in enumerate(dataset["prompt"]):
        marker = next((m for t in _texts(prompt) for m in GOAL_MARKERS if m in t), None)
        if marker is not None:
            raise ValueError(
                f"dataset-level reward goal ({marker!r} in the prompt of row {row}): TRL repeats "
                "each row G times, so the whole group would share one goal; render prompts "
                "without a goal, it is drawn and appended per rollout"
            )


def check_grouped_generation(args: Any, grouped: bool) -> None:
    """Refuse vLLM server mode when TRL generates a group's G completions from one prompt.

    ``grouped``: generation goes through TRL's own path (no ``rollout_func``; also with an
    ``environment_factory``, whose ``reset`` text is appended to each rollout's prompt
    before that path runs), which calls the backend with ``num_generations = G``.
    """
    if grouped and getattr(args, "use_vllm", False) and getattr(args, "vllm_mode", "") == "server":
        raise ValueError(
            "vllm_mode='server' with grouped generation shares one goal per group: TRL keeps "
            "only each group's first prompt (all_prompts[::num_generations]) and samples G "
            "completions of it; use vllm_mode='colocate' or rcgrpo's per-rollout generation"
        )


def check_multi_turn_backend(args: Any) -> None:
    """Refuse vLLM settings whose generate call is a collective (multi-turn would hang)."""
    if not getattr(args, "use_vllm", False):
        return
    if getattr(args, "vllm_mode", "") == "server":
        raise ValueError(
            "vllm_mode='server' is not supported for multi-turn episodes: each generate call "
            "gathers prompts from every process, and episodes take different numbers of turns; "
            "use vllm_mode='colocate'"
        )
    if getattr(args, "vllm_tensor_parallel_size", 1) != 1:
        raise ValueError(
            "vllm_tensor_parallel_size > 1 is not supported for multi-turn episodes: each "
            "colocated generate call gathers prompts over the tensor-parallel group; use 1"
        )


def check_no_shared_goals(args: Any, train_dataset: Any, *, grouped_generation: bool) -> None:
    """All goal-sharing checks of this module (module docstring), in order."""
    check_dataset_goals(train_dataset)
    check_grouped_generation(args, grouped_generation)
