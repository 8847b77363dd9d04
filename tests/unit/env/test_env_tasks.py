"""BFCL loader, positional -> keyword conversion and the id-level split."""

from __future__ import annotations

import pytest

from rcgrpo.env import category_counts, load_bfcl_tasks, split_tasks
from rcgrpo.env.tasks import keyword_form, scenario_id

pytestmark = pytest.mark.bfcl


@pytest.fixture(scope="module")
def tasks():
    return load_bfcl_tasks()


def test_loads_the_four_categories(tasks):
    assert len(tasks) == 800
    assert category_counts(tasks) == {
        "base": 200,
        "long_context": 200,
        "miss_func": 200,
        "miss_param": 200,
    }
    assert tasks[0].id == "multi_turn_base_0" and tasks[-1].id == "multi_turn_miss_param_199"
    assert len({t.id for t in tasks}) == 800
    assert all(t.long_context == (t.category == "long_context") for t in tasks)
    assert all(len(t.ground_truth) == t.num_turns for t in tasks)


def test_task_fields_for_a_miss_func_entry(tasks):
    task = next(t for t in tasks if t.id == "multi_turn_miss_func_0")
    assert task.involved_classes == ("TwitterAPI", "GorillaFileSystem")  # BFCL order kept
    assert task.missed_functions == {3: ("sort",)}
    assert task.turns[3] == ()  # the reveal turn has no user text
    assert task.ground_truth[0] == (
        "cd(folder='document')",
        "mkdir(dir_name='temp')",
        "mv(source='final_report.pdf', destination='temp')",
    )
    assert task.excluded_functions == ("cp",)
    names = [d["name"] for d in task.function_docs]
    assert "cp" not in names and "sort" in names and len(names) == len(set(names)) == 17 + 14
    assert task.meta["scenario_id"] == 0


def test_no_ground_truth_call_is_positional_or_excluded(tasks):
    for task in tasks:
        for turn in task.ground_truth:
            for call in turn:
                assert call.split("(", 1)[0] not in task.excluded_functions
                args = call.split("(", 1)[1]
                assert args == ")" or "=" in args  # keyword form


@pytest.mark.parametrize(
    ("call", "classes", "expected"),
    [
        ("cd('archives')", ("GorillaFileSystem",), "cd(folder='archives')"),
        ("mean([37])", ("MathAPI",), "mean(numbers=[37])"),
        ("mv('a', destination=\"b\")", ("GorillaFileSystem",), "mv(source='a', destination=\"b\")"),
        ("ls(a=True)", ("GorillaFileSystem",), "ls(a=True)"),  # unchanged, byte for byte
        ("ls( a = True )", ("GorillaFileSystem",), "ls( a = True )"),
    ],
)
def test_keyword_form(call, classes, expected):
    assert keyword_form(call, classes) == expected


def test_keyword_form_errors():
    with pytest.raises(ValueError, match="no class"):
        keyword_form("cd('x')", ("MathAPI",))
    with pytest.raises(ValueError, match="more positional"):
        keyword_form("cd('x', 'y')", ("GorillaFileSystem",))
    with pytest.raises(ValueError, match="single call"):
        keyword_form("a.cd('x')", ("GorillaFileSystem",))


def test_paper_split_720_80_by_scenario_id(tasks):
    train, test = split_tasks(tasks, test_fraction=0.1, seed=0)
    assert (len(train), len(test)) == (720, 80)
    # every scenario id keeps its four variants on one side -> 20 test tasks per category
    assert category_counts(test) == {
        "base": 20,
        "long_context": 20,
        "miss_func": 20,
        "miss_param": 20,
    }
    train_ids = {scenario_id(t.id) for t in train}
    test_ids = {scenario_id(t.id) for t in test}
    assert not train_ids & test_ids and len(test_ids) == 20
    assert [t.id for t in split_tasks(tasks, 0.1, 0)[1]] == [t.id for t in test]  # deterministic
    assert {scenario_id(t.id) for t in split_tasks(tasks, 0.1, 1)[1]} != test_ids
    assert sorted(t.id for t in train + test) == sorted(t.id for t in tasks)


def test_split_and_loader_arguments():
    with pytest.raises(ValueError, match="test_fraction"):
        split_tasks([], test_fraction=1.0)
    with pytest.raises(ValueError, match="categories must be drawn"):
        load_bfcl_tasks(["memory"])
    with pytest.raises(ValueError, match="must end in"):
        scenario_id("multi_turn_base")
    assert [t.id for t in load_bfcl_tasks(["miss_param"])][:2] == [
        "multi_turn_miss_param_0",
        "multi_turn_miss_param_1",
    ]
