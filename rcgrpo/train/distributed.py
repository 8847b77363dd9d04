"""Data-parallel helpers for ``torchrun`` (gloo on CPU, NCCL on GPU).

Groups are never split across ranks: each rank owns whole prompts (all G rollouts of a
prompt), so group statistics are computed locally and exactly. Losses are normalised by
GLOBAL denominators (e.g. the total number of loss tokens over all ranks) and gradients
are SUMMED across ranks, so N processes produce the same update as one process with the
same global batch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class DistInfo:
    """Where this process sits in the job."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    device: str = "cpu"

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def enabled(self) -> bool:
        return self.world_size > 1


def init_distributed(device: str = "auto") -> DistInfo:
    """Initialise torch.distributed from torchrun's env vars; single process otherwise."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    use_cuda = torch.cuda.is_available() and device in ("auto", "cuda")
    dev = f"cuda:{local}" if use_cuda else "cpu"
    if use_cuda:
        torch.cuda.set_device(local)
    if world > 1 and not dist.is_initialized():
        dist.init_process_group(backend="nccl" if use_cuda else "gloo")
    return DistInfo(rank=rank, world_size=world, local_rank=local, device=dev)


def shard_range(num_items: int, info: DistInfo) -> range:
    """The contiguous block of ``num_items`` (prompts) owned by this rank.

    ``num_items`` must divide evenly so every rank does the same amount of work and the
    global batch equals the single-process batch.
    """
    if num_items % info.world_size:
        raise ValueError(
            f"prompts per step ({num_items}) must be divisible by the world size "
            f"({info.world_size}) so groups are never split across ranks"
        )
    per = num_items // info.world_size
    return range(info.rank * per, (info.rank + 1) * per)


def global_sum(x: torch.Tensor, info: DistInfo) -> torch.Tensor:
    """Sum of ``x`` over ranks (identity in a single process)."""
    if not info.enabled:
        return x
    y = x.detach().clone()
    dist.all_reduce(y, op=dist.ReduceOp.SUM)
    return y


def sum_gradients(model: torch.nn.Module, info: DistInfo) -> None:
    """All-reduce (sum) every parameter gradient in one flat buffer."""
    if not info.enabled:
        return
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    offset = 0
    for g in grads:
        n = g.numel()
        g.copy_(flat[offset : offset + n].view_as(g))
        offset += n


def gather_floats(values: list[float], info: DistInfo) -> list[float]:
    """Concatenate per-rank float lists on every rank (for exact global quantiles)."""
    if not info.enabled:
        return list(values)
    out: list[list[float]] = [[] for _ in range(info.world_size)]
    dist.all_gather_object(out, list(values))
    return [v for part in out for v in part]


def barrier(info: DistInfo) -> None:
    if info.enabled:
        dist.barrier()


def shutdown(info: DistInfo) -> None:
    if info.enabled and dist.is_initialized():
        dist.destroy_process_group()
