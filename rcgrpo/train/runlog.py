"""Run folders and metric sinks: JSONL is the source of truth, TensorBoard a second sink.

A run folder::

    runs/<name>/config.json        resolved config (written once, at start)
               metrics.jsonl       one JSON object per logged step: {"step", "time", <metric>: float}
               metrics.jsonl.gz    the same rows gzip-compressed (a committed light copy)
               rollouts.jsonl      one JSON object per rollout (the per-rollout table)
               rollouts.jsonl.gz   the same table gzip-compressed (a committed light copy)
               conversations.jsonl each rollout's messages (not in the light copies)
               events.out.tfevents.*   TensorBoard scalars (same names as metrics.jsonl)
               checkpoints/step_N/ save_pretrained + trainer_state.pt + manifest.json
               eval/*.json         held-out evaluations (``*.json.gz`` in a light copy)

Only the main process (rank 0) writes. On resume, lines logged after the resumed step are
dropped, so a resumed run's files equal those of an uninterrupted run.

The trainer appends to ``rollouts.jsonl`` and ``metrics.jsonl``; a light copy stores them as
``rollouts.jsonl.gz`` and ``metrics.jsonl.gz`` (:func:`compress_table`: gzip of the same bytes,
mtime 0, no file name, level :data:`GZIP_LEVEL`), ``pandas.read_json(path, lines=True)`` reads
either. Every reader of a folder's table opens it with :func:`open_table`, which takes
whichever form the folder holds, and finds its metrics with :func:`metrics_file`.
"""

from __future__ import annotations

import gzip
import json
import math
import struct
import time
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

METRICS = "metrics.jsonl"
"""The logged metrics as the trainer writes them (one JSON object a logged step, appended)."""
METRICS_GZ = METRICS + ".gz"
"""The same rows gzip-compressed (:func:`compress_table`), as a light copy stores them."""
METRICS_FORMS = (METRICS, METRICS_GZ)
"""The names a run folder's metrics may have, at most one of them present."""
ROLLOUTS = "rollouts.jsonl"
"""The per-rollout table as the trainer writes it (one JSON object a line, appended)."""
ROLLOUTS_GZ = ROLLOUTS + ".gz"
"""The same table gzip-compressed (:func:`compress_table`), as a light copy stores it."""
TABLE_FORMS = (ROLLOUTS, ROLLOUTS_GZ)
"""The names a run folder's per-rollout table may have, at most one of them present."""
GZIP_LEVEL = 9
"""zlib level of :func:`gzip_bytes` (the level is part of the bytes, so it is fixed)."""
GZIP_HEADER = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 0xFF])
"""RFC 1952 header of :func:`gzip_bytes`: deflate, no flags (no file name), mtime 0, XFL 2
(the slowest level), OS 255 (unknown): no byte of it depends on the machine or Python."""


@dataclass(frozen=True)
class RunPaths:
    """The files of one run folder."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def metrics(self) -> Path:
        return self.root / METRICS

    @property
    def rollouts(self) -> Path:
        return self.root / ROLLOUTS

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


def gzip_bytes(data: bytes) -> bytes:
    """``data`` as one gzip member, the same bytes on every run: the fixed
    :data:`GZIP_HEADER` (Python's own ``gzip.compress`` writes OS 255 or 3 by version), a raw
    deflate stream of zlib at level :data:`GZIP_LEVEL`, window 2^15, memLevel 8, then CRC-32
    and length (RFC 1952). The deflate bytes are zlib's; another deflate library (zlib-ng)
    may encode the same text differently, which every gzip reader decodes alike."""
    deflate = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, 8)
    body = deflate.compress(data) + deflate.flush()
    return GZIP_HEADER + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def compress_table(src: Path, dst: Path) -> Path:
    """Write :func:`gzip_bytes` of the file ``src`` to ``dst`` (aside, then renamed, so a
    kill never leaves half a file); ``gzip.decompress`` of it gives the bytes of ``src``."""
    data = Path(src).read_bytes()
    tmp = Path(dst).with_name(Path(dst).name + ".tmp")
    tmp.write_bytes(gzip_bytes(data))
    tmp.replace(dst)
    return Path(dst)


def open_jsonl(path: Path) -> IO[bytes]:
    """A JSONL file opened for reading bytes, decompressed when its name ends in ``.gz``."""
    path = Path(path)
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")


def stored_file(folder: Path, forms: tuple[str, str]) -> Path | None:
    """The file of run folder ``folder`` stored under one of ``forms`` (plain, compressed:
    :data:`TABLE_FORMS`, :data:`METRICS_FORMS`), None when it has neither; both present is an
    error naming them."""
    found = [Path(folder) / name for name in forms if (Path(folder) / name).is_file()]
    if len(found) > 1:
        raise ValueError(
            f"{folder} holds both {forms[0]} and {forms[1]}: keep one "
            f"(python -m analysis.runs.pack {folder} compresses the plain one)"
        )
    return found[0] if found else None


def table_file(folder: Path) -> Path | None:
    """The per-rollout table of run folder ``folder`` (``rollouts.jsonl`` or
    ``rollouts.jsonl.gz``), None when it has neither; both present is an error."""
    return stored_file(folder, TABLE_FORMS)


def metrics_file(folder: Path) -> Path | None:
    """The logged metrics of run folder ``folder`` (``metrics.jsonl`` or
    ``metrics.jsonl.gz``), None when it has neither; both present is an error."""
    return stored_file(folder, METRICS_FORMS)


def open_table(folder: Path) -> IO[bytes]:
    """The per-rollout table of run folder ``folder``, plain or compressed, as a stream of
    JSONL bytes (the bytes the trainer wrote): the one way a reader opens it."""
    path = table_file(folder)
    if path is None:
        raise FileNotFoundError(f"{folder} has no per-rollout table ({ROLLOUTS}[.gz])")
    return open_jsonl(path)
