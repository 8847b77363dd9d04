r"""The update section of an RL step: teacher-forced log-probs, the policy loss, optimizer steps.

Per step, on this rank's rollouts of the training batch (whole groups)::

    ref pass      log π_ref under no_grad (when β > 0 or the ratio is against π_ref)
    old pass      log π_old under no_grad (only with several updates per step; with ONE
                  update π_old = π_θ and the ratio is exactly 1, as TRL does)
    for epoch in optim.inner_epochs:
      for minibatch k (groups whose ordinal in the batch ≡ k mod optim.minibatches):
        denominators   GLOBAL token count / non-empty rows of the minibatch (all ranks)
        micro-batches  forward (log-probs, entropy) -> policy_loss(denominator=global) ->
                       backward; gradients accumulate
        all ranks      sum gradients, clip the global norm, check finiteness
        step           AdamW step, or skip it (non-finite loss or gradient, or no tokens)

Each group's rollouts share their first tokens (the prompt up to the reward goal), so with
``optim.share_prefix`` every pass runs a group's shared prefix once and its rollouts on the
prefix's KV cache, computing the output head only at loss-mask positions
(:mod:`rcgrpo.policy.teacher`); ``share_prefix`` False is the per-rollout reference path.

Because every micro-batch loss is divided by the global count, summing gradients over
micro-batches and ranks gives exactly the gradient of the full-batch loss, so N processes
(or any micro-batch size) make the same update as one process with the whole batch.

Log-probs and entropies are those of the tempered distribution softmax(z/τ) at the rollout
temperature τ (the behaviour log-probs' convention, TRL's too); the KL to π_ref compares
both policies at τ. Statistics are returned as local float64 SUMS (token-weighted where the
library gives token means) for :mod:`rcgrpo.train.rl.step_metrics` to reduce over ranks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from rcgrpo.logprobs import token_entropy, token_logprobs
from rcgrpo.losses import policy_loss
from rcgrpo.masks import masked_sum
from rcgrpo.policy.teacher import SharedPrefixForward
from rcgrpo.records import RolloutBatch
from rcgrpo.train.distributed import DistInfo, global_sum, sum_gradients

# which count the loss of each aggregation mode divides by (rcgrpo.aggregation)
DENOMINATOR = {
    "token-mean": "tokens",
    "seq-mean-token-mean": "rows",
    "seq-mean-token-sum": "rows",
    "seq-mean-token-sum-norm": "rows",
}
TOKEN_MEAN_STATS = (
    "policy/ratio_mean",
    "policy/approx_kl_old",
    "policy/kl_ref",
    "policy/clipfrac",
    "policy/clipfrac_low",
    "policy/clipfrac_high",
)
LOSS_STATS = ("loss/total", "loss/pg", "loss/kl", "loss/entropy_bonus")


@dataclass(frozen=True)
class UpdateSettings:
    """The config fields an update reads (each documented at its field of
    :class:`~rcgrpo.train.config.TrainConfig`, named in brackets); :meth:`of` picks them."""

    temperature: float = 1.0
    """τ of the tempered log-probs (``rollout.temperature``)."""
    clip_low: float = 0.2
    """(``algo.clip_low``)"""
    clip_high: float = 0.2
    """(``algo.clip_high``)"""
    kl_beta: float = 0.1
    """(``algo.kl_beta``)"""
    kl_estimator: str = "k3"
    """(``algo.kl_estimator``)"""
    loss_agg: str = "token-mean"
    """(``algo.loss_agg``)"""
    ratio: str = "token"
    """(``algo.ratio``)"""
    ratio_against: str = "old"
    """(``algo.ratio_against``)"""
    entropy_coef: float = 0.0
    """(``algo.entropy_coef``)"""
    norm_length: float = 1024.0
    """Dr. GRPO's L (``algo.norm_length``, 0 there = ``rollout.max_context``)."""
    inner_epochs: int = 1
    """(``optim.inner_epochs``)"""
    minibatches: int = 1
    """(``optim.minibatches``)"""
    micro_batch: int = 0
    """(``optim.micro_batch``)"""
    share_prefix: bool = True
    """(``optim.share_prefix``)"""
    max_grad_norm: float = 1.0
    """(``optim.max_grad_norm``)"""

    @classmethod
    def of(cls, cfg) -> UpdateSettings:
        """The settings of a :class:`~rcgrpo.train.config.TrainConfig`."""
        algo, optim = cfg.algo, cfg.optim
        return cls(
            temperature=cfg.rollout.temperature,
            clip_low=algo.clip_low,
            clip_high=algo.clip_high,
            kl_beta=algo.kl_beta,
            kl_estimator=algo.kl_estimator,
            loss_agg=algo.loss_agg,
            ratio=algo.ratio,
            ratio_against=algo.ratio_against,
            entropy_coef=algo.entropy_coef,
            norm_length=float(algo.norm_length or cfg.rollout.max_context),
            inner_epochs=optim.inner_epochs,
            minibatches=optim.minibatches,
            micro_batch=optim.micro_batch,
            share_prefix=optim.share_prefix,
            max_grad_norm=optim.max_grad_norm,
        )


