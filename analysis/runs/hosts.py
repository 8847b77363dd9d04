"""The kind of CPU a run trained on: AVX-512 or AVX2 (floating-point results differ between
them, so a paired claim is also read on the pairs that ran on one kind).

An RL run from 2026-12-05 on records its host in ``summary.json`` (``host``, the facts of
:meth:`rcgrpo.precision.Host.facts`); for an older committed run the record is
``hosts.json`` beside it (``results/regime/hosts.json``: run name -> ``cpu`` and the source
of that fact, the session that trained it).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from analysis.runs.folder import Run

HOSTS_FILE = "hosts.json"
"""The record of older runs' hosts, in the folder that holds the run folders."""
KINDS = {"AVX512": "AVX-512", "AVX2": "AVX2"}
"""``torch.backends.cpu.get_cpu_capability()`` -> the kind tables show."""
UNKNOWN = "?"


@functools.lru_cache(maxsize=8)
def _records(folder: Path) -> dict[str, dict]:
    path = folder / HOSTS_FILE
    return json.loads(path.read_text())["runs"] if path.is_file() else {}


def cpu_kind(run: Run) -> str:
    """``AVX-512``, ``AVX2`` or ``?`` (neither recorded) for ``run`` (module docstring)."""
    host = run.summary.get("host") or {}
    if host.get("cpu_capability"):
        return KINDS.get(host["cpu_capability"], host["cpu_capability"])
    record = _records(Path(run.root).resolve().parent).get(run.name, {})
    return record.get("cpu", UNKNOWN)
