"""Readers of a run's rollout records, each returning :class:`~rcgrpo.diagnose.groups.Rollout`
records and the run's own settings (:class:`RunSettings`).

- ``run``: a run folder of this repository (``config.json`` + ``rollouts.jsonl``, or
  ``rollouts.jsonl.gz`` in a light copy: :func:`rcgrpo.train.runlog.open_table`), written
  by ``python -m rcgrpo train`` (:mod:`rcgrpo.train.rl.loop`) or by ``python -m rcgrpo trl``
  (:mod:`rcgrpo.integrations.trl_cli`). Group = (step, ``prompt``); goal = ``reward_token``;
  task = ``task_id``; length = ``gen_tokens``;
  the settings (estimator, ε, ddof, p) come from ``config.json``. TRL rows are kept for
  ``mode == "train"`` and numbered ``step + 1`` (generated during optimizer step
  ``global_step + 1``, the step TRL logs them at).
- ``verl``: a ``trainer.rollout_data_dir`` folder, one ``{step}.jsonl`` per step with
  ``input``, ``output``, ``score``, ``step`` and extra reward fields; group = the rollouts of
  one step with the same ``input``.
- ``table``: one JSONL (``.jsonl.gz``: gzip-compressed), CSV or Parquet file; :class:`Columns`
  maps its columns. A group's task is its group key (the prompt id).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rcgrpo.diagnose.groups import Rollout
from rcgrpo.train.runlog import open_jsonl, open_table, table_file

GOAL_VALUES = {"high": True, "<|high_reward|>": True, "low": False, "<|low_reward|>": False}
"""Goal spellings a table may use (besides booleans and 1 / 0)."""


@dataclass(frozen=True)
class Columns:
    """Which column holds what (``--step-col`` ...)."""

    step: str = "step"
    group: str = "group"
    reward: str = "reward"
    goal: str | None = None
    advantage: str | None = None
    length: str | None = None


@dataclass
class RunSettings:
    """What the run's own records say about how to read them (None: the user's flags)."""

    estimator: str | None = None
    eps_stab: float | None = None
    ddof: int | None = None
    p: float | None = None
    dtype: str = "float64"
    """dtype of the trainer's reward grid (float32 for ``python -m rcgrpo train``)."""
    notes: list[str] = field(default_factory=list)


def _number(value: Any, what: str, where: str) -> float:
    if isinstance(value, bool):
        return float(value)
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {what} {value!r} is not a number") from None
    if not math.isfinite(out):
        raise ValueError(f"{where}: {what} {value!r} is not finite")
    return out


