"""Episode protocol: messages, turn/step rules, miss_func reveals, combined mode."""

from __future__ import annotations

import pytest

from rcgrpo.env import Episode, load_bfcl_tasks, score_trajectory
from rcgrpo.env.bfcl import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING as REVEAL
from rcgrpo.env.executor import ERROR_PREFIX
from rcgrpo.env.ground_truth import ground_truth_run
from rcgrpo.env.turns import COMBINED_SUFFIX, DONE_DOC

pytestmark = pytest.mark.bfcl


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_bfcl_tasks()}


@pytest.fixture
def base0(tasks):
    return tasks["multi_turn_base_0"]


def test_reset_gives_the_first_user_turn_and_the_offered_docs(base0):
    ep = Episode()
    messages = ep.reset(base0)
    assert messages == [dict(base0.turns[0][0])] and messages[0] is not base0.turns[0][0]
    assert ep.available_functions == list(base0.function_docs)
    assert (ep.turn_index, ep.done, ep.num_steps, ep.calls_per_turn) == (0, False, 0, [[]])


def test_calls_then_empty_reply_walk_the_turns(base0):
    ep = Episode()
    ep.reset(base0)
    gt = ground_truth_run(base0)
    res = ep.step("[" + ", ".join(base0.ground_truth[0]) + "]")
    assert res.messages == [{"role": "tool", "content": r} for r in gt.results[0]]
    assert not res.done and res.info["num_calls"] == 3 and res.info["kind"] == "calls"
    res = ep.step("Done: the file is in temp.")  # prose -> no calls -> next turn
    assert res.messages == [dict(base0.turns[1][0])] and res.info["turn_ended"]
    assert ep.turn_index == 1 and ep.calls_per_turn == [list(base0.ground_truth[0]), []]
    for _ in range(base0.num_turns - 1):
        res = ep.step("")
    assert res.done and res.messages == [] and ep.done and not ep.truncated
    assert ep.num_steps == 1 + base0.num_turns


def test_rejected_reply_is_one_error_observation_and_a_step(base0):
    ep = Episode()
    ep.reset(base0)
    res = ep.step("[__import__(name='os'), ls()]")
    assert len(res.messages) == 1 and res.messages[0]["role"] == "tool"
    assert res.messages[0]["content"].startswith(ERROR_PREFIX + "call 1: private or dunder")
    assert not res.done and not res.info["turn_ended"] and ep.turn_index == 0
    assert (ep.num_steps, ep.num_tool_errors, ep.calls_per_turn) == (1, 1, [[]])
    strict = Episode(strict_decode=True)
    strict.reset(base0)
    res = strict.step("[ls(]")
    assert res.messages[0]["content"].startswith(ERROR_PREFIX + "could not parse")
    assert res.messages[1:] == [dict(base0.turns[1][0])] and strict.turn_index == 1


def test_backend_errors_are_counted_and_recorded(base0):
    ep = Episode()
    ep.reset(base0)
    res = ep.step("[cd(folder='nowhere'), ls()]")
    assert res.info["num_errors"] == 1 and ep.num_tool_errors == 1
    assert ep.calls_per_turn == [["cd(folder='nowhere')", "ls()"]]  # executed, so recorded


def test_twenty_one_steps_in_a_turn_force_quit(base0):
    ep = Episode(max_steps_per_turn=20)
    ep.reset(base0)
    for _ in range(20):
        assert not ep.step("[pwd()]").done
    res = ep.step("[pwd()]")  # the 21st executing step still runs, then the episode ends
    assert res.done and res.info["force_quit"] and ep.truncated
    assert len(res.messages) == 1 and len(ep.calls_per_turn[0]) == 21
    record = ep.score()
    assert (record.reward, record.bfcl_valid, record.truncated) == (0, False, True)
    assert record.bfcl_error == "multi_turn:force_terminated"


