"""R = R_state * R_action (paper §2) and bfcl_valid: worked example and perturbation suite."""

from __future__ import annotations

import json

import pytest

from rcgrpo.env import RewardRecord, load_bfcl_tasks, score_trajectory
from rcgrpo.env.decode import Call
from rcgrpo.env.matching import match_actions, signature_defaults
from rcgrpo.env.reward import unavailable_calls
from tests.worked_example import MV, RM, WORKED

pytestmark = pytest.mark.bfcl

# ---------------------------------------------------------------------------------------
# The paper's worked example (§2): gold = mv(report.csv -> archive), rm(temp.log).
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "state", "action", "bfcl_valid"),
    [
        ([RM, MV], 1, 1, True),  # order-insensitive: rm then mv -> 1
        ([MV, RM, "touch(file_name='temp.log')"], 0, 1, False),  # R_action 1, R_state 0 -> 0
        ([MV], 0, 0, False),  # only mv -> 0
    ],
)
def test_paper_worked_example(calls, state, action, bfcl_valid):
    record = score_trajectory(WORKED, [calls])
    assert (record.state, record.action, record.reward) == (state, action, state * action)
    assert record.bfcl_valid is bfcl_valid
    assert record.num_calls == len(calls)


def test_failure_reasons_name_the_first_cause():
    assert score_trajectory(WORKED, [[RM, MV]]).failure_reason is None
    extra = score_trajectory(WORKED, [[MV, RM, "touch(file_name='temp.log')"]])
    assert extra.failure_reason.startswith("state: Model instance for GorillaFileSystem")
    assert "root" in extra.failure_reason
    assert extra.bfcl_error.startswith("turn 0: multi_turn:instance_state_mismatch")
    only_mv = score_trajectory(WORKED, [[MV]])
    assert only_mv.unmatched == (RM,)
    assert score_trajectory(WORKED, [[]]).failure_reason.startswith("state:")


def test_record_fields_and_dict():
    record = score_trajectory(WORKED, [[MV, RM]])
    assert isinstance(record, RewardRecord)
    assert json.loads(json.dumps(record.to_dict()))["per_turn"] == [
        {
            "turn": 0,
            "num_calls": 2,
            "num_gt_calls": 2,
            "checked": True,
            "valid": True,
            "error_type": None,
            "num_unavailable": 0,
        }
    ]


def test_extra_arguments_are_allowed_and_omitted_defaults_count():
    # GT argument missing from the model's call but equal to the signature default: matched
    gt = [Call("ls", {"a": False}, "ls(a=False)")]
    assert match_actions(gt, [Call("ls", {}, "ls()")]) == [0]  # no signature known: unmatched
    from rcgrpo.env.executor import InstanceFactory, Sandbox

    sandbox = Sandbox(InstanceFactory(("GorillaFileSystem",), {}, False).fresh())

    def defaults_of(name):
        return signature_defaults(type(sandbox.owner_instance(name)), name)

    assert defaults_of("ls") == {"a": False}
    assert match_actions(gt, [Call("ls", {}, "ls()")], defaults_of) == []
    # extra arguments beyond the ground truth's are allowed
    assert match_actions([Call("ls", {}, "ls()")], [Call("ls", {"a": True}, "ls(a=True)")]) == []


def test_matching_is_one_to_one_and_maximum():
    a1 = Call("f", {"x": 1}, "f(x=1)")
    a_any = Call("f", {}, "f()")
    # a repeated ground-truth call needs as many executed calls
    assert match_actions([a1, a1], [a1]) == [1]
    assert match_actions([a1, a1], [a1, a1]) == []
    # greedy would give f(x=1) to f() first and leave f(x=1) unmatched; maximum matching does not
    assert match_actions([a_any, a1], [a1, Call("f", {"x": 2}, "f(x=2)")]) == []


# ---------------------------------------------------------------------------------------
# Perturbation suite on real BFCL tasks: expected outcome under R and under bfcl_valid.
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base():
    return {t.id: t for t in load_bfcl_tasks(["base"])}


def _gt(task):
    return [list(turn) for turn in task.ground_truth]


def wrong_value(c):
    c[1][1] = "grep(file_name='final_report.pdf',pattern='revenue')"


def different_value_same_result(c):
    c[1][1] = "grep(file_name='final_report.pdf',pattern='budget')"  # same matching line


def wrong_function(c):
    c[2][0] = "cat(file_name='final_report.pdf')"


def dropped_read_only_call(c):
    del c[1][1]  # the grep


def dropped_state_changing_call(c):
    del c[0][1]  # mkdir(dir_name='temp')


def extra_state_changing_call(c):
    c[3].append("touch(file_name='notes.txt')")


def extra_read_only_call(c):
    c[1].append("ls(a=True)")


def truncated_last_turn(c):
    del c[-1]


def work_done_a_turn_early(c):
    c[1].append(c[2].pop())  # sort in turn 1, nothing left for turn 2


def transient_state_across_turns(c):
    c[1].append("touch(file_name='scratch.txt')")  # cwd is temp after turn 1's cd
    c[2].insert(0, "rm(file_name='scratch.txt')")