@dataclass
class TrainBatch:
    """This rank's rollouts of the training batch (whole groups, group-major)."""

    rollouts: list
    """Rollout records."""
    advantages: torch.Tensor
    """[B] advantage of each rollout."""
    ordinal: list[int]
    """[B] ordinal of the rollout's group in the GLOBAL training batch (minibatch key)."""
    high: torch.Tensor | None
    """[B] bool reward token (True = high), None without tokens."""


def teacher_forced(model, batch: dict[str, torch.Tensor], temperature: float, entropy: str):
    """(logp, entropy) [B, T] aligned like the rollout records (token t scored given < t).

    ``entropy``: "none" (returns None), "detached" (no gradient) or "grad". Same alignment as
    :func:`rcgrpo.policy.recompute.sequence_logprobs`, with the entropy from the same logits.
    """
    device = next(model.parameters()).device
    ids = batch["input_ids"].to(device)
    attn = batch["attention_mask"].to(device)
    mask = (batch["loss_mask"].to(device) & attn)[:, 1:]
    logits = model(input_ids=ids, attention_mask=attn.long()).logits[:, :-1]
    logp = token_logprobs(logits, ids[:, 1:], mask, temperature=temperature)
    pad = logp.new_zeros(ids.shape[0], 1)
    ent = None
    if entropy != "none":
        z = logits if entropy == "grad" else logits.detach()
        ent = torch.cat([pad, token_entropy(z, mask, temperature=temperature)], dim=1)
    return torch.cat([pad, logp], dim=1), ent


def padded(rollouts: Sequence, pad_id: int) -> dict[str, torch.Tensor]:
    """[B, T] tensors of ``rollouts`` right-padded to their longest (RolloutBatch.padded)."""
    return RolloutBatch(list(rollouts), len(rollouts), 1).padded(pad_id)


def _rows(values: Sequence[torch.Tensor], width: int) -> torch.Tensor:
    out = torch.zeros(len(values), width, dtype=values[0].dtype, device=values[0].device)
    for b, v in enumerate(values):
        out[b, : v.numel()] = v[:width]
    return out


def micro_batches(rollouts: Sequence, rows: Sequence[int], size: int) -> list[list[int]]:
    """``rows`` cut into micro-batches of ``size`` (0 = one), longest rollouts first, so each
    micro-batch pads little. The update is the same for any cut (global denominators)."""
    ordered = sorted(rows, key=lambda i: -rollouts[i].length)
    size = size or max(1, len(ordered))
    return [ordered[k : k + size] for k in range(0, len(ordered), size)]


def groups_of(ordinal: Sequence[int], rows: Sequence[int]) -> list[list[int]]:
    """``rows`` split by their group ordinal, groups in first-appearance order."""
    out: dict[int, list[int]] = {}
    for i in rows:
        out.setdefault(ordinal[i], []).append(i)
    return list(out.values())


def _group_forward(model, rollouts, rows, temperature, entropy, micro) -> SharedPrefixForward:
    """The teacher-forced passes of one group's ``rows`` (prefix once, loss-mask positions)."""
    return SharedPrefixForward(
        model,
        [rollouts[i].input_ids for i in rows],
        [rollouts[i].loss_mask for i in rows],
        temperature=temperature,
        entropy=entropy,
        chunk_size=micro,
    )


