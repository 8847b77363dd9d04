"""The safe executor against BFCL's official one, and the ground truth against the reward.

Reference: ``bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils
.execute_multi_turn_func_call`` — it ``eval``s call strings and caches instances in module
globals, so it runs once, in a subprocess with its own cwd and ``BFCL_PROJECT_ROOT``, on
the ground truth exactly as shipped (160 calls still positional). Our side runs the
keyword-form ground truth through :class:`rcgrpo.env.executor.Sandbox` on fresh instances.
Every observation string must be byte-identical and every final public state equal.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap

import pytest

from rcgrpo.env import Episode, load_bfcl_tasks, score_trajectory
from rcgrpo.env.ground_truth import ground_truth_run

pytestmark = pytest.mark.bfcl

OFFICIAL = textwrap.dedent(
    """
    import json, pickle, sys
    from pathlib import Path
    import bfcl_eval
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
        execute_multi_turn_func_call,
    )

    data = Path(bfcl_eval.__file__).parent / "data"
    out = {}
    for category in ("base", "long_context", "miss_func", "miss_param"):
        name = f"BFCL_v4_multi_turn_{category}.json"
        entries = [json.loads(l) for l in (data / name).read_text().splitlines() if l]
        answers = [json.loads(l) for l in (data / "possible_answer" / name).read_text().splitlines() if l]
        truth = {a["id"]: a["ground_truth"] for a in answers}
        for entry in entries:
            results = []
            for turn in truth[entry["id"]]:
                res, instances = execute_multi_turn_func_call(
                    turn, entry["initial_config"], entry["involved_classes"], "official",
                    entry["id"], long_context=category == "long_context", is_evaL_run=True,
                )
                results.append(res)
            state = {
                cls: {k: v for k, v in vars(inst).items() if not k.startswith("_")}
                for cls, inst in instances.items()
            }
            out[entry["id"]] = (results, state)
    Path(sys.argv[1]).write_bytes(pickle.dumps(out))
    """
)


@pytest.fixture(scope="module")
def tasks():
    return load_bfcl_tasks()


@pytest.fixture(scope="module")
def official(tmp_path_factory):
    folder = tmp_path_factory.mktemp("official")
    env = {**os.environ, "BFCL_PROJECT_ROOT": str(folder)}
    out = folder / "official.pkl"
    subprocess.run(
        [sys.executable, "-c", OFFICIAL, str(out)], cwd=folder, env=env, check=True, timeout=300
    )
    return pickle.loads(out.read_bytes())


def _public(instances):
    return {
        cls: {k: v for k, v in vars(inst).items() if not k.startswith("_")}
        for cls, inst in instances.items()
    }


def test_safe_executor_matches_official_results_and_state(tasks, official):
    assert len(tasks) == len(official) == 800
    num_calls = 0
    for task in tasks:
        results, state = official[task.id]
        run = ground_truth_run(task)
        assert [list(r) for r in run.results] == results, task.id
        assert _public(run.final) == state, task.id
        num_calls += sum(len(r) for r in results)
    assert num_calls == 4625  # every ground-truth call of the four categories


def test_ground_truth_scores_one_on_all_800_tasks(tasks):
    for task in tasks:
        record = score_trajectory(task, [list(turn) for turn in task.ground_truth])
        assert (record.state, record.action, record.reward) == (1, 1, 1), task.id
        assert record.bfcl_valid, (task.id, record.bfcl_error)
        combined = score_trajectory(task, [[c for t in task.ground_truth for c in t]], "combined")
        assert combined.reward == 1 and combined.bfcl_valid, task.id


def test_ground_truth_replayed_through_episodes_scores_one(tasks):
    """The same through the Episode protocol: one reply per turn, then an empty reply."""
    episode = Episode()
    for task in tasks:
        episode.reset(task, mode="multi_turn")
        for calls in task.ground_truth:
            if calls:
                result = episode.step("[" + ", ".join(calls) + "]")
                assert result.info["num_calls"] == len(calls) and not result.done
            episode.step("I am done with this request.")
        assert episode.done and not episode.truncated
        assert episode.calls_per_turn == [list(t) for t in task.ground_truth], task.id
        record = episode.score()
        assert record.reward == 1 and record.bfcl_valid, task.id
