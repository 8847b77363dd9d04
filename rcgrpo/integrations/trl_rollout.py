"""TRL ``rollout_func``: per-rollout reward goals and multi-turn episodes through our engine.

TRL (1.16) calls ``rollout_func(prompts, trainer)`` once per generation round with this
process's slice of the repeated batch (each dataset row G times in a row, no further
duplication) and expects per rollout ``prompt_ids``, ``completion_ids`` and ``logprobs``;
an ``env_mask`` (1 = model token) becomes its tool mask, so only generated tokens enter the
loss, and any other key reaches the reward functions. Per rollout, :class:`EpisodeRollout`

1. draws the reward goal from the global grid (:func:`rcgrpo.integrations.goals.local_goals`;
   training: the configured scheme, evaluation: ``<|high_reward|>`` as in the paper);
2. runs the task through :class:`rcgrpo.policy.RolloutEngine` and :class:`rcgrpo.env.Episode`
   (synth or BFCL tasks, ``multi_turn`` or ``combined``), with the goal appended once to the
   first user message by :func:`rcgrpo.policy.render.initial_messages`;
3. returns prompt = system + first user message(s) + assistant header, completion = the rest
   of the conversation (assistant messages, tool results, later user turns), ``env_mask`` = the
   engine's loss mask, the behaviour log-probs, and ``rc_reward`` (the environment's R,
   which equals ``score_trajectory`` on the executed calls), ``rc_high``, ``rc_calls``,
   ``rc_task_id``, counts (``rc_num_calls``, ``rc_num_steps``, ``rc_truncated``) and
   ``rc_row``, the trainer's per-rollout table row (:func:`rcgrpo.train.rollouts.rollout_row`),
   so TRL's ``rollouts.jsonl`` holds every field of ``python -m rcgrpo train``'s.

The task of a row comes from its ``task_id`` column (TRL passes only the prompts, so
:class:`rcgrpo.integrations.trl.RCGRPOTrainer` hands the rows over as ``trainer.rc_rows``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from rcgrpo.conditioning import goal_schemes
from rcgrpo.env import Episode
from rcgrpo.integrations.goals import local_goals, round_seed
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import Generation, ModelPolicy, Policy, Request
from rcgrpo.policy.render import resolve_prompt_style
from rcgrpo.policy.rollout import MODES, RolloutEngine, RolloutJob
from rcgrpo.records import Rollout
from rcgrpo.train.rollouts import rollout_row
from rcgrpo.validation import check_choice, check_positive_int, check_probability

BACKENDS = ("transformers", "vllm")


@dataclass(frozen=True)
class RolloutSettings:
    """How rollouts are drawn inside TRL's loop."""

    scheme: str = "iid"
    """Reward goal per rollout, a name of :func:`rcgrpo.conditioning.goal_schemes`: iid
    (paper) | stratified | high | low."""
    p_high: float = 0.5
    """P(<|high_reward|>) for iid / stratified (paper: 0.5)."""
    mode: str = "combined"
    """Episode mode: combined (the paper's RL mode) | multi_turn."""
    prompt_style: str = "compact"
    """System prompt style: compact | bfcl | bare | auto (the model's own: compact for this
    project's from-scratch models, bfcl for a pretrained chat template; rcgrpo.policy.render)."""
    max_new_tokens: int = 96
    """Cap on tokens per assistant message."""
    max_context: int | None = None
    """Cap on a whole conversation in tokens (None: the model's max_position_embeddings)."""
    max_steps_per_turn: int = 20
    """BFCL force-quit limit per turn."""
    max_batch: int = 64
    """Episodes generated in parallel on one process."""
    seed: int = 0
    """Seed of the goal draws and of the sampler (mixed with the round and the process)."""
    backend: str = "transformers"
    """Generator: transformers (the trained model itself; CPU) | vllm (TRL's colocated vLLM)."""

    def __post_init__(self) -> None:
        check_choice("scheme", self.scheme, goal_schemes())
        check_probability("p_high", self.p_high)
        check_choice("mode", self.mode, MODES)
        check_positive_int("max_new_tokens", self.max_new_tokens)
        check_positive_int("max_steps_per_turn", self.max_steps_per_turn)
        check_positive_int("max_batch", self.max_batch)
        check_choice("backend", self.backend, BACKENDS)


