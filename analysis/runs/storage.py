"""What ``results/`` stores: its size, its checkpoint folders and the records that start from
them.

``results/`` holds the light copy of every committed run (logs, configs, evaluations:
:mod:`analysis.campaign.mechanics`) and, of model weights, only the checkpoint folders a later
run or a diagnostic starts from. A *checkpoint folder* is a folder under ``results/`` holding
model weights or an adapter (:data:`WEIGHTS`); each is 7.3 MB for the tiny fp32 Qwen2, so they
are nine tenths of the folder. All stay fp32: stored in half precision, one a later run or a
diagnostic only reads would change its numbers (docs/reproduce.md). A checkpoint is *named* by

- a committed run's ``config.json``: ``init``, ``model.path``, ``failures.policy``,
  ``sft.successes_of`` (:data:`CONFIG_FIELDS`);
- a committed ``campaign.json``: the value after one of :data:`FLAGS` in its ``argv``, and
  in the ``argv`` of every spec it ``needs``;
- a committed diagnostic report (``results/diagnostics/*.json``): a ``checkpoint`` or
  ``init`` field, or the value after one of :data:`FLAGS` in a recorded ``argv`` or
  ``command``;

(:func:`recorded_names`); the campaign designs' ``Checkpoint(...)`` arguments and the
figures, notebooks, instruments and tests that read a committed checkpoint are the test's
other sources (``tests/unit/analysis/test_results_storage.py``). A name is a path whose last
three parts are ``<home>/<run>/<sub>``, wherever it points (``runs/``, ``results/``, an
absolute path); a campaign record writes ``<run>/<sub>``, its home being the record's own.

The size (:func:`index_sizes`) is read from git's index, not the working tree: the blobs a
commit of the tree stores and a clone checks out. Untracked files (a campaign's light copies
before they are committed) do not count until ``git add``; the commit adding them is then the
one whose ``make test`` fails over the budget. A checkpoint removed from the tree stays in
the history of ``main`` (``make restore RUN=<run>/<sub>``, :mod:`analysis.runs.restore`).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from analysis import REPO_ROOT

RESULTS = "results"
"""The committed top folder of the runs."""
DIAGNOSTICS = f"{RESULTS}/diagnostics"
"""Where the diagnostic reports are committed."""
WEIGHTS = re.compile(
    r"(model|pytorch_model|adapter_model)(-\d{5}-of-\d{5})?\.(safetensors|bin)"
    r"|model\.safetensors\.index\.json"
)
"""The file names of model weights (``save_pretrained``: whole, sharded or a LoRA adapter)."""
FLAGS = ("--init", "--model.path", "--failures.policy", "--sft.successes_of")
"""The command-line flags whose value is a checkpoint a run or a diagnostic starts from."""
CONFIG_FIELDS = (("init",), ("model", "path"), ("failures", "policy"), ("sft", "successes_of"))
"""The same, as fields of a run's resolved ``config.json``."""
REPORT_FIELDS = ("checkpoint", "init")
"""The fields of a diagnostic report that name the checkpoint it measured."""
MIB = 1 << 20
"""Bytes in a MiB, the unit of the budget."""
BUDGET_MIB = 600
"""The most ``results/`` may hold in git's index, in MiB (``make test`` fails above it). Set
with ``results/`` at 487.1 MiB: its 60 checkpoints are those a registered campaign design or a
reader starts from; the 24 only finished design history started from were removed, as 19
before them (docs/reproduce.md)."""


def index_sizes(root: Path = REPO_ROOT, under: str = RESULTS) -> dict[str, int]:
    """Bytes of each file git's index holds under ``under`` (module docstring), by path."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-s", "-z", "--", under],
        capture_output=True,
        check=True,
    ).stdout.decode()
    entries = [e.split("\t", 1) for e in listed.split("\0") if e]
    blobs = [(meta.split()[1], path) for meta, path in entries if not meta.startswith("160000")]
    sizes = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-check=%(objectsize)"],
        input="".join(f"{blob}\n" for blob, _ in blobs),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return {path: int(size) for (_, path), size in zip(blobs, sizes, strict=True)}


def checkpoint_folders(paths) -> list[str]:
    """The folders holding model weights (:data:`WEIGHTS`) among file ``paths``, sorted."""
    return sorted({p.rsplit("/", 1)[0] for p in paths if WEIGHTS.fullmatch(p.rsplit("/", 1)[-1])})


def flag_values(argv) -> Iterator[str]:
    """The values of :data:`FLAGS` in an argument list (``--flag value`` or ``--flag=value``)."""
    argv = [a for a in argv if isinstance(a, str)]
    for i, arg in enumerate(argv):
        flag, eq, value = arg.partition("=")
        if flag in FLAGS:
            if eq:
                yield value
            elif i + 1 < len(argv):
                yield argv[i + 1]


def _config_values(config: dict) -> Iterator[str]:
    for fields in CONFIG_FIELDS:
        value = config
        for f in fields:
            value = value.get(f) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            yield value


def _spec_values(spec: dict) -> Iterator[str]:
    """A ``campaign.json`` spec's checkpoint arguments and those of the specs it needs."""
    yield from flag_values(spec.get("argv") or [])
    for needed in (spec.get("needs") or {}).values():
        yield from _spec_values(needed)


def _report_values(node) -> Iterator[str]:
    """A diagnostic report's checkpoint fields and checkpoint arguments, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in REPORT_FIELDS and isinstance(value, str):
                yield value
            elif key == "command" and isinstance(value, str):
                yield from flag_values(shlex.split(value))
            else:
                yield from _report_values(value)
    elif isinstance(node, list):
        yield from flag_values(node)
        for item in node:
            if isinstance(item, dict | list):
                yield from _report_values(item)


def resolve(name: str, folders, home: str | None = None) -> str | None:
    """The checkpoint folder of ``folders`` (``results/<home>/<run>/<sub>``) that ``name``
    points to: its last three parts, or with two parts (a campaign record's ``<run>/<sub>``)
    the folder in ``home``, else the one folder of that run in any home; None when it points
    to none of them."""
    parts = PurePosixPath(name.rstrip("/")).parts
    by_tail = {tuple(f.split("/")[-3:]): f for f in folders}
    if len(parts) >= 3:
        return by_tail.get(parts[-3:])
    if len(parts) != 2:
        return None
    if (home, *parts) in by_tail:
        return by_tail[(home, *parts)]
    anywhere = [f for tail, f in by_tail.items() if tail[1:] == parts]
    return anywhere[0] if len(anywhere) == 1 else None


def recorded_names(paths, root: Path = REPO_ROOT) -> dict[str, set[str]]:
    """Checkpoint folder -> the committed records among ``paths`` that name it (module
    docstring); a folder no record names is absent."""
    folders = checkpoint_folders(paths)
    named: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        if path.startswith(f"{DIAGNOSTICS}/") and path.endswith(".json"):
            values, home = _report_values(json.loads((root / path).read_text())), None
        elif len(parts) == 4 and parts[-1] == "config.json":
            values, home = _config_values(json.loads((root / path).read_text())), None
        elif len(parts) == 4 and parts[-1] == "campaign.json":
            values, home = _spec_values(json.loads((root / path).read_text())), parts[1]
        else:
            continue
        for value in values:
            folder = resolve(value, folders, home)
            if folder is not None:
                named.setdefault(folder, set()).add(path)
    return named
