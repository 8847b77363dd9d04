"""Every synth ground truth executes cleanly on fresh real backends and scores reward 1.

The replay here is independent of the generator: it parses the call strings with ``ast``,
builds new backend instances from ``initial_config`` and checks that no call errors and
that every call either changes the public state (checked by R_state) or returns a
non-empty result (checked by R_action and BFCL's response check).
"""

from __future__ import annotations

import ast
import copy
import importlib

import pytest
from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

from rcgrpo.env import Episode, score_trajectory
from rcgrpo.env.synth import generate_synth_tasks
from rcgrpo.env.synth_families import FAMILIES
from rcgrpo.env.tasks import Task

PER_FAMILY = 100
"""Tasks per (family, split) in the generator-independent replay (1-2 turns of 1-2 calls)."""
PER_FAMILY_SCORED = 200
"""Tasks per (family, split) scored through ``rcgrpo.env.score_trajectory``."""


def _state(inst: object) -> dict:
    return copy.deepcopy({k: v for k, v in vars(inst).items() if not k.startswith("_")})


def replay(task: Task) -> None:
    """Execute the ground truth on fresh instances; assert each call is clean and checkable."""
    live = {}
    for cls in task.involved_classes:
        inst = getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[cls]), cls)()
        if hasattr(inst, "_load_scenario"):
            inst._load_scenario(copy.deepcopy(task.initial_config.get(cls, {})))
        live[cls] = inst
    for turn in task.ground_truth:
        for call in turn:
            node = ast.parse(call, mode="eval").body
            kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            (owner,) = [i for i in live.values() if hasattr(i, node.func.id)]
            before = _state(owner)
            result = getattr(owner, node.func.id)(**kwargs)
            assert not (isinstance(result, dict) and "error" in result), (task.id, call, result)
            assert _state(owner) != before or result, (task.id, call)


@pytest.mark.parametrize("split", ["train", "test"])
@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_each_family_ground_truth_replays(family, split):
    tasks = generate_synth_tasks(
        PER_FAMILY, split, seed=11, families=(family,), turns=(1, 2), calls_per_turn=(1, 2)
    )
    assert all(f == family for t in tasks for turn in t.meta["families"] for f in turn)
    for task in tasks:
        replay(task)


@pytest.mark.parametrize("split", ["train", "test"])
def test_mixed_default_ground_truth_replays(split):
    for task in generate_synth_tasks(200, split, seed=12, distractor_classes=1):
        replay(task)


@pytest.mark.parametrize("split", ["train", "test"])
@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_each_family_ground_truth_scores_one(family, split):
    tasks = generate_synth_tasks(
        PER_FAMILY_SCORED, split, seed=13, families=(family,), turns=(1, 2), calls_per_turn=(1, 2)
    )
    for task in tasks:
        record = score_trajectory(
            task, [list(turn) for turn in task.ground_truth], mode="multi_turn"
        )
        assert record.reward == 1 and record.bfcl_valid, (task.id, record.failure_reason)


def _perturb(value: object) -> object:
    """A different value of the same type (first element / value for lists and dicts)."""
    if isinstance(value, list):
        return [_perturb(value[0]), *value[1:]]
    if isinstance(value, dict):
        key = next(iter(value))
        return {**value, key: _perturb(value[key])}
    # numbers -> negative: never an existing id (a perturbed id must not hit another item)
    return value + "x" if isinstance(value, str) else -value


def _with_wrong_value(call: str) -> str:
    node = ast.parse(call, mode="eval").body
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    first = next(iter(kwargs))
    kwargs[first] = _perturb(kwargs[first])
    return f"{node.func.id}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


@pytest.mark.parametrize("split", ["train", "test"])
def test_mixed_ground_truth_scores_one_and_perturbations_score_zero(split):
    for task in generate_synth_tasks(200, split, seed=14, distractor_classes=1):
        calls = [list(turn) for turn in task.ground_truth]
        record = score_trajectory(task, calls, mode="multi_turn")
        assert record.reward == 1 and record.bfcl_valid, (task.id, record.failure_reason)
        flat = [[c for turn in calls for c in turn]]
        assert score_trajectory(task, flat, mode="combined").reward == 1, task.id
        dropped = calls[:-1] + [calls[-1][:-1]]  # R_action (at least) must fail
        assert score_trajectory(task, dropped, mode="multi_turn").reward == 0, task.id
        wrong = calls[:-1] + [calls[-1][:-1] + [_with_wrong_value(calls[-1][-1])]]
        assert score_trajectory(task, wrong, mode="multi_turn").reward == 0, (task.id, wrong[-1])


def test_generation_never_mutates_backend_defaults():
    # TwitterAPI.post_tweet keeps its default tags/mentions lists in new tweets; a mention()
    # on such a tweet would mutate them for the whole process. The generator only mentions
    # other users' tweets (from initial_config), so the defaults stay empty.
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api import TwitterAPI

    before = copy.deepcopy(TwitterAPI.post_tweet.__defaults__)
    generate_synth_tasks(300, "train", seed=3, classes=("TwitterAPI",), calls_per_turn=(3, 3))
    assert TwitterAPI.post_tweet.__defaults__ == before


@pytest.mark.parametrize("mode", ["multi_turn", "combined"])
def test_ground_truth_replies_win_an_episode(mode):
    for task in generate_synth_tasks(40, "test", seed=15):
        ep = Episode()
        ep.reset(task, mode=mode)
        turns = task.ground_truth if mode == "multi_turn" else [sum(task.ground_truth, ())]
        for calls in turns:
            ep.step("[" + ", ".join(calls) + "]")
            ep.step("done()" if mode == "combined" else "Finished.")
        assert ep.done and ep.num_tool_errors == 0
        assert ep.score().reward == 1, task.id


@pytest.mark.parametrize("split", ["train", "test"])
def test_cpu_preset_ground_truth_scores_one(split):
    from rcgrpo.env.synth import SYNTH_PRESETS

    for task in generate_synth_tasks(150, split, seed=21, config=SYNTH_PRESETS["cpu"]):
        flat = [[c for turn in task.ground_truth for c in turn]]
        assert score_trajectory(task, flat, mode="combined").reward == 1, task.id
        record = score_trajectory(task, [list(t) for t in task.ground_truth], mode="multi_turn")
        assert record.reward == 1 and record.bfcl_valid, (task.id, record.failure_reason)
