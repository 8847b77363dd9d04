"""Run logger: JSONL rows, NaN handling, resume truncation, name validation."""

from __future__ import annotations

import json
import math

import pytest

from rcgrpo.train.runlog import RunLogger, RunPaths, truncate_jsonl


def _rows(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_log_writes_rows_and_nan_becomes_null(tmp_path):
    log = RunLogger(RunPaths(tmp_path / "r"), tensorboard=False)
    log.log(0, {"reward/mean": 0.5, "adv/gap_mean": math.nan})
    log.log(1, {"reward/mean": 0.75})
    rows = _rows(log.paths.metrics)
    assert [r["step"] for r in rows] == [0, 1]
    assert rows[0]["reward/mean"] == 0.5 and rows[0]["adv/gap_mean"] is None


def test_resume_truncates_later_steps_and_torn_lines(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"step": 0}\n{"step": 1}\n{"step": 2}\n{"step": 3, "x"')
    assert truncate_jsonl(path, 1) == 2
    assert [r["step"] for r in _rows(path)] == [0, 1]


def test_validate_hook_rejects_before_writing(tmp_path):
    def validate(metrics):
        unknown = [k for k in metrics if not k.startswith("reward/")]
        if unknown:
            raise ValueError(f"unknown metric names {unknown}")

    log = RunLogger(RunPaths(tmp_path / "r"), tensorboard=False, validate=validate)
    with pytest.raises(ValueError, match="rewrad/mean"):
        log.log(0, {"rewrad/mean": 1.0})
    assert not log.paths.metrics.exists()


def test_tensorboard_sink_writes_events(tmp_path):
    log = RunLogger(RunPaths(tmp_path / "r"))
    log.log(0, {"reward/mean": 1.0})
    log.close()
    assert list((tmp_path / "r").glob("events.out.tfevents.*"))


def test_due_every_n_and_at_the_end():
    from rcgrpo.train.runlog import due

    assert [s for s in range(1, 11) if due(s, 4, 10)] == [4, 8, 10]
    assert [s for s in range(1, 11) if due(s, 0, 10)] == [10]  # 0 = only at the end
    assert [s for s in range(1, 4) if due(s, 1, 3)] == [1, 2, 3]
