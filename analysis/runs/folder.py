"""One run folder: its files, whether its run finished, and reading it (layout:
:mod:`rcgrpo.train.runlog`).

The run-data layer (:mod:`analysis.runs`) is the only reader of run folders: figures,
verdicts, the report, the campaign and the notebooks read a run's ``config.json``,
``summary.json``, metrics, rollouts, evaluations and conversations through :class:`Run`,
decide whether it finished with :func:`is_finished` and hash its files with
:func:`digests`, so a change of the on-disk format touches this package only.

The per-rollout table is ``rollouts.jsonl`` in a training folder and ``rollouts.jsonl.gz`` in
a light copy (:func:`copy_light_file`), the logged metrics ``metrics.jsonl`` and
``metrics.jsonl.gz`` (:data:`STORED_AS`), and so is each held-out evaluation:
``eval/<name>.json`` as the trainer writes it, ``eval/<name>.json.gz`` in a light copy
(:func:`copy_light_dir`, :func:`eval_files`); :mod:`analysis.runs.pack` converts an older copy. Either form is read
alike, and a compressed file is hashed as the text it holds and named in :func:`digests` by
its plain name, so the two forms of one file have one digest and one key.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from rcgrpo.train.rl.resume import MARKER
from rcgrpo.train.runlog import (
    METRICS,
    METRICS_FORMS,
    ROLLOUTS,
    TABLE_FORMS,
    RunPaths,
    compress_table,
    gzip_bytes,
    open_jsonl,
    stored_file,
    table_file,
)

SUMMARY = "summary.json"
"""Written by the trainer (both stages) when the run ends, last of its files."""
COMPLETE = ".complete"
"""Written by the campaign into a run's folder after its command exited 0
(:func:`analysis.campaign.mechanics.run_all`); its light copy keeps it."""
LIGHT_FILES = ("config.json", METRICS, ROLLOUTS, SUMMARY, "data.json")
"""The files of a run that :class:`Run` reads besides :data:`LIGHT_DIRS` and the full
conversations: what a campaign light copy keeps and what a figure's sidecar hashes. The
metrics and the per-rollout table may be stored compressed (:data:`STORED_AS`)."""
STORED_AS = {METRICS: METRICS_FORMS, ROLLOUTS: TABLE_FORMS}
"""The names a light file may be stored under, where there is more than its own: its plain
name and the gzip-compressed one a light copy stores (:func:`copy_light_file`)."""
LIGHT_DIRS = ("eval",)
"""The folders of a run whose every file :class:`Run` may read (held-out evaluations)."""
SAMPLE_CONVERSATIONS = "conversations.jsonl.gz"
"""A light copy's committed sample of conversations (rows as in ``conversations.jsonl``)."""
SAMPLE_SOURCE = "conversations.source.json"
"""How that sample was made: see :mod:`analysis.campaigns.pool.conversation_sample`."""
GROUP_KEYS = ("step", "round", "prompt")
"""The columns of the per-rollout table (:attr:`Run.rollouts`) that identify a group: the G
rollouts of one prompt in one generation round of one step."""
STEP_EVAL = re.compile(r"step_(\d+)")
"""The name (without ``.json``) of a held-out evaluation in ``eval/``: ``step_<N>``."""
EVAL_FORMS = (".json", ".json.gz")
"""The suffixes of a held-out evaluation ``eval/<name>``: the trainer writes ``.json``, a light
copy stores ``.json.gz`` (:func:`copy_light_dir`); one name in both forms is an error."""
GZ = ".gz"
"""The suffix of a gzip-compressed light file (:func:`rcgrpo.train.runlog.gzip_bytes`)."""


def is_finished(path: str | Path) -> bool:
    """Whether the run in folder ``path`` reached its end: the one completion test, for every
    reader and for the campaign. Its end is recorded by ``summary.json`` (the trainer writes
    it last) or by the campaign's :data:`COMPLETE` marker (written after the command exited
    0); a folder with neither is a run still going, killed or failed."""
    path = Path(path)
    return (path / SUMMARY).is_file() or (path / COMPLETE).is_file()


