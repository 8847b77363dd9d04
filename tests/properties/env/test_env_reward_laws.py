"""Laws of R_action's matching, of the reward on real tasks, and of the id-level split."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo.env import Episode, load_bfcl_tasks, score_trajectory, split_tasks
from rcgrpo.env.decode import Call
from rcgrpo.env.matching import covers, match_actions
from rcgrpo.env.tasks import scenario_id

pytestmark = pytest.mark.bfcl

calls = st.builds(
    lambda name, kwargs: Call(name, kwargs, f"{name}(...)"),
    st.sampled_from(["f", "g"]),
    st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2), max_size=2),
)


def brute_force_all_matched(gt, executed):
    """R_action = 1 iff some injective map gt -> executed covers every ground-truth call."""
    if len(gt) > len(executed):
        return False
    return any(
        all(covers(g, executed[j], {}) for g, j in zip(gt, perm, strict=True))
        for perm in itertools.permutations(range(len(executed)), len(gt))
    )


@settings(max_examples=300)
@given(gt=st.lists(calls, max_size=4), executed=st.lists(calls, max_size=5), seed=st.randoms())
@example(
    gt=[Call("f", {}, "f()"), Call("f", {"x": 1}, "f(x=1)")],
    executed=[Call("f", {"x": 1}, "f(x=1)"), Call("f", {"x": 2}, "f(x=2)")],
    seed=None,
)
def test_matching_is_maximum_order_free_and_monotone(gt, executed, seed):
    unmatched = match_actions(gt, executed)
    assert (unmatched == []) == brute_force_all_matched(gt, executed)
    shuffled = list(executed)
    if seed is not None:
        seed.shuffle(shuffled)
    assert len(match_actions(gt, shuffled)) == len(unmatched)  # order-free
    assert len(match_actions(gt, executed + [Call("f", {"x": 0}, "f(x=0)")])) <= len(unmatched)


@pytest.fixture(scope="module")
def tasks():
    return load_bfcl_tasks()


FS_TASKS = range(0, 800, 7)


@settings(max_examples=40)
@given(index=st.sampled_from(FS_TASKS), where=st.floats(0, 1))
def test_ground_truth_plus_read_only_calls_keeps_r_equal_one(tasks, index, where):
    """Extra calls that read but never write state cannot lower R (paper: extra calls allowed)."""
    task = tasks[index]
    calls_per_turn = [list(turn) for turn in task.ground_truth]
    turn = min(int(where * task.num_turns), task.num_turns - 1)
    if "GorillaFileSystem" in task.involved_classes:
        calls_per_turn[turn].append("pwd()")
    if "MathAPI" in task.involved_classes:
        calls_per_turn[turn].append("add(a=1, b=2)")
    record = score_trajectory(task, calls_per_turn)
    assert (record.state, record.action, record.reward) == (1, 1, 1)


@settings(max_examples=40)
@given(index=st.integers(0, 799), drop=st.integers(0, 10**6))
def test_dropping_a_ground_truth_call_gives_r_zero_and_replays_deterministically(
    tasks, index, drop
):
    task = tasks[index]
    flat = [(t, i) for t, turn in enumerate(task.ground_truth) for i in range(len(turn))]
    t, i = flat[drop % len(flat)]
    calls_per_turn = [list(turn) for turn in task.ground_truth]
    removed = calls_per_turn[t].pop(i)
    record = score_trajectory(task, calls_per_turn)
    # the removed call is unmatched unless an identical ground-truth call elsewhere remains;
    # by one-to-one matching it is then still one short
    assert record.action == 0 and record.reward == 0 and removed in record.unmatched
    assert score_trajectory(task, calls_per_turn) == record


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), fraction=st.floats(0.01, 0.99))
def test_split_is_a_partition_by_scenario_id(tasks, seed, fraction):
    train, test = split_tasks(tasks, test_fraction=fraction, seed=seed)
    assert len(train) + len(test) == len(tasks)
    train_ids = {scenario_id(t.id) for t in train}
    test_ids = {scenario_id(t.id) for t in test}
    assert not train_ids & test_ids
    assert len(test_ids) == round(fraction * 200) and len(test) == 4 * len(test_ids)
    assert split_tasks(tasks, test_fraction=fraction, seed=seed)[1] == test


REPLIES = [
    "",
    "Done.",
    "[pwd()]",
    "[ls(a=True)]",
    "[touch(file_name='x.txt')]",
    "[rm(file_name='x.txt')]",
    "[cd(folder='..')]",
    "[add(a=1, b=2)]",
    "[__import__(name='os')]",
    "[done()]",
    "[cd(folder=",
    "[not_a_tool(x=1)]",
    "[pwd(), not_a_tool()]",
]


@settings(max_examples=60)
@given(
    index=st.integers(0, 799),
    mode=st.sampled_from(["multi_turn", "combined"]),
    script=st.lists(st.sampled_from(REPLIES) | st.integers(0, 40), max_size=60),
)
def test_incremental_episode_score_equals_replay(tasks, index, mode, script):
    """Episode.score() (scored while running) == score_trajectory on its recorded calls
    (executed ones and those of functions a turn does not offer).

    Integers in the script mean "the ground-truth calls of turn k" (mod #turns)."""
    task = tasks[index]
    episode = Episode(max_steps_per_turn=3)
    episode.reset(task, mode=mode)
    for item in script:
        if episode.done:
            break
        if isinstance(item, int):
            turn = task.ground_truth[item % task.num_turns]
            item = "[" + ", ".join(turn) + "]"
        episode.step(item)
    done = episode.done
    record = episode.score()
    replay = score_trajectory(
        task, episode.attempted_per_turn, mode, truncated=episode.truncated or not done
    )
    assert record == replay