class VLLMPolicy:
    """Our :class:`~rcgrpo.policy.policies.Policy` on TRL's ``VLLMGeneration``, one prompt per
    rollout (``num_generations=1``: nothing is de-duplicated). No KV cache survives a step:
    each message re-sends the whole conversation (vLLM's prefix cache reuses it)."""

    def __init__(self, vllm_generation: Any, stop_ids: Sequence[int]):
        self.vllm = vllm_generation
        self.stop_ids = frozenset(int(i) for i in stop_ids)
        self.max_context = None
        self.context: dict[int, list[int]] = {}

    def begin_run(self, seed: int) -> None:
        self.context = {}

    def generate(self, requests: list[Request]) -> list[Generation]:
        if not requests:
            return []
        for req in requests:
            self.context[req.slot] = self.context.get(req.slot, []) + list(req.new_ids)
        prompts = [self.context[req.slot] for req in requests]
        _, ids, logprobs, _ = self.vllm.generate(prompts=prompts, images=None, num_generations=1)
        out = []
        for req, row, lps in zip(requests, ids, logprobs, strict=True):
            row, lps = list(row)[: req.max_tokens], [lp[0] for lp in lps][: req.max_tokens]
            stop = next((k for k, tok in enumerate(row) if tok in self.stop_ids), None)
            if stop is not None:
                row, lps = row[: stop + 1], lps[: stop + 1]
            self.context[req.slot] += row
            out.append(Generation(row, lps))
        return out


def rollouts_to_trl(rollouts: Sequence[Rollout]) -> dict[str, list]:
    """TRL's ``rollout_func`` output (module docstring) from our rollout records."""
    out: dict[str, list] = {k: [] for k in ("prompt_ids", "completion_ids", "logprobs")}
    extra = ("env_mask", "rc_reward", "rc_high", "rc_calls", "rc_task_id")
    out.update({k: [] for k in (*extra, "rc_num_calls", "rc_num_steps", "rc_truncated", "rc_row")})
    for r in rollouts:
        cut = r.prompt_length
        if cut >= r.length:
            raise ValueError(f"task {r.task_id}: the prompt does not fit max_context")
        out["prompt_ids"].append(r.input_ids[:cut].tolist())
        out["completion_ids"].append(r.input_ids[cut:].tolist())
        out["logprobs"].append(r.behaviour_logprobs[cut:].tolist())
        out["env_mask"].append(r.loss_mask[cut:].int().tolist())
        out["rc_reward"].append(r.reward)
        out["rc_high"].append(bool(r.reward_high))
        out["rc_calls"].append([list(turn) for turn in r.calls_per_turn])
        out["rc_task_id"].append(r.task_id)
        out["rc_num_calls"].append(int(r.record.num_calls))
        out["rc_num_steps"].append(int(r.num_steps))
        row = rollout_row(r)
        out["rc_truncated"].append(row["truncated"])  # force-quit by the engine or the env
        out["rc_row"].append(row)
    return out


