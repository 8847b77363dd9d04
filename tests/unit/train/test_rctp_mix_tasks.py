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


def test_skip_keep_zero_is_variant_11_and_one_keeps_everything():
    flags = ("--failures.num_tasks", "0", "--failures.skip_decisions", "resolve_close")
    none = _cfg(*flags, "--failures.skip_keep", "0")
    assert [t.id for t in mix_tasks(none, TASKS)] == [1, 2, 4]
    every = _cfg(*flags, "--failures.skip_keep", "1")
    assert [t.id for t in mix_tasks(every, TASKS)] == [0, 1, 2, 3, 4]


def test_skip_keep_keeps_its_share_of_skipped_tasks_in_task_order():
    """n = 4,000 tasks with a skipped point: the kept count lies in the exact two-sided 99.9%
    binomial interval of its setting, tasks without one are all kept, and order is kept."""
    from scipy.stats import binom

    tasks = [_task(i, "resolve_close") if i % 2 else _task(i) for i in range(8000)]
    share, n = 0.05, 4000
    cfg = _cfg(
        "--failures.num_tasks",
        "0",
        "--failures.skip_decisions",
        "resolve_close",
        "--failures.skip_keep",
        str(share),
    )
    ids = [t.id for t in mix_tasks(cfg, tasks)]
    kept = sum(i % 2 for i in ids)
    lo, hi = binom.interval(0.999, n, share)
    assert lo <= kept <= hi
    assert sum(1 - i % 2 for i in ids) == 4000
    assert ids == sorted(ids)


def test_skip_keep_is_nested_in_its_share_and_seeded():
    """Raising the share only adds tasks (each task's draw is its own); another seed keeps
    other tasks."""
    tasks = [_task(i, "resolve_close") for i in range(2000)]

    def kept(share: str, seed: str = "7") -> set[int]:
        cfg = _cfg(
            "--run.seed",
            seed,
            "--failures.num_tasks",
            "0",
            "--failures.skip_decisions",
            "resolve_close",
            "--failures.skip_keep",
            share,
        )
        return {t.id for t in mix_tasks(cfg, tasks)}

    assert kept("0.03") <= kept("0.1") <= kept("0.5")
    assert kept("0.1") == kept("0.1")
    assert kept("0.1", seed="17") != kept("0.1")


def test_skip_keep_bad_input_is_a_clear_error():
    with pytest.raises(ConfigError, match=r"skip_keep.*must be in \[0, 1\]"):
        _cfg("--failures.skip_decisions", "resolve_close", "--failures.skip_keep", "1.5")
    with pytest.raises(ValueError, match="no failures.skip_decisions to keep from"):
        mix_tasks(_cfg("--failures.skip_keep", "0.1"), TASKS)
