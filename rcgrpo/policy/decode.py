"""The decode loop of the rollout engine: one assistant message per row, all rows at once.

Each step samples one token for EVERY row of the batch from a [R, V] matrix in row order
(rows that already ended their message get zero logits and their draw is discarded), so
the generator is consumed exactly as by a loop that decodes all rows until the last one
stops: runs are deterministic given the seed, whatever the message lengths. Only the rows
still writing are fed to the model (:meth:`~rcgrpo.policy.kv_batch.KVBatch.decode`). The
bookkeeping is tensor-valued (stop test, caps, counts); ids and log-probs become Python
lists once, at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from rcgrpo.policy.kv_batch import KVBatch
from rcgrpo.policy.sampling import sample_next


def sample_messages(
    kv: KVBatch,
    logits: torch.Tensor,
    caps: Sequence[int],
    stop_ids: torch.Tensor,
    temperature: float,
    top_p: float = 1.0,
    generator: torch.Generator | None = None,
) -> tuple[list[list[int]], list[list[float]]]:
    """Sample a message per row of ``kv``, starting from its next-token ``logits`` [R, V].

    Row r stops after a stop id (``stop_ids`` int64 [S]) or ``caps[r]`` tokens, whichever
    comes first; its last sampled id is NOT fed to the cache (the caller feeds it with the
    row's next chunk). Returns per row the ids and their behaviour log-probs
    (:func:`~rcgrpo.policy.sampling.sample_next`).
    """
    rows = logits.shape[0]
    if rows != kv.rows or len(caps) != rows:
        raise ValueError(f"logits and caps must have one row per cache row ({kv.rows})")
    if min(caps, default=1) < 1:
        raise ValueError(f"caps must be >= 1, got {min(caps)}")
    caps_t = torch.tensor(list(caps), dtype=torch.long)
    steps = int(caps_t.max())
    ids = torch.zeros(steps, rows, dtype=torch.long)
    logps = torch.zeros(steps, rows)
    written = torch.zeros(rows, dtype=torch.long)
    live = torch.ones(rows, dtype=torch.bool)
    stops = stop_ids.cpu()
    for step in range(steps):
        tokens, logp = sample_next(logits, temperature, top_p, generator)
        ids[step], logps[step] = tokens.cpu(), logp.cpu()
        written += live
        live &= ~(torch.isin(ids[step], stops) | (written >= caps_t))
        active = live.nonzero().squeeze(1)
        if active.numel() == 0:
            break
        step_logits = kv.decode(active, ids[step, active])
        logits = step_logits.new_zeros(rows, step_logits.shape[1])
        logits[active.to(logits.device)] = step_logits
    ids_rows, logp_rows = ids.T.tolist(), logps.T.tolist()
    counts = written.tolist()
    return (
        [row[:n] for row, n in zip(ids_rows, counts, strict=True)],
        [row[:n] for row, n in zip(logp_rows, counts, strict=True)],
    )
