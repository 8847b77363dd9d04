"""The batched multi-turn rollout engine: policy ⇄ environment, with token bookkeeping.

Loop (one iteration = one assistant message for every live episode)::

    fill free slots from the job queue      Episode.reset -> render (style, reward goal)
                                            -> prompt ids (chat template)
    policy.generate(all live episodes)      ONE batched forward loop (ModelPolicy) with
                                            the KV cache kept across steps
    for each episode:  env.step(text)       observations -> continuation ids (template)
                       finished?            -> score -> Rollout; the slot frees up

Token bookkeeping per episode: ``ids`` (the whole conversation), ``loss_mask`` (1 exactly on
the generated ids, stop token included), behaviour log-probs, message spans and turns.
Caps: ``max_new_tokens`` per message (the cut message is still executed; counted in
``capped_messages``) and ``max_context`` for the whole conversation: an episode whose next
message or observation would not fit ends there with ``truncated=True`` (it is scored on
what it executed). Deterministic given the seed: scheduling is first-in-first-out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from rcgrpo.env.turns import MODES
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import Generation, Policy, Request, StepView
from rcgrpo.policy.render import initial_messages, resolve_prompt_style
from rcgrpo.records import Rollout, RolloutBatch
from rcgrpo.validation import check_choice, check_positive_int


@dataclass(frozen=True)
class RolloutJob:
    """One episode to run."""

    task: Any
    """The ``Task``."""
    reward_high: bool | None = None
    """Reward token for the prompt: True high, False low, None none."""
    prompt_index: int = 0
    group_index: int = 0


@dataclass
class _Live:
    job: RolloutJob
    episode: Any
    messages: list[dict]
    ids: list[int]
    pending: list[int]
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    prompt_length: int = 0
    truncated: bool = False
    capped: int = 0


class RolloutEngine:
    """Runs episodes of ``episode_factory()`` environments under ``policy`` (module docstring).

    Args:
        policy: a :class:`~rcgrpo.policy.policies.Policy` (model sampler or scripted).
        encoder: the :class:`ChatEncoder` of the policy's tokenizer.
        episode_factory: returns a fresh (or reusable) ``rcgrpo.env.Episode``.
        mode: episode mode, ``multi_turn`` or ``combined``.
        prompt_style: ``bfcl`` | ``compact`` | ``bare`` | ``auto`` (the encoder's model's
            style: :func:`rcgrpo.policy.render.resolve_prompt_style`).
        max_new_tokens: cap per assistant message.
        max_context: cap on a conversation in tokens; None = the policy's ``max_context``.
        max_batch: episodes generated in parallel.
    """

    def __init__(
        self,
        policy: Policy,
        encoder: ChatEncoder,
        episode_factory: Callable[[], Any],
        mode: str = "multi_turn",
        prompt_style: str = "compact",
        max_new_tokens: int = 256,
        max_context: int | None = None,
        max_batch: int = 32,
    ):
        check_choice("mode", mode, MODES)
        check_positive_int("max_new_tokens", max_new_tokens)
        check_positive_int("max_batch", max_batch)
        max_context = max_context or getattr(policy, "max_context", None)
        if max_context is None:
            raise ValueError("max_context must be given when the policy has no max_context")
        check_positive_int("max_context", max_context, minimum=2)
        self.policy, self.encoder, self.episode_factory = policy, encoder, episode_factory
        self.mode = mode
        self.prompt_style = resolve_prompt_style(prompt_style, encoder.tokenizer)
        self.max_new_tokens, self.max_context, self.max_batch = (
            max_new_tokens,
            max_context,
            max_batch,
        )

    def run_groups(
        self, tasks: Sequence[Any], group_size: int, reward_high: torch.Tensor | None, seed: int = 0
    ) -> RolloutBatch:
        """G rollouts of each of P tasks; ``reward_high`` bool [P, G] or None (no token)."""
        check_positive_int("group_size", group_size)
        if reward_high is not None and tuple(reward_high.shape) != (len(tasks), group_size):
            raise ValueError(f"reward_high must have shape [P, G] = {(len(tasks), group_size)}")
        jobs = [
            RolloutJob(task, None if reward_high is None else bool(reward_high[p, g]), p, g)
            for p, task in enumerate(tasks)
            for g in range(group_size)
        ]
        return RolloutBatch(self.run(jobs, seed=seed), len(tasks), group_size)

    def run(
        self,
        jobs: Sequence[RolloutJob],
        seed: int = 0,
        on_done: Callable[[Rollout], Any] | None = None,
    ) -> list[Rollout]:
        """Roll out every job; results in job order. ``on_done(rollout)`` is called once per
        finished episode, with its result (a progress bar,
        :class:`rcgrpo.train.progress.EpisodeTally`)."""
        done = on_done or (lambda rollout: None)
        self.policy.begin_run(seed)
        queue = deque(enumerate(jobs))
        live: dict[int, _Live] = {}
        results: list[Rollout | None] = [None] * len(jobs)
        while queue or live:
            while queue and len(live) < self.max_batch:
                slot, job = queue.popleft()
                state = self._start(job)
                if state.truncated:
                    results[slot] = self._finish(state)
                    done(results[slot])
                else:
                    live[slot] = state
            if not live:
                continue
            requests = [self._request(slot, state) for slot, state in live.items()]
            for req, gen in zip(requests, self.policy.generate(requests), strict=True):
                if self._advance(live[req.slot], gen):
                    results[req.slot] = self._finish(live.pop(req.slot))
                    done(results[req.slot])
        return results

    def _start(self, job: RolloutJob) -> _Live:
        episode = self.episode_factory()
        first = episode.reset(job.task, mode=self.mode)
        messages = initial_messages(
            first, episode.available_functions, self.prompt_style, job.reward_high
        )
        ids = self.encoder.prompt_ids(messages)
        truncated = len(ids) >= self.max_context
        ids = ids[: self.max_context]  # a prompt that does not fit: kept cut, nothing generated
        state = _Live(job, episode, messages, ids, pending=list(ids), mask=[0] * len(ids))
        state.logprobs = [0.0] * len(ids)
        state.prompt_length = len(ids)
        state.truncated = truncated
        return state

    def _request(self, slot: int, state: _Live) -> Request:
        turn = state.episode.turn_index
        view = StepView(
            state.job.task, self.mode, turn, sum(t == turn for t in state.turns), state.messages
        )
        budget = min(self.max_new_tokens, self.max_context - len(state.ids))
        return Request(slot, state.pending, budget, view)

    def _advance(self, state: _Live, gen: Generation) -> bool:
        """Append a generated message, step the environment; True when the episode is over."""
        if not gen.ids:
            raise ValueError("a policy returned an empty message")
        start = len(state.ids)
        state.ids += gen.ids
        state.mask += [1] * len(gen.ids)
        state.logprobs += gen.logprobs
        state.spans.append((start, len(state.ids)))
        state.turns.append(state.episode.turn_index)
        content, stopped = self.encoder.split_generated(gen.ids)
        if not stopped and len(state.ids) >= self.max_context:
            state.truncated = True  # cut by the context cap mid-message: not executed
            return True
        state.capped += not stopped
        history = list(state.messages)
        result = state.episode.step(content)
        state.messages += [{"role": "assistant", "content": content}, *result.messages]
        if result.done:
            return True
        stop_id = gen.ids[-1] if stopped else None
        cont = self.encoder.continuation_ids(history, content, stop_id, result.messages)
        if len(state.ids) + len(cont) + 1 > self.max_context:
            state.truncated = True
            return True
        state.ids += cont
        state.mask += [0] * len(cont)
        state.logprobs += [0.0] * len(cont)
        state.pending = cont
        return False

    def _finish(self, state: _Live) -> Rollout:
        ep = state.episode
        return Rollout(
            task_id=state.job.task.id,
            category=state.job.task.category,
            reward_high=state.job.reward_high,
            input_ids=torch.tensor(state.ids, dtype=torch.long),
            loss_mask=torch.tensor(state.mask, dtype=torch.bool),
            behaviour_logprobs=torch.tensor(state.logprobs, dtype=torch.float32),
            prompt_length=state.prompt_length,
            message_spans=tuple(state.spans),
            message_turns=tuple(state.turns),
            calls_per_turn=[list(c) for c in ep.calls_per_turn],
            record=ep.score(),
            num_steps=ep.num_steps,
            num_tool_errors=ep.num_tool_errors,
            truncated=state.truncated,
            capped_messages=state.capped,
            messages=state.messages,
            prompt_index=state.job.prompt_index,
            group_index=state.job.group_index,
        )
