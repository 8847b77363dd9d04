"""Failure kinds and decisions of the regime diagnostic (analysis/diagnostics/regime/kinds.py) on
hand-made rollouts: scripted replies run through the real engine and environment."""

from __future__ import annotations

import pytest

from analysis.diagnostics.regime.kinds import (
    KINDS,
    Decision,
    failure_kind,
    is_extension_slip,
    offered_functions,
    request_tokens,
)
from rcgrpo.env import Episode
from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import ScriptedPolicy
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer

MODE = "combined"


def _task(families, calls):
    return generate_synth_tasks(
        1,
        "train",
        0,
        SYNTH_PRESETS["tiny"],
        families=families,
        turns=(1, 1),
        calls_per_turn=(calls, calls),
    )[0]


@pytest.fixture(scope="module")
def tasks():
    copy = _task(("fs_copy",), 1)
    # 'Duplicate lipupi.csv as biza52.txt.', offered cp and rmdir
    assert copy.ground_truth == (("cp(source='lipupi.csv', destination='biza52.txt')",),)
    post = _task(("tw_post",), 1)
    assert post.ground_truth == (("post_tweet(content='lomi bama')",),)
    two = _task(("fs_copy", "fs_touch"), 2)
    assert two.ground_truth[0][1] == "cp(source='vubonu60.csv', destination='vuki36.json')"
    return {"copy": copy, "post": post, "two": two}


@pytest.fixture(scope="module")
def run(tasks):
    encoder = ChatEncoder(train_tiny_tokenizer(task_corpus(list(tasks.values())), 400))

    def _run(task, reply: str):
        script = ScriptedPolicy(encoder, lambda v: reply if v.step_in_turn == 0 else "Done.")
        engine = RolloutEngine(
            script, encoder, Episode, MODE, max_context=100_000, max_new_tokens=100_000
        )
        return engine.run([RolloutJob(task)])[0]

    return _run


CP = "cp(source='{}', destination='biza52.txt')"


def test_counts_of_options(tasks):
    assert offered_functions(tasks["copy"], MODE) == 2  # cp, rmdir
    # Duplicate | lipupi.csv | as | biza52.txt (final full stop dropped)
    assert request_tokens(tasks["copy"]) == 4
    assert is_extension_slip("a.txt", "a.md") and not is_extension_slip("a.txt", "b.md")
    assert not is_extension_slip("a.txt", "a.txt") and not is_extension_slip("dunu", "dunu.md")
    assert KINDS.index("wrong_extension") == KINDS.index("wrong_argument") + 1


def test_wrong_extension_decision(tasks, run):
    task = tasks["copy"]
    greedy = run(task, f"[{CP.format('lipupi.md')}]")
    assert failure_kind(task, greedy, MODE) == "wrong_extension"
    d = Decision(task, greedy, "wrong_extension", MODE)
    assert d.key == "source" and d.chance == pytest.approx(1 / 6)
    assert d.right(run(task, f"[{CP.format('lipupi.csv')}]"))  # the success
    assert d.right(run(task, f"[{CP.format('lipupu.csv')}]"))  # right extension, stem slip
    assert not d.right(run(task, f"[{CP.format('lipupi.log')}]"))
    assert failure_kind(task, run(task, f"[{CP.format('lipupi.csv')}]"), MODE) is None


def test_wrong_argument_decision(tasks, run):
    task = tasks["copy"]
    greedy = run(task, f"[{CP.format('qlipupi.csv')}]")
    assert failure_kind(task, greedy, MODE) == "wrong_argument"
    d = Decision(task, greedy, "wrong_argument", MODE)
    assert d.key == "source" and d.chance == pytest.approx(1 / 4)  # W = 4 tokens
    # the source right, the destination wrong: this decision is right, the task is not
    sample = run(task, "[cp(source='lipupi.csv', destination='biza.txt')]")
    assert sample.reward == 0 and d.right(sample)
    assert not d.right(run(task, f"[{CP.format('lipupu.csv')}]"))


def test_wrong_tool_early_stop_and_parse_error(tasks, run):
    task = tasks["copy"]
    greedy = run(task, "[rmdir(dir_name='biza52')]")
    assert failure_kind(task, greedy, MODE) == "wrong_tool"
    d = Decision(task, greedy, "wrong_tool", MODE)
    assert d.chance == pytest.approx(1 / 2)  # 1 / F
    assert d.right(run(task, f"[{CP.format('x.csv')}]"))  # calls cp, whatever the arguments
    assert not d.right(run(task, "Done."))
    greedy = run(task, "Done.")
    assert failure_kind(task, greedy, MODE) == "early_stop"
    d = Decision(task, greedy, "early_stop", MODE)
    assert d.chance == pytest.approx(1 / 3)  # 1 / (F + 1): cp, rmdir or stop
    assert d.right(run(task, f"[{CP.format('x.csv')}]")) and not d.right(greedy)
    greedy = run(task, "[cp(source='")
    assert failure_kind(task, greedy, MODE) == "parse_error"
    d = Decision(task, greedy, "parse_error", MODE)
    assert d.chance is None
    assert d.right(run(task, f"[{CP.format('x.csv')}]")) and not d.right(greedy)


def test_missing_and_extra_call(tasks, run):
    task = tasks["two"]
    first, second = task.ground_truth[0]
    greedy = run(task, f"[{first}]")
    assert failure_kind(task, greedy, MODE) == "missing_call"
    d = Decision(task, greedy, "missing_call", MODE)
    assert d.chance == pytest.approx(1 / (offered_functions(task, MODE) + 1))
    assert d.right(run(task, f"[{first}, {second}]"))  # cp twice, as the ground truth
    assert not d.right(run(task, f"[{second}]"))  # one cp: still one short
    task = tasks["post"]
    greedy = run(task, "[post_tweet(content='lomi bama'), post_tweet(content='lomi bama')]")
    assert failure_kind(task, greedy, MODE) == "extra_call"
    d = Decision(task, greedy, "extra_call", MODE)
    assert d.chance == pytest.approx(1 / 3)  # post_tweet, get_user_tweets or stop
    assert d.right(run(task, "[post_tweet(content='lomi')]"))  # stops after one call
    assert not d.right(greedy)
