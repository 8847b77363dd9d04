"""Atomic, verifiable checkpoints: model + tokenizer + optimizer + RNG + step + data position.

Layout of ``checkpoints/step_N/``::

    config.json, model.safetensors, tokenizer files   (save_pretrained: opens like any HF model;
                                                       a LoRA run: its adapter, rcgrpo.policy.lora)
    trainer_state.pt     optimizer state, RNG states, step, data position, extra
    manifest.json        {file: [size, sha256]} of everything above

A checkpoint is written into a temporary sibling folder and renamed into place, so a run
killed mid-write (even SIGKILL) leaves either the previous checkpoint set or the complete
new one — never a half-written ``step_N``. :func:`load_trainer_state` verifies the manifest
(:func:`verify_checkpoint`) and raises :class:`CheckpointError` naming the bad file instead
of loading garbage.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

STEP_DIR = re.compile(r"^step_(\d+)$")
STATE_FILE = "trainer_state.pt"
MANIFEST = "manifest.json"


class CheckpointError(RuntimeError):
    """A checkpoint is missing, incomplete or corrupt."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def rng_state(generators: dict[str, torch.Generator] | None = None) -> dict[str, Any]:
    """Every RNG the run draws from: python, numpy, torch (CPU, CUDA) and named generators."""
    state = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
        "generators": {k: g.get_state() for k, g in (generators or {}).items()},
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any], generators: dict[str, torch.Generator] | None = None):
    """Inverse of :func:`rng_state`."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    for name, gen in (generators or {}).items():
        if name not in state["generators"]:
            raise CheckpointError(f"checkpoint has no state for RNG generator {name!r}")
        gen.set_state(state["generators"][name])


def save_checkpoint(
    checkpoints_dir: Path,
    step: int,
    model,
    tokenizer=None,
    optimizer: torch.optim.Optimizer | None = None,
    generators: dict[str, torch.Generator] | None = None,
    data_state: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    keep_last: int | None = None,
) -> Path:
    """Write ``checkpoints_dir/step_{step}`` atomically; return its path."""
    checkpoints_dir = Path(checkpoints_dir)
    checkpoints_dir.mkdir(parents=True, exist_ok=True)
    final = checkpoints_dir / f"step_{step}"
    tmp = checkpoints_dir / f".tmp_step_{step}_{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    from rcgrpo.policy.models import save_policy

    save_policy(model, tokenizer, tmp)  # an adapter run: the adapter only
    state = {
        "step": int(step),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "rng": rng_state(generators),
        "data": data_state or {},
        "extra": extra or {},
    }
    torch.save(state, tmp / STATE_FILE)
    manifest = {
        p.name: [p.stat().st_size, _sha256(p)] for p in sorted(tmp.iterdir()) if p.is_file()
    }
    (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1))
    _fsync_dir(tmp)
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    _fsync_dir(checkpoints_dir)
    if keep_last:
        for old in list_checkpoints(checkpoints_dir)[:-keep_last]:
            shutil.rmtree(old, ignore_errors=True)
    return final


def _fsync_dir(path: Path) -> None:
    for p in [*(q for q in path.iterdir() if q.is_file()), path] if path.is_dir() else []:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def list_checkpoints(checkpoints_dir: Path) -> list[Path]:
    """Complete ``step_N`` folders, sorted by N (temporary folders are ignored)."""
    checkpoints_dir = Path(checkpoints_dir)
    if not checkpoints_dir.is_dir():
        return []
    found = [
        (int(m.group(1)), p) for p in checkpoints_dir.iterdir() if (m := STEP_DIR.match(p.name))
    ]
    return [p for _, p in sorted(found)]


def verify_checkpoint(path: Path) -> None:
    """Raise :class:`CheckpointError` unless every file matches ``manifest.json``."""
    path = Path(path)
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise CheckpointError(f"{path}: no {MANIFEST}; not a complete rcgrpo checkpoint")
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{manifest_path}: unreadable manifest ({exc})") from exc
    for name, (size, digest) in manifest.items():
        f = path / name
        if not f.is_file():
            raise CheckpointError(f"{path}: file {name} listed in the manifest is missing")
        if f.stat().st_size != size or _sha256(f) != digest:
            raise CheckpointError(f"{path}: file {name} is corrupt (size or sha256 mismatch)")


def latest_checkpoint(checkpoints_dir: Path) -> Path | None:
    """The newest checkpoint that verifies; corrupt newer ones are skipped with a warning."""
    for path in reversed(list_checkpoints(checkpoints_dir)):
        try:
            verify_checkpoint(path)
        except CheckpointError as exc:
            warnings.warn(f"skipping corrupt checkpoint: {exc}", stacklevel=2)
            continue
        return path
    return None


def load_trainer_state(path: Path) -> dict[str, Any]:
    """Verify ``path`` and return its trainer state (optimizer, rng, step, data, extra)."""
    verify_checkpoint(path)
    try:
        return torch.load(Path(path) / STATE_FILE, map_location="cpu", weights_only=False)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a corrupt file
        raise CheckpointError(f"{path}/{STATE_FILE}: cannot be loaded ({exc})") from exc
