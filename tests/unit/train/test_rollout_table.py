"""The per-rollout table's two forms (rcgrpo.train.runlog): the trainer's ``rollouts.jsonl``
and a light copy's ``rollouts.jsonl.gz`` hold the same bytes; the compressed form is the same
bytes on every write; every reader opens either through ``open_table``."""

from __future__ import annotations

import gzip
import json
import os

import pandas as pd
import pytest

from rcgrpo.train.runlog import (
    ROLLOUTS,
    ROLLOUTS_GZ,
    RunLogger,
    RunPaths,
    compress_table,
    open_table,
    table_file,
)

ROWS = [
    {"step": 1, "round": 0, "prompt": 0, "task_id": "tâche-1", "reward": 1.0, "advantage": 0.5},
    {"step": 1, "round": 0, "prompt": 0, "task_id": "tâche-1", "reward": 0.0, "advantage": -0.5},
    {"step": 2, "round": 0, "prompt": 1, "task_id": "t-2", "reward": 0.25, "advantage": None},
    {"step": 2, "round": 1, "prompt": 1, "task_id": "t-2", "reward": float("nan"), "calls": [1]},
]
"""Rows as the trainer logs them: non-ASCII text, a None, a NaN (logged as null), a list."""
LOGGED = [{**r, "reward": None} if r["reward"] != r["reward"] else r for r in ROWS]
"""What reading ``ROWS`` back gives: the NaN reward is null (runlog._jsonable)."""
GZIP_HEADER = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 0xFF])
"""RFC 1952, written out: magic, deflate, flags 0 (no file name), mtime 0, XFL 2 (level 9),
OS 255 (unknown)."""


def _plain(folder):
    logger = RunLogger(RunPaths(folder), tensorboard=False)
    logger.log_rows(ROWS)
    return logger.paths.rollouts


def _records(folder):
    with open_table(folder) as fh:
        return [json.loads(line) for line in fh]


def test_compressed_table_decompresses_to_the_plain_bytes(tmp_path):
    plain = _plain(tmp_path / "run")
    packed = compress_table(plain, tmp_path / ROLLOUTS_GZ)
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    (tmp_path / "copy").mkdir()
    compress_table(plain, tmp_path / "copy" / ROLLOUTS_GZ)
    assert _records(tmp_path / "copy") == _records(tmp_path / "run") == LOGGED
    assert packed.stat().st_size < plain.stat().st_size or len(ROWS) < 10  # tiny: header wins


def test_the_same_table_gives_the_same_bytes(tmp_path):
    plain = _plain(tmp_path / "run")
    other = tmp_path / "elsewhere.jsonl"  # another name, another mtime: same bytes
    other.write_bytes(plain.read_bytes())
    os.utime(other, (1_000_000_000, 1_000_000_000))
    first = compress_table(plain, tmp_path / "a.gz").read_bytes()
    second = compress_table(other, tmp_path / "b.gz").read_bytes()
    assert first == second and first[:10] == GZIP_HEADER
    assert not list(tmp_path.glob("*.tmp"))  # written aside, then renamed


def test_open_table_reads_either_form_and_only_one(tmp_path):
    plain = _plain(tmp_path / "plain")
    (tmp_path / "packed").mkdir()
    compress_table(plain, tmp_path / "packed" / ROLLOUTS_GZ)
    assert table_file(tmp_path / "plain").name == ROLLOUTS
    assert table_file(tmp_path / "packed").name == ROLLOUTS_GZ
    assert _records(tmp_path / "plain") == _records(tmp_path / "packed") == LOGGED
    (tmp_path / "none").mkdir()
    assert table_file(tmp_path / "none") is None
    with pytest.raises(FileNotFoundError, match=r"has no per-rollout table"):
        open_table(tmp_path / "none")
    compress_table(plain, tmp_path / "plain" / ROLLOUTS_GZ)
    with pytest.raises(ValueError, match="holds both rollouts.jsonl and rollouts.jsonl.gz"):
        table_file(tmp_path / "plain")


def test_pandas_reads_the_compressed_table_in_one_call(tmp_path):
    """The documented one-liner: ``pandas.read_json(path, lines=True)`` infers gzip from
    the name and gives the frame of the plain file."""
    plain = _plain(tmp_path / "run")
    packed = compress_table(plain, tmp_path / ROLLOUTS_GZ)
    frame = pd.read_json(packed, lines=True)
    pd.testing.assert_frame_equal(frame, pd.read_json(plain, lines=True))
    assert frame["task_id"].tolist() == [r["task_id"] for r in ROWS] and len(frame) == 4
