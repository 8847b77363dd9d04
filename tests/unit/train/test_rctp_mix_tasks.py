"""Which training tasks RCTP-FT's mix uses: ``failures.num_tasks`` and ``failures.skip_decisions``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rcgrpo.train.cli import parse_cli
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.stage1.rctp import mix_tasks


def _task(i: int, *kinds: str) -> SimpleNamespace:
    points = [{"kind": k, "turn": 0, "call": 0} for k in kinds]
    return SimpleNamespace(id=i, meta={"decisions": points})


def _cfg(*flags: str):
    return parse_cli("rctp", ["--preset", "rctp-synth-regime", *flags])


TASKS = [
    _task(0, "resolve_close"),
    _task(1),
    _task(2, "stop_early"),
    _task(3, "rename_copy", "resolve_close"),
    _task(4, "stop_early"),
]


def test_skipped_kinds_leave_out_every_task_with_such_a_point_in_order():
    cfg = _cfg("--failures.num_tasks", "2", "--failures.skip_decisions", "resolve_close")
    assert [t.id for t in mix_tasks(cfg, TASKS)] == [1, 2]
    cfg = _cfg("--failures.num_tasks", "0", "--failures.skip_decisions", "resolve_close")
    assert [t.id for t in mix_tasks(cfg, TASKS)] == [1, 2, 4]
    both = _cfg(
        "--failures.num_tasks", "0", "--failures.skip_decisions", "resolve_close", "stop_early"
    )
    assert [t.id for t in mix_tasks(both, TASKS)] == [1]


def test_no_skip_is_the_first_num_tasks():
    assert [t.id for t in mix_tasks(_cfg("--failures.num_tasks", "3"), TASKS)] == [0, 1, 2]


def test_bad_input_is_a_clear_error():
    cfg = _cfg("--failures.num_tasks", "4", "--failures.skip_decisions", "resolve_close")
    with pytest.raises(ValueError, match="only 3 training tasks are left"):
        mix_tasks(cfg, TASKS)
    plain = [SimpleNamespace(id=i, meta={}) for i in range(5)]
    with pytest.raises(ValueError, match="no training task records planted decision points"):
        mix_tasks(_cfg("--failures.skip_decisions", "stop_early"), plain)
    with pytest.raises(ConfigError, match="must name planted decision kinds"):
        _cfg("--failures.skip_decisions", "cp_instead")
