"""Failure trajectories: labels are the real score_trajectory reward; failure modes by rule."""

from __future__ import annotations

import random

import pytest

from rcgrpo.env import Episode, score_trajectory
from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import ScriptedPolicy, StepView, format_calls
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer
from rcgrpo.train.failure_modes import FAILURE_MODES, call_name, classify_failure, failure_mix
from rcgrpo.train.stage1.trajectories import expert_script, from_rollout

ENGINE = dict(prompt_style="compact", max_context=100_000, max_new_tokens=100_000)


@pytest.fixture(scope="module")
def tasks():
    return generate_synth_tasks(120, "train", seed=5, config=SYNTH_PRESETS["tiny"])


@pytest.fixture(scope="module")
def encoder(tasks):
    return ChatEncoder(train_tiny_tokenizer(task_corpus(tasks), vocab_size=400))


def _first(tasks, pred):
    return next(t for t in tasks if pred(t))


def _families(task):
    return [f for turn in task.meta["families"] for f in turn]


def _run(encoder, task, script, mode="multi_turn", **opts):
    engine = RolloutEngine(
        ScriptedPolicy(encoder, script), encoder, Episode, mode, **(ENGINE | opts)
    )
    rollout = engine.run([RolloutJob(task)])[0]
    return rollout, from_rollout(task, rollout, mode, "rollout")


def _rescored(task, traj, mode="multi_turn"):
    calls = [list(turn) for turn in traj.calls_per_turn]
    return score_trajectory(task, calls, mode, truncated=traj.truncated).reward


def _gt_then(view: StepView, calls: list[str]) -> str:
    """Reply ``calls`` at a turn's first step, then end the turn."""
    return format_calls(calls) if view.step_in_turn == 0 and calls else "Done."


def _corrupt(call: str) -> str:
    return call.replace("='", "='q", 1)  # first string value gets a leading 'q'


SCRIPTS = {
    # name -> (task predicate, script)
    "wrong_argument": (
        lambda t: "='" in t.ground_truth[0][0],
        lambda v: _gt_then(v, [_corrupt(c) for c in v.task.ground_truth[v.turn_index]]),
    ),
    "wrong_tool": (
        lambda t: len(t.function_docs) > len({call_name(c) for g in t.ground_truth for c in g}),
        lambda v: _gt_then(v, [f"{_distractor(v.task)}()"]),
    ),
    "parse_error": (lambda t: True, lambda v: _gt_then(v, ["[oops(a='"])),
    "early_stop": (lambda t: True, lambda v: "Done."),
    "missing_call": (
        lambda t: len({call_name(c) for c in t.ground_truth[0]}) == 2,
        lambda v: _gt_then(v, list(v.task.ground_truth[v.turn_index][:1])),
    ),
    "extra_call": (
        lambda t: _families(t)[0] in ("tw_post", "tk_create", "msg_send"),
        lambda v: _gt_then(v, list(v.task.ground_truth[v.turn_index]) * 2),
    ),
}


def _distractor(task):
    used = {call_name(c) for g in task.ground_truth for c in g}
    return next(d["name"] for d in task.function_docs if d["name"] not in used)


@pytest.mark.parametrize("mode_name", sorted(SCRIPTS))
def test_scripted_failures_are_labelled_by_the_real_reward_and_classified(
    tasks, encoder, mode_name
):
    pred, script = SCRIPTS[mode_name]
    task = _first(tasks, pred)
    rollout, traj = _run(encoder, task, script)
    assert traj.reward == 0 == _rescored(task, traj)
    assert traj.failure_mode == mode_name, (task.ground_truth, traj.calls_per_turn)


def test_truncated_failure(tasks, encoder):
    task = tasks[0]
    prompt = len(encoder.prompt_ids([{"role": "user", "content": "x"}]))
    _, traj = _run(encoder, task, expert_script, max_context=prompt + 60)
    assert traj.truncated and traj.reward == 0 and traj.failure_mode == "truncated"


def test_expert_success_has_no_failure_mode_and_classify_refuses_it(tasks, encoder):
    rollout, traj = _run(encoder, tasks[0], expert_script)
    assert traj.reward == 1 and traj.failure_mode is None
    with pytest.raises(ValueError, match="reward 1"):
        classify_failure(tasks[0], rollout, "multi_turn")


@pytest.mark.parametrize("mode", ["multi_turn", "combined"])
def test_labels_equal_an_independent_score_trajectory(tasks, encoder, mode):
    # A noisy scripted policy: per step, ground truth, a corrupted call, a dropped call or a
    # premature stop, drawn from a seeded RNG. Every label must equal a fresh re-scoring.
    rng = random.Random(0)

    def noisy(view: StepView) -> str:
        reply = expert_script(view)
        if not reply.startswith("["):
            return reply
        return rng.choice([reply, reply, _corrupt(reply), reply.split("), ")[0] + ")]", "Done."])

    engine = RolloutEngine(ScriptedPolicy(encoder, noisy), encoder, Episode, mode, **ENGINE)
    batch = tasks[:40]
    trajs = [
        from_rollout(t, r, mode, "rollout")
        for t, r in zip(batch, engine.run([RolloutJob(t) for t in batch]), strict=True)
    ]
    labels = [t.reward for t in trajs]
    assert 0 < sum(labels) < len(labels)  # both kinds occur
    for task, traj in zip(batch, trajs, strict=True):
        assert traj.reward == _rescored(task, traj, mode)
        assert (traj.failure_mode is None) == (traj.reward == 1)
        assert traj.failure_mode is None or traj.failure_mode in FAILURE_MODES


def test_failure_mix_fractions():
    mix = failure_mix(["wrong_tool", "wrong_tool", "early_stop", None])
    assert mix["wrong_tool"] == pytest.approx(2 / 3) and mix["early_stop"] == pytest.approx(1 / 3)
    assert set(mix) == set(FAILURE_MODES) and sum(mix.values()) == pytest.approx(1.0)
    assert failure_mix([None]) == dict.fromkeys(FAILURE_MODES, 0.0)