def _goal(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    key = str(value).strip().lower() if value is not None else ""
    if key in GOAL_VALUES or key in ("true", "false", "1", "0"):
        return GOAL_VALUES.get(key, key in ("true", "1"))
    raise ValueError(f"{where}: goal {value!r} is not high/low, true/false or 1/0")


def json_rows(lines: list[bytes], name: str) -> list[tuple[str, dict]]:
    """``(where, row)`` of each non-blank JSONL line, ``where`` = ``name:line`` (1-based, blank
    lines counted); a line that is not a JSON object is a ValueError naming it."""
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            row = json.loads(line)
        except ValueError as err:  # json.JSONDecodeError, UnicodeDecodeError
            detail = f"{err.msg}, column {err.colno}" if hasattr(err, "colno") else str(err)
            raise ValueError(f"{where}: not JSON ({detail})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{where}: not a JSON object ({type(row).__name__})")
        out.append((where, row))
    return out


def _csv_rows(path: Path) -> list[tuple[str, dict]]:
    out = []
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        try:
            for row in reader:
                where = f"{path}:{reader.line_num}"
                header = len(reader.fieldnames or ())
                if None in row or None in row.values():  # DictReader's restkey / restval
                    width = (
                        header + len(row[None])
                        if None in row
                        else header - (list(row.values()).count(None))
                    )
                    raise ValueError(f"{where}: {width} fields, the header has {header}")
                out.append((where, row))
        except csv.Error as err:
            raise ValueError(f"{path}:{reader.line_num}: not CSV ({err})") from None
    return out


def _parquet_rows(path: Path) -> list[tuple[str, dict]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
    except pa.ArrowException as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ValueError(f"{path}: not a readable Parquet file ({first})") from None
    return [(f"{path}: row {i + 1}", row) for i, row in enumerate(rows)]


def _rows_of(path: Path) -> list[tuple[str, dict]]:
    """``(where, row)`` of every row of a table file: ``where`` is ``file:line`` (JSONL,
    CSV) or ``file: row N`` (Parquet), the prefix of any error about that row."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl" or path.name.lower().endswith(".jsonl.gz"):
        with open_jsonl(path) as fh:
            return json_rows(fh.read().splitlines(), str(path))
    if suffix == ".csv":
        return _csv_rows(path)
    if suffix == ".parquet":
        return _parquet_rows(path)
    raise ValueError(
        f"{path}: unknown table format {suffix!r} (use .jsonl, .jsonl.gz, .csv or .parquet)"
    )


def _record(row: dict, cols: Columns, where: str) -> Rollout:
    for name in (cols.step, cols.group, cols.reward, cols.goal, cols.advantage, cols.length):
        if name is not None and name not in row:
            raise ValueError(f"{where}: no column {name!r} (columns: {', '.join(map(str, row))})")
    adv = None
    if cols.advantage is not None and row[cols.advantage] not in (None, ""):
        adv = _number(row[cols.advantage], "advantage", where)
    group = json.dumps(row[cols.group], sort_keys=True, default=str)
    length = None
    if cols.length is not None:
        length = int(_number(row[cols.length], "length", where))
    return Rollout(
        step=int(_number(row[cols.step], "step", where)),
        group=group,
        reward=_number(row[cols.reward], "reward", where),
        advantage=adv,
        high=None if cols.goal is None else _goal(row[cols.goal], where),
        task=group,
        length=length,
    )


def read_table(path: Path, cols: Columns) -> list[Rollout]:
    """The rollouts of one table file (module docstring)."""
    rows = _rows_of(path)
    if not rows:
        raise ValueError(f"{path}: no rows")
    return [_record(row, cols, where) for where, row in rows]


def read_verl(folder: Path, cols: Columns) -> list[Rollout]:
    """verl's ``rollout_data_dir``: ``{step}.jsonl`` files (module docstring)."""
    files = sorted(
        (p for p in folder.glob("*.jsonl") if p.stem.isdigit()), key=lambda p: int(p.stem)
    )
    if not files:
        raise ValueError(f"{folder}: no {{step}}.jsonl files (a verl rollout_data_dir)")
    out = []
    for path in files:
        out += read_table(path, cols)
    return out


def _trl_run(config: dict) -> bool:
    return "trl" in config


def run_settings(config: dict) -> RunSettings:
    """Estimator, ε, ddof, p and dtype of a run folder's ``config.json``; p only for a goal
    scheme drawing i.i.d. goals (``iid_p``, :class:`rcgrpo.conditioning.GoalScheme`)."""
    from rcgrpo.conditioning import SCHEMES
    from rcgrpo.train.config import upgrade_config

    algo = upgrade_config(config)["algo"]
    scheme = SCHEMES.get(algo.get("conditioning"))
    p = algo.get("p_high") if scheme is not None and scheme.iid_p else None
    if _trl_run(config):  # rcgrpo.integrations.trl: TRL's std convention, float64 grid
        return RunSettings(algo.get("adv_estimator", "grpo"), 1e-4, 1, p, "float64")
    return RunSettings(algo["adv_estimator"], algo["eps_stab"], algo["adv_ddof"], p, "float32")


def read_run(folder: Path) -> tuple[list[Rollout], RunSettings]:
    """A run folder of this repository (module docstring)."""
    config = json.loads((folder / "config.json").read_text())
    settings = run_settings(config)
    trl = _trl_run(config)
    out = []
    with open_table(folder) as fh:
        rows = json_rows(fh.read().splitlines(), str(table_file(folder)))
    for where, row in rows:
        if trl and row.get("mode", "train") != "train":
            continue
        token = row.get("reward_token")
        out.append(
            Rollout(
                step=int(row["step"]) + int(trl),
                group=row["prompt"],
                reward=_number(row["reward"], "reward", where),
                advantage=row.get("advantage"),
                high=None if token is None else token == "high",
                kept=row.get("kept"),
                task=row.get("task_id"),
                length=row.get("gen_tokens"),
            )
        )
    return out, settings


def detect(path: Path) -> str:
    """``run``, ``verl`` or ``table`` (module docstring)."""
    if path.is_dir():
        if table_file(path) is not None and (path / "config.json").is_file():
            return "run"
        return "verl"
    if path.is_file():
        return "table"
    raise ValueError(f"{path}: no such file or folder")