# (perturbation, task, R, bfcl_valid) -- see the README table for the reading of each row
PERTURBATIONS = [
    (wrong_value, "multi_turn_base_0", 0, False),
    (different_value_same_result, "multi_turn_base_0", 0, True),
    (wrong_function, "multi_turn_base_0", 0, False),
    (dropped_read_only_call, "multi_turn_base_0", 0, False),
    (dropped_state_changing_call, "multi_turn_base_0", 0, False),
    (extra_state_changing_call, "multi_turn_base_0", 0, False),
    (extra_read_only_call, "multi_turn_base_0", 1, True),
    (truncated_last_turn, "multi_turn_base_0", 0, False),
    (work_done_a_turn_early, "multi_turn_base_0", 1, False),
    (transient_state_across_turns, "multi_turn_base_0", 1, False),
]


def swapped_commutative_calls(c):
    c[1][0], c[1][1] = c[1][1], c[1][0]  # cat / sort of the same file: independent


def extra_optional_argument(c):
    c[1][-1] = "tail(file_name='file3.txt', lines=1)"  # GT tail(file_name='file3.txt')


def int_given_as_float(c):
    c[0][-1] = c[0][-1].replace("lines=1", "lines=1.0")  # tail() then fails on a float slice


PERTURBATIONS += [
    (swapped_commutative_calls, "multi_turn_base_5", 1, True),
    (extra_optional_argument, "multi_turn_base_49", 1, False),
    (int_given_as_float, "multi_turn_base_13", 1, False),
]


@pytest.mark.parametrize(("perturb", "task_id", "reward", "bfcl_valid"), PERTURBATIONS)
def test_perturbation_suite(base, perturb, task_id, reward, bfcl_valid):
    task = base[task_id]
    calls = _gt(task)
    perturb(calls)
    assert calls != _gt(task)
    record = score_trajectory(task, calls)
    assert (record.reward, record.bfcl_valid) == (reward, bfcl_valid), record
    assert record.truncated is (perturb is truncated_last_turn)


def test_combined_mode_checks_only_the_end(base):
    """Work done a turn early fails BFCL's per-turn rule but not the merged single turn."""
    task = base["multi_turn_base_0"]
    calls = _gt(task)
    work_done_a_turn_early(calls)
    merged = [[c for turn in calls for c in turn]]
    record = score_trajectory(task, merged, mode="combined")
    assert (record.reward, record.bfcl_valid, len(record.per_turn)) == (1, True, 1)
    assert record.per_turn[0].num_gt_calls == sum(len(t) for t in task.ground_truth)
    assert score_trajectory(task, [[]], mode="combined").bfcl_error.startswith(
        "turn 0: multi_turn:empty_turn_model_response"
    )


def test_done_and_rejected_strings_are_not_executed(base):
    task = base["multi_turn_base_0"]
    calls = [[c for turn in task.ground_truth for c in turn] + ["done()", "__import__('os')"]]
    record = score_trajectory(task, calls, mode="combined")
    assert record.reward == 1 and record.num_calls == sum(len(t) for t in task.ground_truth)


def test_calls_per_turn_is_validated(base):
    task = base["multi_turn_base_0"]
    with pytest.raises(ValueError, match="calls_per_turn has 5 turns"):
        score_trajectory(task, [[]] * 5)
    with pytest.raises(ValueError, match="list of lists of str"):
        score_trajectory(task, ["ls()"])
    with pytest.raises(ValueError, match="mode"):
        score_trajectory(task, [], mode="single")


# ---------------------------------------------------------------------------------------
# Calls of functions the turn does not offer: BFCL counts them as the turn's call.
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("[ls()]", ["ls"]),
        ("ls(a=True)", ["ls"]),
        ("[get_watchlist(), ls(), pwd()]", ["ls", "pwd"]),  # the offered call is not listed
        ("[get_watchlist()]", []),  # accepted: nothing unavailable
        ("[ls(1)]", []),  # also a positional argument: rejected for another reason
        ("[ls(a=x)]", []),  # non-literal argument
        ("[_ls()]", []),  # private names stay rejected
        ("I cannot do that.", []),  # prose
        ("[ls(", []),  # bad syntax
    ],
)
def test_unavailable_calls_are_those_of_replies_rejected_for_their_names(text, names):
    assert [c.name for c in unavailable_calls(text, {"get_watchlist"})] == names


def test_a_turns_only_call_to_an_unavailable_function_counts_for_bfcl_not_r(base):
    """multi_turn_base_114: turn 2's get_watchlist() becomes ls() (TradingBot has no ls).

    BFCL executes ls() into "name 'ls' is not defined", so turn 2 has a call; get_watchlist()
    reads the state only (state check passes) and its result, the watchlist, was already
    returned by turn 1's add_to_watchlist (response check passes): valid. R = 0: get_watchlist
    is unmatched. Without any call, turn 2 fails as an empty turn."""
    task = base["multi_turn_base_114"]
    calls = _gt(task)
    calls[2] = ["ls()"]
    record = score_trajectory(task, calls)
    assert (record.reward, record.action, record.state, record.bfcl_valid) == (0, 0, 1, True)
    assert record.unmatched == ("get_watchlist()",) and record.num_calls == 4
    assert (record.per_turn[2].num_calls, record.per_turn[2].num_unavailable) == (0, 1)
    calls[2] = []
    empty = score_trajectory(task, calls)
    assert (empty.reward, empty.bfcl_valid) == (0, False)
    assert empty.bfcl_error.startswith("turn 2: multi_turn:empty_turn_model_response")
    calls[4] = ["ls()"]  # view_messages_sent() replaced: its result was never seen
    calls[2] = ["get_watchlist()"]
    late = score_trajectory(task, calls)
    assert late.bfcl_error.startswith("turn 4: multi_turn:execution_response_mismatch")