def light_globs(runs: str, root: Path) -> tuple[str, ...]:
    """Glob patterns (relative to ``root``) of the light files of the run folders matching
    the glob ``runs``: one per :data:`LIGHT_FILES` entry that at least one of them has, and
    one per non-empty :data:`LIGHT_DIRS` folder (``eval/*``; a clone has no empty folder) — a
    figure's ``INPUTS`` that read run folders outside a campaign."""
    folders = sorted(p for p in Path(root).glob(runs) if p.is_dir())
    stored = [n for f in LIGHT_FILES for n in STORED_AS.get(f, (f,))]
    names = [f for f in stored if any((d / f).is_file() for d in folders)]
    names += [f"{d}/*" for d in LIGHT_DIRS if any(any((f / d).glob("*")) for f in folders)]
    return tuple(f"{runs}/{n}" for n in names)


def file_digest(path: Path) -> str | None:
    """The first 16 hex digits of the file's SHA-256, None when it does not exist; of a
    compressed file (``.gz``: ``metrics.jsonl.gz``, ``rollouts.jsonl.gz``,
    ``eval/<name>.json.gz``), the SHA-256 of the text it holds, so compressing a file keeps
    its digest."""
    path = Path(path)
    if not path.is_file():
        return None
    return _digest(*_version(path))


@functools.lru_cache(maxsize=4096)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    """:func:`file_digest` of ``path`` at version (``mtime_ns``, ``size``): hashed once (a
    figure build hashes the same committed runs for each figure that reads them)."""
    if path.endswith(GZ):
        with open_jsonl(Path(path)) as fh:
            return hashlib.sha256(fh.read()).hexdigest()[:16]
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _stored(root: Path, name: str) -> Path:
    """Where light file ``name`` of run folder ``root`` is, in whichever of its
    :data:`STORED_AS` forms the folder holds (its own name when absent; both: ValueError)."""
    forms = STORED_AS.get(name)
    return (stored_file(root, forms) if forms else None) or root / name


def digests(root: str | Path, files: tuple[str, ...] = LIGHT_FILES) -> dict[str, str | None]:
    """:func:`file_digest` of each of ``files`` (None for one the run does not have) and of
    every file in :data:`LIGHT_DIRS`, by path relative to the run folder ``root``; a file
    under its plain name whichever form the folder stores (``metrics.jsonl``,
    ``rollouts.jsonl``, ``eval/step_0.json``)."""
    root = Path(root)
    out: dict[str, str | None] = {f: file_digest(_stored(root, f)) for f in files}
    for folder in LIGHT_DIRS:
        for path in sorted((root / folder).glob("*")):
            if path.is_file():
                out[path.relative_to(root).as_posix().removesuffix(GZ)] = file_digest(path)
    return out


def eval_files(root: str | Path) -> dict[str, Path]:
    """The held-out evaluations of run folder ``root`` by name (``step_0``): each file
    ``eval/<name>.json`` or ``eval/<name>.json.gz`` (:data:`EVAL_FORMS`), in name order; {}
    without an ``eval/`` folder. ValueError when one name is stored in both forms."""
    folder, out = RunPaths(Path(root)).eval_dir, {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.iterdir()):
        suffix = next((s for s in EVAL_FORMS[::-1] if path.name.endswith(s)), None)
        if suffix is None or not path.is_file():
            continue
        name = path.name.removesuffix(suffix)
        if name in out:
            raise ValueError(
                f"{folder} holds both {name}.json and {name}.json.gz: keep one "
                f"(python -m analysis.runs.pack {root} compresses the plain one)"
            )
        out[name] = path
    return out


def copy_light_file(src: Path, dst: Path, name: str) -> Path | None:
    """Copy light file ``name`` of run folder ``src`` into folder ``dst``, as a light copy
    stores it: the metrics and the per-rollout table compressed (``metrics.jsonl.gz``,
    ``rollouts.jsonl.gz``: :data:`STORED_AS`, :func:`rcgrpo.train.runlog.compress_table`),
    any other file as it is. Returns the file written, None when ``src`` has no such file."""
    path = _stored(Path(src), name)
    if not path.is_file():
        return None
    if name in STORED_AS and path.name == name:  # the plain form
        return compress_table(path, Path(dst) / (name + GZ))
    return Path(shutil.copy2(path, Path(dst) / path.name))