@torch.no_grad()
def frozen_logprobs(
    model, rollouts, pad_id, temperature, micro, ordinal=None
) -> list[torch.Tensor]:
    """Per-rollout 1-D log-probs under ``model`` without gradient (the ref / old passes).

    With ``ordinal`` (the group of each rollout) each group's shared prefix runs once;
    without, every rollout runs on its own (the reference path)."""
    out: list[torch.Tensor] = [torch.empty(0)] * len(rollouts)
    if ordinal is not None:
        for rows in groups_of(ordinal, range(len(rollouts))):
            for chunk in _group_forward(model, rollouts, rows, temperature, "none", micro).chunks():
                for b, j in enumerate(chunk.rows):
                    out[rows[j]] = chunk.logp[b, : rollouts[rows[j]].length]
        return out
    for chunk in micro_batches(rollouts, range(len(rollouts)), micro):
        logp, _ = teacher_forced(
            model, padded([rollouts[i] for i in chunk], pad_id), temperature, "none"
        )
        for b, i in enumerate(chunk):
            out[i] = logp[b, : rollouts[i].length]
    return out


def reduce_sum(x: torch.Tensor, info: DistInfo) -> torch.Tensor:
    """:func:`global_sum` of a CPU tensor on the job's device (NCCL reduces CUDA tensors only)."""
    return global_sum(x.to(info.device), info).cpu()


def needs_ref(settings: UpdateSettings) -> bool:
    """The reference pass runs when β > 0 or the ratio is taken against π_ref."""
    return settings.kl_beta > 0 or settings.ratio_against == "ref"


class UpdateStats:
    """Local float64 sums of one step's updates (see module docstring)."""

    def __init__(self) -> None:
        self.sums: dict[str, float | torch.Tensor] = {}
        self.ratio_max = torch.tensor(float("-inf"), dtype=torch.float64)
        self.ratio_min = torch.tensor(float("inf"), dtype=torch.float64)
        self.grad_norms: list[float] = []
        self.skipped = 0
        self.updates = 0
        self.time_frozen_s = 0.0

    def add(self, name: str, value) -> None:
        self.sums[name] = self.sums.get(name, 0.0) + value.detach().double().cpu()

    def add_loss_stats(self, stats: dict[str, torch.Tensor], entropy, mask, high) -> None:
        n = stats["loss/active_tokens"]
        self.add("tokens", n)
        for key in TOKEN_MEAN_STATS:
            if key in stats:
                self.add(key, stats[key] * n)
        for key in LOSS_STATS:
            if key in stats:
                self.add(key, stats[key])
        ratio_max, ratio_min = (stats[f"policy/ratio_{k}"].double().cpu() for k in ("max", "min"))
        self.ratio_max = torch.maximum(self.ratio_max, ratio_max)
        self.ratio_min = torch.minimum(self.ratio_min, ratio_min)
        self.add("policy/entropy", masked_sum(entropy.detach(), mask))
        if high is not None:
            rows = high.to(mask.device).unsqueeze(1)
            for name, sel in (("high", mask & rows), ("low", mask & ~rows)):
                self.add(f"policy/entropy_{name}", masked_sum(entropy.detach(), sel))
                self.add(f"tokens_{name}", sel.sum())


@dataclass
class LossContext:
    """What every micro-batch loss of one minibatch shares."""

    settings: UpdateSettings
    """What the update reads of the config."""
    cache: dict[str, list[torch.Tensor] | None]
    """Frozen per-rollout log-probs: "ref" (π_ref) and "old" (π_old), or None."""
    denominator: torch.Tensor
    """Global count the minibatch loss divides by (:func:`_denominator`)."""
    stats: UpdateStats
    """Where the loss statistics accumulate."""


def _chunk_loss(batch: TrainBatch, rows: list[int], logp, ent, mask, ctx: LossContext):
    """Policy loss of rollouts ``rows`` from their [c, W] log-probs; backward; its loss."""
    s, cache = ctx.settings, ctx.cache
    width, device = logp.shape[1], logp.device
    old = _rows([cache["old"][i] for i in rows], width) if cache["old"] else logp.detach()
    ref = _rows([cache["ref"][i] for i in rows], width) if cache["ref"] else None
    grad_entropy = s.entropy_coef > 0
    loss, out = policy_loss(
        logp,
        old.to(device),
        None if ref is None else ref.to(device),
        batch.advantages[rows].to(device),
        mask,
        clip_low=s.clip_low,
        clip_high=s.clip_high,
        beta=s.kl_beta,
        kl_estimator=s.kl_estimator,
        agg_mode=s.loss_agg,
        ratio_level=s.ratio,
        ratio_against=s.ratio_against,
        entropy=ent if grad_entropy else None,
        entropy_coef=s.entropy_coef,
        norm_length=s.norm_length,
        denominator=ctx.denominator,
    )
    if loss.requires_grad:  # a chunk without loss tokens has a constant loss
        loss.backward()
    high = None if batch.high is None else batch.high[rows]
    ctx.stats.add_loss_stats(out, ent, mask, high)
    return loss.detach()


