"""Run folders and metric sinks: JSONL is the source of truth, TensorBoard a second sink.

A run folder::

    runs/<name>/config.json        resolved config (written once, at start)
               metrics.jsonl       one JSON object per logged step: {"step", "time", <metric>: float}
               rollouts.jsonl      one JSON object per rollout (the per-rollout table)
               conversations.jsonl each rollout's messages (not in the light copies)
               events.out.tfevents.*   TensorBoard scalars (same names as metrics.jsonl)
               checkpoints/step_N/ save_pretrained + trainer_state.pt + manifest.json
               eval/*.json         held-out evaluations

Only the main process (rank 0) writes. On resume, lines logged after the resumed step are
dropped, so a resumed run's files equal those of an uninterrupted run.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunPaths:
    """The files of one run folder."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def metrics(self) -> Path:
        return self.root / "metrics.jsonl"

    @property
    def rollouts(self) -> Path:
        return self.root / "rollouts.jsonl"

    @property
    def conversations(self) -> Path:
        return self.root / "conversations.jsonl"

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def eval_dir(self) -> Path:
        return self.root / "eval"

    def make(self) -> RunPaths:
        for d in (self.root, self.checkpoints, self.eval_dir):
            d.mkdir(parents=True, exist_ok=True)
        return self


def due(step: int, every: int, total: int) -> bool:
    """A periodic action (log, eval, checkpoint) at ``step`` (finished steps, 1-based): every
    ``every`` steps (0 = never) and always at the last step ``total``."""
    return step == total or (every > 0 and step % every == 0)


def _jsonable(value: Any) -> Any:
    """Floats that JSON cannot hold (NaN, ±inf) become None; everything else passes."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def truncate_jsonl(path: Path, max_step: int, key: str = "step") -> int:
    """Drop lines whose ``key`` > ``max_step`` (and a torn last line); returns lines kept."""
    if not path.exists():
        return 0
    kept: list[str] = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line torn by a kill mid-write
        if row.get(key, -1) <= max_step:
            kept.append(line)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(k + "\n" for k in kept))
    tmp.replace(path)
    return len(kept)


class RunLogger:
    """Writes scalar metrics to ``metrics.jsonl`` (+ TensorBoard) and rollout rows.

    ``validate`` is called on every metrics dict before it is written (e.g. the metric
    registry's name check), so a typo in a metric name fails the run at its first step.
    """

    def __init__(
        self,
        paths: RunPaths,
        *,
        enabled: bool = True,
        tensorboard: bool = True,
        validate=None,
        resume_step: int | None = None,
    ) -> None:
        self.paths = paths
        self.enabled = enabled
        self.validate = validate
        self._tb = None
        if not enabled:
            return
        paths.make()
        if resume_step is not None:
            truncate_jsonl(paths.metrics, resume_step)
            truncate_jsonl(paths.rollouts, resume_step)
            truncate_jsonl(paths.conversations, resume_step)
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self._tb = SummaryWriter(log_dir=str(paths.root), purge_step=resume_step)

    def log(self, step: int, metrics: Mapping[str, float]) -> None:
        """Append one row ``{"step": step, "time": unix, **metrics}``; metrics are floats."""
        if self.validate is not None:
            self.validate(metrics)
        if not self.enabled:
            return
        row = {"step": int(step), "time": round(time.time(), 3)}
        row.update({k: _jsonable(float(v)) for k, v in metrics.items()})
        with self.paths.metrics.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        if self._tb is not None:
            for name, value in metrics.items():
                if math.isfinite(float(value)):
                    self._tb.add_scalar(name, float(value), global_step=step)
            self._tb.flush()

    def log_rows(self, rows: Iterable[Mapping[str, Any]], path: Path | None = None) -> None:
        """Append JSON rows (default: the per-rollout table)."""
        if not self.enabled:
            return
        target = path or self.paths.rollouts
        with target.open("a") as fh:
            for row in rows:
                fh.write(json.dumps({k: _jsonable(v) for k, v in row.items()}) + "\n")

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
            self._tb = None