def copy_conversations(src: Path, dst: Path) -> Path | None:
    """Write run folder ``src``'s ``conversations.jsonl``, whole, into light copy ``dst`` as
    the sample :attr:`Run.conversations` reads (:data:`SAMPLE_CONVERSATIONS`, gzip, the same
    bytes on every run) with its source record (:data:`SAMPLE_SOURCE`: ``{"kind": "logged",
    "file", "rows", "steps": [first, last]}``): the trainer's own messages of every rollout.
    Returns the sample written, None when the run logged none."""
    path = RunPaths(Path(src)).conversations
    if not path.is_file() or path.stat().st_size == 0:
        return None
    data = path.read_bytes()
    steps = [json.loads(line)["step"] for line in data.decode().splitlines() if line.strip()]
    (Path(dst) / SAMPLE_CONVERSATIONS).write_bytes(gzip_bytes(data))
    source = {"kind": "logged", "file": path.name, "rows": len(steps)}
    source["steps"] = [min(steps), max(steps)]
    (Path(dst) / SAMPLE_SOURCE).write_text(json.dumps(source, indent=1) + "\n")
    return Path(dst) / SAMPLE_CONVERSATIONS


def copy_light_dir(src: Path, dst: Path, name: str) -> Path | None:
    """Copy folder ``name`` (of :data:`LIGHT_DIRS`) of run folder ``src`` into folder ``dst``,
    as a light copy stores it: each ``*.json`` gzip-compressed to ``*.json.gz``
    (:func:`rcgrpo.train.runlog.compress_table`; a held-out evaluation shrinks ~40 times),
    any other file as it is. Returns the folder written, None when ``src`` has no such
    folder or it is empty (git keeps no empty folder)."""
    folder = Path(src) / name
    if not folder.is_dir() or not any(folder.iterdir()):
        return None
    out = Path(dst) / name
    out.mkdir(parents=True)
    for path in sorted(folder.iterdir()):
        if path.name.endswith(EVAL_FORMS[0]):
            compress_table(path, out / (path.name + GZ))
        elif path.is_file():
            shutil.copy2(path, out / path.name)
    return out


def _rows(lines: list[bytes]) -> pd.DataFrame:
    if not lines:
        return pd.DataFrame([])
    try:  # every line whole (a finished run): one parse of them all, as a JSON array
        return pd.DataFrame(json.loads(b"[" + b",".join(lines) + b"]"))
    except json.JSONDecodeError:
        pass
    rows = []
    for line in lines:
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # torn last line of a killed run
    return pd.DataFrame(rows)


CACHED_TABLES = 512
"""How many parsed JSONL files (metrics, per-rollout tables) one process keeps
(:func:`_parsed_table`): a figure build or a report reads the same committed runs many
times; a rollout table of a light copy is a few MB as a frame."""


def _version(path: Path) -> tuple[str, int, int]:
    """``path`` (resolved) with its modification time and size: a file rewritten or appended
    to since is another key, so a cached parse is never stale."""
    stat = path.stat()
    return str(path.resolve()), stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=CACHED_TABLES)
def _parsed_table(path: str, mtime_ns: int, size: int) -> pd.DataFrame:
    """The rows of JSONL file ``path`` at version (``mtime_ns``, ``size``): parsed once."""
    with open_jsonl(Path(path)) as fh:
        return _rows(fh.read().splitlines())


def _read_jsonl(path: Path, cached: bool = True) -> pd.DataFrame:
    """The rows of a JSONL file (``.gz``: gzip-compressed); empty when it does not exist.
    ``cached``: a copy of the process's one parse of this version of the file
    (:func:`_parsed_table`); else parsed here (the full conversations, too large to keep)."""
    if not path.exists():
        return pd.DataFrame()
    if cached:
        return _parsed_table(*_version(path)).copy()
    with open_jsonl(path) as fh:
        return _rows(fh.read().splitlines())


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}


