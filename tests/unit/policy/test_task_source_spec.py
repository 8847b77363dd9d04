"""A task source named on the command line as ``module:function`` or ``path/file.py:function``
(rcgrpo/policy/task_sources.py): imported on first use, registered under its spec, a bad spec
refused in one line naming it; ``eval`` names its tasks with train's flags (``--tasks.source``,
``--tasks.*``) and still reads its earlier ones."""

from __future__ import annotations

import pytest

from rcgrpo.policy.task_sources import TASK_SOURCES, load_tasks, resolve_task_source
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.validate import ConfigError

SOURCE = """
def rows(split, seed=0, limit=None):
    return [f"{split}-{seed}-{i}" for i in range(limit or 2)]

NOT_A_FUNCTION = 3
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """A module ``unit_user_tasks`` on sys.path; the registry as it was afterwards."""
    (tmp_path / "unit_user_tasks.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = dict(TASK_SOURCES)
    yield tmp_path
    TASK_SOURCES.clear()
    TASK_SOURCES.update(before)


def test_a_module_spec_is_imported_and_registered_under_itself(user_module):
    spec = "unit_user_tasks:rows"
    assert spec not in TASK_SOURCES
    # the source's own split, seed and limit pass through: test split, seed 4, 3 tasks
    assert load_tasks(spec, "test", seed=4, limit=3) == ["test-4-0", "test-4-1", "test-4-2"]
    assert TASK_SOURCES[spec] is resolve_task_source(spec)


def test_a_file_spec_loads_the_file(user_module):
    spec = f"{user_module / 'unit_user_tasks.py'}:rows"
    assert load_tasks(spec, "train") == ["train-0-0", "train-0-1"]


def test_a_config_naming_a_spec_validates(user_module):
    cfg = parse_cli("train", ["--preset", "quick-grpo", "--tasks.source", "unit_user_tasks:rows"])
    assert cfg.tasks.source == "unit_user_tasks:rows"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:rows", "cannot import 'no_such_module_xyz' (No module named"),
        ("unit_user_tasks:missing", "'unit_user_tasks' has no function 'missing'"),
        ("unit_user_tasks:NOT_A_FUNCTION", "has no function 'NOT_A_FUNCTION'"),
        ("/no/such/file.py:rows", "cannot import '/no/such/file.py' (no file /no/such/file.py)"),
        ("unit_user_tasks:", "a task source is a registered name (bfcl, synth) or module:fun"),
    ],
)
def test_a_bad_spec_is_one_line_naming_it(user_module, spec, message):
    with pytest.raises(ValueError) as err:
        load_tasks(spec, "train")
    text = str(err.value)
    assert text.startswith(f"tasks source {spec!r}: ") and message in text
    assert "\n" not in text
    assert spec not in TASK_SOURCES
    with pytest.raises(ConfigError, match=r"^config: tasks source ") as err:
        parse_cli("train", ["--preset", "quick-grpo", "--tasks.source", spec])
    assert "\n" not in str(err.value)


def test_a_plain_unknown_name_is_still_the_registry_error():
    with pytest.raises(ValueError, match=r"^source must be one of \['bfcl', 'synth'\], got 'x'"):
        resolve_task_source("x")


@pytest.mark.parametrize("flag", ["--tasks.source", "--tasks"])  # today's, the earlier one
def test_eval_refuses_a_bad_tasks_spec_before_loading_a_model(flag):
    from rcgrpo.policy import evaluate

    # no such model either: the tasks check comes first
    with pytest.raises(
        ConfigError, match=r"^--tasks.source: tasks source 'nomod_xyz:f': cannot import"
    ):
        evaluate.main(["--model", "no/such/model", flag, "nomod_xyz:f"])
    with pytest.raises(ConfigError, match=r"^--tasks.synth-preset: synth_preset must be one of"):
        evaluate.main(
            ["--model", "no/such/model", "--tasks.source", "synth", "--tasks.synth-preset", "nope"]
        )


def test_eval_names_tasks_as_train_does():
    from rcgrpo.policy.evaluate import EvalArgs, EvalTaskConfig, _options
    from rcgrpo.policy.task_sources import _synth_options
    from rcgrpo.train.config import TaskConfig

    # the flags of train's tasks section that name tasks are eval's too
    shared = {"source", "split_seed", "max_turns", "max_calls_per_turn"}
    assert shared <= set(EvalTaskConfig.__dataclass_fields__) & set(TaskConfig.__dataclass_fields__)
    assert _options(EvalTaskConfig("my_tasks:make")) == {}  # options are the synth source's
    # tiny: turns (1, 2), calls (1, 2); capped as train caps them, else the preset's own
    assert _options(EvalTaskConfig("synth", synth_preset="tiny")) == {"preset": "tiny"}
    capped = _options(EvalTaskConfig("synth", synth_preset="tiny", max_turns=1))
    assert capped == {"preset": "tiny", "turns": (1, 1)}
    train = TaskConfig(source="synth", max_turns=1, max_calls_per_turn=2)
    assert _synth_options(train, "tiny") == _options(
        EvalTaskConfig("synth", synth_preset="tiny", max_turns=1, max_calls_per_turn=2)
    )
    assert EvalArgs(model="m").tasks == EvalTaskConfig()  # bfcl, split seed 0


def test_eval_reads_its_earlier_task_flags():
    from rcgrpo.policy.evaluate import current_flags

    old = ["--model", "m", "--tasks", "synth", "--task-seed=2", "--synth-options"]
    assert current_flags([*old, '{"preset": "collapse1-d10"}', "--limit", "3"]) == [
        "--model",
        "m",
        "--tasks.source",
        "synth",
        "--tasks.split-seed=2",
        "--tasks.synth-preset",
        "collapse1-d10",
        "--limit",
        "3",
    ]
    assert current_flags(["--synth-options={}"]) == []
    with pytest.raises(ConfigError, match=r"^--synth-options: only its preset is read now"):
        current_flags(["--synth-options", '{"preset": "tiny", "turns": [1, 1]}'])
    with pytest.raises(ConfigError, match=r"^--synth-options: not JSON"):
        current_flags(["--synth-options", "{preset: tiny}"])