def test_miss_func_hides_then_reveals_with_bfcl_wording(tasks):
    task = tasks["multi_turn_miss_func_0"]  # 'sort' held out until turn 3
    ep = Episode()
    ep.reset(task)
    assert "sort" not in {d["name"] for d in ep.available_functions}
    assert "not available" in ep.step("[sort(file_name='final_report.pdf')]").messages[0]["content"]
    for _ in range(3):
        res = ep.step("")
    sort_doc = next(d for d in task.function_docs if d["name"] == "sort")
    assert res.messages == [{"role": "user", "content": REVEAL.format(functions=[sort_doc])}]
    assert res.messages[0]["content"].endswith(
        "\nI have updated some more functions you can choose from. What about now?"
    )
    assert ep.turn_index == 3 and sort_doc in ep.available_functions


def test_combined_mode(base0):
    ep = Episode(max_steps_per_turn=2)
    (message,) = ep.reset(base0, mode="combined")
    lines = message["content"].split("\n")
    assert lines[0] == "Step 1: " + base0.turns[0][0]["content"]
    assert lines[-1] == COMBINED_SUFFIX and len(lines) == base0.num_turns + 1
    assert ep.available_functions[-1] == DONE_DOC and ep.step_limit == 2 * base0.num_turns
    res = ep.step("[pwd(), done()]")  # calls before done() run, then the episode ends
    assert res.done and res.info["done_called"] and len(res.messages) == 1
    assert ep.calls_per_turn == [["pwd()"]]
    ep.reset(base0, mode="combined")
    assert ep.step("[ls()]").done is False
    assert ep.step("All steps are complete.").done  # a reply without calls also ends it
    assert ep.score().truncated is False


def test_reset_reuses_the_object_with_fresh_state(base0):
    ep = Episode()
    ep.reset(base0)
    ep.step("[touch(file_name='new.txt')]")
    ep.reset(base0)
    assert "new.txt" not in ep.step("[ls()]").messages[0]["content"]
    assert ep.num_steps == 1 and ep.calls_per_turn == [["ls()"]]


def test_unfinished_episode_scores_as_truncated(base0):
    ep = Episode()
    ep.reset(base0)
    ep.step("[" + ", ".join(base0.ground_truth[0]) + "]")
    record = ep.score()
    assert record.truncated and record.reward == 0 and not record.bfcl_valid


def test_misuse_raises(base0):
    ep = Episode()
    with pytest.raises(RuntimeError, match="reset"):
        ep.step("[ls()]")
    with pytest.raises(ValueError, match="mode"):
        ep.reset(base0, mode="single")
    ep.reset(base0)
    with pytest.raises(ValueError, match="assistant_text"):
        ep.step(None)
    with pytest.raises(ValueError, match="max_steps_per_turn"):
        Episode(max_steps_per_turn=0)
    with pytest.raises(ValueError, match="call_timeout_s"):
        Episode(call_timeout_s=0)


def test_unavailable_calls_are_attempted_not_executed(tasks):
    """multi_turn_base_114, turn 2 answered with ``[get_watchlist(), ls()]`` (TradingBot has
    no ls): the reply is rejected and nothing runs, but BFCL counts ls() as the turn's call."""
    task = tasks["multi_turn_base_114"]
    ep = Episode()
    ep.reset(task)
    for turn, calls in enumerate(task.ground_truth):
        reply = "[get_watchlist(), ls()]" if turn == 2 else "[" + ", ".join(calls) + "]"
        result = ep.step(reply)
        assert result.info["kind"] == ("rejected" if turn == 2 else "calls")
        ep.step("Done.")
    assert ep.calls_per_turn[2] == [] and ep.attempted_per_turn[2] == ["ls()"]
    assert (
        ep.attempted_per_turn[:2]
        == ep.calls_per_turn[:2]
        == [list(t) for t in task.ground_truth[:2]]
    )
    record = ep.score()
    assert (record.reward, record.bfcl_valid, record.per_turn[2].num_unavailable) == (0, True, 1)
    assert record == score_trajectory(task, ep.attempted_per_turn)
    assert score_trajectory(task, ep.calls_per_turn).bfcl_valid is False  # turn 2 is empty