@dataclass(frozen=True)
class Run:
    """One run folder, loaded lazily."""

    root: Path

    @property
    def paths(self) -> RunPaths:
        return RunPaths(Path(self.root))

    @property
    def name(self) -> str:
        return Path(self.root).name

    @cached_property
    def config(self) -> dict[str, Any]:
        return json.loads(self.paths.config.read_text()) if self.paths.config.exists() else {}

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """One row per logged step (``step`` column + every metric name), from
        ``metrics.jsonl`` or ``metrics.jsonl.gz``; the marker rows of an extended run
        (:mod:`rcgrpo.train.rl.resume`) are left out."""
        df = _read_jsonl(_stored(Path(self.root), METRICS))
        if MARKER in df:
            df = df[df[MARKER].isna()].drop(columns=MARKER)
        return df.sort_values("step").reset_index(drop=True) if "step" in df else df

    @cached_property
    def rollouts(self) -> pd.DataFrame:
        """The per-rollout table (one row per rollout), from ``rollouts.jsonl`` or
        ``rollouts.jsonl.gz``; empty when the folder has neither."""
        path = table_file(Path(self.root))
        return pd.DataFrame() if path is None else _read_jsonl(path)

    @cached_property
    def conversations(self) -> pd.DataFrame:
        """Each rollout's messages: ``conversations.jsonl`` of a full run folder, else the
        committed sample of a light copy (``conversations.jsonl.gz``, described by
        :attr:`conversations_source`); empty when the folder has neither."""
        full = self.paths.conversations
        path = full if full.exists() else Path(self.root) / SAMPLE_CONVERSATIONS
        return _read_jsonl(path, cached=False)

    @cached_property
    def conversations_source(self) -> dict[str, Any]:
        """Where the conversations come from: ``{"kind": "logged"}`` for a full run folder,
        the sample's ``conversations.source.json`` for a light copy (how it was made and
        checked, its steps), {} without conversations."""
        if self.paths.conversations.exists():
            return {"kind": "logged"}
        return _read_json(Path(self.root) / SAMPLE_SOURCE)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """``summary.json`` (written when the run ends; {} before)."""
        return _read_json(Path(self.root) / SUMMARY)

    @cached_property
    def data(self) -> dict[str, Any]:
        """``data.json``: Stage-1 data statistics (RCTP-FT mix, failure modes; {} if absent)."""
        return _read_json(Path(self.root) / "data.json")

    @cached_property
    def evals(self) -> dict[str, dict[str, Any]]:
        """The held-out evaluations by name, ``eval/<name>.json`` or ``.json.gz``
        (:func:`eval_files`)."""
        out = {}
        for name, path in eval_files(self.root).items():
            with open_jsonl(path) as fh:
                out[name] = json.loads(fh.read())
        return out

    @cached_property
    def step_evals(self) -> dict[int, dict[str, Any]]:
        """The held-out evaluations ``eval/step_<N>.json`` by step N, in step order (the
        trainer writes one at step 0 and every ``eval_every`` steps)."""
        steps = {int(m[1]): name for name in self.evals if (m := STEP_EVAL.fullmatch(name))}
        return {step: self.evals[steps[step]] for step in sorted(steps)}


def load_run(root: str | Path) -> Run:
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"no run folder at {root}")
    return Run(root)


def load_runs(roots) -> list[Run]:
    return [load_run(r) for r in roots]


def seed_of(run: Run) -> int:
    """The run's seed: ``run.seed`` of its config, else the ``-s<N>`` of its folder name."""
    seed = run.config.get("run", {}).get("seed")
    if seed is None:
        match = re.search(r"-s(\d+)$", run.name)
        if match is None:
            raise ValueError(f"run {run.root} has no run.seed in its config nor a -s<N> name")
        seed = int(match.group(1))
    return int(seed)


def metrics_frame(runs: list[Run], **labels_from_config: str) -> pd.DataFrame:
    """Concatenate the metrics of several runs with a ``run`` column and config labels.

    ``labels_from_config`` maps a new column name to a dotted config key, e.g.
    ``metrics_frame(runs, seed="run.seed", algo="algo.name")``.
    """
    frames = []
    for run in runs:
        df = run.metrics.copy()
        df["run"] = run.name
        for col, dotted in labels_from_config.items():
            value: Any = run.config
            for part in dotted.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            df[col] = value
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