class EpisodeRollout:
    """The ``rollout_func`` (module docstring).

    Args:
        tasks: the tasks a dataset row may name, by ``Task.id``.
        tokenizer: the policy's tokenizer (its chat template renders every message).
        settings: :class:`RolloutSettings`.
        policy_factory: ``(model, trainer) -> Policy``; default: :class:`ModelPolicy` at the
            trainer's temperature / top-p (or :class:`VLLMPolicy` for ``backend="vllm"``).
            Tests pass a scripted policy.
    """

    def __init__(
        self,
        tasks: Sequence[Any],
        tokenizer: Any,
        settings: RolloutSettings | None = None,
        policy_factory: Callable[[Any, Any], Policy] | None = None,
    ):
        self.tasks = {t.id: t for t in tasks}
        if len(self.tasks) != len(tasks):
            raise ValueError("tasks must have unique ids")
        settings = settings or RolloutSettings()
        style = resolve_prompt_style(settings.prompt_style, tokenizer)
        self.settings = dataclasses.replace(settings, prompt_style=style)
        self.encoder = ChatEncoder(tokenizer)
        self.policy_factory = policy_factory or self._default_policy
        self._round = (-1, 0)  # (global step, calls at that step)

    def _default_policy(self, model: Any, trainer: Any) -> Policy:
        if self.settings.backend == "vllm":
            return VLLMPolicy(trainer.vllm_generation, sorted(self.encoder.stop_ids))
        pad = self.encoder.tokenizer.pad_token_id
        stops = sorted(self.encoder.stop_ids)
        return ModelPolicy(model, stops, trainer.temperature, trainer.top_p, pad)

    def next_round(self, step: int) -> int:
        """Index of this call among the calls at optimizer step ``step`` (0, 1, ...)."""
        last, calls = self._round
        self._round = (step, calls + 1 if step == last else 0)
        return self._round[1]

    def goals(self, rows: int, group: int, trainer: Any, training: bool, call: int) -> torch.Tensor:
        """This process's goals for ``rows`` rollouts of round ``call`` (evaluation: all high)."""
        s = self.settings
        seed = round_seed(s.seed, int(trainer.state.global_step), call)
        acc = trainer.accelerator
        scheme = s.scheme if training else "high"
        return local_goals(
            rows, group, acc.process_index, acc.num_processes, scheme=scheme, p=s.p_high, seed=seed
        )

    def run(self, task_ids: Sequence[str], high: torch.Tensor, policy: Policy, seed: int):
        """Episodes of ``task_ids[i]`` under goal ``high[i]``, in order (list of Rollout)."""
        unknown = sorted(set(task_ids) - set(self.tasks))
        if unknown:
            raise ValueError(f"unknown task_id {unknown[0]!r} (not among the trainer's tasks)")
        s = self.settings
        jobs = [
            RolloutJob(self.tasks[t], bool(h), i)
            for i, (t, h) in enumerate(zip(task_ids, high.tolist(), strict=True))
        ]
        engine = RolloutEngine(
            policy,
            self.encoder,
            lambda: Episode(max_steps_per_turn=s.max_steps_per_turn),
            mode=s.mode,
            prompt_style=s.prompt_style,
            max_new_tokens=s.max_new_tokens,
            max_context=s.max_context,
            max_batch=s.max_batch,
        )
        return engine.run(jobs, seed=seed)

    def __call__(self, prompts: list, trainer: Any) -> dict[str, list]:
        rows = getattr(trainer, "rc_rows", None)
        if rows is None or len(rows) != len(prompts):
            raise ValueError(
                "EpisodeRollout needs RCGRPOTrainer (it hands the rows to rollout_func)"
            )
        training = bool(trainer.model.training)
        group = trainer.num_generations if training else trainer.num_generations_eval
        step = int(trainer.state.global_step)
        call = self.next_round(step)
        high = self.goals(len(rows), group, trainer, training, call)
        # the sampler: another stream per round and per process
        seed = (
            round_seed(self.settings.seed + 1, step, call) + trainer.accelerator.process_index
        ) % (1 << 62)
        from trl.models import unwrap_model_for_generation

        args = trainer.args
        with (
            unwrap_model_for_generation(
                trainer.model_wrapped,
                trainer.accelerator,
                gather_deepspeed3_params=args.ds3_gather_for_generation,
                gradient_checkpointing_kwargs=args.gradient_checkpointing_kwargs,
            ) as model,
            torch.no_grad(),
        ):
            model.eval()  # the KV cache of our sampler; TRL reads .training again afterwards
            try:
                policy = self.policy_factory(model, trainer)
                rollouts = self.run([r["task_id"] for r in rows], high, policy, seed)
            finally:
                model.train(training)
        return rollouts_to_trl(rollouts)
