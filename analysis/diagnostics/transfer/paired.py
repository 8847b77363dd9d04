r"""Goal-paired rollouts: the same random stream under ``<|high_reward|>`` and ``<|low_reward|>``.

The engine's sampler (:class:`rcgrpo.policy.policies.ModelPolicy`) draws from ONE generator
per engine run: at each decode step one uniform per row of the live batch, rows that already
stopped included (:func:`rcgrpo.policy.decode.sample_messages`). Which uniform a rollout gets
therefore depends on every other rollout of the run (their lengths, when they finish, which
job fills a freed slot), so two runs that differ in one goal token drift apart in all rows as
soon as one row differs. :class:`PairedPolicy` gives each job its own generator, seeded by
the job (here ``derive_seed(seed, "pair", task.id, k)`` for sample k of a task), and draws a
uniform only for the rows still writing, so a rollout consumes its stream one uniform per
generated token whatever the batch around it:

.. math::
    a_t = \min\{a : C_a > u_t\,C_V\},\qquad C_a = \sum_{b\le a} w_b,\quad
    w = \mathrm{topp}(\mathrm{softmax}(z_t/\tau)),\quad u_t \sim U[0,1)\ \text{(the job's t-th draw)},

the inversion of :func:`rcgrpo.policy.sampling.draw` with the uniform given
(:func:`invert_cdf`). A goal-blind policy then writes token for token the same rollout under
both goals (a law ``tests/unit/analysis/test_transfer.py`` checks); the share of pairs
that differ measures how much the goal token changes what the policy does, sample by sample.
Batch composition still changes the logits in the last float bits (padding), which could
flip a draw only when u lands within rounding of a CDF step.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from rcgrpo.policy.kv_batch import KVBatch
from rcgrpo.policy.policies import Generation, ModelPolicy, Request
from rcgrpo.policy.sampling import top_p_filter


def invert_cdf(weights: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Index per row of ``weights`` [R, V] for uniforms ``u`` [R, 1] float64: the first a with
    C_a > u·C_V, never past the last index of positive weight (as
    :func:`rcgrpo.policy.sampling.draw`). Returns int64 [R]."""
    cdf = weights.double().cumsum(dim=-1)
    index = torch.searchsorted(cdf, u * cdf[:, -1:], right=True).squeeze(1)
    last = weights.shape[1] - 1 - (weights.flip(-1) > 0).long().argmax(dim=-1)
    return torch.minimum(index, last)


def _next_tokens(logits, live, temperature, top_p, generators):
    """(tokens [R], log-probs [R, V]) of one decode step; a uniform only for the live rows."""
    if temperature == 0:
        return logits.float().argmax(-1), logits.float().log_softmax(-1)
    logp = (logits.float() / temperature).log_softmax(dim=-1)
    u = torch.zeros(logits.shape[0], 1, dtype=torch.float64)
    for r in live.nonzero().squeeze(1).tolist():
        u[r] = torch.rand(1, dtype=torch.float64, generator=generators[r])
    return invert_cdf(top_p_filter(logp.exp(), top_p), u), logp


def sample_rows(
    kv: KVBatch,
    logits: torch.Tensor,
    caps: Sequence[int],
    stop_ids: torch.Tensor,
    temperature: float,
    top_p: float,
    generators: Sequence[torch.Generator],
) -> tuple[list[list[int]], list[list[float]]]:
    """:func:`rcgrpo.policy.decode.sample_messages` with row r drawing from
    ``generators[r]``, one uniform per token it writes (module docstring)."""
    rows = logits.shape[0]
    caps_t = torch.tensor(list(caps), dtype=torch.long)
    ids = torch.zeros(int(caps_t.max()), rows, dtype=torch.long)
    logps = torch.zeros(ids.shape)
    written = torch.zeros(rows, dtype=torch.long)
    live = torch.ones(rows, dtype=torch.bool)
    for step in range(ids.shape[0]):
        tokens, logp = _next_tokens(logits, live, temperature, top_p, generators)
        ids[step] = tokens.cpu()
        logps[step] = logp.gather(1, tokens.unsqueeze(1)).squeeze(1).cpu()
        written += live
        live &= ~(torch.isin(ids[step], stop_ids.cpu()) | (written >= caps_t))
        active = live.nonzero().squeeze(1)
        if active.numel() == 0:
            break
        step_logits = kv.decode(active, ids[step, active])
        logits = step_logits.new_zeros(rows, step_logits.shape[1])
        logits[active.to(logits.device)] = step_logits
    counts = written.tolist()
    return (
        [row[:n] for row, n in zip(ids.T.tolist(), counts, strict=True)],
        [row[:n] for row, n in zip(logps.T.tolist(), counts, strict=True)],
    )


class PairedPolicy(ModelPolicy):
    """:class:`~rcgrpo.policy.policies.ModelPolicy` whose job j samples from its own
    generator seeded ``seeds[j]`` (the engine's slot of a job is its index in the run)."""

    def __init__(self, model, stop_ids, temperature, top_p, pad_id, seeds: Sequence[int]):
        self.seeds = list(seeds)
        super().__init__(model, stop_ids, temperature, top_p, pad_id)

    def begin_run(self, seed: int) -> None:
        """Forget all episodes; the run seed is unused (every job has its own)."""
        super().begin_run(seed)
        self.generators: dict[int, torch.Generator] = {}

    def _generator(self, slot: int) -> torch.Generator:
        if slot not in self.generators:
            self.generators[slot] = torch.Generator().manual_seed(self.seeds[slot])
        return self.generators[slot]

    def generate(self, requests: list[Request]) -> list[Generation]:
        """As :meth:`ModelPolicy.generate`, sampling by :func:`sample_rows`."""
        if not requests:
            return []
        by_slot = {req.slot: req for req in requests}
        self._sync_rows([req.slot for req in requests])
        feed = [[*self._pop_unfed(s), *by_slot[s].new_ids] for s in self.row_slots]
        caps = [by_slot[s].max_tokens for s in self.row_slots]
        logits = self.kv.extend(feed)
        gens = [self._generator(s) for s in self.row_slots]
        out_ids, out_lp = sample_rows(
            self.kv, logits, caps, self.stop_tensor, self.temperature, self.top_p, gens
        )
        for slot, ids in zip(self.row_slots, out_ids, strict=True):
            self.unfed[slot] = ids[-1]
        row_of = {s: r for r, s in enumerate(self.row_slots)}
        return [Generation(out_ids[row_of[q.slot]], out_lp[row_of[q.slot]]) for q in requests]


def generated_ids(rollout) -> tuple[int, ...]:
    """The token ids the policy wrote in ``rollout`` (its loss mask), in order."""
    return tuple(rollout.input_ids[rollout.loss_mask].tolist())


def identical_share(
    high: Sequence[tuple[tuple[int, ...], float]], low: Sequence[tuple[tuple[int, ...], float]]
) -> dict[str, float | int]:
    """Over pairs k of (generated ids, reward) under each goal: ``identical`` = the share
    with the same ids, ``same_reward_and_length`` = the share with the same reward and the
    same number of generated ids (looser), ``pairs`` = their number."""
    if len(high) != len(low):
        raise ValueError(f"high and low must pair, got {len(high)} and {len(low)}")
    n = len(high)
    same = sum(h[0] == lo[0] for h, lo in zip(high, low, strict=True))
    loose = sum(h[1] == lo[1] and len(h[0]) == len(lo[0]) for h, lo in zip(high, low, strict=True))
    return {
        "identical": same / n if n else float("nan"),
        "same_reward_and_length": loose / n if n else float("nan"),
        "pairs": n,
    }