def _minibatch_loss(model, batch: TrainBatch, rows, ctx: LossContext, pad_id: int) -> torch.Tensor:
    """Forward + backward of every micro-batch of ``rows``; returns the summed loss."""
    s, total = ctx.settings, torch.zeros((), dtype=torch.float64)
    tau, micro = s.temperature, s.micro_batch
    entropy = "grad" if s.entropy_coef > 0 else "detached"
    if not s.share_prefix:  # the reference path: rows on their own
        for sub in micro_batches(batch.rollouts, rows, micro):
            pad = padded([batch.rollouts[i] for i in sub], pad_id)
            logp, ent = teacher_forced(model, pad, tau, entropy)
            mask = pad["loss_mask"].to(logp.device)
            total += _chunk_loss(batch, sub, logp, ent, mask, ctx).double().cpu()
        return total
    for group in groups_of(batch.ordinal, rows):
        forward = _group_forward(model, batch.rollouts, group, tau, entropy, micro)
        for chunk in forward.chunks():
            sub = [group[j] for j in chunk.rows]
            loss = _chunk_loss(batch, sub, chunk.logp, chunk.entropy, chunk.mask, ctx)
            total += loss.double().cpu()
        forward.backward_prefix()
    return total


def _denominator(batch: TrainBatch, rows: list[int], mode: str, info: DistInfo) -> torch.Tensor:
    """Global count the minibatch loss divides by: loss tokens or non-empty rows."""
    counts = [int(batch.rollouts[i].loss_mask.sum()) for i in rows]
    local = sum(counts) if DENOMINATOR[mode] == "tokens" else sum(c > 0 for c in counts)
    return reduce_sum(torch.tensor(float(local), dtype=torch.float64), info)


def _apply(model, optimizer, loss_sum, max_norm: float, info: DistInfo, stats: UpdateStats) -> bool:
    """Sum gradients over ranks, clip, step unless non-finite; True if the step was applied."""
    params = [p for p in model.parameters() if p.requires_grad]
    for p in params:
        if p.grad is None:  # a rank without rows must still join the all-reduce
            p.grad = torch.zeros_like(p)
    sum_gradients(model, info)
    norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
    loss = reduce_sum(loss_sum.double().cpu(), info)
    finite = bool(torch.isfinite(norm)) and bool(torch.isfinite(loss))
    stats.grad_norms.append(float(norm))
    stats.updates += 1
    if finite:
        optimizer.step()
    else:
        stats.skipped += 1
    optimizer.zero_grad(set_to_none=True)
    return finite


def run_update(
    model,
    ref_model,
    optimizer,
    batch: TrainBatch,
    settings: UpdateSettings,
    info: DistInfo,
    lr: float,
    pad_id: int,
) -> UpdateStats:
    """All optimizer updates of one step (module docstring); returns local statistics."""
    s, tau, micro = settings, settings.temperature, settings.micro_batch
    for group in optimizer.param_groups:
        group["lr"] = lr
    stats = UpdateStats()
    start = time.perf_counter()
    cache: dict[str, list[torch.Tensor] | None] = {"ref": None, "old": None}
    groups = batch.ordinal if s.share_prefix else None
    if needs_ref(s):
        cache["ref"] = frozen_logprobs(ref_model, batch.rollouts, pad_id, tau, micro, groups)
    if s.inner_epochs * s.minibatches > 1:
        cache["old"] = frozen_logprobs(model, batch.rollouts, pad_id, tau, micro, groups)
    stats.time_frozen_s = time.perf_counter() - start
    minibatches = [
        [i for i, o in enumerate(batch.ordinal) if o % s.minibatches == k]
        for k in range(s.minibatches)
    ]
    optimizer.zero_grad(set_to_none=True)
    for _ in range(s.inner_epochs):
        for rows in minibatches:
            denominator = _denominator(batch, rows, s.loss_agg, info)
            if float(denominator) == 0:
                continue  # nothing to learn from on any rank (e.g. DAPO kept no group)
            ctx = LossContext(s, cache, denominator, stats)
            loss_sum = _minibatch_loss(model, batch, rows, ctx, pad_id)
            _apply(model, optimizer, loss_sum, s.max_grad_norm, info, stats)
    return stats
